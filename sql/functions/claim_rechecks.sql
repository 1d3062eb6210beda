-- ledger.claim_rechecks(p_scope text, p_verifier text, p_max integer,
--                       p_lease interval DEFAULT '10 minutes') -> SETOF ledger.recheck_request
--
-- Hands up to p_max open recheck requests of p_scope (answered_at NULL,
-- never claimed or their lease expired, their finding still active) to the
-- verifier p_verifier, oldest first, each with a lease until
-- clock_timestamp() + p_lease. FOR UPDATE SKIP LOCKED: concurrent
-- verifiers never get the same request while its lease holds (exactly
-- once); a request whose lease expired can be claimed again, and its old
-- lease's answer is then refused (ledger.answer_recheck, LD103).
-- SECURITY DEFINER (fixed search_path): verifiers need no UPDATE on the
-- queue; the scope is checked against the connection's scopes.
-- Raises LD002 (scope, verifier, max or lease NULL), LD003 (max outside
-- 1-1000, a lease not positive or over a day), LD004 (verifier over 200
-- characters), LD401.
CREATE OR REPLACE FUNCTION ledger.claim_rechecks(
    p_scope text, p_verifier text, p_max integer, p_lease interval DEFAULT '10 minutes')
RETURNS SETOF ledger.recheck_request
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_scope    text := ledger._check_text(p_scope, 'scope', true, 200);
    v_verifier text := ledger._check_text(p_verifier, 'verifier', true, 200);
BEGIN
    PERFORM ledger._check_scope_access(v_scope, 'scope');
    IF p_max IS NULL OR p_lease IS NULL THEN
        RAISE EXCEPTION '% is required', CASE WHEN p_max IS NULL THEN 'max' ELSE 'lease' END USING ERRCODE = 'LD002';
    END IF;
    IF p_max NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION 'invalid max: % (expected 1 to 1000 requests)', p_max USING ERRCODE = 'LD003';
    END IF;
    IF p_lease <= interval '0' OR p_lease > interval '1 day' THEN
        RAISE EXCEPTION 'invalid lease: % (expected more than 0 and at most 1 day)', p_lease USING ERRCODE = 'LD003';
    END IF;
    RETURN QUERY
    UPDATE ledger.recheck_request r
       SET verifier = v_verifier, lease_until = clock_timestamp() + p_lease
     WHERE r.id IN (SELECT q.id FROM ledger.recheck_request q
                     WHERE q.scope = v_scope AND q.answered_at IS NULL
                       AND (q.lease_until IS NULL OR q.lease_until <= clock_timestamp())
                       AND EXISTS (SELECT 1 FROM ledger.finding f WHERE f.id = q.finding_id AND f.superseded_at IS NULL)
                     ORDER BY q.id
                     LIMIT p_max
                     FOR UPDATE SKIP LOCKED)
    RETURNING r.*;
END
$$;

COMMENT ON FUNCTION ledger.claim_rechecks(text, text, integer, interval) IS
'Claim up to max open recheck requests of a scope (never claimed or lease expired, finding active), oldest first, with a lease of p_lease (default 10 minutes) from clock_timestamp(); FOR UPDATE SKIP LOCKED: exactly once per lease. (scope text, verifier text, max integer 1-1000, lease interval) -> SETOF ledger.recheck_request. SECURITY DEFINER. Raises LD002, LD003, LD004, LD401.';
