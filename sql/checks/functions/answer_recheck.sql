-- ledger.answer_recheck(p_id bigint, p_resolved boolean, p_evidence text,
--                       p_verifier text) -> ledger.recheck_request
--
-- The verifier's answer to a recheck request it claimed
-- (ledger.claim_rechecks). Only the lease holder answers: p_verifier is
-- required and must be the verifier the request is leased to (the
-- p_verifier of the claim), the lease must still hold (clock_timestamp()
-- before lease_until). The answer (answered_at, resolved, evidence) is
-- stored and the finding's requests are settled in merge order
-- (ledger._settle_rechecks), as file-state answers are:
--   p_resolved true: the finding retires at the first merge, in merge
--   order, whose answer is resolved: superseded by the request's merge,
--   rule recheck (audit row first: action superseded, evidence p_evidence,
--   the verifier as actor; hygiene_mode dry or off: would_supersede and
--   nothing changes), outcome resolved, its later requests moot; while an
--   earlier request of the finding is unanswered, the answer waits
--   (outcome NULL) and settles when that one is answered;
--   a resolved answer for a merge before the finding's latest decision by
--   a person (a restore or dismissal audited after the merge's request):
--   audit recheck_overruled, outcome overruled, the finding stays;
--   p_resolved false: audit recheck_kept, outcome kept, the finding stays.
-- A request that became moot while claimed (its finding retired by any
-- rule, dismissed, or retired by an earlier merge's answer): the answer is
-- stored, audited recheck_moot (recheck_overruled when a person decided
-- about the finding after the request's merge), outcome stays moot, and
-- nothing else changes.
-- The same answer again (same resolved and evidence, same verifier) is a
-- no-op returning the row. Returns the request as it is afterwards
-- (outcome NULL: waiting for an earlier request).
-- SECURITY DEFINER (fixed search_path). Raises, with nothing written:
-- LD002 (id, resolved, evidence or verifier NULL or blank), LD004
-- (evidence over 10000 characters, verifier over 200), LD005 (unknown
-- request), LD401 (its scope is not the connection's), LD103 (never
-- claimed, lease expired, leased to another verifier, or answered before
-- with another answer or by another verifier).
-- The caller must hold ledger_writer (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
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
