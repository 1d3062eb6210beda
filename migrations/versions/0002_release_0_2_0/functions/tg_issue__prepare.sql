CREATE OR REPLACE FUNCTION ledger.tg_issue__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.scope := ledger._check_scope(NEW.scope, 'issue.scope');
    PERFORM ledger._check_text(NEW.title, 'issue.title', true, 1000);
    IF length(NEW.description) > 1000000 THEN
        RAISE EXCEPTION 'invalid issue.description: % characters, at most 1000000 are accepted',
            length(NEW.description) USING ERRCODE = 'LD004';
    END IF;
    NEW.status := lower(ledger._check_text(coalesce(NEW.status, 'todo'), 'issue.status', true, 20) COLLATE "C");
    IF NEW.status NOT IN ('backlog', 'todo', 'in_progress', 'in_review', 'done', 'blocked', 'cancelled') THEN
        RAISE EXCEPTION 'invalid issue.status: % (expected backlog, todo, in_progress, in_review, done, blocked or cancelled)',
            quote_literal(NEW.status) USING ERRCODE = 'LD003';
    END IF;
    NEW.priority := lower(ledger._check_text(coalesce(NEW.priority, 'none'), 'issue.priority', true, 20) COLLATE "C");
    IF NEW.priority NOT IN ('urgent', 'high', 'medium', 'low', 'none') THEN
        RAISE EXCEPTION 'invalid issue.priority: % (expected urgent, high, medium, low or none)',
            quote_literal(NEW.priority) USING ERRCODE = 'LD003';
    END IF;
    NEW.assignee_type := lower(ledger._check_text(NEW.assignee_type, 'issue.assignee_type', false, 20) COLLATE "C");
    NEW.assignee_id := ledger._check_text(NEW.assignee_id, 'issue.assignee_id', false, 200);
    IF NEW.assignee_type NOT IN ('member', 'agent') THEN
        RAISE EXCEPTION 'invalid issue.assignee_type: % (expected member or agent)',
            quote_literal(NEW.assignee_type) USING ERRCODE = 'LD003';
    END IF;
    IF (NEW.assignee_type IS NULL) <> (NEW.assignee_id IS NULL) THEN
        RAISE EXCEPTION 'invalid issue.assignee_id: % with issue.assignee_type % (set both or neither)',
            quote_nullable(NEW.assignee_id), quote_nullable(NEW.assignee_type) USING ERRCODE = 'LD003';
    END IF;
    IF TG_OP = 'UPDATE' THEN
        NEW.updated_at := now();
    ELSE
        IF NOT coalesce(NEW.created_at BETWEEN '0001-01-02 00:00:00+00' AND now(), true) THEN
            PERFORM ledger._check_time_bounds(NEW.created_at, 'issue.created_at');
        END IF;
        IF NOT coalesce(NEW.updated_at BETWEEN '0001-01-02 00:00:00+00' AND now(), true) THEN
            PERFORM ledger._check_time_bounds(NEW.updated_at, 'issue.updated_at');
        END IF;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        PERFORM ledger._check_time_bounds(NEW.created_at, 'issue.created_at');
    END IF;
    IF TG_OP = 'INSERT' OR NEW.scope IS DISTINCT FROM OLD.scope THEN
        PERFORM ledger._ensure_scope(NEW.scope);
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_issue__prepare() IS
'BEFORE INSERT/UPDATE trigger on ledger.issue: validates scope (created on first use), title, description (both stored exactly as given), status, priority, assignee_type/assignee_id, created_at and updated_at (finite, year 1 to 5 minutes ahead); sets updated_at. Raises LD002, LD003, LD004 naming field and value.';
