-- ledger.record_injection(p_session_id text, p_finding_ids bigint[])
--   -> TABLE(recorded integer, already_recorded integer)
--
-- Records that the findings p_finding_ids were injected into session
-- p_session_id's prompt ("what each session was shown"). Idempotent
-- per (session, finding) pair: the same as INSERT INTO ledger.injection
-- (session_id, finding_id) ... ON CONFLICT DO NOTHING; the first injection
-- time is kept. Duplicates in the array count once. recorded: pairs new to
-- the ledger; already_recorded: pairs it held before.
-- Raises LD002 (session_id missing, p_finding_ids NULL or holding a NULL),
-- LD003, LD004 (session_id), LD005 (an unknown finding id, named).
-- Nothing is written on error.
CREATE OR REPLACE FUNCTION ledger.record_injection(p_session_id text, p_finding_ids bigint[])
RETURNS TABLE (recorded integer, already_recorded integer)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_session text := ledger._check_text(p_session_id, 'session_id', true, 200);
    v_ids     bigint[];
BEGIN
    IF p_finding_ids IS NULL OR array_position(p_finding_ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'finding_ids is required and may not hold NULL: got %', coalesce(p_finding_ids::text, 'NULL')
            USING ERRCODE = 'LD002';
    END IF;
    SELECT coalesce(array_agg(DISTINCT i ORDER BY i), '{}') INTO v_ids FROM unnest(p_finding_ids) AS i;
    INSERT INTO ledger.injection (session_id, finding_id)
    SELECT v_session, i FROM unnest(v_ids) AS i ORDER BY i
    ON CONFLICT (session_id, finding_id) DO NOTHING;
    GET DIAGNOSTICS recorded = ROW_COUNT;
    already_recorded := cardinality(v_ids) - recorded;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.record_injection(text, bigint[]) IS
'Record which findings were injected into a session''s prompt, idempotent per (session, finding) pair. (session_id, finding_ids bigint[]) -> TABLE(recorded integer, already_recorded integer). Raises LD002-LD005.';
