-- Trigger _011_append_only_truncate on ledger.supersession: no TRUNCATE of
-- the audit except by the table owner (LD402).
DROP TRIGGER IF EXISTS _011_append_only_truncate ON ledger.supersession;
CREATE TRIGGER _011_append_only_truncate
    BEFORE TRUNCATE ON ledger.supersession
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_supersession__append_only();
