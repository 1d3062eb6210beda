-- ledger.answer_recheck(p_id bigint, p_resolved boolean, p_evidence text,
--                       p_verifier text DEFAULT NULL) -> ledger.recheck_request
--
-- The verifier's answer to a recheck request it claimed
-- (ledger.claim_rechecks). p_resolved true: the finding is superseded by
-- the request's merge with rule recheck (audit row first: action
-- superseded, evidence p_evidence, reason naming the verifier; in scope
-- hygiene_mode dry or off: would_supersede and nothing changes; a finding
-- that is no longer active: already_superseded); false: audit recheck_kept
-- with the evidence, the finding stays. The same answer again (same
-- resolved and evidence) is a no-op returning the row.
-- The lease must be held: claimed, not expired (clock_timestamp() before
-- lease_until), and, when p_verifier is given, by that verifier.
-- SECURITY DEFINER (fixed search_path). Raises, with nothing written:
-- LD002 (id, resolved or evidence NULL or blank), LD004 (evidence over
-- 10000 characters), LD005 (unknown request), LD401 (its scope is not the
-- connection's), LD103 (never claimed, lease expired, another verifier's
-- lease, or answered before with another answer).
CREATE OR REPLACE FUNCTION ledger.answer_recheck(
    p_id bigint, p_resolved boolean, p_evidence text, p_verifier text DEFAULT NULL)
RETURNS ledger.recheck_request
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_r        ledger.recheck_request;
    v_f        ledger.finding;
    v_m        ledger.merge;
    v_mode     text;
    v_evidence text;
BEGIN
    IF p_id IS NULL OR p_resolved IS NULL THEN
        RAISE EXCEPTION '% is required', CASE WHEN p_id IS NULL THEN 'id' ELSE 'resolved' END USING ERRCODE = 'LD002';
    END IF;
    v_evidence := ledger._check_text(p_evidence, 'evidence', true, 10000, false);
    SELECT r.* INTO v_r FROM ledger.recheck_request r WHERE r.id = p_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown recheck request: id %', p_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_scope_access(v_r.scope, 'recheck_request.scope');
    -- the finding first, then the request (the merge trigger's order)
    SELECT f.* INTO v_f FROM ledger.finding f WHERE f.id = v_r.finding_id FOR NO KEY UPDATE;
    SELECT r.* INTO v_r FROM ledger.recheck_request r WHERE r.id = p_id FOR UPDATE;
    IF v_r.answered_at IS NOT NULL THEN
        IF v_r.resolved = p_resolved AND v_r.evidence = v_evidence
           AND (p_verifier IS NULL OR p_verifier = v_r.verifier) THEN
            RETURN v_r;
        END IF;
        RAISE EXCEPTION 'recheck request % was answered before (resolved %, by %)', p_id, v_r.resolved,
            quote_nullable(v_r.verifier) USING ERRCODE = 'LD103';
    END IF;
    IF v_r.lease_until IS NULL THEN
        RAISE EXCEPTION 'recheck request % is not claimed: claim it with ledger.claim_rechecks first', p_id
            USING ERRCODE = 'LD103';
    END IF;
    IF p_verifier IS NOT NULL AND p_verifier IS DISTINCT FROM v_r.verifier THEN
        RAISE EXCEPTION 'recheck request % is leased to %, not to %', p_id, quote_nullable(v_r.verifier),
            quote_literal(p_verifier) USING ERRCODE = 'LD103';
    END IF;
    IF v_r.lease_until <= clock_timestamp() THEN
        RAISE EXCEPTION 'recheck request %: the lease of % expired at %', p_id, quote_nullable(v_r.verifier),
            to_char(v_r.lease_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
            USING ERRCODE = 'LD103', HINT = 'claim it again with ledger.claim_rechecks';
    END IF;
    SELECT m.* INTO v_m FROM ledger.merge m WHERE m.id = v_r.merge_id;
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_r.scope;
    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail, actor)
    VALUES (v_r.scope, v_r.finding_id, v_r.merge_id,
            CASE WHEN NOT p_resolved THEN 'recheck_kept'
                 WHEN v_f.superseded_at IS NOT NULL THEN 'already_superseded'
                 WHEN v_mode = 'on' THEN 'superseded'
                 ELSE 'would_supersede' END,
            'recheck', v_evidence,
            format('verifier %s rechecked the finding after %s: %s', v_r.verifier, v_m.commit_sha,
                   CASE WHEN p_resolved THEN 'resolved' ELSE 'still true' END),
            jsonb_build_object('recheck_request_id', v_r.id, 'verifier', v_r.verifier, 'resolved', p_resolved,
                               'commit_sha', v_m.commit_sha, 'finding_key', v_f.finding_key),
            v_r.verifier);
    IF p_resolved AND v_f.superseded_at IS NULL AND v_mode = 'on' THEN
        UPDATE ledger.finding f
           SET superseded_at = now(),
               superseded_by = coalesce(v_m.node_id, v_m.commit_sha),
               superseded_by_merge_id = v_m.id,
               supersede_rule = 'recheck'
         WHERE f.id = v_f.id;
    END IF;
    UPDATE ledger.recheck_request r
       SET answered_at = now(), resolved = p_resolved, evidence = v_evidence
     WHERE r.id = p_id
    RETURNING r.* INTO v_r;
    RETURN v_r;
END
$$;

COMMENT ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) IS
'Answer a claimed recheck request: resolved true supersedes the finding by the request''s merge, rule recheck, with the evidence (audited superseded; would_supersede unless hygiene_mode on; already_superseded if no longer active); false audits recheck_kept. The same answer again is a no-op. (id bigint, resolved boolean, evidence text, verifier text) -> ledger.recheck_request. SECURITY DEFINER. Raises LD002, LD004, LD005, LD103 (not claimed, lease expired, another verifier''s lease, answered otherwise before), LD401; nothing written on error.';
