CREATE OR REPLACE FUNCTION ledger._default_touch_mode(p_kind text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN p_kind OPERATOR(pg_catalog.=) 'drift'::text THEN 'flag'::text ELSE 'retire'::text END
$$;

COMMENT ON FUNCTION ledger._default_touch_mode(text) IS
'The shipped touch mode for a kind a scope''s touch_modes does not list (neither the kind nor *): flag for drift (the finding stays in the prompts, audited as flagged, read_prompt_findings lists the touching merges as touched_by), retire for every other kind (the path rule supersedes on a resolving touch). (kind text) -> text. Raises nothing.';
