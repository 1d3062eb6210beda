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
