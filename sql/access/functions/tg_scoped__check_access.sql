-- ledger.tg_scoped__check_access() -> trigger (BEFORE INSERT OR UPDATE OF
-- scope ON ledger.finding, ledger.merge, ledger.scope, ledger.issue: triggers
-- _050_scope_access, which fire before _100_prepare)
--
-- Gives a write into a scope the connection may not use a clear error,
-- LD401 naming <table>.scope, while per-scope row-level security is on; the
-- policies' WITH CHECK would only say 42501. The scope is compared trimmed
-- the way _100_prepare will store it; a NULL scope is left to _100_prepare
-- (LD002). Works for any table with a text column "scope". While
-- row-level security is off (ledger.scope's relrowsecurity, what
-- ledger._scope_visible reads first) it returns at once: one catalog read
-- per row instead of two nested function calls (every finding and merge
-- written passes here).
-- Raises LD401 (scope_denied).
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
