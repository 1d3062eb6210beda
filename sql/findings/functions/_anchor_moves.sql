-- ledger._anchor_moves(p_detail jsonb, p_finding_id bigint DEFAULT NULL)
--   -> TABLE(finding_id bigint, evidence text, reason text, detail jsonb)
--
-- A merge's anchor record as one row per finding. The merge trigger
-- (ledger._apply_merge) writes, for the anchors a merge only moved within
-- their files (no rename, no other piece of evidence for the finding), no
-- audit row per finding but one row of the merge: finding_id NULL, action
-- anchor_moved, rule path, detail {"moves": {"<path>": {"<finding_id>":
-- [from_first, from_last, to_first, to_last]}}} (line numbers, 1-based,
-- inclusive). p_detail is that detail; for each finding named in it (only
-- p_finding_id when given: its entries are looked up, not the others read):
--   evidence  its first moved path (in text order);
--   reason    what the merge did to the lines above the anchor on that
--             path, as the finding's own anchor_moved row said it ('the
--             merge changed src/a.py away from the finding''s line 42: 10
--             lines added above, the anchor moves by +10'; the shift is
--             to - from, which differs from the hunks' sum only where
--             hunks claim more lines above the anchor than there are and
--             the anchor was kept at line 1);
--   detail    {"anchor_moves": [{"path", "from": [first, last], "to":
--             [first, last]}, ...]} in path order.
-- Rows in finding-id order; none for a detail without moves, and none
-- for an entry of another shape (a key that is not a finding id, a value
-- that is not four line numbers from 1 to 2147483647). Used by
-- ledger.read_audit, ledger.read_history and ledger._merge_audit, so that
-- every reader sees an anchor_moved row per moved finding. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._anchor_moves(p_detail jsonb, p_finding_id bigint DEFAULT NULL)
RETURNS TABLE (finding_id bigint, evidence text, reason text, detail jsonb)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT m.fid, min(m.path),
           (array_agg(format('the merge changed %s away from the finding''s %s: %s %s, the anchor moves by %s',
                             m.path,
                             CASE WHEN m.f1 = m.f2 THEN 'line ' || m.f1 ELSE 'lines ' || m.f1 || '-' || m.f2 END,
                             abs(m.t1 - m.f1),
                             CASE WHEN m.t1 > m.f1 THEN 'lines added above' ELSE 'lines removed above' END,
                             CASE WHEN m.t1 > m.f1 THEN '+' ELSE '' END || (m.t1 - m.f1))
                      ORDER BY m.path))[1],
           jsonb_build_object('anchor_moves',
                              jsonb_agg(jsonb_build_object('path', m.path,
                                                           'from', jsonb_build_array(m.f1, m.f2),
                                                           'to', jsonb_build_array(m.t1, m.t2))
                                        ORDER BY m.path))
      FROM (SELECT p.key AS path, f.key::bigint AS fid,
                   (f.value ->> 0)::bigint AS f1, (f.value ->> 1)::bigint AS f2,
                   (f.value ->> 2)::bigint AS t1, (f.value ->> 3)::bigint AS t2
              FROM jsonb_each(CASE WHEN jsonb_typeof(p_detail -> 'moves') = 'object' THEN p_detail -> 'moves' END) AS p,
                   LATERAL (SELECT e.key, e.value
                              FROM jsonb_each(CASE WHEN jsonb_typeof(p.value) = 'object' THEN p.value END) AS e
                             WHERE p_finding_id IS NULL
                            UNION ALL
                            SELECT p_finding_id::text, p.value -> p_finding_id::text
                             WHERE p_finding_id IS NOT NULL AND jsonb_typeof(p.value) = 'object'
                               AND p.value ? p_finding_id::text) AS f
             -- only entries of the record's shape: a finding id and four line numbers
             WHERE f.key ~ '^[0-9]{1,18}$' AND jsonb_typeof(f.value) = 'array' AND jsonb_array_length(f.value) = 4
               AND jsonb_path_exists(f.value, '$[*] ? (@.type() != "number" || @ < 1 || @ > 2147483647 || @.floor() != @)')
                   IS FALSE) AS m
     GROUP BY m.fid
     ORDER BY m.fid
$$;

COMMENT ON FUNCTION ledger._anchor_moves(jsonb, bigint) IS
'A merge''s anchor record (the audit row finding_id NULL, action anchor_moved, detail {"moves": {"<path>": {"<finding_id>": [from_first, from_last, to_first, to_last]}}}) as one row per finding (only finding_id when given): (detail jsonb, finding_id bigint DEFAULT NULL) -> TABLE(finding_id, evidence: first moved path, reason: on that path, the lines added or removed above and the shift, detail {"anchor_moves": [{path, from, to}]}), in finding-id order; entries of another shape give no row. Raises nothing.';
