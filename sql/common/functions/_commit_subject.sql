-- ledger._commit_subject(p_message text) -> text
--
-- The subject of a commit message as it may be shown to a person or put
-- into an agent's prompt. A commit message is written by whoever authored
-- the commit, so its text is not trusted: the subject is
--   1. the first line of p_message that holds a visible character (lines
--      of white space, control and format characters only are skipped, as
--      git skips leading blank lines);
--   2. with every control and format character dropped: Unicode Cc
--      (U+0001-U+001F, U+007F-U+009F: CR, ESC, tab, ...), Cf (zero-width,
--      bidirectional overrides such as U+202E, BOM, tags, ...), Zl and Zp
--      (U+2028, U+2029), the classes of ledger._unicode_class('control')
--      and ('format'), so no terminal escape, no hidden text and no second
--      line reaches a prompt;
--   3. trimmed of Unicode white space at both ends;
--   4. capped at 120 characters: a longer subject keeps its first 119
--      characters (trailing white space trimmed) and ends in U+2026 (…).
-- NULL for a NULL message and for a message without a visible character.
-- The one place a commit subject is made: ledger.read_prompt_findings,
-- ledger.read_prompt_text, ledger.read_audit and ledger.verify_finding use
-- it. Raises nothing.
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
