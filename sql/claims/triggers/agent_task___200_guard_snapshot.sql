-- Trigger _200_guard_snapshot on ledger.agent_task: nothing but the claim
-- writes issue_snapshot. Fires after _100_prepare (name order).
DROP TRIGGER IF EXISTS _200_guard_snapshot ON ledger.agent_task;
CREATE TRIGGER _200_guard_snapshot
    BEFORE INSERT OR UPDATE
    ON ledger.agent_task
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_agent_task__guard_snapshot();
