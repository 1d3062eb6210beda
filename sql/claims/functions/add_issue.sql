-- ledger.add_issue(p_scope, p_title, p_description, p_status, p_priority,
--                  p_assignee_type, p_assignee_id) -> ledger.issue
--
-- Inserts one issue and returns the stored row. Equivalent to a plain
-- INSERT INTO ledger.issue: the _100_prepare trigger validates it the same
-- way (title and description are stored exactly as given, since snapshots
-- hash their exact bytes). Raises LD002 (scope or title missing), LD003
-- (status, priority or assignee invalid), LD004 (too long).
CREATE OR REPLACE FUNCTION ledger.add_issue(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_status text DEFAULT 'todo',
    p_priority text DEFAULT 'none',
    p_assignee_type text DEFAULT NULL,
    p_assignee_id text DEFAULT NULL)
RETURNS ledger.issue
LANGUAGE sql
AS $$
    INSERT INTO ledger.issue (scope, title, description, status, priority, assignee_type, assignee_id)
    VALUES (p_scope, p_title, p_description, p_status, p_priority, p_assignee_type, p_assignee_id)
    RETURNING *
$$;

COMMENT ON FUNCTION ledger.add_issue(text, text, text, text, text, text, text) IS
'Insert one issue, returning the stored row. (scope, title, description, status, priority, assignee_type, assignee_id) -> ledger.issue. Raises LD002, LD003, LD004 naming field and value.';
