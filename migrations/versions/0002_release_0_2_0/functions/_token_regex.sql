CREATE OR REPLACE FUNCTION ledger._token_regex(p_with_gap boolean)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN p_with_gap THEN '([^' || w.c || ']*)([' || w.c || ']+(?:[-.][' || w.c || ']+)*)'
                ELSE '([' || w.c || ']+(?:[-.][' || w.c || ']+)*)' END
      FROM (SELECT ledger._token_chars() AS c) AS w
$$;

COMMENT ON FUNCTION ledger._token_regex(boolean) IS
'The regular expression of a message token: word characters (ASCII alphanumerics, _, non-ASCII letters) joined by single inner - or . (F-42, pyproject.toml). (with_gap boolean) -> text: one capture group, or two (separator before, token) when with_gap. Independent of LC_CTYPE. Raises nothing.';
