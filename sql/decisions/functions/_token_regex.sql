-- ledger._token_regex(p_with_gap boolean) -> text
--
-- The one definition of a message token ("as a whole token"): a run
-- of word characters (ledger._token_chars: ASCII letters, digits, '_', and
-- letters outside ASCII), optionally joined by single inner '-' or '.'
-- ('F-42', 'auth-0007', 'pyproject.toml', '2026-06-24-drift-frozen.md').
-- Everything else separates tokens: white space, '/', ',', ':', quotes,
-- brackets, '#', backticks, general punctuation (U+2000-U+206F: dashes,
-- curly quotes), so 'F-42' is a whole token in 'Fixes: F-42,' and 'F-42' is
-- never found inside 'F-421' or 'F-42-fix'.
-- p_with_gap = false: the token alone (one capture group);
-- p_with_gap = true: two capture groups, the separator text before the token
-- and the token, for regexp_matches(..., 'g') over a message.
-- Raises nothing.
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
