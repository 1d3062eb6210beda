CREATE OR REPLACE FUNCTION ledger._check_resolved_when(
    p_check jsonb, p_field text DEFAULT 'finding.resolved_when', p_depth integer DEFAULT 1)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_key  text;
    v_val  jsonb;
    v_out  jsonb := '[]'::jsonb;
    v_path text;
    v_pat  text;
    v_part text;
BEGIN
    IF p_check IS NULL THEN
        RETURN NULL;
    END IF;
    IF p_depth > 8 THEN
        RAISE EXCEPTION 'invalid %: the check is nested deeper than 8 levels', p_field USING ERRCODE = 'LD004';
    END IF;
    IF jsonb_typeof(p_check) <> 'object' OR (SELECT count(*) FROM jsonb_object_keys(p_check)) <> 1 THEN
        RAISE EXCEPTION 'invalid %: % is not one of {"path_exists": ...}, {"path_absent": ...}, {"file_contains": {...}}, {"file_lacks": {...}}, {"all": [...]}, {"any": [...]} (exactly one key)',
            p_field, left(p_check::text, 200) USING ERRCODE = 'LD003';
    END IF;
    SELECT e.key, e.value INTO v_key, v_val FROM jsonb_each(p_check) AS e;
    v_part := p_field || '.' || v_key;
    CASE v_key
    WHEN 'path_exists', 'path_absent' THEN
        IF jsonb_typeof(v_val) <> 'string' THEN
            RAISE EXCEPTION 'invalid %: % is not a path string', v_part, left(v_val::text, 200) USING ERRCODE = 'LD003';
        END IF;
        RETURN jsonb_build_object(v_key, ledger.normalize_path(v_val #>> '{}', v_part));
    WHEN 'file_contains', 'file_lacks' THEN
        IF jsonb_typeof(v_val) <> 'object' OR NOT v_val ?& ARRAY['path', 'pattern']
           OR (SELECT count(*) FROM jsonb_object_keys(v_val)) <> 2 THEN
            RAISE EXCEPTION 'invalid %: % is not {"path": "<file>", "pattern": "<regex>"}', v_part,
                left(v_val::text, 200) USING ERRCODE = 'LD003';
        END IF;
        IF jsonb_typeof(v_val -> 'path') <> 'string' THEN
            RAISE EXCEPTION 'invalid %.path: % is not a path string', v_part, left((v_val -> 'path')::text, 200)
                USING ERRCODE = 'LD003';
        END IF;
        v_path := ledger.normalize_path(v_val ->> 'path', v_part || '.path');
        IF v_path ~ '/$' THEN
            RAISE EXCEPTION 'invalid %.path: % is a directory; % needs a file', v_part, quote_literal(v_path), v_key
                USING ERRCODE = 'LD003';
        END IF;
        IF jsonb_typeof(v_val -> 'pattern') <> 'string' OR v_val ->> 'pattern' = '' THEN
            RAISE EXCEPTION 'invalid %.pattern: % is not a non-empty regular expression string', v_part,
                left((v_val -> 'pattern')::text, 200) USING ERRCODE = 'LD003';
        END IF;
        v_pat := v_val ->> 'pattern';
        IF length(v_pat) > 1000 THEN
            RAISE EXCEPTION 'invalid %.pattern: % characters, at most 1000 are accepted', v_part, length(v_pat)
                USING ERRCODE = 'LD004';
        END IF;
        v_pat := ledger._check_pattern(v_pat, v_part || '.pattern');
        RETURN jsonb_build_object(v_key, jsonb_build_object('path', v_path, 'pattern', v_pat));
    WHEN 'all', 'any' THEN
        IF jsonb_typeof(v_val) <> 'array' OR jsonb_array_length(v_val) = 0 THEN
            RAISE EXCEPTION 'invalid %: % is not a non-empty array of checks', v_part, left(v_val::text, 200)
                USING ERRCODE = 'LD003';
        END IF;
        IF jsonb_array_length(v_val) > 64 THEN
            RAISE EXCEPTION 'invalid %: % checks, at most 64 are accepted', v_part, jsonb_array_length(v_val)
                USING ERRCODE = 'LD004';
        END IF;
        FOR i IN 0 .. jsonb_array_length(v_val) - 1 LOOP
            v_out := v_out || jsonb_build_array(
                ledger._check_resolved_when(v_val -> i, v_part || '[' || i || ']', p_depth + 1));
        END LOOP;
        RETURN jsonb_build_object(v_key, v_out);
    ELSE
        RAISE EXCEPTION 'invalid %: unknown key % (expected path_exists, path_absent, file_contains, file_lacks, all or any)',
            p_field, quote_literal(v_key) USING ERRCODE = 'LD003';
    END CASE;
END
$$;

COMMENT ON FUNCTION ledger._check_resolved_when(jsonb, text, integer) IS
'Validate and normalise a finding check (finding.resolved_when): exactly one key per node among path_exists, path_absent (a path; trailing / = directory), file_contains, file_lacks ({"path": file, "pattern": regex}), all, any (1-64 nodes); paths through ledger.normalize_path; patterns 1-1000 characters, rewritten to ARE by ledger._check_pattern, that compile; depth at most 8. (check jsonb, field text, depth integer) -> jsonb (normalised; NULL -> NULL). Raises LD001 (path), LD105 (another dialect, ledger._check_pattern), LD003 (shape, unknown key, directory for a file, pattern that does not compile), LD004 (too deep, too long, too many), naming the part, e.g. finding.resolved_when.all[1].file_contains.pattern, and the value.';
