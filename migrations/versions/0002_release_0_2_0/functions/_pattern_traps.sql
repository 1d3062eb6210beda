CREATE OR REPLACE FUNCTION ledger._pattern_traps(p_pattern text)
RETURNS TABLE (pos integer, len integer, construct text, are_form text, exact boolean)
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c       text[] := string_to_array(p_pattern, NULL);
    n       integer := coalesce(array_length(string_to_array(p_pattern, NULL), 1), 0);
    i       integer := 1;
    j       integer;
    ch      text;
    nx      text;
    v_rest  text;
    v_m     text[];
    v_flags text;
    v_x     boolean := false;   -- expanded syntax: white space and # comments ignored outside [...]
    v_pym   boolean := false;   -- a leading Python (?m) without s
    v_neg   boolean;
    v_nl    boolean;
    v_d     text;
BEGIN
    IF p_pattern IS NULL OR p_pattern LIKE '***=%' THEN
        RETURN;
    END IF;
    IF p_pattern LIKE '***:%' THEN
        i := 5;
    END IF;
    -- the leading flag group, the only place ARE has flags
    v_m := regexp_match(substr(p_pattern, i), '^\(\?([A-Za-z]+)\)');
    IF v_m IS NOT NULL AND v_m[1] <> 'R' THEN
        v_flags := v_m[1];
        IF v_flags ~ '[^bceimnpqstwxu]' THEN
            pos := i; len := length(v_flags) + 3; exact := false;
            construct := '(?' || v_flags || ') (the flag ' || substring(v_flags FROM '[^bceimnpqstwxu]') || ')';
            are_form := 'flags among b c e i m n p q s t w x only: a leading (?i), (?n) line mode, (?x) expanded; '
                        || 'ARE classes are Unicode, a narrower one is written out ([A-Za-z0-9_])';
            RETURN NEXT;
        ELSIF v_flags ~ '^[imsxu]+$' AND v_flags ~ 'm' AND v_flags ~ 's' THEN
            -- Python: ^ $ at each line, . and [^...] across lines = ARE w (ARE's later s cancels m)
            pos := i; len := length(v_flags) + 3; exact := true;
            construct := '(?' || v_flags || ') (multi-line and dot-all)';
            are_form := '(?' || translate(regexp_replace(v_flags, '[ms]', '', 'g'), 'u', '') || 'w)';
            RETURN NEXT;
        ELSIF v_flags ~ 'u' THEN
            pos := i; len := length(v_flags) + 3; exact := true;
            construct := '(?' || v_flags || ') (the flag u, Unicode, what ARE always is)';
            are_form := CASE WHEN translate(v_flags, 'u', '') = '' THEN ''
                             ELSE '(?' || translate(v_flags, 'u', '') || ')' END;
            RETURN NEXT;
        END IF;
        IF v_flags ~ '[beq]' THEN
            -- a BRE, ERE or literal pattern: its writer chose ARE's own flavours; a BRE
            -- (flag b without q) still has back references \1 .. \9
            IF v_flags ~ 'b' AND v_flags !~ 'q' THEN
                i := i + length(v_flags) + 3;
                WHILE i <= n LOOP
                    IF c[i] = '\' AND c[i + 1] ~ '^[1-9]$' THEN
                        RETURN QUERY SELECT i, 2, '\' || c[i + 1] || ' (a back reference: matching it can take time exponential in the text)',
                            'the text the group matches written out again, or a second file_contains part for it'::text, false;
                    END IF;
                    i := i + CASE WHEN c[i] = '\' THEN 2 ELSE 1 END;
                END LOOP;
            END IF;
            RETURN;
        END IF;
        v_x := coalesce(substring(v_flags FROM '[xt][^xt]*$') LIKE 'x%', false);
        v_pym := v_flags ~ '^[imxu]+$' AND v_flags ~ 'm';
        i := i + length(v_flags) + 3;
    END IF;

    WHILE i <= n LOOP
        ch := c[i];
        nx := c[i + 1];
        IF v_x AND ch ~ '^\s$' THEN
            i := i + 1;
        ELSIF v_x AND ch = '#' THEN
            WHILE i <= n AND c[i] <> E'\n' LOOP
                i := i + 1;
            END LOOP;
        ELSIF ch = '\' THEN
            EXIT WHEN nx IS NULL;
            pos := i; len := 2; exact := false; are_form := NULL;
            CASE
            WHEN nx = 'b' THEN
                construct := '\b (a word boundary; ARE reads a backspace)'; are_form := '\y'; exact := true;
            WHEN nx = 'B' THEN
                construct := '\B (not a word boundary; ARE reads a backslash)'; are_form := '\Y'; exact := true;
            WHEN nx = 'z' THEN
                construct := '\z (the end of the text)'; are_form := '\Z'; exact := true;
            WHEN nx = 'G' THEN
                construct := '\G (where the match starts)'; are_form := '\A'; exact := true;
            WHEN nx = 'K' AND coalesce(c[i + 2], '') NOT IN ('*', '+', '?', '{') THEN
                construct := '\K (restart the reported match)'; are_form := ''; exact := true;
            WHEN nx = 'K' THEN
                construct := '\K' || c[i + 2] || ' (\K under a quantifier)'; len := 3;
                are_form := 'the pattern without \K (and without the quantifier it carries)';
            WHEN nx = 'x' AND c[i + 2] = '{' THEN
                v_m := regexp_match(substr(p_pattern, i), '^\\x\{([0-9A-Fa-f]{1,8})\}');
                IF v_m IS NOT NULL THEN
                    len := length(v_m[1]) + 4; exact := true;
                    construct := '\x{' || v_m[1] || '} (a code point)';
                    are_form := '\U' || lpad(lower(v_m[1]), 8, '0');
                ELSE
                    construct := NULL;
                END IF;
            WHEN nx IN ('p', 'P') THEN
                v_m := regexp_match(substr(p_pattern, i), '^\\[pP](\{[^}]*\}|.)?');
                len := coalesce(length(v_m[1]), 0) + 2;
                construct := substr(p_pattern, i, len) || ' (a Unicode property)';
                are_form := CASE WHEN nx = 'p' THEN 'a POSIX class: [[:alpha:]] for \p{L}, [[:upper:]], [[:lower:]], '
                                  || '[[:digit:]] for \p{Nd}, [[:punct:]], [[:space:]]'
                            ELSE 'a negated POSIX class: [^[:alpha:]] for \P{L}, [^[:digit:]], ...' END;
            WHEN nx = 'h' THEN
                construct := '\h (horizontal white space)'; are_form := '[[:blank:]]';
            WHEN nx = 'H' THEN
                construct := '\H (not horizontal white space)'; are_form := '[^[:blank:]]';
            WHEN nx = 'V' THEN
                construct := '\V (not vertical white space)'; are_form := '[^\n\v\f\r]';
            WHEN nx = 'R' THEN
                construct := '\R (a line break)'; are_form := '(\r\n|[\n\v\f\r])';
            WHEN nx = 'N' THEN
                v_m := regexp_match(substr(p_pattern, i), '^\\N(\{[^}]*\})?');
                len := coalesce(length(v_m[1]), 0) + 2;
                construct := substr(p_pattern, i, len)
                             || CASE WHEN v_m[1] IS NULL THEN ' (not a newline)' ELSE ' (a named character)' END;
                are_form := CASE WHEN v_m[1] IS NULL THEN '[^\n]' ELSE 'the character itself, or \uhhhh' END;
            WHEN nx = 'Q' THEN
                j := strpos(substr(p_pattern, i + 2), '\E');
                len := CASE WHEN j = 0 THEN n - i + 1 ELSE j + 3 END;
                construct := '\Q...\E (quoted text)';
                are_form := 'the text with \ before each of . * + ? ( ) [ ] { } | ^ $ \ (or the whole pattern as ***=text)';
            WHEN nx = 'E' THEN
                construct := '\E (the end of \Q...\E)';
                are_form := 'the text with \ before each special character';
            WHEN nx IN ('k', 'g') THEN
                v_m := regexp_match(substr(p_pattern, i), '^\\[kg](<[^>]*>|\{[^}]*\}|''[^'']*''|-?[0-9]+)?');
                len := coalesce(length(v_m[1]), 0) + 2;
                construct := substr(p_pattern, i, len) || ' (a back reference by name or relative number)';
                are_form := 'the text the group matches written out again (the ledger refuses back references)';
            WHEN nx ~ '^[1-9]$' THEN
                construct := '\' || nx || ' (a back reference: matching it can take time exponential in the text)';
                are_form := 'the text the group matches written out again, or a second file_contains part for it';
            WHEN nx = 'X' THEN
                construct := '\X (a grapheme cluster)'; are_form := 'the characters themselves';
            WHEN nx = 'C' THEN
                construct := '\C (one code unit)'; are_form := '.';
            WHEN nx = 'o' THEN
                construct := '\o (an octal code)'; are_form := '\uhhhh (hexadecimal)';
            WHEN nx ~ '^[A-Za-z]$' AND nx !~ '^[abBcdDefmMnrsStuUvwWxyYZA]$' THEN
                construct := '\' || nx || ' (not an escape PostgreSQL knows)';
                are_form := nx || ' without the \ (a letter after \ is an escape in ARE)';
            ELSE
                construct := NULL;
            END CASE;
            IF construct IS NOT NULL THEN
                RETURN NEXT;
            END IF;
            i := i + greatest(len, 2);
        ELSIF ch = '[' THEN
            pos := i;
            j := i + 1;
            v_neg := c[j] = '^';
            v_nl := false;
            IF v_neg THEN
                j := j + 1;
            END IF;
            IF c[j] = ']' THEN
                j := j + 1;
            END IF;
            WHILE j <= n AND c[j] <> ']' LOOP
                IF c[j] = '[' AND c[j + 1] IN (':', '=', '.') THEN
                    v_d := c[j + 1];
                    j := j + 2;
                    WHILE j <= n AND NOT (c[j] = v_d AND c[j + 1] = ']') LOOP
                        j := j + 1;
                    END LOOP;
                    j := j + 2;
                ELSIF c[j] = '\' THEN
                    IF c[j + 1] IN ('p', 'P', 'h', 'H', 'D', 'S', 'W') THEN
                        RETURN QUERY SELECT j, 2, '\' || c[j + 1] || ' inside [...]',
                            CASE c[j + 1] WHEN 'p' THEN '[:alpha:] (or another POSIX class) inside [...]'
                                          WHEN 'h' THEN '[:blank:] inside [...]'
                                          WHEN 'D' THEN '[^[:digit:]] outside [...], or a class of its own'
                                          WHEN 'S' THEN '[^[:space:]] outside [...], or a class of its own'
                                          WHEN 'W' THEN '[^[:alnum:]_] outside [...], or a class of its own'
                                          ELSE 'a negated bracket expression of its own' END,
                            false;
                    ELSIF c[j + 1] = 'n' THEN
                        v_nl := true;
                    END IF;
                    j := j + 2;
                ELSE
                    IF c[j] = E'\n' THEN
                        v_nl := true;
                    END IF;
                    j := j + 1;
                END IF;
            END LOOP;
            IF v_neg AND v_pym AND NOT v_nl THEN
                RETURN QUERY SELECT i, least(j, n) - i + 1,
                    substr(p_pattern, i, least(j, n) - i + 1) || ' under (?m) (Python''s also matches a newline)',
                    '(?w) at the start (. and [^...] cross lines), or (?n) (they do not), or \n inside the brackets',
                    false;
            END IF;
            i := j + 1;
        ELSIF ch = '(' AND nx = '?' THEN
            v_rest := substr(p_pattern, i, 200);
            pos := i; exact := false;
            IF v_rest ~ '^\(\?([:=!]|<[=!])' THEN
                i := i + CASE WHEN c[i + 2] = '<' THEN 4 ELSE 3 END;
                CONTINUE;
            ELSIF v_rest ~ '^\(\?#' THEN
                j := strpos(substr(p_pattern, i), ')');
                i := CASE WHEN j = 0 THEN n + 1 ELSE i + j END;
                CONTINUE;
            END IF;
            v_m := regexp_match(v_rest, '^\(\?(P<[A-Za-z_][A-Za-z0-9_]*>|<[A-Za-z_][A-Za-z0-9_]*>|''[A-Za-z_][A-Za-z0-9_]*'')');
            IF v_m IS NOT NULL THEN
                len := length(v_m[1]) + 2; exact := true;
                construct := '(?' || v_m[1] || ' (a named group)'; are_form := '(';
                RETURN NEXT;
                i := i + len;
                CONTINUE;
            END IF;
            v_m := regexp_match(v_rest, '^(\(\?P=[^)]*\)|\(\?P>[^)]*\)|\(\?&[^)]*\)|\(\?R\)|\(\?[-+]?[0-9]+\)|\(\?>|\(\?\||\(\?\(|\(\?[A-Za-z]*(-[A-Za-z]*)?:|\(\?[A-Za-z-]+\))');
            IF v_m IS NOT NULL THEN
                len := length(v_m[1]);
                construct := v_m[1] || CASE
                    WHEN v_m[1] LIKE '(?P=%' THEN ' (a back reference by name)'
                    WHEN v_m[1] = '(?>' THEN '...) (an atomic group)'
                    WHEN v_m[1] = '(?|' THEN '...) (a branch reset group)'
                    WHEN v_m[1] = '(?(' THEN '...) (a conditional)'
                    WHEN v_m[1] LIKE '%:' THEN '...) (flags for a group)'
                    WHEN v_m[1] ~ '^\(\?[A-Za-z-]+\)$' AND v_m[1] <> '(?R)' THEN ' (flags after the start)'
                    ELSE ' (a recursion)' END;
                are_form := CASE
                    WHEN v_m[1] LIKE '(?P=%' THEN 'the text the group matches written out again (the ledger refuses back references)'
                    WHEN v_m[1] = '(?>' THEN '(?:...) when the group need not be atomic (ARE has no atomic groups)'
                    WHEN v_m[1] = '(?|' THEN '(?:...|...) with groups numbered in order'
                    WHEN v_m[1] = '(?(' THEN 'the alternatives written out with |'
                    WHEN v_m[1] LIKE '%:' THEN 'the flags at the start of the pattern, (?i)..., or [Aa] for one letter'
                    WHEN v_m[1] ~ '^\(\?[A-Za-z-]+\)$' AND v_m[1] <> '(?R)'
                        THEN 'one flag group at the very start of the pattern, (?ix)...'
                    ELSE 'the repetition written out (ARE has no recursion)' END;
                RETURN NEXT;
                i := i + len;
                CONTINUE;
            END IF;
            i := i + 2;
        ELSIF ch = '(' AND nx = '*' AND c[i + 2] ~ '^[A-Z]$' THEN
            v_m := regexp_match(substr(p_pattern, i), '^\(\*[A-Z_]+[^)]*\)?');
            RETURN QUERY SELECT i, length(v_m[1]), v_m[1] || ' (a PCRE verb)', 'nothing: ARE has no verbs'::text, false;
            i := i + length(v_m[1]);
        ELSIF ch IN ('*', '+', '?') THEN
            IF nx = '+' THEN
                RETURN QUERY SELECT i, 2, ch || '+ (a possessive quantifier)',
                    ch || ' (greedy), when the pattern does not rely on giving nothing back'::text, false;
                i := i + 2;
            ELSIF nx = '?' THEN
                i := i + 2;
            ELSE
                i := i + 1;
            END IF;
        ELSIF ch = '{' THEN
            v_m := regexp_match(substr(p_pattern, i, 30), '^\{([0-9]*)(,([0-9]*))?\}');
            IF v_m IS NULL OR (v_m[1] = '' AND v_m[2] IS NULL) THEN
                i := i + 1;   -- a literal {
                CONTINUE;
            END IF;
            len := length(v_m[1]) + coalesce(length(v_m[2]), 0) + 2;
            IF v_m[1] = '' THEN
                RETURN QUERY SELECT i, len, '{' || v_m[2] || '} (0 to ' || coalesce(nullif(v_m[3], ''), 'any') || ' times; ARE reads text)',
                    '{0' || v_m[2] || '}', true;
            END IF;
            i := i + len;
            IF c[i] = '+' THEN
                RETURN QUERY SELECT i - len, len + 1, substr(p_pattern, i - len, len + 1) || ' (a possessive quantifier)',
                    substr(p_pattern, i - len, len) || ' (greedy), when the pattern does not rely on giving nothing back', false;
                i := i + 1;
            ELSIF c[i] = '?' THEN
                i := i + 1;
            END IF;
        ELSE
            i := i + 1;
        END IF;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger._pattern_traps(text) IS
'The constructs of a check pattern that Python re / PCRE read otherwise than PostgreSQL ARE: (pattern text) -> rows (pos integer 1-based, len integer, construct text, are_form text, exact boolean) in position order; exact: are_form replaces the construct with the same meaning (\b -> \y, \B -> \Y, \z -> \Z, \G -> \A, \K -> '''', \x{h} -> \Uhhhhhhhh, (?P<n> (?<n> (?''n'' -> (, {,n} -> {0,n}, leading (?ms) -> (?w), leading u dropped); not exact: no ARE form, are_form says what to write (\p{..}, \h, \R, \Q..\E, back references \1..\9 and named ones, atomic, possessive, recursion, verbs, conditionals, branch reset, flags after the start or scoped, flag letters ARE lacks, \D \S \W \p \h in [...], [^...] under a Python (?m)). Bracket contents and \\ are not constructs; nothing after ***=, (?b), (?e), (?q). Raises nothing.';
