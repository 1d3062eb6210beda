CREATE OR REPLACE FUNCTION ledger._eval_check(p_check jsonb, p_states jsonb, OUT holds boolean, OUT part text,
                                              OUT error text)
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_key     text;
    v_val     jsonb;
    v_state   jsonb;
    v_known   boolean;
    v_unknown boolean := false;
    v_h       boolean;
    v_p       text;
    v_e       text;
    v_pattern text;
BEGIN
    SELECT e.key, e.value INTO v_key, v_val FROM jsonb_each(p_check) AS e;
    IF v_key IN ('all', 'any') THEN
        FOR i IN 0 .. jsonb_array_length(v_val) - 1 LOOP
            SELECT c.holds, c.part, c.error INTO v_h, v_p, v_e FROM ledger._eval_check(v_val -> i, p_states) AS c;
            IF v_h IS NULL THEN
                v_unknown := true;
                IF v_e IS NOT NULL AND error IS NULL THEN
                    part := v_key || '[' || i || '].' || v_p;
                    error := v_e;
                END IF;
            ELSIF v_h = (v_key = 'any') THEN
                holds := v_h;
                part := v_key || '[' || i || '].' || v_p;
                error := NULL;
                RETURN;
            END IF;
        END LOOP;
        IF NOT v_unknown THEN
            holds := v_key = 'all';
            part := v_key;
        END IF;
        RETURN;
    END IF;
    part := v_key;
    IF v_key IN ('path_exists', 'path_absent') THEN
        v_known := p_states ? (v_val #>> '{}');
        v_state := p_states -> (v_val #>> '{}');
    ELSE
        v_known := p_states ? (v_val ->> 'path');
        v_state := p_states -> (v_val ->> 'path');
    END IF;
    IF NOT coalesce(v_known, false) THEN
        part := NULL;
        RETURN;
    END IF;
    CASE v_key
    WHEN 'path_exists' THEN holds := jsonb_typeof(v_state) <> 'null';
    WHEN 'path_absent' THEN holds := jsonb_typeof(v_state) = 'null';
    ELSE
        IF jsonb_typeof(v_state) = 'null' THEN
            holds := v_key = 'file_lacks';
        ELSIF jsonb_typeof(v_state) = 'string' THEN
            v_pattern := v_val ->> 'pattern';
            IF v_pattern ~ '\\[1-9]' AND EXISTS (
                   SELECT 1 FROM ledger._pattern_traps(v_pattern) AS t WHERE t.construct LIKE '%(a back reference:%') THEN
                error := 'the pattern has a back reference (\1 .. \9), which the ledger does not evaluate: '
                         'matching one can take time exponential in the text; rewrite the check without it';
                RETURN;
            END IF;
            BEGIN
                holds := (((v_state #>> '{}') COLLATE "C") ~ v_pattern) = (v_key = 'file_contains');
            EXCEPTION WHEN invalid_regular_expression OR program_limit_exceeded THEN
                holds := NULL;
                error := format('PostgreSQL could not match the pattern (%s: %s)', SQLSTATE, SQLERRM);
            END;
        ELSE
            part := NULL;  -- it exists, its text is not known
        END IF;
    END CASE;
END
$$;

COMMENT ON FUNCTION ledger._eval_check(jsonb, jsonb) IS
'Evaluate a normalised finding check on file states {"<path>": text | null (absent) | true (exists, text unknown)}; a path left out is unknown. Three-valued: (check jsonb, states jsonb) -> (holds boolean: NULL when undecided, part text: the deciding part as a JSON path, e.g. all[1].file_contains, all, any; error text: why the check is undecided when a part could not be evaluated, a back reference or a match PostgreSQL gave up, else NULL). Patterns match under COLLATE "C": classes and (?i) are ASCII-only on every database. Raises nothing.';
