CREATE OR REPLACE FUNCTION ledger._check_json_shape(p_value jsonb, p_field text, p_shape jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_key  text;
    v_type text;
    v_got  jsonb;
BEGIN
    IF p_value IS NULL OR jsonb_typeof(p_value) <> 'object' THEN
        RAISE EXCEPTION 'invalid %: expected an object, got %', p_field, coalesce(left(p_value::text, 200), 'NULL')
            USING ERRCODE = 'LD003';
    END IF;
    SELECT k INTO v_key FROM jsonb_object_keys(p_value) AS k WHERE NOT p_shape ? k ORDER BY k LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'invalid %.%: unknown field (expected %)', p_field, v_key,
            (SELECT string_agg(s, ', ' ORDER BY s) FROM jsonb_object_keys(p_shape) AS s)
            USING ERRCODE = 'LD003';
    END IF;
    FOR v_key, v_type IN SELECT s.key, s.value FROM jsonb_each_text(p_shape) AS s ORDER BY s.key LOOP
        v_got := p_value -> v_key;
        IF v_got IS NULL OR jsonb_typeof(v_got) = 'null' THEN
            IF right(v_type, 1) = '!' THEN
                RAISE EXCEPTION '%.% is required', p_field, v_key USING ERRCODE = 'LD002';
            END IF;
        ELSIF rtrim(v_type, '!') = 'text' AND jsonb_typeof(v_got) <> 'string' THEN
            RAISE EXCEPTION 'invalid %.%: expected a string, got % %', p_field, v_key, jsonb_typeof(v_got),
                left(v_got::text, 200) USING ERRCODE = 'LD003';
        ELSIF rtrim(v_type, '!') = 'text[]'
              AND (jsonb_typeof(v_got) <> 'array'
                   OR EXISTS (SELECT 1 FROM jsonb_array_elements(v_got) AS e WHERE jsonb_typeof(e) <> 'string')) THEN
            RAISE EXCEPTION 'invalid %.%: expected an array of strings, got %', p_field, v_key, left(v_got::text, 200)
                USING ERRCODE = 'LD003';
        ELSIF rtrim(v_type, '!') = 'object' AND jsonb_typeof(v_got) <> 'object' THEN
            RAISE EXCEPTION 'invalid %.%: expected an object, got % %', p_field, v_key, jsonb_typeof(v_got),
                left(v_got::text, 200) USING ERRCODE = 'LD003';
        END IF;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger._check_json_shape(jsonb, text, jsonb) IS
'Check a JSON object against a declared shape {key: "text" | "text[]" | "object", with "!" when required}: unknown keys and wrong JSON types are LD003, a missing required key LD002, naming field.key and the value. (value jsonb, field text, shape jsonb) -> void.';
