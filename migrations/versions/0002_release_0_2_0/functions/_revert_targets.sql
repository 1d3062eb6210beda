CREATE OR REPLACE FUNCTION ledger._revert_targets(p_scope text, p_message text, p_merge_id bigint)
RETURNS TABLE (sha text, target_merge_id bigint)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.sha,
           (SELECT mg.id FROM ledger.merge mg
             WHERE mg.scope = p_scope AND mg.commit_sha = s.sha AND mg.id < p_merge_id)
      FROM (SELECT lower(m[1] COLLATE "C") AS sha, min(strpos(p_message, m[1])) AS pos
              FROM regexp_matches(p_message, 'This reverts commit ([0-9A-Fa-f]{4,64})[.,]', 'g') AS m
             GROUP BY 1) AS s
     WHERE strpos(p_message, 'This reverts commit ') > 0
     ORDER BY s.pos, s.sha
$$;

COMMENT ON FUNCTION ledger._revert_targets(text, text, bigint) IS
'The commits a merge message reverts ("This reverts commit <sha>." / ", reversing"), each once in the order first named, with the id of the merge of the scope recorded with that sha before the reverting merge (a lower id; NULL when none). (scope, message, merge_id) -> TABLE(sha text, target_merge_id bigint). Raises nothing.';
