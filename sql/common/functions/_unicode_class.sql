-- ledger._unicode_class(p_class text) -> text
--
-- The inside of a regular-expression bracket expression (no brackets)
-- matching one class of characters, written as code point escapes so that
-- neither the database's locale nor its collation can change it (PostgreSQL
-- regular expressions take \s and [[:space:]] from LC_CTYPE):
--   'white_space'  Unicode White_Space: U+0009-U+000D, U+0020, U+0085,
--                  U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
--                  U+205F, U+3000;
--   'format'       format characters, general category Cf (Unicode 15.1):
--                  soft hyphen U+00AD, the zero-width space, joiners and
--                  word joiner (U+200B-U+200D, U+2060), the bidirectional
--                  marks, embeddings, overrides and isolates (U+200E,
--                  U+200F, U+202A-U+202E, U+2066-U+2069, U+061C), the byte
--                  order mark U+FEFF, tags (U+E0001, U+E0020-U+E007F) and
--                  the rest of Cf;
--   'control'      control characters: U+0001-U+001F, U+007F-U+009F, and
--                  the line and paragraph separators U+2028, U+2029.
-- Any other p_class gives NULL. Used by ledger.normalize_path,
-- ledger.normalize_paths, ledger._check_scope and ledger.workspace_scope;
-- tests/sql/test_unicode_paths.py compares the classes with Python's
-- unicodedata. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._unicode_class(p_class text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE p_class
        WHEN 'white_space' THEN
            '\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000'
        WHEN 'format' THEN
            '\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e'
            '\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f'
            '\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f'
        WHEN 'control' THEN
            '\u0001-\u001f\u007f-\u009f\u2028\u2029'
    END
$$;

COMMENT ON FUNCTION ledger._unicode_class(text) IS
'Regular-expression bracket body (code point escapes, independent of locale and collation) of a character class: white_space (Unicode White_Space), format (category Cf: zero-width, bidirectional controls, BOM, tags, ...), control (U+0001-U+001F, U+007F-U+009F, U+2028, U+2029). (class text) -> text, NULL for another class. Raises nothing.';
