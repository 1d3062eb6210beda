-- Trigger _050_scope_access on ledger.merge: while per-scope row-level
-- security is on, the row's scope must be listed in ledger.scopes (LD401).
-- Fires before _100_prepare.
DROP TRIGGER IF EXISTS _050_scope_access ON ledger.merge;
CREATE TRIGGER _050_scope_access
    BEFORE INSERT OR UPDATE OF scope ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scoped__check_access();
