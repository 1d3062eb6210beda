-- ledger._write_issue_snapshot(p_task_id bigint, p_dispatch_count integer) -> jsonb
--
-- The compare-and-swap write of an issue_snapshot (seed 003: "written once
-- per claim ... under the same CAS"), for a write that arrives after the
-- dispatch. Computes the snapshot of the task's issue as the row is at this
-- moment (ledger.issue_snapshot, the deployment's version) and writes it
-- only if the task is still dispatched, not yet started (started_at IS
-- NULL) and in the same dispatch (dispatch_count = p_dispatch_count).
-- Returns the snapshot written, or NULL when the CAS was lost: then nothing
-- is written, so the row keeps what it had (NULL after a dispatch that never
-- got its write), never a wrong value. ledger.claim_task does not call it:
-- it writes the snapshot in the UPDATE that dispatches the task, where the
-- same conditions hold by construction. The two are the only writers of
-- issue_snapshot: each raises the transaction-local flag
-- ledger.claim_writer (the task id) that the _200_guard_snapshot trigger
-- checks, and lowers it again.
-- Raises LD005 not_found for an unknown task.
CREATE OR REPLACE FUNCTION ledger._write_issue_snapshot(p_task_id bigint, p_dispatch_count integer)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_snapshot jsonb;
    v_written bigint;
BEGIN
    SELECT ledger.issue_snapshot(i.title, i.description) INTO v_snapshot
      FROM ledger.agent_task t
      JOIN ledger.issue i ON i.id = t.issue_id
     WHERE t.id = p_task_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM set_config('ledger.claim_writer', p_task_id::text, true);
    UPDATE ledger.agent_task t
       SET issue_snapshot = v_snapshot
     WHERE t.id = p_task_id
       AND t.status = 'dispatched'
       AND t.started_at IS NULL
       AND t.dispatch_count = p_dispatch_count
    RETURNING t.id INTO v_written;
    PERFORM set_config('ledger.claim_writer', '', true);
    IF v_written IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN v_snapshot;
END
$$;

COMMENT ON FUNCTION ledger._write_issue_snapshot(bigint, integer) IS
'CAS write of a claim''s issue_snapshot: the current issue''s snapshot lands only while the task is dispatched, not started and in dispatch p_dispatch_count. (task_id, dispatch_count) -> jsonb written, or NULL when the CAS was lost (nothing written). With ledger.claim_task (which writes it in the dispatching UPDATE), the only writer of issue_snapshot. Raises LD005.';
