CREATE OR REPLACE FUNCTION ledger._scope_kept(p_value text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.length(p_value) OPERATOR(pg_catalog.<=) 200
       AND p_value OPERATOR(pg_catalog.~) '^[\x21-\x2b\x2d-\x7e]([\x20-\x2b\x2d-\x7e]*[\x21-\x2b\x2d-\x7e])?$'
$$;

COMMENT ON FUNCTION ledger._scope_kept(text) IS
'Whether ledger._check_scope would accept a scope unchanged on the fast path: printable ASCII, no comma, no space at either end, at most 200 characters; NULL for NULL. (value) -> boolean. Inlined. Raises nothing.';
