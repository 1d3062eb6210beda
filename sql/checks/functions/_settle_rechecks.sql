-- ledger._settle_rechecks(p_finding_id bigint) -> void
--
-- Settles the recheck requests of one finding in merge order, as
-- ledger._settle_checks settles file-state requests, so that answers
-- arriving in any order decide what answering them in merge order would:
-- for each request not yet settled (outcome NULL), lowest merge_id first:
--   the finding is no longer active (retired by any rule: an earlier
--   merge's answer, a check, a message, a re-review, a dismissal): this and
--   every later request become moot (no longer claimable; no audit row);
--   the request is not answered (answered_at NULL): stop; the later
--   answered ones wait;
--   answered false: audit recheck_kept (evidence, the verifier as actor),
--   outcome kept, go on;
--   answered resolved for a merge before the finding's latest decision by a
--   person (ledger._overruled_by_person: a restore or dismissal audited
--   after the merge's request): audit recheck_overruled, outcome
--   overruled, the finding stays, go on;
--   answered resolved: audit superseded (rule recheck, evidence, reason
--   naming the verifier; the scope's hygiene_mode dry or off:
--   would_supersede and the finding stays), outcome resolved, then the
--   finding is superseded by the request's merge, and the later requests
--   become moot.
-- The caller holds the finding's row lock (FOR NO KEY UPDATE): the
-- SECURITY DEFINER ledger.answer_recheck, and the trigger
-- _320_settle_rechecks on ledger.finding when a finding leaves the active
-- set (which makes the open requests moot at once). Runs with the rights of
-- its caller; no role may call it. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._settle_rechecks(p_finding_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_f      ledger.finding;
    v_r      ledger.recheck_request;
    v_m      ledger.merge;
    v_mode   text;
    v_action text;
    v_done   boolean := false;
BEGIN
    SELECT f.* INTO v_f FROM ledger.finding f WHERE f.id = p_finding_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_f.scope;
    FOR v_r IN
        SELECT r.* FROM ledger.recheck_request r
         WHERE r.finding_id = p_finding_id AND r.outcome IS NULL
         ORDER BY r.merge_id
    LOOP
        IF v_done OR v_f.superseded_at IS NOT NULL THEN
            UPDATE ledger.recheck_request r SET outcome = 'moot' WHERE r.id = v_r.id AND r.outcome IS NULL;
            CONTINUE;
        END IF;
        EXIT WHEN v_r.answered_at IS NULL;
        SELECT m.* INTO v_m FROM ledger.merge m WHERE m.id = v_r.merge_id;
        v_action := CASE WHEN NOT v_r.resolved THEN 'recheck_kept'
                         WHEN ledger._overruled_by_person(v_f.id, v_r.merge_id) THEN 'recheck_overruled'
                         WHEN v_mode = 'on' THEN 'superseded'
                         ELSE 'would_supersede' END;
        INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail, actor)
        VALUES (v_r.scope, v_f.id, v_m.id, v_action, 'recheck', v_r.evidence,
                CASE WHEN v_action = 'recheck_overruled'
                     THEN format('verifier %s rechecked the finding after %s: resolved; a person decided about the finding after that merge, so the answer does not retire it',
                                 v_r.verifier, v_m.commit_sha)
                     ELSE format('verifier %s rechecked the finding after %s: %s', v_r.verifier, v_m.commit_sha,
                                 CASE WHEN v_r.resolved THEN 'resolved' ELSE 'still true' END) END,
                jsonb_build_object('recheck_request_id', v_r.id, 'verifier', v_r.verifier, 'resolved', v_r.resolved,
                                   'commit_sha', v_m.commit_sha, 'finding_key', v_f.finding_key),
                v_r.verifier);
        UPDATE ledger.recheck_request r
           SET outcome = CASE v_action WHEN 'recheck_kept' THEN 'kept' WHEN 'recheck_overruled' THEN 'overruled'
                                       ELSE 'resolved' END
         WHERE r.id = v_r.id;
        IF v_action IN ('superseded', 'would_supersede') THEN
            v_done := true;
        END IF;
        IF v_action = 'superseded' THEN
            -- the request is settled first: the finding's trigger then moots the later ones
            UPDATE ledger.finding f
               SET superseded_at = now(),
                   superseded_by = coalesce(v_m.node_id, v_m.commit_sha),
                   superseded_by_merge_id = v_m.id,
                   supersede_rule = 'recheck'
             WHERE f.id = v_f.id;
        END IF;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger._settle_rechecks(bigint) IS
'Settle a finding''s recheck requests in merge order: moot once the finding is not active; stop at the first unanswered one; false: audit recheck_kept, outcome kept; resolved for a merge before the finding''s latest decision by a person: audit recheck_overruled, outcome overruled; resolved: supersede by that merge, rule recheck (would_supersede unless hygiene_mode is on), outcome resolved, later requests moot. The caller holds the finding''s row lock. (finding_id bigint) -> void. Raises nothing.';
