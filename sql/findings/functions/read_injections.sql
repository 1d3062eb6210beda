-- ledger.read_injections(p_session_id text DEFAULT NULL, p_finding_id bigint DEFAULT NULL)
--   -> TABLE(session_id text, finding_id bigint, injected_at timestamptz,
--            scope text, kind text, severity text, title text, state text)
--
-- What a session was shown (p_session_id: its findings, in injection order,
-- with each finding's state now) and which sessions saw a finding
-- (p_finding_id: its sessions, in injection order); both filters together
-- give at most one row. Raises LD002 when both are NULL, LD005 for an
-- unknown finding id; an unknown session returns no rows.
CREATE OR REPLACE FUNCTION ledger.read_injections(p_session_id text DEFAULT NULL, p_finding_id bigint DEFAULT NULL)
RETURNS TABLE (session_id text, finding_id bigint, injected_at timestamptz,
               scope text, kind text, severity text, title text, state text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_session text := btrim(p_session_id);
BEGIN
    IF p_session_id IS NULL AND p_finding_id IS NULL THEN
        RAISE EXCEPTION 'session_id or finding_id is required' USING ERRCODE = 'LD002';
    END IF;
    IF p_finding_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.id = p_finding_id) THEN
        RAISE EXCEPTION 'unknown finding: %', p_finding_id USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
        SELECT i.session_id, i.finding_id, i.injected_at, f.scope, f.kind, f.severity, f.title,
               ledger._finding_state(f.superseded_at, f.dismissed_at)
          FROM ledger.injection i
          JOIN ledger.finding f ON f.id = i.finding_id
         WHERE (v_session IS NULL OR i.session_id = v_session)
           AND (p_finding_id IS NULL OR i.finding_id = p_finding_id)
         ORDER BY i.injected_at, i.session_id, i.finding_id;
END
$$;

COMMENT ON FUNCTION ledger.read_injections(text, bigint) IS
'Injections of one session (what it was shown) or of one finding (which sessions saw it), with each finding''s current state. (session_id, finding_id) -> TABLE(session_id, finding_id, injected_at, scope, kind, severity, title, state). Raises LD002 (both NULL), LD005 (unknown finding).';
