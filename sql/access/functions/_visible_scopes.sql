-- ledger._visible_scopes() -> text[]
--
-- The scopes this connection may see and write while per-scope row-level
-- security is on (ledger.enable_scope_rls): the session setting
-- ledger.scopes, a comma-separated list ('spec-07, spec-08'), each element
-- trimmed, blanks and duplicates dropped. Unset or empty -> '{}' (no scope:
-- fail closed). Used by the scope_isolation policies, the view
-- ledger.active_finding and ledger._check_scope_access. A scope whose name
-- contains a comma cannot be listed. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._visible_scopes()
RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(DISTINCT s.scope) FILTER (WHERE s.scope <> ''), '{}')
      FROM unnest(string_to_array(current_setting('ledger.scopes', true), ',')) AS u(raw),
           LATERAL (SELECT btrim(u.raw, E' \t\r\n\f\x0b') AS scope) AS s
$$;

COMMENT ON FUNCTION ledger._visible_scopes() IS
'Scopes named by the session setting ledger.scopes (comma-separated, trimmed; unset -> empty: fail closed). () -> text[]. Used by the scope_isolation policies. Raises nothing.';
