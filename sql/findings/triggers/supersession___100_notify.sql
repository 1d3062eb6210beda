-- Trigger _100_notify on ledger.supersession: NOTIFY ledger_finding for each
-- supersede, reopen, dismiss and restore, once per statement.
DROP TRIGGER IF EXISTS _100_notify ON ledger.supersession;
CREATE TRIGGER _100_notify
    AFTER INSERT ON ledger.supersession
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_supersession__notify();
