CREATE OR REPLACE FUNCTION ledger._match_changes(
    p_scope text, p_paths text[], p_added text[], p_deleted text[], p_hunks jsonb, p_context integer)
RETURNS TABLE (finding_id bigint, finding_path text, touched_path text, verdict text, form text, reason text,
               anchor_from jsonb, anchor_to jsonb, to_path text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
-- one generic plan per statement for the session: custom plans, whose
-- estimates know the arrays' sizes, look cheaper, so the plan cache would
-- plan the statements again on every call (3 ms); every statement here is
-- index probes by arrays and work on the merge's own rows, whatever they hold
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
DECLARE
    -- the keys in a variable, a parameter of the query: computed once (a call
    -- in the query runs for every row a sequential scan of a small
    -- finding_path reads)
    v_keys text[] := ledger._path_keys(p_paths);
    -- the hunks as a value of their own: a merge row's hunks arrive compressed
    -- (or stored out of line), and every -> and ? on them would decompress
    -- the whole document again, once per (finding, path) pair
    v_hunks jsonb := CASE WHEN jsonb_typeof(p_hunks) = 'object' THEN p_hunks || '{}'::jsonb ELSE p_hunks END;
    -- the files with many hunks, well formed and in order, and their hunks
    -- as arrays: file i's hunks are the elements v_start[i] .. v_start[i] +
    -- v_count[i] - 1 of v_os, v_oc, v_ns, v_nc (old start and count, new
    -- start and count), v_e (the last old line, a + max(b, 1) - 1) and v_ps
    -- (the running sum of d - b within the file)
    v_files text[];
    v_start integer[];
    v_count integer[];
    v_whole boolean[];
    v_os    bigint[];
    v_oc    bigint[];
    v_ns    bigint[];
    v_nc    bigint[];
    v_e     bigint[];
    v_ps    numeric[];  -- sum(bigint) is numeric, as the linear scan's shift
BEGIN
    -- the anchored files with 8 hunks or more, in order and with no number
    -- missing, as arrays (only a document with a file of 8 hunks or more is
    -- looked at: the jsonpath test runs without a query)
    IF jsonb_typeof(v_hunks) = 'object' AND pg_column_size(v_hunks) > 256
       AND coalesce(jsonb_path_exists(v_hunks, 'strict $.* ? (@.type() == "array" && @.size() >= 8)', '{}', true),
                    true) THEN
        WITH candidates AS (
            SELECT e.key AS path
              FROM jsonb_each(v_hunks) AS e
             WHERE jsonb_typeof(e.value) = 'array' AND jsonb_array_length(e.value) >= 8
               -- an active finding of the scope anchored on it (expects change)
               AND EXISTS (SELECT 1 FROM ledger.finding_path fp
                            CROSS JOIN LATERAL (SELECT f.expects, f.anchors FROM ledger.finding f
                                                 WHERE f.id = fp.finding_id AND f.superseded_at IS NULL OFFSET 0) AS c
                            WHERE fp.scope = p_scope AND fp.path = e.key
                              AND c.expects = 'change' AND c.anchors -> e.key IS NOT NULL)
        ), running AS (
            SELECT y.*, sum(y.nc - y.oc) OVER w AS ps, lag(y.os) OVER w AS prev_os, lag(y.e) OVER w AS prev_e
              FROM (SELECT x.*, x.os + greatest(x.oc, 1) - 1 AS e
                      FROM (SELECT c.path, h.o, -- bigint: line numbers go up to 2147483647
                                   (h.x ->> 0)::bigint AS os, (h.x ->> 1)::bigint AS oc,
                                   (h.x ->> 2)::bigint AS ns, (h.x ->> 3)::bigint AS nc
                              FROM candidates c, jsonb_array_elements(v_hunks -> c.path) WITH ORDINALITY AS h(x, o)) AS x) AS y
            WINDOW w AS (PARTITION BY y.path ORDER BY y.o ROWS UNBOUNDED PRECEDING)
        ), files AS (
            SELECT r.path, count(*) AS n, bool_and(r.nc = 0) AND min(r.os) = 1 AS whole
              FROM running r
             GROUP BY r.path
            HAVING bool_and(r.os IS NOT NULL AND r.oc IS NOT NULL AND r.ns IS NOT NULL AND r.nc IS NOT NULL
                            AND coalesce(r.os >= r.prev_os AND r.e >= r.prev_e, true))
        ), starts AS (
            SELECT f.*, row_number() OVER (ORDER BY f.path) AS fi,
                   (sum(f.n) OVER (ORDER BY f.path) - f.n + 1)::integer AS s
              FROM files f
        )
        SELECT (SELECT array_agg(st.path ORDER BY st.fi) FROM starts st),
               (SELECT array_agg(st.s ORDER BY st.fi) FROM starts st),
               (SELECT array_agg(st.n::integer ORDER BY st.fi) FROM starts st),
               (SELECT array_agg(st.whole ORDER BY st.fi) FROM starts st),
               array_agg(r.os ORDER BY st.fi, r.o), array_agg(r.oc ORDER BY st.fi, r.o),
               array_agg(r.ns ORDER BY st.fi, r.o), array_agg(r.nc ORDER BY st.fi, r.o),
               array_agg(r.e ORDER BY st.fi, r.o), array_agg(r.ps ORDER BY st.fi, r.o)
          INTO v_files, v_start, v_count, v_whole, v_os, v_oc, v_ns, v_nc, v_e, v_ps
          FROM running r JOIN starts st ON st.path = r.path;
    END IF;
    RETURN QUERY
    WITH hits AS (
        -- the keys joined to the scope's finding paths: a btree probe of
        -- finding_path_pkey per key, or, in a scope with few paths, one pass
        -- over them with the keys hashed (= ANY (v_keys) would compare every
        -- path of the scope with every key)
        SELECT fp.finding_id, fp.path
        FROM unnest(v_keys) AS k(key)
        JOIN ledger.finding_path fp ON fp.scope = p_scope AND fp.path = k.key
    ), keys AS (
        -- each hit's key with the touched paths it stands for: the path itself
        -- (an equality join), or a directory key (trailing '/') that prefixes it
        -- (only the directory keys are compared with every touched path)
        SELECT h.path AS key, t.path AS touched
        FROM (SELECT DISTINCT hits.path FROM hits) AS h
        JOIN unnest(p_paths) AS t(path) ON t.path = h.path
        UNION
        SELECT h.path, t.path
        FROM (SELECT DISTINCT hits.path FROM hits WHERE right(hits.path, 1) = '/') AS h, unnest(p_paths) AS t(path)
        WHERE starts_with(t.path, h.path)
    ), added AS (
        SELECT DISTINCT x.path FROM unnest(p_added) AS x(path)
    ), added_names AS (
        -- the added paths with their file names, for the rename test below
        -- (read only when a pair's anchored file was deleted: the names are
        -- taken once per call, not once per such pair and added path)
        SELECT a.path, substring(a.path FROM '[^/]*$') AS name FROM added a
    ), deleted AS (
        SELECT DISTINCT x.path FROM unnest(p_deleted) AS x(path)
    ), pairs AS (
        SELECT c.id, c.expects, c.anchors -> h.path AS anchor, h.path AS fpath, keys.touched,
               ka.is_added, kd.is_deleted
        -- each hit joined to its finding by a primary-key probe (a hit is one
        -- (path, finding) pair: no finding twice for one path)
        FROM hits h
        JOIN ledger.finding c ON c.id = h.finding_id AND c.superseded_at IS NULL
        JOIN keys ON keys.key = h.path
        -- in LATERALs, not in the select list: per_path reads each flag
        -- several times, and every read would be a subplan of its own; IN an
        -- uncorrelated list is a hashed subplan, the list hashed once per
        -- call, so a pair's flag is a hash probe, not a scan of the list
        -- (coalesce: the same false as EXISTS where IN would be NULL)
        CROSS JOIN LATERAL (SELECT coalesce(keys.touched IN (SELECT a.path FROM added a), false) AS is_added) AS ka
        CROSS JOIN LATERAL (SELECT coalesce(keys.touched IN (SELECT d.path FROM deleted d), false) AS is_deleted) AS kd
    ), per_path AS (
        SELECT p.id, p.fpath, min(p.expects) AS expects, (array_agg(p.anchor))[1] AS anchor,
               min(p.touched) AS touched,
               min(p.touched) FILTER (WHERE p.is_added AND NOT p.is_deleted) AS touched_added,
               min(p.touched) FILTER (WHERE p.is_deleted AND NOT p.is_added) AS touched_deleted,
               min(p.touched) FILTER (WHERE p.is_deleted) AS touched_deleted_any,
               bool_or(p.is_added) AS any_added
        FROM pairs p
        GROUP BY p.id, p.fpath
    ), facts AS (
        SELECT pp.*,
               CASE WHEN lf.fi IS NOT NULL THEN lf.hit ELSE l.hit END AS hit,
               CASE WHEN lf.fi IS NOT NULL THEN lf.shift ELSE l.shift END AS shift,
               g.gone_as,
               pp.expects = 'change' AND pp.anchor IS NOT NULL AND v_hunks ? pp.fpath AS by_lines,
               -- hunks that leave the anchored lines alone (an empty list says nothing of them)
               pp.expects = 'change' AND pp.anchor IS NOT NULL
                   AND CASE WHEN lf.fi IS NOT NULL THEN lf.hit ELSE l.hit END IS NULL
                   AND jsonb_array_length(v_hunks -> pp.fpath) > 0 AS keeps_lines,
               -- the hunks only delete, from line 1: the whole file, as a diff of a deletion shows it
               coalesce(CASE WHEN lf.fi IS NOT NULL THEN v_whole[lf.fi] ELSE l.whole_file END, false) AS whole_file,
               rn.renamed_to,
               CASE WHEN pp.anchor IS NULL THEN NULL
                    WHEN pp.anchor ->> 0 = pp.anchor ->> 1 THEN 'line ' || (pp.anchor ->> 0)
                    ELSE 'lines ' || (pp.anchor ->> 0) || '-' || (pp.anchor ->> 1) END AS anchor_text
          FROM per_path pp
          -- the deleted path above it and the file of the same name added
          -- elsewhere, each once per pair in a LATERAL (decided and the reason
          -- read them several times; a subquery in the select list would be
          -- planned and run once per read)
          CROSS JOIN LATERAL (
              -- the finding path itself, or a directory above it, is deleted
              SELECT min(d.path) AS gone_as FROM deleted d
               WHERE pp.expects = 'absent'
                 AND (d.path = pp.fpath OR (d.path ~ '/$' AND left(pp.fpath, length(d.path)) = d.path))) AS g
          CROSS JOIN LATERAL (
              SELECT min(a.path) AS renamed_to FROM added_names a
               WHERE pp.expects = 'change' AND pp.anchor IS NOT NULL AND pp.touched_deleted IS NOT NULL
                 AND a.path <> pp.fpath AND a.name = substring(pp.fpath FROM '[^/]*$')) AS rn
          -- a file with many hunks, in order (v_files): binary searches
          -- (width_bucket) over its slice of the arrays. The hunks above the
          -- anchor are its first k, those whose last old line e is before
          -- the anchor's first line (k = the count of e <= first - 1), so the
          -- shift is the running sum ps at k; a hunk that overlaps the lines
          -- widened by the context has e >= first - context and a <= last +
          -- context, so it lies between the first hunk with such an e and the
          -- last with such an a, and only those are compared (usually none or one)
          LEFT JOIN LATERAL (
              SELECT f.fi,
                     CASE WHEN f.hi IS NOT NULL
                          THEN jsonb_build_array(v_os[f.s + f.hi - 1], v_oc[f.s + f.hi - 1],
                                                 v_ns[f.s + f.hi - 1], v_nc[f.s + f.hi - 1]) END AS hit,
                     f.shift
                FROM (SELECT b.fi, b.s,
                             -- the first hunk (in their order) that overlaps the lines
                             CASE WHEN b.fi IS NOT NULL THEN
                                 (SELECT min(i)
                                    FROM generate_series(width_bucket(b.a1 - p_context - 1, v_e[b.s:b.s + b.n - 1]) + 1,
                                                         width_bucket(b.a2 + p_context, v_os[b.s:b.s + b.n - 1])) AS i
                                   WHERE CASE WHEN v_oc[b.s + i - 1] > 0
                                              THEN v_os[b.s + i - 1] <= b.a2 + p_context
                                                   AND v_os[b.s + i - 1] + v_oc[b.s + i - 1] - 1 >= b.a1 - p_context
                                              ELSE v_os[b.s + i - 1] >= b.a1 - p_context
                                                   AND v_os[b.s + i - 1] < b.a2 + p_context END) END AS hi,
                             CASE WHEN b.fi IS NOT NULL
                                  THEN coalesce(v_ps[b.s - 1 + nullif(width_bucket(b.a1 - 1, v_e[b.s:b.s + b.n - 1]), 0)], 0)
                                  END AS shift
                        FROM (SELECT x.fi, v_start[x.fi] AS s, v_count[x.fi] AS n,
                                     (pp.anchor ->> 0)::bigint AS a1, (pp.anchor ->> 1)::bigint AS a2
                                FROM (SELECT CASE WHEN pp.expects = 'change' AND pp.anchor IS NOT NULL
                                                  THEN array_position(v_files, pp.fpath) END AS fi) AS x) AS b
                       -- a subquery of its own: each read of hi is then a column, not another copy of its subplan
                       OFFSET 0) AS f
          ) AS lf ON true
          -- hunks in another order (or with a number missing): each anchored
          -- (finding, path) against all of its file's hunks, in a LATERAL (and
          -- the deleted paths above in a subquery per pair): a join of all of
          -- them grouped (its row estimates are those of a CTE) was planned by
          -- PostgreSQL 17 and 18 as a nested loop that grouped every pair's
          -- hunks again for each pair, the square of the anchored findings
          -- times the hunks
          LEFT JOIN LATERAL (
              SELECT (array_agg(jsonb_build_array(x.os, x.oc, x.ns, x.nc) ORDER BY x.o)
                          FILTER (WHERE x.hit))[1] AS hit,
                     coalesce(sum(x.nc - x.oc) FILTER (WHERE x.os + greatest(x.oc, 1) - 1 < x.a1), 0) AS shift,
                     bool_and(x.nc = 0) AND min(x.os) = 1 AS whole_file
                FROM (SELECT hk.*,
                             CASE WHEN hk.oc > 0
                                  THEN hk.os <= hk.a2 + p_context AND hk.os + hk.oc - 1 >= hk.a1 - p_context
                                  ELSE hk.os >= hk.a1 - p_context AND hk.os < hk.a2 + p_context END AS hit
                        FROM (SELECT -- bigint: line numbers go up to 2147483647, so their sums may not fit an integer
                                     (pp.anchor ->> 0)::bigint AS a1, (pp.anchor ->> 1)::bigint AS a2,
                                     (h.x ->> 0)::bigint AS os, (h.x ->> 1)::bigint AS oc,
                                     (h.x ->> 2)::bigint AS ns, (h.x ->> 3)::bigint AS nc, h.o
                                FROM jsonb_array_elements(v_hunks -> pp.fpath) WITH ORDINALITY AS h(x, o)
                               WHERE pp.expects = 'change' AND pp.anchor IS NOT NULL
                                 AND lf.fi IS NULL) AS hk) AS x
              HAVING count(*) > 0  -- no hunk: no row, as a pair without hunks had none
          ) AS l ON true
    ), decided AS (
        SELECT f.*,
               CASE
                   -- an anchored file the merge deleted
                   WHEN f.expects = 'change' AND f.anchor IS NOT NULL AND f.touched_deleted IS NOT NULL THEN
                       CASE WHEN f.keeps_lines AND f.renamed_to IS NOT NULL THEN 'renamed'
                            WHEN f.keeps_lines THEN 'maybe_renamed'
                            WHEN f.renamed_to IS NOT NULL AND f.by_lines AND f.hit IS NOT NULL
                                 AND NOT f.whole_file THEN 'line'
                            WHEN f.renamed_to IS NOT NULL THEN 'maybe_renamed'
                            ELSE 'deleted_file' END
                   WHEN f.by_lines AND f.hit IS NOT NULL THEN 'line'
                   WHEN f.by_lines AND coalesce(f.shift, 0) <> 0 THEN 'anchor_moved'
                   WHEN f.by_lines THEN 'anchor_kept'
                   WHEN f.expects = 'change' THEN 'path'
                   WHEN f.expects = 'present' AND p_added IS NULL THEN 'unknown_change'
                   WHEN f.expects = 'present' AND f.touched_added IS NOT NULL THEN 'added'
                   WHEN f.expects = 'present' THEN 'not_added'
                   WHEN p_deleted IS NULL THEN 'unknown_change'
                   WHEN f.gone_as IS NOT NULL AND (f.fpath ~ '/$' OR f.gone_as ~ '/$' OR NOT f.any_added) THEN 'deleted'
                   WHEN f.fpath ~ '/$' AND f.touched_deleted_any IS NOT NULL THEN 'deleted_inside'
                   ELSE 'not_deleted' END AS form
          FROM facts f
    )
    SELECT d.id, d.fpath,
           CASE WHEN d.expects = 'present' THEN coalesce(d.touched_added, d.touched)
                WHEN d.expects = 'absent' THEN coalesce(d.touched_deleted_any, d.touched)
                ELSE d.touched END,
           CASE d.form
               WHEN 'renamed' THEN 'moved'
               WHEN 'anchor_moved' THEN 'moved'
               WHEN 'anchor_kept' THEN 'kept'
               WHEN 'maybe_renamed' THEN 'candidate'
               WHEN 'unknown_change' THEN 'candidate'
               WHEN 'deleted_inside' THEN 'candidate'
               WHEN 'not_added' THEN 'mention'
               WHEN 'not_deleted' THEN 'mention'
               ELSE 'resolution' END,
           d.form,
           CASE d.form
               WHEN 'renamed'
                   THEN format('the merge renamed %s to %s (deleted and added) without changing the finding''s %s: the finding follows it, its anchor moves by %s',
                               d.fpath, d.renamed_to, d.anchor_text, CASE WHEN d.shift > 0 THEN '+' ELSE '' END || d.shift)
               WHEN 'maybe_renamed'
                   THEN format('the merge deleted %s%s: perhaps a rename, which moves the finding''s %s rather than changing them (the finding stays on %s)',
                               d.fpath, CASE WHEN d.renamed_to IS NOT NULL THEN ' and added ' || d.renamed_to
                                             ELSE ', its hunks keeping the anchored lines' END,
                               d.anchor_text, d.fpath)
               WHEN 'deleted_file'
                   THEN format('the merge deleted %s, which holds the finding''s %s', d.fpath, d.anchor_text)
               WHEN 'line'
                   THEN format('the merge changed %s at @@ -%s,%s +%s,%s @@, which overlaps the finding''s %s',
                               d.fpath, d.hit ->> 0, d.hit ->> 1, d.hit ->> 2, d.hit ->> 3, d.anchor_text)
               WHEN 'anchor_moved'
                   THEN format('the merge changed %s away from the finding''s %s: %s %s, the anchor moves by %s',
                               d.fpath, d.anchor_text, abs(d.shift),
                               CASE WHEN d.shift > 0 THEN 'lines added above' ELSE 'lines removed above' END,
                               CASE WHEN d.shift > 0 THEN '+' ELSE '' END || d.shift)
               WHEN 'anchor_kept'
                   THEN format('the merge changed %s away from the finding''s %s, with no net change of lines above them: the anchor stays',
                               d.fpath, d.anchor_text)
               WHEN 'path'
                   THEN format('the merge touched %s, which the finding references as %s', d.touched, d.fpath)
               WHEN 'unknown_change'
                   THEN format('the merge touched %s but does not say what it %s; the finding expects %s %s',
                               d.touched, CASE WHEN d.expects = 'present' THEN 'added' ELSE 'deleted' END, d.fpath,
                               d.expects)
               WHEN 'added'
                   THEN format('the merge added %s; the finding expects %s present', d.touched_added, d.fpath)
               WHEN 'not_added'
                   THEN format('the merge changed %s but added nothing there; the finding expects %s present',
                               d.touched, d.fpath)
               WHEN 'deleted'
                   THEN format('the merge deleted %s; the finding expects %s absent', d.gone_as, d.fpath)
               WHEN 'deleted_inside'
                   THEN format('the merge deleted %s under %s but does not say the directory is gone (deleted lists %s when it is); the finding expects it absent',
                               d.touched_deleted_any, d.fpath, d.fpath)
               ELSE format('the merge changed %s but did not delete it; the finding expects %s absent',
                           d.touched, d.fpath) END,
           CASE WHEN d.by_lines THEN d.anchor END,
           CASE WHEN d.form IN ('renamed', 'anchor_moved', 'anchor_kept')
                -- the range moved, kept within line numbers 1 .. 2147483647
                -- (an empty hunk list shifts nothing)
                THEN jsonb_build_array(least(2147483647, greatest(1, (d.anchor ->> 0)::bigint + coalesce(d.shift, 0))),
                                       least(2147483647, greatest(1, (d.anchor ->> 1)::bigint + coalesce(d.shift, 0)))) END,
           CASE WHEN d.form = 'renamed' THEN d.renamed_to END
      FROM decided d
     ORDER BY d.id, d.fpath;
END
$$;

COMMENT ON FUNCTION ledger._match_changes(text, text[], text[], text[], jsonb, integer) IS
'What a merge''s touched paths, added/deleted paths and hunks say about the active findings of a scope that reference a touched path: one row per (finding, finding path) with the smallest matching touched path, a verdict (resolution, candidate, mention, moved, kept), a form (path, line, deleted_file, renamed, maybe_renamed, anchor_moved, anchor_kept, added, not_added, deleted, deleted_inside, not_deleted, unknown_change), the reason, the anchor before and after and the new path of a followed rename. (scope, paths, added, deleted, hunks jsonb, context integer) -> TABLE(finding_id, finding_path, touched_path, verdict, form, reason, anchor_from, anchor_to, to_path). Index-driven (btree probes of ledger.finding_path, linear in the touched paths). Raises nothing.';
