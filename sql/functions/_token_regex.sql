-- ledger._token_regex(p_with_gap boolean) -> text
--
-- The one definition of a message token ("as a whole token"): a run
-- of word characters (ASCII letters, digits, '_', and letters outside ASCII:
-- U+00C0-U+1FFF except U+00D7/U+00F7, U+2C00-U+2DFF, U+3040-U+D7FF,
-- U+F900-U+FDFF, U+FE70-U+FEFE, fullwidth letters and digits), optionally
-- joined by single inner '-' or '.' ('F-42', 'auth-0007', 'pyproject.toml',
-- '2026-06-24-drift-frozen.md'). Everything else separates tokens: white
-- space, '/', ',', ':', quotes, brackets, '#', backticks, general
-- punctuation (U+2000-U+206F: dashes, curly quotes), so 'F-42' is a whole
-- token in 'Fixes: F-42,' and 'F-42' is never found inside 'F-421' or
-- 'F-42-fix'.
-- p_with_gap = false: the token alone (one capture group);
-- p_with_gap = true: two capture groups, the separator text before the token
-- and the token, for regexp_matches(..., 'g') over a message.
-- The class is spelled out instead of [[:alnum:]] so that it does not depend
-- on the database's LC_CTYPE. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._token_regex(p_with_gap boolean)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN p_with_gap THEN '([^' || w.c || ']*)([' || w.c || ']+(?:[-.][' || w.c || ']+)*)'
                ELSE '([' || w.c || ']+(?:[-.][' || w.c || ']+)*)' END
      FROM (SELECT 'A-Za-z0-9_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u1FFF\u2C00-\u2DFF\u3040-\uD7FF\uF900-\uFDFF\uFE70-\uFEFE\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A'::text AS c) AS w
$$;

COMMENT ON FUNCTION ledger._token_regex(boolean) IS
'The regular expression of a message token: word characters (ASCII alphanumerics, _, non-ASCII letters) joined by single inner - or . (F-42, pyproject.toml). (with_gap boolean) -> text: one capture group, or two (separator before, token) when with_gap. Independent of LC_CTYPE. Raises nothing.';
