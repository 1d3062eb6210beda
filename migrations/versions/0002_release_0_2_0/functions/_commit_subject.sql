CREATE OR REPLACE FUNCTION ledger._commit_subject(p_message text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN s.subject = '' THEN NULL
                WHEN length(s.subject) > 120
                THEN rtrim(left(s.subject, 119), E' \t') || chr(8230)
                ELSE s.subject END
      FROM (SELECT regexp_replace(
                       regexp_replace(
                           substring(p_message FROM '^[' || ledger._unicode_class('white_space')
                                                    || ledger._unicode_class('control')
                                                    || ledger._unicode_class('format') || ']*([^\n]*)'),
                           '[' || ledger._unicode_class('control') || ledger._unicode_class('format') || ']',
                           '', 'g'),
                       '[' || ledger._unicode_class('white_space') || ']+$', '') AS subject) AS s
$$;

COMMENT ON FUNCTION ledger._commit_subject(text) IS
'The subject of a commit message for a prompt or a person: its first line with a visible character, control and format characters dropped (Cc, Cf, Zl, Zp: CR, ESC, U+2028, U+202E, ...), white space trimmed, capped at 120 characters (119 and an ellipsis). NULL for a NULL message or one without a visible character. (message text) -> text. Raises nothing.';
