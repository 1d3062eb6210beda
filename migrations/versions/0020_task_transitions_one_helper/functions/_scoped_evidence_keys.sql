CREATE OR REPLACE FUNCTION ledger._scoped_evidence_keys(p_scope text, p_keys text[])
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ARRAY(SELECT (p_scope OPERATOR(pg_catalog.||) E'\x1f') OPERATOR(pg_catalog.||) p
                   FROM pg_catalog.unnest(p_keys) AS p)
$$;

COMMENT ON FUNCTION ledger._scoped_evidence_keys(text, text[]) IS
'Scope-prefixed keys, the shape of the evidence index''s keys: scope || U+001F || element for each element. (text, text[]) -> text[]. Raises nothing.';
