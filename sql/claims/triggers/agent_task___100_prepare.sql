-- Trigger _100_prepare on ledger.agent_task: validation, the status machine
-- and the lifecycle timestamps before every insert and update.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.agent_task;
CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE
    ON ledger.agent_task
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_agent_task__prepare();
