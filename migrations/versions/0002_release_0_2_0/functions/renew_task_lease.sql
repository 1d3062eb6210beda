CREATE OR REPLACE FUNCTION ledger.renew_task_lease(p_task_id bigint, p_runtime_id text, p_lease interval)
RETURNS timestamptz
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_runtime text := ledger._check_text(p_runtime_id, 'renew_task_lease.p_runtime_id', true, 200);
    v_task    ledger.agent_task;
    v_until   timestamptz;
BEGIN
    PERFORM ledger._require_role('ledger_agent', 'ledger.renew_task_lease');
    IF p_task_id IS NULL OR p_lease IS NULL THEN
        RAISE EXCEPTION '% is required', CASE WHEN p_task_id IS NULL THEN 'task_id' ELSE 'lease' END
            USING ERRCODE = 'LD002';
    END IF;
    IF p_lease <= interval '0' OR p_lease > interval '1 day' THEN
        RAISE EXCEPTION 'invalid lease: % (expected more than 0 and at most 1 day)', p_lease USING ERRCODE = 'LD003';
    END IF;
    SELECT t.* INTO v_task FROM ledger.agent_task t
     WHERE t.id = p_task_id
       AND ledger._scope_visible((SELECT i.scope FROM ledger.issue i WHERE i.id = t.issue_id))
       FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    IF v_task.runtime_id <> v_runtime THEN
        RAISE EXCEPTION 'task % is held by runtime %, not by %', p_task_id, quote_literal(v_task.runtime_id),
            quote_literal(v_runtime) USING ERRCODE = 'LD103';
    END IF;
    IF v_task.status NOT IN ('dispatched', 'running') THEN
        RAISE EXCEPTION 'task % holds no lease: it is %', p_task_id,
            v_task.status || coalesce(' (' || v_task.failure_reason || ')', '')
            USING ERRCODE = 'LD103',
                  HINT = CASE WHEN v_task.failure_reason = 'lease_expired'
                              THEN 'its lease expired and a claim took it over as a rerun (rerun_of_task_id)'
                              ELSE 'only a dispatched or running task holds a lease' END;
    END IF;
    v_until := clock_timestamp() + p_lease;
    UPDATE ledger.agent_task t SET lease_expires_at = v_until WHERE t.id = v_task.id;
    RETURN v_until;
END
$$;

COMMENT ON FUNCTION ledger.renew_task_lease(bigint, text, interval) IS
'Extend the lease of a dispatched or running task held by runtime p_runtime_id to clock_timestamp() + p_lease (more than 0, at most 1 day) and return it; the runtime''s heartbeat. (task_id, runtime_id, lease) -> timestamptz. SECURITY DEFINER (ledger_agent). Raises LD002, LD003, LD005 (unknown or not visible), LD103 (another runtime''s task, or one not dispatched or running: never claimed, ended, or taken over after its lease expired). The caller must hold ledger_agent, else LD403.';
