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
