CREATE OR REPLACE FUNCTION ledger.claim_task(p_runtime_id text, p_agent_id text DEFAULT NULL,
                                             p_lease interval DEFAULT NULL)
RETURNS TABLE (
    task_id bigint,
    issue_id bigint,
    agent_id text,
    runtime_id text,
    dispatch_count integer,
    dispatched_at timestamptz,
    rerun_of_task_id bigint,
    force_fresh_session boolean,
    resume_session_id text,
    resumed_task_id bigint,
    anchor_task_id bigint,
    issue_status text,
    issue_assignee_type text,
    issue_assignee_id text,
    issue_priority text,
    issue_state_delta_known boolean,
    issue_changed_fields text[],
    delta_basis text,
    lease_expires_at timestamptz,
    reclaimed_task_id bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_runtime text := ledger._check_text(p_runtime_id, 'claim_task.p_runtime_id', true, 200);
    v_agent text := ledger._check_text(p_agent_id, 'claim_task.p_agent_id', false, 200);
    v_version integer := ledger._snapshot_version();  -- an invalid setting fails before anything is written
    v_task_id bigint;
    v_issue_id bigint;
    v_agent_id text;
    v_rerun_of bigint;
    v_fresh boolean;
    v_resumed ledger.agent_task;
    v_title text;
    v_description text;
    v_snapshot jsonb;
    v_expired ledger.agent_task;
BEGIN
    PERFORM ledger._require_role('ledger_agent', 'ledger.claim_task');
    IF p_lease <= interval '0' OR p_lease > interval '1 day' THEN
        RAISE EXCEPTION 'invalid lease: % (expected more than 0 and at most 1 day)', p_lease USING ERRCODE = 'LD003';
    END IF;
    -- a. a task whose lease expired (through agent_task_lease_idx): failed, and a rerun of it queued
    SELECT t.* INTO v_expired
      FROM ledger.agent_task t
     WHERE t.status IN ('dispatched', 'running')
       AND t.lease_expires_at IS NOT NULL
       AND t.runtime_id = v_runtime
       AND t.lease_expires_at < clock_timestamp()
       AND (v_agent IS NULL OR t.agent_id = v_agent)
       AND ledger._scope_visible((SELECT i.scope FROM ledger.issue i WHERE i.id = t.issue_id))
     ORDER BY t.lease_expires_at, t.id
     LIMIT 1
       FOR NO KEY UPDATE OF t SKIP LOCKED;
    IF FOUND THEN
        PERFORM ledger._set_task_status(v_expired.id, 'failed', NULL, 'lease_expired');
        INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, rerun_of_task_id, force_fresh_session)
        VALUES (v_expired.issue_id, v_expired.agent_id, v_expired.runtime_id, v_expired.id,
                v_expired.force_fresh_session);
        reclaimed_task_id := v_expired.id;
    END IF;
    -- b. the next queued task (the rerun just queued, when there was one: it is locked by this
    --    transaction's insert, and no other claimer sees it before it commits)
    SELECT t.id, t.issue_id, t.agent_id, t.rerun_of_task_id, t.force_fresh_session,
           i.title, i.description, i.status, i.assignee_type, i.assignee_id, i.priority
      INTO v_task_id, v_issue_id, v_agent_id, v_rerun_of, v_fresh,
           v_title, v_description, issue_status, issue_assignee_type, issue_assignee_id, issue_priority
      FROM ledger.agent_task t
      JOIN ledger.issue i ON i.id = t.issue_id
     WHERE t.status = 'queued'
       AND t.runtime_id = v_runtime
       AND (v_agent IS NULL OR t.agent_id = v_agent)
       AND ledger._scope_visible(i.scope)
       AND (v_expired.id IS NULL OR t.rerun_of_task_id = v_expired.id)
     ORDER BY t.created_at, t.id
     LIMIT 1
       FOR NO KEY UPDATE OF t SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN;
    END IF;

    v_resumed := ledger._resumed_row(v_task_id, v_issue_id, v_agent_id, v_runtime, v_rerun_of, v_fresh);
    v_snapshot := ledger.issue_snapshot(v_title, v_description, v_version);

    PERFORM set_config('ledger.claim_writer', v_task_id::text, true);
    UPDATE ledger.agent_task t
       SET status = 'dispatched',
           dispatched_at = clock_timestamp(),
           dispatch_count = t.dispatch_count + 1,
           session_id = v_resumed.session_id,
           issue_snapshot = v_snapshot,
           started_at = NULL,
           completed_at = NULL,
           failure_reason = NULL,
           lease_expires_at = clock_timestamp() + p_lease
     WHERE t.id = v_task_id
    RETURNING t.id, t.issue_id, t.agent_id, t.runtime_id, t.dispatch_count, t.dispatched_at, t.rerun_of_task_id,
              t.force_fresh_session, v_resumed.session_id, v_resumed.id, t.lease_expires_at
         INTO task_id, issue_id, agent_id, runtime_id, dispatch_count, dispatched_at, rerun_of_task_id,
              force_fresh_session, resume_session_id, resumed_task_id, lease_expires_at;
    PERFORM set_config('ledger.claim_writer', '', true);

    IF force_fresh_session THEN
        delta_basis := 'fresh_session';
    ELSIF v_resumed.id IS NULL THEN
        delta_basis := 'nothing_resumed';
    ELSIF v_resumed.status <> 'completed' OR v_resumed.started_at IS NULL THEN
        delta_basis := 'not_delivered';
    ELSE
        anchor_task_id := v_resumed.id;
        IF v_resumed.issue_snapshot IS NULL THEN
            delta_basis := 'no_snapshot';
        ELSE
            issue_changed_fields := ledger._snapshot_changes(v_resumed.issue_snapshot, v_snapshot);
            delta_basis := CASE WHEN issue_changed_fields IS NULL THEN 'not_comparable' ELSE 'compared' END;
        END IF;
    END IF;
    issue_state_delta_known := delta_basis = 'compared';
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.claim_task(text, text, interval) IS
'Claim the next task of a runtime (optionally of one agent; under row-level security only of the connection''s scopes) with FOR NO KEY UPDATE SKIP LOCKED: a task whose lease expired first (failed with lease_expired, a rerun of it queued and claimed, reclaimed_task_id naming it), else the next queued one; dispatch it with a lease of p_lease (NULL: none) and write its issue_snapshot in one UPDATE, and return (task_id, issue_id, agent_id, runtime_id, dispatch_count, dispatched_at, rerun_of_task_id, force_fresh_session, resume_session_id, resumed_task_id, anchor_task_id, issue_status, issue_assignee_type, issue_assignee_id, issue_priority, issue_state_delta_known, issue_changed_fields text[] in order title, description or NULL when unknown, delta_basis, lease_expires_at, reclaimed_task_id). No row when there is no task. SECURITY DEFINER (ledger_agent). Raises LD002-LD004 for the arguments (LD003: a lease not positive or over a day), LD003 for an invalid ledger.snapshot_version. The caller must hold ledger_agent, else LD403.';
