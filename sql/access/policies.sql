-- Per-scope row-level security (inert until ledger.enable_scope_rls()): every
-- role but the owner sees and writes only the scopes named in the session
-- setting ledger.scopes. One policy per table, FOR ALL, TO PUBLIC; the
-- subquery makes the setting an InitPlan, read once per statement. Tables
-- without a scope column are scoped through the row they belong to.
CREATE POLICY scope_isolation ON ledger.scope
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.finding
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.scope_active_total
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.merge
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.supersession
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.issue
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.agent_task
    USING (EXISTS (SELECT 1 FROM ledger.issue i
                    WHERE i.id = agent_task.issue_id
                      AND i.scope = ANY ((SELECT ledger._visible_scopes())::text[])))
    WITH CHECK (EXISTS (SELECT 1 FROM ledger.issue i
                         WHERE i.id = agent_task.issue_id
                           AND i.scope = ANY ((SELECT ledger._visible_scopes())::text[])));
CREATE POLICY scope_isolation ON ledger.injection
    USING (EXISTS (SELECT 1 FROM ledger.finding f
                    WHERE f.id = injection.finding_id
                      AND f.scope = ANY ((SELECT ledger._visible_scopes())::text[])))
    WITH CHECK (EXISTS (SELECT 1 FROM ledger.finding f
                         WHERE f.id = injection.finding_id
                           AND f.scope = ANY ((SELECT ledger._visible_scopes())::text[])));
CREATE POLICY scope_isolation ON ledger.file_state_request
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.recheck_request
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
