CREATE POLICY scope_isolation ON ledger.file_state_request
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
