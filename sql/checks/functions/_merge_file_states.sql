-- ledger._merge_file_states(p_check_paths text[], p_paths text[], p_added text[], p_deleted text[]) -> jsonb
--
-- What a merge's own change kinds say about the state, after it, of the
-- paths a check needs (p_check_paths, normalised; directories end in /), as
-- file states for ledger._eval_check: true (exists, text unknown) or null
-- (absent); a path they say nothing about is left out (unknown).
--   a file      in p_added: true; in p_deleted and not in p_added, or under
--               a directory in p_deleted: null; else, when both p_added and
--               p_deleted are known, in p_paths (modified): true;
--   a directory "d/" in p_deleted: null; a path under it in p_added: true;
--               else, when both are known, a path under it in p_paths that
--               is not in p_deleted: true.
-- NULL p_added or p_deleted: only what the other one says for certain.
-- Raises nothing.
CREATE OR REPLACE FUNCTION ledger._merge_file_states(
    p_check_paths text[], p_paths text[], p_added text[], p_deleted text[])
RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(jsonb_object_agg(s.path, s.state) FILTER (WHERE s.known), '{}'::jsonb)
      FROM (SELECT c.path,
                   CASE WHEN c.gone THEN 'null'::jsonb ELSE 'true'::jsonb END AS state,
                   c.gone OR c.there AS known
              FROM (SELECT cp.path,
                           CASE WHEN cp.path ~ '/$' THEN
                                    cp.path = ANY (p_deleted)
                                ELSE
                                    (p_added IS NOT NULL AND cp.path = ANY (p_deleted) AND NOT cp.path = ANY (p_added))
                                    OR EXISTS (SELECT 1 FROM unnest(p_deleted) AS d(p)
                                                WHERE d.p ~ '/$' AND left(cp.path, length(d.p)) = d.p
                                                  AND NOT cp.path = ANY (coalesce(p_added, '{}')))
                           END AS gone,
                           CASE WHEN cp.path ~ '/$' THEN
                                    EXISTS (SELECT 1 FROM unnest(p_added) AS a(p)
                                             WHERE left(a.p, length(cp.path)) = cp.path AND a.p <> cp.path)
                                    OR (p_added IS NOT NULL AND p_deleted IS NOT NULL
                                        AND EXISTS (SELECT 1 FROM unnest(p_paths) AS t(p)
                                                     WHERE left(t.p, length(cp.path)) = cp.path AND t.p <> cp.path
                                                       AND NOT t.p = ANY (p_deleted)))
                                ELSE
                                    cp.path = ANY (coalesce(p_added, '{}'))
                                    OR (p_added IS NOT NULL AND p_deleted IS NOT NULL
                                        AND cp.path = ANY (p_paths) AND NOT cp.path = ANY (p_deleted))
                           END AS there
                      FROM unnest(p_check_paths) AS cp(path)) AS c) AS s
$$;

COMMENT ON FUNCTION ledger._merge_file_states(text[], text[], text[], text[]) IS
'The file states a merge''s paths, added and deleted tell for the paths a check needs: {"<path>": true (exists) | null (absent)}, unknown paths left out. (check_paths text[], paths text[], added text[], deleted text[]) -> jsonb. Raises nothing.';
