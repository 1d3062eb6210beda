-- ledger._scoped_evidence_keys(p_scope text, p_keys text[]) -> text[]
--
-- Each of p_keys prefixed with its scope and a U+001F separator: the shape of
-- the keys of the evidence index finding_active_evidence_idx
-- (ledger._evidence_keys), so ledger._match_message builds its probe keys
-- with it and one GIN index answers for one scope without touching others.
-- Scopes never contain control characters (the prepare triggers reject
-- them), so the separator ends the scope unambiguously. Raises nothing.
-- It has no SET search_path (that would stop the planner from inlining it),
-- so every operator and function in it is schema-qualified: a same-named
-- operator of whoever calls it must not change the keys.
CREATE OR REPLACE FUNCTION ledger._scoped_evidence_keys(p_scope text, p_keys text[])
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ARRAY(SELECT (p_scope OPERATOR(pg_catalog.||) E'\x1f') OPERATOR(pg_catalog.||) p
                   FROM pg_catalog.unnest(p_keys) AS p)
$$;

COMMENT ON FUNCTION ledger._scoped_evidence_keys(text, text[]) IS
'Scope-prefixed keys, the shape of the evidence index''s keys: scope || U+001F || element for each element. (text, text[]) -> text[]. Raises nothing.';
