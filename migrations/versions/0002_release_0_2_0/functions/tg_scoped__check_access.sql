CREATE OR REPLACE FUNCTION ledger.tg_scoped__check_access()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.scope IS NOT NULL
       AND (SELECT c.relrowsecurity FROM pg_catalog.pg_class c WHERE c.oid = 'ledger.scope'::pg_catalog.regclass) THEN
        PERFORM ledger._check_scope_access(btrim(NEW.scope, E' \t\r\n\f\x0b'), TG_TABLE_NAME || '.scope');
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_scoped__check_access() IS
'BEFORE INSERT OR UPDATE OF scope trigger on finding, merge, scope and issue: while per-scope row-level security is on, the row''s scope must be listed in ledger.scopes. Raises LD401 naming <table>.scope.';
