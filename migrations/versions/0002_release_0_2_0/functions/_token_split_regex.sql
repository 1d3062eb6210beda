CREATE OR REPLACE FUNCTION ledger._token_split_regex()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT '(?:[^' || w.c || '.-]|[-.](?![' || w.c || '])|(?<![' || w.c || '])[-.])+'
      FROM (SELECT ledger._token_chars() AS c) AS w
$$;

COMMENT ON FUNCTION ledger._token_split_regex() IS
'The separators between message tokens (the word characters ledger._token_chars; a - or . joins only between two of them), without capture groups, for regexp_split_to_array: its pieces are the tokens of ledger._token_regex in order. () -> text. Raises nothing.';
