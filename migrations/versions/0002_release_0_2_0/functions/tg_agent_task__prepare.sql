CREATE OR REPLACE FUNCTION ledger.tg_agent_task__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_claiming boolean := current_setting('ledger.claim_writer', true) IS NOT DISTINCT FROM NEW.id::text;
    v_issue_scope text;
BEGIN
    -- Fast paths: a value that is already what ledger._check_text would
    -- return (nothing to trim, no control character, short enough) is kept
    -- without calling it; any other value, NULL included where the field is
    -- required, goes through the check and gets its error.
    IF NOT coalesce(ledger._text_kept(NEW.agent_id, 200), false) THEN
        NEW.agent_id := ledger._check_text(NEW.agent_id, 'agent_task.agent_id', true, 200);
    END IF;
    IF NOT coalesce(ledger._text_kept(NEW.runtime_id, 200), false) THEN
        NEW.runtime_id := ledger._check_text(NEW.runtime_id, 'agent_task.runtime_id', true, 200);
    END IF;
    IF NOT coalesce(ledger._text_kept(NEW.session_id, 200), true) THEN
        NEW.session_id := ledger._check_text(NEW.session_id, 'agent_task.session_id', false, 200);
    END IF;
    IF NOT coalesce(ledger._text_kept(NEW.failure_reason, 200), true) THEN
        NEW.failure_reason := ledger._check_text(NEW.failure_reason, 'agent_task.failure_reason', false, 200);
    END IF;
    NEW.force_fresh_session := coalesce(NEW.force_fresh_session, false);
    IF (TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status)
       AND (NEW.status IS NULL
            OR NEW.status NOT IN ('queued', 'dispatched', 'running', 'completed', 'failed', 'cancelled')) THEN
        -- one of the six as written needs no trimming or folding
        NEW.status := lower(ledger._check_text(coalesce(NEW.status, 'queued'), 'agent_task.status', true, 20) COLLATE "C");
        IF NEW.status NOT IN ('queued', 'dispatched', 'running', 'completed', 'failed', 'cancelled') THEN
            RAISE EXCEPTION 'invalid agent_task.status: % (expected queued, dispatched, running, completed, failed or cancelled)',
                quote_literal(NEW.status) USING ERRCODE = 'LD003';
        END IF;
    END IF;
    IF NEW.issue_id IS NULL THEN
        RAISE EXCEPTION 'agent_task.issue_id is required' USING ERRCODE = 'LD002';
    END IF;
    IF TG_OP = 'INSERT' OR NEW.issue_id IS DISTINCT FROM OLD.issue_id OR NEW.scope IS DISTINCT FROM OLD.scope THEN
        SELECT i.scope INTO v_issue_scope FROM ledger.issue i WHERE i.id = NEW.issue_id;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'unknown agent_task.issue_id: %', NEW.issue_id USING ERRCODE = 'LD005';
        END IF;
        -- scope is the issue's: set when not sent (on UPDATE: not changed), refused when another
        IF NEW.scope IS NULL OR (TG_OP = 'UPDATE' AND NEW.scope IS NOT DISTINCT FROM OLD.scope) THEN
            NEW.scope := v_issue_scope;
        ELSIF NEW.scope IS DISTINCT FROM v_issue_scope THEN
            RAISE EXCEPTION 'invalid agent_task.scope: % (issue % is in scope %)',
                quote_literal(NEW.scope), NEW.issue_id, quote_literal(v_issue_scope) USING ERRCODE = 'LD003';
        END IF;
    END IF;
    IF NEW.rerun_of_task_id IS NOT NULL
       AND (TG_OP = 'INSERT' OR NEW.rerun_of_task_id IS DISTINCT FROM OLD.rerun_of_task_id) THEN
        IF NEW.rerun_of_task_id = NEW.id THEN
            RAISE EXCEPTION 'invalid agent_task.rerun_of_task_id: % is the task itself', NEW.rerun_of_task_id
                USING ERRCODE = 'LD003';
        END IF;
        IF NOT EXISTS (SELECT 1 FROM ledger.agent_task s WHERE s.id = NEW.rerun_of_task_id) THEN
            RAISE EXCEPTION 'unknown agent_task.rerun_of_task_id: %', NEW.rerun_of_task_id USING ERRCODE = 'LD005';
        END IF;
    END IF;

    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'queued' THEN
            RAISE EXCEPTION 'invalid agent_task.status for a new task: % (a task starts queued; ledger.claim_task dispatches it)',
                quote_literal(NEW.status) USING ERRCODE = 'LD201';
        END IF;
        IF NOT coalesce(NEW.created_at BETWEEN '0001-01-02 00:00:00+00' AND now(), true) THEN
            PERFORM ledger._check_time_bounds(NEW.created_at, 'agent_task.created_at');
        END IF;
        NEW.dispatch_count := 0;
        NEW.dispatched_at := NULL;
        NEW.started_at := NULL;
        NEW.completed_at := NULL;
    ELSE
        IF NEW.status IS DISTINCT FROM OLD.status
           AND NOT (v_claiming AND OLD.status = 'queued' AND NEW.status = 'dispatched') THEN
            -- (the claim's own queued -> dispatched is a transition of the machine)
            PERFORM ledger._check_task_transition(NEW.id, OLD.status, NEW.status);
        END IF;
        IF NOT v_claiming AND ((NEW.status = 'dispatched' AND OLD.status <> 'dispatched')
                               OR NEW.dispatch_count IS DISTINCT FROM OLD.dispatch_count
                               OR NEW.dispatched_at IS DISTINCT FROM OLD.dispatched_at) THEN
            RAISE EXCEPTION 'task % can only be dispatched by ledger.claim_task (status %, dispatch_count %)',
                NEW.id, quote_literal(NEW.status), NEW.dispatch_count
                USING ERRCODE = 'LD202', HINT = 'SELECT * FROM ledger.claim_task(p_runtime_id => ...)';
        END IF;
        IF OLD.status <> 'queued' AND (NEW.issue_id, NEW.agent_id, NEW.runtime_id, NEW.rerun_of_task_id, NEW.force_fresh_session)
              IS DISTINCT FROM (OLD.issue_id, OLD.agent_id, OLD.runtime_id, OLD.rerun_of_task_id, OLD.force_fresh_session) THEN
            RAISE EXCEPTION 'task % is %: issue_id, agent_id, runtime_id, rerun_of_task_id and force_fresh_session are frozen once dispatched',
                NEW.id, OLD.status USING ERRCODE = 'LD204';
        END IF;
        IF NEW.created_at IS DISTINCT FROM OLD.created_at THEN
            PERFORM ledger._check_time_bounds(NEW.created_at, 'agent_task.created_at');
        END IF;
        IF NEW.started_at IS DISTINCT FROM OLD.started_at THEN
            PERFORM ledger._check_time_bounds(NEW.started_at, 'agent_task.started_at');
        END IF;
        IF NEW.completed_at IS DISTINCT FROM OLD.completed_at THEN
            PERFORM ledger._check_time_bounds(NEW.completed_at, 'agent_task.completed_at');
        END IF;
        IF NEW.status IS DISTINCT FROM OLD.status THEN
            IF NEW.status = 'running' THEN
                NEW.started_at := coalesce(NEW.started_at, clock_timestamp());
            ELSIF NEW.status IN ('completed', 'failed', 'cancelled') THEN
                NEW.completed_at := coalesce(NEW.completed_at, clock_timestamp());
            END IF;
        END IF;
    END IF;
    IF NEW.status = 'failed' AND NEW.failure_reason IS NULL THEN
        RAISE EXCEPTION 'agent_task.failure_reason is required when task % fails', NEW.id USING ERRCODE = 'LD002';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_agent_task__prepare() IS
'BEFORE INSERT/UPDATE trigger on ledger.agent_task: validates agent_id, runtime_id, session_id, failure_reason (required when failed), issue_id and rerun_of_task_id; sets scope to the issue''s (another scope sent: LD003); new tasks start queued; status changes follow the task machine (LD201), dispatching only inside ledger.claim_task (LD202), anchor fields frozen once dispatched (LD204); sets started_at / completed_at. Raises LD002-LD005, LD201, LD202, LD204.';
