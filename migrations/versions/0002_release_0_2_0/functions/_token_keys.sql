CREATE OR REPLACE FUNCTION ledger._token_keys(p_scope text, p_norms text[], p_alts text[])
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
-- one generic plan for the session (custom plans are re-made on every call)
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_pre   text := p_scope || E'\x1f';
    v_words text[] := coalesce(p_norms, '{}') || array_remove(coalesce(p_alts, '{}'), NULL);
    v_sig   text[];
    v_n     integer;
BEGIN
    v_sig := ARRAY(SELECT u.w FROM unnest(p_norms) WITH ORDINALITY AS u(w, o)
                    WHERE ledger._significant(u.w) ORDER BY u.o);
    v_n := cardinality(v_sig);
    RETURN ARRAY(
        SELECT DISTINCT k.x COLLATE "C" FROM (
            SELECT v_pre || 'i' || u.w FROM unnest(v_words) AS u(w) WHERE char_length(u.w) >= 3
            UNION ALL
            SELECT v_pre || 'i' || f.x
              FROM unnest(v_words) AS u(w),
                   LATERAL (VALUES (ledger._file_slug(u.w)),
                                   (substring(u.w, '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)$'))) AS f(x)
             WHERE ascii(u.w) BETWEEN 48 AND 57 AND f.x IS NOT NULL
            UNION ALL
            SELECT v_pre || '=' || u.a || ' ' || u.b FROM unnest(v_sig[1:v_n - 1], v_sig[2:v_n]) AS u(a, b)
            UNION ALL
            SELECT v_pre || 't' || u.a || ' ' || u.b || ' ' || u.c
              FROM unnest(v_sig[1:v_n - 2], v_sig[2:v_n - 1], v_sig[3:v_n]) AS u(a, b, c)
        ) AS k(x));
END
$$;

COMMENT ON FUNCTION ledger._token_keys(text, text[], text[]) IS
'The evidence-index keys of a run of message tokens (norms and alts of ledger._tokenise): scope || U+001F || (''i'' token of 3+ characters, its file-name and dated slugs; ''='' two and ''t'' three consecutive significant words), distinct. (scope text, norms text[], alts text[]) -> text[], ''{}'' without a token. The one definition the pre-filter and the matcher probe with. Raises nothing.';
