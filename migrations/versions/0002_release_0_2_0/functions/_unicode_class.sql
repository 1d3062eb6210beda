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
