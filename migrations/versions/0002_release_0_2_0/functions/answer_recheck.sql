CREATE OR REPLACE FUNCTION ledger.answer_recheck(
    p_id bigint, p_resolved boolean, p_evidence text, p_verifier text)
RETURNS ledger.recheck_request
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_r        ledger.recheck_request;
    v_f        ledger.finding;
    v_m        ledger.merge;
    v_evidence text;
    v_verifier text;
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.answer_recheck');
    IF p_id IS NULL OR p_resolved IS NULL THEN
        RAISE EXCEPTION '% is required', CASE WHEN p_id IS NULL THEN 'id' ELSE 'resolved' END USING ERRCODE = 'LD002';
    END IF;
    v_evidence := ledger._check_text(p_evidence, 'evidence', true, 10000, false);
    v_verifier := ledger._check_text(p_verifier, 'verifier', true, 200);
    SELECT r.* INTO v_r FROM ledger.recheck_request r WHERE r.id = p_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown recheck request: id %', p_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_scope_access(v_r.scope, 'recheck_request.scope');
    -- the finding first, then the request (the merge trigger's order)
    SELECT f.* INTO v_f FROM ledger.finding f WHERE f.id = v_r.finding_id FOR NO KEY UPDATE;
    SELECT r.* INTO v_r FROM ledger.recheck_request r WHERE r.id = p_id FOR UPDATE;
    IF v_r.answered_at IS NOT NULL THEN
        IF v_r.resolved = p_resolved AND v_r.evidence = v_evidence AND v_r.verifier = v_verifier THEN
            RETURN v_r;
        END IF;
        RAISE EXCEPTION 'recheck request % was answered before (resolved %, by %)', p_id, v_r.resolved,
            quote_nullable(v_r.verifier) USING ERRCODE = 'LD103';
    END IF;
    IF v_r.lease_until IS NULL THEN
        RAISE EXCEPTION 'recheck request % is not claimed: claim it with ledger.claim_rechecks first', p_id
            USING ERRCODE = 'LD103';
    END IF;
    IF v_verifier IS DISTINCT FROM v_r.verifier THEN
        RAISE EXCEPTION 'recheck request % is leased to %, not to %', p_id, quote_nullable(v_r.verifier),
            quote_literal(v_verifier) USING ERRCODE = 'LD103';
    END IF;
    IF v_r.lease_until <= clock_timestamp() THEN
        RAISE EXCEPTION 'recheck request %: the lease of % expired at %', p_id, quote_nullable(v_r.verifier),
            to_char(v_r.lease_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
            USING ERRCODE = 'LD103', HINT = 'claim it again with ledger.claim_rechecks';
    END IF;
    UPDATE ledger.recheck_request r
       SET answered_at = now(), resolved = p_resolved, evidence = v_evidence
     WHERE r.id = p_id
    RETURNING r.* INTO v_r;
    IF v_r.outcome IS NULL THEN
        PERFORM ledger._settle_rechecks(v_f.id);
    ELSE
        -- moot while claimed: the answer is kept, it decides nothing
        SELECT m.* INTO v_m FROM ledger.merge m WHERE m.id = v_r.merge_id;
        INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail, actor)
        VALUES (v_r.scope, v_r.finding_id, v_r.merge_id,
                CASE WHEN p_resolved AND ledger._overruled_by_person(v_r.finding_id, v_r.merge_id)
                     THEN 'recheck_overruled' ELSE 'recheck_moot' END,
                'recheck', v_evidence,
                format('verifier %s rechecked the finding after %s: %s; the request was moot (the finding was retired, or decided by a person, after that merge), so the answer changes nothing',
                       v_r.verifier, v_m.commit_sha, CASE WHEN p_resolved THEN 'resolved' ELSE 'still true' END),
                jsonb_build_object('recheck_request_id', v_r.id, 'verifier', v_r.verifier, 'resolved', p_resolved,
                                   'commit_sha', v_m.commit_sha, 'finding_key', v_f.finding_key),
                v_r.verifier);
    END IF;
    SELECT r.* INTO v_r FROM ledger.recheck_request r WHERE r.id = p_id;
    RETURN v_r;
END
$$;

COMMENT ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) IS
'Answer a recheck request under the lease of p_verifier (required: the verifier the claim leased it to, lease not expired). The finding''s requests settle in merge order (ledger._settle_rechecks): resolved retires the finding at the first merge whose answer is resolved (rule recheck, audited superseded; would_supersede unless hygiene_mode on; waits while an earlier request is unanswered; recheck_overruled and no retirement for a merge before the finding''s latest decision by a person); false audits recheck_kept. A moot request stores the answer, audits recheck_moot and changes nothing. The same answer again is a no-op. (id bigint, resolved boolean, evidence text, verifier text) -> ledger.recheck_request. SECURITY DEFINER. Raises LD002, LD004, LD005, LD103 (not claimed, lease expired, another verifier''s lease, answered otherwise before), LD401; nothing written on error. The caller must hold ledger_writer, else LD403.';
