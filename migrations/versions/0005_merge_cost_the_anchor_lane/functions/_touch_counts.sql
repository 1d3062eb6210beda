CREATE OR REPLACE FUNCTION ledger._touch_counts(p_touch_modes jsonb, p_path_supersede_kinds text[], p_kind text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce((p_kind OPERATOR(pg_catalog.=) ANY (p_path_supersede_kinds)
                     OR '*'::text OPERATOR(pg_catalog.=) ANY (p_path_supersede_kinds))
                    AND ledger._touch_mode(p_touch_modes, p_kind) OPERATOR(pg_catalog.=) ANY ('{recheck,flag}'::text[]),
                    false)
$$;

COMMENT ON FUNCTION ledger._touch_counts(jsonb, text[], text) IS
'Whether a touch of an anchored file counts for an unchecked finding of a kind under a scope''s policy: the path rule supersedes the kind and its touch mode (ledger._touch_mode) is recheck or flag. (touch_modes jsonb, path_supersede_kinds text[], kind text) -> boolean; NULLs give false. Inlined into ledger._merge_decisions and ledger._apply_merge. Raises nothing.';
