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
