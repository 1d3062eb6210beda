CREATE OR REPLACE FUNCTION ledger._message_segments(p_message text)
RETURNS TABLE (seg integer, line integer, context text, line_start boolean, body text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 20
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_lines      text[] := regexp_split_to_array(coalesce(p_message, ''), E'\n');
    v_line       text;
    v_rest       text;
    v_piece      text;
    v_ctx        text;
    v_in_fence   boolean := false;
    v_fence      text;
    v_in_comment boolean := false;
    v_subject    boolean := false;
    v_first      boolean;
    v_k1         integer;
    v_k2         integer;
    v_run        integer;
    v_len        integer;
    v_j          integer;
    v_m          integer;
    v_close      integer;
    v_after      text;
    a_line       integer[] := '{}'::integer[];
    a_ctx        text[] := '{}'::text[];
    a_start      boolean[] := '{}'::boolean[];
    a_body       text[] := '{}'::text[];
BEGIN
    seg := 0;
    FOR v_i IN 1 .. cardinality(v_lines) LOOP
        v_line := rtrim(v_lines[v_i], E'\r');
        line := v_i;
        IF v_in_fence THEN
            context := 'fenced_block'; line_start := true; body := v_line;
            a_line := a_line || line; a_ctx := a_ctx || context; a_start := a_start || line_start; a_body := a_body || body;
            IF v_line ~ ('^ {0,3}' || CASE WHEN left(v_fence, 1) = '`' THEN '`' ELSE '~' END
                         || '{' || length(v_fence) || ',}[ \t]*$') THEN
                v_in_fence := false;
            END IF;
            CONTINUE;
        END IF;
        IF NOT v_in_comment AND v_line ~ '^ {0,3}(`{3,}|~{3,})' THEN
            v_fence := substring(v_line FROM '^ {0,3}(`{3,}|~{3,})');
            v_in_fence := true;
            context := 'fenced_block'; line_start := true; body := v_line;
            a_line := a_line || line; a_ctx := a_ctx || context; a_start := a_start || line_start; a_body := a_body || body;
            CONTINUE;
        END IF;

        v_ctx := 'text';
        IF NOT v_subject AND v_line ~ '\S' THEN
            v_subject := true;
            IF v_line ~* '^\s*(revert|reapply)\s+["“]' THEN
                v_ctx := 'revert_subject';
            END IF;
        END IF;
        IF v_ctx = 'text' THEN
            IF v_line ~ '^\s*>' THEN
                v_ctx := 'quoted';
            ELSIF v_line ~ '^\s*[A-Za-z][A-Za-z0-9-]*:\s*[0-9A-Fa-f]{7,40}(\s*\(|\s*$)' THEN
                v_ctx := 'commit_trailer';
            END IF;
        END IF;

        v_rest := v_line;
        v_first := NOT v_in_comment;
        WHILE v_rest <> '' LOOP
            IF v_in_comment THEN
                v_k1 := strpos(v_rest, '-->');
                IF v_k1 = 0 THEN
                    v_piece := v_rest; v_rest := '';
                ELSE
                    v_piece := left(v_rest, v_k1 - 1); v_rest := substr(v_rest, v_k1 + 3);
                    v_in_comment := false;
                END IF;
                IF v_piece <> '' THEN
                    context := 'html_comment'; line_start := false; body := v_piece;
                    a_line := a_line || line; a_ctx := a_ctx || context; a_start := a_start || line_start; a_body := a_body || body;
                END IF;
                v_first := false;
                CONTINUE;
            END IF;
            v_k1 := strpos(v_rest, '<!--');
            v_k2 := strpos(v_rest, '`');
            IF v_k1 = 0 AND v_k2 = 0 THEN
                context := v_ctx; line_start := v_first; body := v_rest;
                a_line := a_line || line; a_ctx := a_ctx || context; a_start := a_start || line_start; a_body := a_body || body;
                v_rest := '';
                CONTINUE;
            END IF;
            IF v_k1 > 0 AND (v_k2 = 0 OR v_k1 < v_k2) THEN
                IF v_k1 > 1 THEN
                    context := v_ctx; line_start := v_first; body := left(v_rest, v_k1 - 1);
                    a_line := a_line || line; a_ctx := a_ctx || context; a_start := a_start || line_start; a_body := a_body || body;
                END IF;
                v_rest := substr(v_rest, v_k1 + 4);
                v_in_comment := true;
                v_first := false;
                CONTINUE;
            END IF;
            -- a run of backticks opens a code span if the same run closes it on this line
            v_run := length(substring(substr(v_rest, v_k2) FROM '^`+'));
            v_after := substr(v_rest, v_k2 + v_run);
            v_close := 0;
            v_j := 1;
            LOOP
                v_m := strpos(substr(v_after, v_j), '`');
                EXIT WHEN v_m = 0;
                v_m := v_j + v_m - 1;
                v_len := length(substring(substr(v_after, v_m) FROM '^`+'));
                IF v_len = v_run THEN
                    v_close := v_m;
                    EXIT;
                END IF;
                v_j := v_m + v_len;
            END LOOP;
            IF v_close = 0 THEN
                context := v_ctx; line_start := v_first; body := left(v_rest, v_k2 + v_run - 1);
                a_line := a_line || line; a_ctx := a_ctx || context; a_start := a_start || line_start; a_body := a_body || body;
                v_rest := v_after;
            ELSE
                IF v_k2 > 1 THEN
                    context := v_ctx; line_start := v_first; body := left(v_rest, v_k2 - 1);
                    a_line := a_line || line; a_ctx := a_ctx || context; a_start := a_start || line_start; a_body := a_body || body;
                END IF;
                IF v_close > 1 THEN
                    context := 'code_span'; line_start := false; body := left(v_after, v_close - 1);
                    a_line := a_line || line; a_ctx := a_ctx || context; a_start := a_start || line_start; a_body := a_body || body;
                END IF;
                v_rest := substr(v_after, v_close + v_run);
            END IF;
            v_first := false;
        END LOOP;
    END LOOP;

    -- A paragraph's wrapped lines are one segment: a text segment that ends its
    -- line takes in the next line's first text segment when that line follows
    -- at once (no blank line between) and is not a list item, a trailer
    -- ('Name: value'); the line end stays in the body as '\n'.
    FOR k IN 1 .. cardinality(a_body) LOOP
        IF seg > 0 AND context = 'text' AND a_ctx[k] = 'text' AND a_start[k]
           AND a_line[k] = a_line[k - 1] + 1
           AND a_body[k] ~ '\S' AND a_body[k - 1] ~ '\S'
           AND v_lines[a_line[k]] !~ '^\s*([-*+•]|[0-9]+[.)])\s'
           AND v_lines[a_line[k]] !~ '^\s*[A-Za-z][A-Za-z0-9-]*:(\s|$)' THEN
            body := body || E'\n' || a_body[k];
            CONTINUE;
        END IF;
        IF seg > 0 THEN
            RETURN NEXT;
        END IF;
        seg := seg + 1;
        line := a_line[k]; context := a_ctx[k]; line_start := a_start[k]; body := a_body[k];
    END LOOP;
    IF seg > 0 THEN
        RETURN NEXT;
    END IF;
END
$$;

COMMENT ON FUNCTION ledger._message_segments(text) IS
'Split a merge message into segments with a context: text (a paragraph: wrapped lines up to a blank line, list item or trailer), fenced_block, code_span, html_comment, revert_subject, commit_trailer, quoted. text -> TABLE(seg integer, line integer, context text, line_start boolean, body text). Only text can resolve a finding. Raises nothing.';
