-- ledger.measure_convergence(p_session_id text)
--   -> TABLE(session_id text, shown integer, still_active integer,
--            superseded integer, dismissed integer, active_share numeric)
--
-- The convergence of a session: of the findings it was shown
-- (ledger.injection), how many are still active now, how many were
-- superseded and how many dismissed since; active_share = still_active /
-- shown, rounded to 4 decimals (0 means everything it was shown has been
-- resolved, 1 that nothing has). Raises LD002 (session_id missing), LD005
-- (no injection recorded for the session: its share is undefined).
CREATE OR REPLACE FUNCTION ledger.measure_convergence(p_session_id text)
RETURNS TABLE (session_id text, shown integer, still_active integer, superseded integer,
               dismissed integer, active_share numeric)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_session text := ledger._check_text(p_session_id, 'session_id', true, 200);
BEGIN
    SELECT v_session,
           count(*)::integer,
           count(*) FILTER (WHERE f.superseded_at IS NULL)::integer,
           count(*) FILTER (WHERE f.superseded_at IS NOT NULL AND f.dismissed_at IS NULL)::integer,
           count(*) FILTER (WHERE f.dismissed_at IS NOT NULL)::integer
      INTO session_id, shown, still_active, superseded, dismissed
      FROM ledger.injection i
      JOIN ledger.finding f ON f.id = i.finding_id
     WHERE i.session_id = v_session;
    IF shown = 0 THEN
        RAISE EXCEPTION 'unknown session: no injection recorded for session_id %', quote_literal(v_session)
            USING ERRCODE = 'LD005';
    END IF;
    active_share := round(still_active::numeric / shown, 4);
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.measure_convergence(text) IS
'Convergence of a session: of the findings it was shown, how many are still active, superseded, dismissed, and active_share = still_active / shown (4 decimals). (session_id) -> TABLE(session_id, shown, still_active, superseded, dismissed, active_share numeric). Raises LD002, LD005 (no injections).';
