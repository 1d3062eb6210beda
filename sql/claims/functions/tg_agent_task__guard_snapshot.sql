-- ledger.tg_agent_task__guard_snapshot() -> trigger (BEFORE INSERT OR UPDATE ON ledger.agent_task)
--
-- issue_snapshot has exactly one writer, the claim ("a snapshot
-- taken at claim time has exactly one writer"). A new row must carry NULL,
-- and an UPDATE may change the column only while the transaction-local flag
-- ledger.claim_writer, raised by ledger.claim_task,
-- names this very task. Any other write (a service's UPDATE, a COPY of
-- snapshots) is rejected. Importing history from an earlier system is done
-- with session_replication_role = replica, which does not fire triggers.
-- The flag is a guard against mistakes, not a security boundary: privileges
-- (UPDATE on ledger.agent_task withheld from service roles) are the wall.
-- Raises LD203 snapshot_write_rejected naming the task.
CREATE OR REPLACE FUNCTION ledger.tg_agent_task__guard_snapshot()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.issue_snapshot IS NOT NULL THEN
            RAISE EXCEPTION 'agent_task.issue_snapshot of new task % must be NULL: only ledger.claim_task writes it', NEW.id
                USING ERRCODE = 'LD203';
        END IF;
    ELSIF NEW.issue_snapshot IS DISTINCT FROM OLD.issue_snapshot
          AND current_setting('ledger.claim_writer', true) IS DISTINCT FROM NEW.id::text THEN
        RAISE EXCEPTION 'agent_task.issue_snapshot of task % is written only by ledger.claim_task', NEW.id
            USING ERRCODE = 'LD203';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_agent_task__guard_snapshot() IS
'BEFORE INSERT/UPDATE trigger on ledger.agent_task: issue_snapshot is NULL on insert and changes only inside ledger.claim_task (transaction-local flag ledger.claim_writer = task id). Raises LD203 naming the task.';
