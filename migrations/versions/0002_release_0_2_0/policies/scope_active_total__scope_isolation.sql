CREATE POLICY scope_isolation ON ledger.scope_active_total
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
