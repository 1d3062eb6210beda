CREATE OR REPLACE FUNCTION ledger._message_tokens(p_message text)
RETURNS TABLE (seg integer, pos integer, line integer, context text, token text, norm text,
               gap text, sig boolean, verdict text, verb text, reason text, alt text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 100
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c_verbs   CONSTANT text[] := '{close,closes,closed,fix,fixes,fixed,resolve,resolves,resolved}'::text[];
    c_trailer CONSTANT text[] := '{supersedes,closes-bug}'::text[];
    c_fillers CONSTANT text[] := '{a,an,the,this,that,these,those,finding,findings,issue,issues,bug,bugs,
        ticket,tickets,problem,problems,drift,item,items}'::text[];
    c_hedges  CONSTANT text[] := '{not,no,never,cannot,don,doesn,didn,won,isn,wasn,aren,hasn,haven,hadn,
        shouldn,wouldn,couldn,partially,partly,partial,half,almost,nearly,incompletely,might,may,maybe,
        could,should,would,will,to,try,tries,tried,trying,attempt,attempts,attempted,attempting,help,
        helps,helped,wip,unable,fail,fails,failed,rather,instead,filed,reported,reproduce,reproduces,
        reproduced}'::text[];
    c_partial CONSTANT text[] := '{partially,partly,partial,incompletely}'::text[];
    c_obj_gap CONSTANT text := '^[[:space:]:"''“”‘’(\[#*!]*$';
    v_s       record;
    v_t       record;
    v_tok     text[];
    v_gap     text[];
    v_norm    text[];
    v_verdict text[];
    v_verb    text[];
    v_reason  text[];
    v_default text;
    n         integer;
    i         integer;
    k         integer;
    v_state   text;
    v_cur     text;
    v_neg     text;
    v_and     boolean;
    v_clause  integer[];
    v_free    boolean;
    v_alt     text[];
    v_sent    text;
    e         integer;
    j         integer;
BEGIN
    FOR v_s IN
        SELECT s.seg, s.line, s.context, s.line_start, s.body
          FROM ledger._message_segments(pg_catalog.normalize(coalesce(p_message, ''), 'NFC')) AS s
         ORDER BY s.seg
    LOOP
        -- the one tokeniser: tokens, the separator before each, norms, and the
        -- joined form of a token broken at a line end after '-' or '/'
        v_t := ledger._tokenise(v_s.body, true);
        v_tok := v_t.tokens;
        v_gap := v_t.gaps;
        v_norm := v_t.norms;
        v_alt := v_t.alts;
        n := cardinality(v_tok);
        CONTINUE WHEN n = 0;

        v_default := CASE v_s.context
            WHEN 'text' THEN 'no resolution verb governs it'
            WHEN 'code_span' THEN 'inside a code span'
            WHEN 'fenced_block' THEN 'inside a fenced code block'
            WHEN 'html_comment' THEN 'inside an HTML comment'
            WHEN 'revert_subject' THEN 'in a Revert "..." subject'
            WHEN 'commit_trailer' THEN 'in a trailer that names a commit (Fixes: <sha> ("subject"))'
            WHEN 'quoted' THEN 'in a quoted line'
            ELSE 'not prose' END;
        IF v_s.context = 'text' AND v_s.line_start AND n >= 2 AND v_gap[1] ~ '^\s*$' AND v_gap[2] ~ '^\s*:'
           AND v_tok[1] ~ '^[A-Za-z][A-Za-z0-9-]*$'
           AND NOT (v_norm[1] = ANY (c_verbs) OR v_norm[1] = ANY (c_trailer)) THEN
            v_default := format('trailer "%s:" does not resolve', v_tok[1]);
        END IF;
        v_verdict := array_fill(CASE WHEN v_default = 'no resolution verb governs it' THEN 'bare' ELSE 'mention' END,
                                ARRAY[n]);
        v_verb := array_fill(NULL::text, ARRAY[n]);
        v_reason := array_fill(v_default, ARRAY[n]);

        IF v_s.context = 'text' THEN
            v_state := 'idle';
            v_clause := '{}';
            v_and := false;
            v_free := false;
            v_sent := NULL;
            i := 1;
            IF v_default LIKE 'trailer "%' AND v_s.line > 1 THEN
                -- nothing on a non-resolving trailer's line is prose: Co-authored-by: Fixes X <x@y>
                i := coalesce((SELECT min(x) FROM generate_series(2, n) AS x WHERE v_gap[x] ~ '\n'), n + 1);
            END IF;
            WHILE i <= n LOOP
                IF v_gap[i] ~ '[.;!?]' AND NOT (v_free AND v_gap[i] ~ '^\)!?:\s*$') THEN
                    v_clause := '{}';
                    v_sent := NULL;
                END IF;

                IF v_state = 'object' THEN
                    IF (v_gap[i] ~ c_obj_gap OR (v_free AND v_gap[i] ~ '^\)!?:[[:space:]"''“”‘’(\[#*]*$'))
                       AND NOT v_norm[i] = ANY (c_verbs) THEN
                        v_free := false;
                        v_verb[i] := v_cur;
                        IF v_neg IS NULL THEN
                            v_verdict[i] := 'resolution';
                            v_reason[i] := format('"%s" governs it', v_cur);
                            v_clause := v_clause || i;
                        ELSE
                            v_verdict[i] := 'mention';
                            v_reason[i] := format('negated: "%s"', v_neg);
                        END IF;
                        IF v_norm[i] = ANY (c_fillers) AND (i = n OR v_gap[i + 1] !~ '^/(\n[[:blank:]]*)?$') THEN
                            i := i + 1;
                            CONTINUE;
                        END IF;
                        -- a path 'dir/sub/2026-01-02-slug.md': the verb governs its findings file name
                        k := i;
                        WHILE k < n AND v_gap[k + 1] ~ '^/(\n[[:blank:]]*)?$' LOOP
                            k := k + 1;
                        END LOOP;
                        IF k > i AND ledger._file_slug(v_norm[k]) IS NULL THEN
                            -- the file name broken at a '-' across a line end
                            k := CASE WHEN k < n AND left(v_gap[k + 1], 1) = '-'
                                           AND ledger._file_slug(v_alt[k]) IS NOT NULL THEN k + 1 ELSE i END;
                        END IF;
                        IF k > i THEN
                            FOR x IN i + 1 .. k LOOP
                                v_verb[x] := v_verb[i];
                                v_verdict[x] := v_verdict[i];
                                v_reason[x] := v_reason[i];
                                IF v_neg IS NULL THEN
                                    v_clause := v_clause || x;
                                END IF;
                            END LOOP;
                            i := k;
                        END IF;
                        IF char_length(v_tok[i]) >= 2 AND (v_tok[i] ~ '[0-9_.-]' OR substr(v_tok[i], 2) ~ '[A-Z]') THEN
                            v_state := 'list';
                            v_and := false;
                        ELSE
                            v_state := 'idle';
                        END IF;
                        i := i + 1;
                        CONTINUE;
                    END IF;
                    v_state := 'idle';
                    v_free := false;
                ELSIF v_state = 'list' THEN
                    IF NOT v_and AND v_norm[i] = 'and' AND v_gap[i] ~ '^["''“”‘’)\]]*\s*,?\s*$' THEN
                        v_and := true;
                        i := i + 1;
                        CONTINUE;
                    END IF;
                    IF ((v_and AND v_gap[i] ~ '^\s*["''“‘(\[#]*$')
                        OR (NOT v_and AND v_gap[i] ~ '^["''“”‘’)\]]*\s*[,&+]\s*["''“‘(\[#]*$'))
                       AND char_length(v_tok[i]) >= 2
                       AND (v_tok[i] ~ '[0-9_.-]' OR substr(v_tok[i], 2) ~ '[A-Z]') THEN
                        v_verb[i] := v_cur;
                        IF v_neg IS NULL THEN
                            v_verdict[i] := 'resolution';
                            v_reason[i] := format('"%s" governs it (list)', v_cur);
                            v_clause := v_clause || i;
                        ELSE
                            v_verdict[i] := 'mention';
                            v_reason[i] := format('negated: "%s"', v_neg);
                        END IF;
                        v_and := false;
                        i := i + 1;
                        CONTINUE;
                    END IF;
                    v_state := 'idle';
                    v_and := false;
                END IF;

                -- idle: a parenthesis of references in the sentence of a verb
                IF v_sent IS NOT NULL AND v_gap[i] ~ '[(\[][[:space:]#]*$' THEN
                    k := i;
                    WHILE k < n AND v_norm[k] = ANY (c_fillers) AND v_gap[k + 1] ~ '^[[:space:]:#]*$' LOOP
                        k := k + 1;
                    END LOOP;
                    j := k;      -- the reference tokens are k .. e
                    e := NULL;
                    LOOP
                        -- one reference: a path to a findings file, or an identifier (maybe broken at a line end)
                        WHILE j < n AND v_gap[j + 1] ~ '^/(\n[[:blank:]]*)?$' LOOP
                            j := j + 1;
                        END LOOP;
                        IF j < n AND v_alt[j] IS NOT NULL AND left(v_gap[j + 1], 1) = '-' THEN
                            EXIT WHEN v_alt[j] ~ '^[0-9-]+$';
                            j := j + 1;
                        ELSE
                            EXIT WHEN NOT (char_length(v_tok[j]) >= 2 AND v_tok[j] !~ '^[0-9]+$'
                                           AND (v_tok[j] ~ '[0-9_.-]' OR substr(v_tok[j], 2) ~ '[A-Z]'));
                        END IF;
                        e := j;
                        EXIT WHEN j = n OR v_gap[j + 1] !~ '^[[:space:]]*[,&+][[:space:]#]*$';
                        j := j + 1;
                    END LOOP;
                    IF e IS NOT NULL AND (e = n OR v_gap[e + 1] ~ '^[[:space:]]*[)\]]') THEN
                        FOR x IN k .. e LOOP
                            v_verb[x] := v_sent;
                            v_verdict[x] := 'resolution';
                            v_reason[x] := format('"%s" governs it (reference)', v_sent);
                            v_clause := v_clause || x;
                        END LOOP;
                        i := e + 1;
                        CONTINUE;
                    END IF;
                END IF;

                -- idle: a partial marker demotes this sentence's resolutions
                IF (v_norm[i] = ANY (c_partial) OR (v_norm[i] = 'in' AND i < n AND v_norm[i + 1] = 'part'))
                   AND cardinality(v_clause) > 0 THEN
                    FOREACH k IN ARRAY v_clause LOOP
                        v_verdict[k] := 'mention';
                        v_reason[k] := format('partial: "%s %s"', v_verb[k],
                                              CASE WHEN v_norm[i] = 'in' THEN 'in part' ELSE v_tok[i] END);
                    END LOOP;
                    v_clause := '{}';
                END IF;

                -- idle: is this token a resolution verb or trailer?
                IF v_norm[i] = ANY (c_verbs)
                   OR (i = 1 AND v_s.line_start AND v_norm[i] = ANY (c_trailer) AND n >= 2 AND v_gap[2] ~ '^\s*:') THEN
                    IF i > 1 AND v_gap[i] !~ '[.;!?,]' AND v_norm[i - 1] IN ('a', 'an', 'the') THEN
                        i := i + 1;          -- an adjective: 'the fixed timeout'
                        CONTINUE;
                    END IF;
                    v_neg := NULL;
                    k := i - 1;
                    WHILE k >= 1 AND k >= i - 4 AND v_gap[k + 1] !~ '[.;!?,]' LOOP
                        IF v_norm[k] = ANY (c_hedges) THEN
                            -- the words from the hedge to the verb, as written ("doesn't fix")
                            v_neg := v_tok[k] || (SELECT string_agg(v_gap[x] || v_tok[x], '' ORDER BY x)
                                                    FROM generate_series(k + 1, i) AS x);
                        END IF;
                        k := k - 1;
                    END LOOP;
                    v_cur := v_tok[i] || CASE WHEN i < n AND v_gap[i + 1] ~ '^\s*:' THEN ':' ELSE '' END;
                    v_sent := CASE WHEN v_neg IS NULL THEN v_cur END;
                    v_state := 'object';
                    -- conventional commit header: fix(scope)!: ...
                    IF i = 1 AND v_s.line_start AND n >= 2 AND v_gap[2] = '(' THEN
                        FOR k IN 2 .. least(n, 7) LOOP
                            IF k = n OR v_gap[k + 1] ~ '\)' THEN
                                IF k < n AND v_gap[k + 1] ~ '^\)!?:' THEN
                                    FOR x IN 2 .. k LOOP
                                        v_reason[x] := 'in a conventional-commit scope';
                                        v_verdict[x] := 'mention';
                                    END LOOP;
                                    v_cur := v_tok[1] || '(' || array_to_string(v_tok[2:k], ' ') || '):';
                                    v_free := true;
                                    i := k;
                                END IF;
                                EXIT;
                            END IF;
                        END LOOP;
                    END IF;
                END IF;
                i := i + 1;
            END LOOP;
        END IF;

        -- unnest, not v_tok[o]: subscripting a flat text array from SQL is O(n)
        RETURN QUERY
            SELECT v_s.seg, u.o::integer,
                   v_s.line + (sum(char_length(u.gp) - char_length(replace(u.gp, E'\n', ''))) OVER (ORDER BY u.o))::integer,
                   v_s.context, u.tok, u.nrm, u.gp,
                   ledger._significant(u.nrm), u.vd, u.vb, u.why, u.alt
              FROM unnest(v_tok, v_norm, v_gap, v_verdict, v_verb, v_reason, v_alt)
                   WITH ORDINALITY AS u(tok, nrm, gp, vd, vb, why, alt, o);
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger._message_tokens(text) IS
'Tokenise a merge message once and decide per token whether a resolution verb governs it (verdict resolution), it is a bare mention (bare) or anything else (mention), with the verb and the reason. text -> TABLE(seg, pos, line, context, token, norm, gap, sig, verdict, verb, reason, alt). Verbs close/fix/resolve (+s/d) across wrapped lines, trailers Supersedes:/Closes-Bug:, comma/and lists of identifiers, parenthesised references in the verb''s sentence, tokens broken at a line end (alt), negations and hedges, code spans, fences, HTML comments, reverts, commit-naming trailers, quotes. Raises nothing.';
