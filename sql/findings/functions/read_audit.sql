-- ledger.read_audit(p_scope text, p_finding_id bigint DEFAULT NULL,
--                   p_merge_id bigint DEFAULT NULL)
--   -> TABLE(id bigint, scope text, finding_id bigint, merge_id bigint, action text, rule text,
--            evidence text, detail jsonb, actor text, reason text, created_at timestamptz,
--            commit_sha text, subject text)
--
-- The audit trail of a scope in the order it was written, optionally only
-- one finding's or one merge's rows: every column of ledger.supersession,
-- and for rows a merge wrote the merge's commit_sha and subject
-- (ledger._commit_subject: the first line with a visible character, without
-- control or format characters, at most 120 characters; NULL for rows no
-- merge wrote), so
-- that a person reviewing a decision sees the commit, not an internal id.
-- Anchor bookkeeping: an anchor_moved row per finding whose anchor a merge
-- moved. A move within the file is stored in the merge's one anchor record
-- (finding_id NULL, detail {"moves": ...}) and read here as one row per
-- finding (ledger._anchor_moves: evidence the path, the reason, detail
-- {anchor_moves: [{path, from, to}]}; the rows share the record's id); a
-- followed rename, or a move with other evidence about the finding, is a
-- row of its own (detail.anchor_moves {path, to_path, from, to},
-- anchors_after, paths_after, pieces). A merge that touched an anchored
-- file without moving the anchor wrote nothing for it.
-- Raises LD005 (not_found) for an unknown scope, and for a finding or merge
-- id that is not one of the scope's (an empty answer would hide a mistyped
-- id). Under per-scope row-level security a scope the connection may not
-- see is unknown.
CREATE OR REPLACE FUNCTION ledger.read_audit(
    p_scope text, p_finding_id bigint DEFAULT NULL, p_merge_id bigint DEFAULT NULL)
RETURNS TABLE (id bigint, scope text, finding_id bigint, merge_id bigint, action text, rule text, evidence text,
               detail jsonb, actor text, reason text, created_at timestamptz, commit_sha text, subject text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_nullable(p_scope) USING ERRCODE = 'LD005';
    END IF;
    IF p_finding_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.id = p_finding_id AND f.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown finding_id: % is not a finding of scope %', p_finding_id, quote_literal(p_scope)
            USING ERRCODE = 'LD005';
    END IF;
    IF p_merge_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ledger.merge m WHERE m.id = p_merge_id AND m.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown merge_id: % is not a merge of scope %', p_merge_id, quote_literal(p_scope)
            USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
        SELECT r.id, r.scope, r.finding_id, r.merge_id, r.action, r.rule, r.evidence, r.detail, r.actor, r.reason,
               r.created_at, m.commit_sha,
               ledger._commit_subject(m.message)
          FROM (SELECT a.id, a.scope, a.finding_id, a.merge_id, a.action, a.rule, a.evidence, a.detail, a.actor,
                       a.reason, a.created_at
                  FROM ledger.supersession a
                 WHERE a.scope = p_scope
                   AND (p_finding_id IS NULL OR a.finding_id = p_finding_id)
                   AND (p_merge_id IS NULL OR a.merge_id = p_merge_id)
                   AND NOT (a.finding_id IS NULL AND a.action = 'anchor_moved')
                UNION ALL
                -- the merges' anchor records, a row per finding (supersession_anchor_moves_idx)
                SELECT a.id, a.scope, e.finding_id, a.merge_id, a.action, a.rule, e.evidence, e.detail, a.actor,
                       e.reason, a.created_at
                  FROM ledger.supersession a, ledger._anchor_moves(a.detail, p_finding_id) AS e
                 WHERE a.scope = p_scope AND a.finding_id IS NULL AND a.action = 'anchor_moved'
                   AND (p_merge_id IS NULL OR a.merge_id = p_merge_id)) AS r
          LEFT JOIN ledger.merge m ON m.id = r.merge_id
         ORDER BY r.id, r.finding_id;
END
$$;

COMMENT ON FUNCTION ledger.read_audit(text, bigint, bigint) IS
'Audit rows of a scope in write order, optionally filtered by finding or merge (a merge''s anchor record, finding_id NULL, read as one anchor_moved row per finding it names, ledger._anchor_moves, the rows sharing its id), with the merge''s commit_sha and subject (ledger._commit_subject: first visible line, control and format characters dropped, at most 120 characters). (scope, finding_id, merge_id) -> TABLE(id, scope, finding_id, merge_id, action, rule, evidence, detail, actor, reason, created_at, commit_sha, subject). Raises LD005 for an unknown scope, or a finding or merge id not in the scope.';
