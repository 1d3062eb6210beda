CREATE OR REPLACE FUNCTION ledger.workspace_scope(p_directory text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_path text;
    v_out  text := '';
    v_c    text;
BEGIN
    IF p_directory IS NULL OR btrim(p_directory) = '' THEN
        RAISE EXCEPTION 'workspace directory is required: got %', quote_nullable(p_directory) USING ERRCODE = 'LD002';
    END IF;
    IF length(p_directory) > 4096 THEN
        RAISE EXCEPTION 'invalid workspace directory: % characters, at most 4096 are accepted', length(p_directory)
            USING ERRCODE = 'LD004';
    END IF;
    v_path := regexp_replace(p_directory, '/{2,}', '/', 'g');
    IF v_path <> '/' THEN
        v_path := regexp_replace(v_path, '/$', '');
    END IF;
    FOREACH v_c IN ARRAY regexp_split_to_array(v_path, '') LOOP
        IF v_c = '/' THEN
            v_out := v_out || '-';
        ELSIF v_c IN ('%', '-', '~', ':', '\', ',')
              OR v_c ~ ('[' || ledger._unicode_class('control') || ledger._unicode_class('format') || ']') THEN
            v_out := v_out || upper(regexp_replace(encode(convert_to(v_c, 'UTF8'), 'hex'), '(..)', '%\1', 'g') COLLATE "C");
        ELSE
            v_out := v_out || v_c;
        END IF;
    END LOOP;
    IF length(v_out) > 200 THEN
        v_out := left(v_out, 183) || '~' || left(encode(sha256(convert_to(v_path, 'UTF8')), 'hex'), 16);
    END IF;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.workspace_scope(text) IS
'Collision-free scope key of a workspace directory: //->/, trailing / dropped, % - ~ : \ , and control and format characters percent-encoded, then / -> -; over 200 chars: 183 chars + ~ + 16 hex of SHA-256. text -> text. Raises LD002 (blank), LD004 (> 4096 chars).';
