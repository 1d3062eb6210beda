-- ledger.normalize_path(p_path text, p_field text DEFAULT 'path') -> text
--
-- Normalises one repository-relative path, or rejects it. Rules, applied
-- again until nothing changes (so the result is a fixpoint: normalising it
-- again gives it back, and it is never a path this function would reject):
--   1. surrounding white space is trimmed (space, tab, CR, LF, form feed,
--      vertical tab);
--   2. backslashes become '/';
--   3. trailing ':line' / ':line:col' suffixes are dropped
--      (src/a.py:42:10 -> src/a.py), then white space before them;
--   4. '.' segments and repeated '/' disappear (./a//b/./c -> a/b/c);
--   5. a trailing '/' is kept: it marks a directory reference.
-- Rejected with SQLSTATE LD001 (path_rejected), the message naming p_field and
-- the value: NULL, empty after normalisation, absolute ('/x', '//x', 'C:/x',
-- also when a pass makes it so: './C:/x'), a '..' segment, a control
-- character (U+0001-U+001F, U+007F), or longer than 4096 characters.
-- Implements the path normalisation of the foundation issue (seed 000 paths
-- arrive from reviewers as 'packages/x/', './src/a.py:12', 'src\win.py').
-- The vertical tab is written E'\x0b' (E'\v' is the letter v in PostgreSQL:
-- trimming it would turn 'v.py' into '.py'). The rules repeat to a fixpoint
-- because one pass does not normalise 'a.py :3', 'a:1:2:3' or './ a'.
CREATE OR REPLACE FUNCTION ledger.normalize_path(p_path text, p_field text DEFAULT 'path')
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_path text;
    v_prev text;
    v_dir  boolean;
BEGIN
    IF p_path IS NULL THEN
        RAISE EXCEPTION 'invalid path in %: NULL is not a path', p_field
            USING ERRCODE = 'LD001', HINT = 'Leave a NULL out of the array instead.';
    END IF;
    IF length(p_path) > 4096 THEN
        RAISE EXCEPTION 'invalid path in %: "%..." is longer than 4096 characters', p_field, left(p_path, 60)
            USING ERRCODE = 'LD001';
    END IF;
    IF btrim(p_path, E' \t\r\n\f\x0b') ~ '[\x01-\x1f\x7f]' THEN
        RAISE EXCEPTION 'invalid path in %: % contains a control character', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    v_path := p_path;
    LOOP
        v_prev := v_path;
        v_path := replace(btrim(v_path, E' \t\r\n\f\x0b'), '\', '/');
        IF v_path ~ '^/' OR v_path ~ '^[A-Za-z]:/' OR v_path ~ '^[A-Za-z]:$' THEN
            RAISE EXCEPTION 'invalid path in %: % is absolute; paths are relative to the repository root',
                p_field, quote_literal(p_path)
                USING ERRCODE = 'LD001';
        END IF;
        v_path := btrim(regexp_replace(v_path, '(:[0-9]+)+$', ''), E' \t\r\n\f\x0b');
        v_dir := v_path ~ '/$';
        -- drop '.' and empty segments, keep the rest in order
        SELECT string_agg(seg, '/' ORDER BY ord) INTO v_path
        FROM unnest(string_to_array(v_path, '/')) WITH ORDINALITY AS t(seg, ord)
        WHERE seg <> '' AND seg <> '.';
        IF v_path IS NULL THEN
            RAISE EXCEPTION 'invalid path in %: % is empty once normalised', p_field, quote_literal(p_path)
                USING ERRCODE = 'LD001';
        END IF;
        IF v_dir THEN
            v_path := v_path || '/';
        END IF;
        -- each changing pass makes the text shorter, or only turned \ into /
        EXIT WHEN v_path = v_prev;
    END LOOP;
    IF '..' = ANY (string_to_array(v_path, '/')) THEN
        RAISE EXCEPTION 'invalid path in %: % contains a ".." segment', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    RETURN v_path;
END
$$;

COMMENT ON FUNCTION ledger.normalize_path(text, text) IS
'Normalise one repository-relative path to a fixpoint (trim, \ to /, drop :line[:col], drop ./ and //, keep a trailing / for directories). (path text, field text) -> text. Raises LD001 naming the field and value for NULL, empty, absolute, .. segments, control characters, >4096 chars.';
