CREATE OR REPLACE FUNCTION ledger.validate_check(p_check jsonb, p_field text DEFAULT 'finding.resolved_when')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_check jsonb;
    v_nodes bigint;
BEGIN
    IF p_check IS NULL THEN
        RETURN NULL;
    END IF;
    IF length(p_check::text) > 100000 THEN
        RAISE EXCEPTION 'invalid %: % characters, at most 100000 are accepted', p_field, length(p_check::text)
            USING ERRCODE = 'LD004';
    END IF;
    v_check := ledger._check_resolved_when(p_check, p_field, 1);
    SELECT count(*) INTO v_nodes
      FROM jsonb_path_query(v_check, 'strict $.** ? (exists (@.path_exists) || exists (@.path_absent) || exists (@.file_contains) || exists (@.file_lacks) || exists (@.all) || exists (@.any))');
    IF v_nodes > 64 THEN
        RAISE EXCEPTION 'invalid %: % nodes, at most 64 are accepted', p_field, v_nodes USING ERRCODE = 'LD004';
    END IF;
    RETURN v_check;
END
$$;

COMMENT ON FUNCTION ledger.validate_check(jsonb, text) IS
'A finding check (resolved_when) as stored, the one validation every writer and tool runs: (check jsonb, field text default finding.resolved_when) -> jsonb normalised (paths by the path rules, patterns rewritten to ARE by ledger._check_pattern); NULL -> NULL; at most 100000 characters and 64 nodes. Writes nothing. Raises LD001, LD003, LD004, LD105 naming the part and the value.';
