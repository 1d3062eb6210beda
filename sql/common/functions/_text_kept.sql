-- ledger._text_kept(p_value text, p_max_length integer) -> boolean
--
-- True when ledger._check_text(p_value, <field>, <required>, p_max_length)
-- (one line) would return p_value unchanged: at most p_max_length
-- characters, no control character, nothing to trim (no white space or
-- control character at either end). NULL for NULL (the check decides
-- then). The fast path of the BEFORE row triggers (tg_finding__prepare,
-- tg_merge__prepare, tg_agent_task__prepare): a value it accepts is stored
-- as written without the call of _check_text; any other value goes through
-- _check_text and gets its error (tests/sql/test_trigger_fast_paths.py).
-- LANGUAGE sql without SET, so that it is inlined into the triggers'
-- expressions (no call at all); schema-qualified operators, so that a
-- caller's search_path cannot change it. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._text_kept(p_value text, p_max_length integer)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.length(p_value) OPERATOR(pg_catalog.<=) p_max_length
       AND p_value OPERATOR(pg_catalog.~) '^[^\x01-\x20\x7f]([^\x01-\x1f\x7f]*[^\x01-\x20\x7f])?$'
$$;

COMMENT ON FUNCTION ledger._text_kept(text, integer) IS
'Whether ledger._check_text (one line, that length limit) would return a value unchanged: short enough, no control character, nothing to trim; NULL for NULL. (value, max_length) -> boolean. Inlined. Raises nothing.';
