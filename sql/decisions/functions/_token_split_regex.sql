-- ledger._token_split_regex() -> text
--
-- The separators between message tokens, as one regular expression without
-- capture groups, for regexp_split_to_array: a run of characters each of
-- which is not a word character of ledger._token_regex, or is a '-' or '.'
-- without a word character on both sides (a token joins words by single
-- inner '-' or '.' only). So the pieces between separators are exactly the
-- tokens regexp_matches(message, ledger._token_regex(false), 'g') finds, in
-- order (with an empty first or last piece when the message starts or ends
-- with a separator). The word characters are ledger._token_chars, the
-- class ledger._token_regex is built from. Why: PostgreSQL's regular-expression engine finds capture
-- groups in a slower second pass, so splitting a 2 KB message costs about
-- half of regexp_matches with the two groups of ledger._token_regex(true)
-- (docs/performance.md). Raises nothing.
CREATE OR REPLACE FUNCTION ledger._token_split_regex()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT '(?:[^' || w.c || '.-]|[-.](?![' || w.c || '])|(?<![' || w.c || '])[-.])+'
      FROM (SELECT ledger._token_chars() AS c) AS w
$$;

COMMENT ON FUNCTION ledger._token_split_regex() IS
'The separators between message tokens (the word characters ledger._token_chars; a - or . joins only between two of them), without capture groups, for regexp_split_to_array: its pieces are the tokens of ledger._token_regex in order. () -> text. Raises nothing.';
