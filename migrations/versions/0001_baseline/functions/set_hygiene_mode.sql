-- ledger.set_hygiene_mode(p_scope text, p_mode text) -> ledger.scope
--
-- Sets a scope's hygiene_mode ('on' supersede, 'dry' audit only, 'off'
-- nothing), creating the scope when it does not exist yet; returns the row.
-- The same as INSERT INTO ledger.scope ... ON CONFLICT (scope) DO UPDATE.
-- Raises LD002 (scope or mode missing: a NULL mode is an error here, not
-- the column default), LD003 (mode not on, dry or off), LD004, LD401.
CREATE OR REPLACE FUNCTION ledger.set_hygiene_mode(p_scope text, p_mode text)
RETURNS ledger.scope
LANGUAGE sql
AS $$
    INSERT INTO ledger.scope AS s (scope, hygiene_mode)
    VALUES (p_scope, ledger._check_text(p_mode, 'scope.hygiene_mode', true, 10))
    ON CONFLICT (scope) DO UPDATE SET hygiene_mode = excluded.hygiene_mode
    RETURNING s.*
$$;

COMMENT ON FUNCTION ledger.set_hygiene_mode(text, text) IS
'Set (upsert) a scope''s hygiene_mode: on, dry or off. (scope text, mode text) -> ledger.scope. Raises LD002, LD003, LD004 naming field and value.';
