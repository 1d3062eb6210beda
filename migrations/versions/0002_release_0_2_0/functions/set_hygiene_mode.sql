CREATE OR REPLACE FUNCTION ledger.set_hygiene_mode(p_scope text, p_mode text, p_create boolean DEFAULT false)
RETURNS ledger.scope
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_row   ledger.scope;
    v_scope text;
    v_new   boolean;
BEGIN
    INSERT INTO ledger.scope AS s (scope, hygiene_mode)
    VALUES (p_scope, ledger._check_text(p_mode, 'scope.hygiene_mode', true, 10))
    ON CONFLICT (scope) DO UPDATE SET hygiene_mode = excluded.hygiene_mode
    RETURNING s.scope, s.xmax = 0 INTO v_scope, v_new;
    IF v_new AND NOT coalesce(p_create, false) THEN
        -- the row passed every check; refusing now undoes the insert
        RAISE EXCEPTION 'unknown scope: %', quote_literal(v_scope)
            USING ERRCODE = 'LD005', HINT = 'pass p_create => true to create it';
    END IF;
    SELECT s.* INTO v_row FROM ledger.scope s WHERE s.scope = v_scope;
    RETURN v_row;
END
$$;

COMMENT ON FUNCTION ledger.set_hygiene_mode(text, text, boolean) IS
'Set a scope''s hygiene_mode: on, dry or off; an unknown scope is LD005 unless p_create. (scope text, mode text, create boolean) -> ledger.scope. Raises LD002, LD003, LD004 naming field and value, LD005, LD401.';
