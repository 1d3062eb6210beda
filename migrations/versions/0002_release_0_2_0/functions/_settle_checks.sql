CREATE OR REPLACE FUNCTION ledger._settle_checks(p_finding_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_f     ledger.finding;
    v_r     ledger.file_state_request;
    v_m     ledger.merge;
    v_mode  text;
    v_flag  boolean;
    v_holds boolean;
    v_part  text;
    v_error text;
    v_done  boolean := false;
BEGIN
    SELECT f.* INTO v_f FROM ledger.finding f WHERE f.id = p_finding_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT s.hygiene_mode, ledger._touch_mode(s.touch_modes, v_f.kind) = 'flag' INTO v_mode, v_flag
      FROM ledger.scope s WHERE s.scope = v_f.scope;
    FOR v_r IN
        SELECT r.* FROM ledger.file_state_request r
         WHERE r.finding_id = p_finding_id AND r.outcome IS NULL
         ORDER BY r.merge_id
    LOOP
        IF v_done OR v_f.superseded_at IS NOT NULL OR v_f.resolved_when IS NULL THEN
            UPDATE ledger.file_state_request r
               SET outcome = 'moot', answered_at = coalesce(r.answered_at, now())
             WHERE r.id = v_r.id;
            CONTINUE;
        END IF;
        EXIT WHEN v_r.answered_at IS NULL;
        SELECT c.holds, c.part, c.error INTO v_holds, v_part, v_error
          FROM ledger._eval_check(v_f.resolved_when, v_r.states) AS c;
        SELECT m.* INTO v_m FROM ledger.merge m WHERE m.id = v_r.merge_id;
        IF v_holds IS NULL AND v_error IS NOT NULL THEN
            INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
            VALUES (v_f.scope, v_f.id, v_m.id, 'check_error', 'check', v_part,
                    format('the finding''s check could not be evaluated on the tree of %s: %s: %s; the finding stays',
                           v_m.commit_sha, v_part, v_error),
                    jsonb_build_object('finding_key', v_f.finding_key, 'kind', v_f.kind, 'part', v_part,
                                       'error', v_error, 'paths', to_jsonb(v_r.paths), 'commit_sha', v_m.commit_sha));
            UPDATE ledger.file_state_request r SET outcome = 'error', part = v_part WHERE r.id = v_r.id;
        ELSIF coalesce(v_holds, false) AND ledger._overruled_by_person(v_f.id, v_m.id) THEN
            -- a stale machine answer: a person decided about the finding after this merge
            INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
            VALUES (v_f.scope, v_f.id, v_m.id, 'check_overruled', 'check', v_part,
                    format('the finding''s check held on the tree of %s (%s), but a person decided about the finding after that merge: it stays',
                           v_m.commit_sha, v_part),
                    jsonb_build_object('finding_key', v_f.finding_key, 'kind', v_f.kind, 'part', v_part,
                                       'paths', to_jsonb(v_r.paths), 'commit_sha', v_m.commit_sha));
            UPDATE ledger.file_state_request r SET outcome = 'overruled', part = v_part WHERE r.id = v_r.id;
        ELSIF coalesce(v_holds, false) THEN
            INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
            VALUES (v_f.scope, v_f.id, v_m.id,
                    CASE WHEN v_mode = 'on' THEN 'superseded' ELSE 'would_supersede' END,
                    'check', v_part,
                    format('the finding''s check held on the tree of %s: %s', v_m.commit_sha, v_part),
                    jsonb_build_object('finding_key', v_f.finding_key, 'kind', v_f.kind, 'part', v_part,
                                       'paths', to_jsonb(v_r.paths), 'commit_sha', v_m.commit_sha,
                                       'resolved_when', v_f.resolved_when));
            IF v_mode = 'on' THEN
                UPDATE ledger.finding f
                   SET superseded_at = now(),
                       superseded_by = coalesce(v_m.node_id, v_m.commit_sha),
                       superseded_by_merge_id = v_m.id,
                       supersede_rule = 'check'
                 WHERE f.id = v_f.id;
            END IF;
            UPDATE ledger.file_state_request r SET outcome = 'held', part = v_part WHERE r.id = v_r.id;
            v_done := true;
        ELSE
            v_part := coalesce(v_part, 'undecided');
            INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
            VALUES (v_f.scope, v_f.id, v_m.id, 'check_failed', 'check', v_part,
                    format('the finding''s check did not hold on the tree of %s: %s failed', v_m.commit_sha, v_part),
                    jsonb_build_object('finding_key', v_f.finding_key, 'kind', v_f.kind, 'part', v_part,
                                       'paths', to_jsonb(v_r.paths), 'commit_sha', v_m.commit_sha));
            IF v_flag AND v_mode IN ('on', 'dry') THEN
                INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
                VALUES (v_f.scope, v_f.id, v_m.id, CASE WHEN v_mode = 'on' THEN 'flagged' ELSE 'would_flag' END,
                        'check', v_part,
                        format('%s touched what the finding''s check names and the check did not hold (%s failed); '
                               'touch mode flag: the finding stays, listed as possibly resolved for its reader to verify',
                               v_m.commit_sha, v_part),
                        jsonb_build_object('finding_key', v_f.finding_key, 'kind', v_f.kind, 'part', v_part,
                                           'commit_sha', v_m.commit_sha, 'touch_mode', 'flag'));
            END IF;
            UPDATE ledger.file_state_request r SET outcome = 'failed', part = v_part WHERE r.id = v_r.id;
        END IF;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger._settle_checks(bigint) IS
'Settle a checked finding''s file-state requests in merge order: moot once the finding is not active; stop at the first pending one; held: supersede by that merge, rule check (audit superseded, evidence the part that held; would_supersede unless hygiene_mode is on), later requests moot; failed: audit check_failed naming the part, and flagged (would_flag when dry) when the finding''s kind has touch mode flag, so the prompt lists the merge for its reader to verify; held on the tree of a merge before the finding''s latest decision by a person: audit check_overruled, outcome overruled, the finding stays; a part that could not be evaluated (a back reference, a match PostgreSQL gave up) leaving the check undecided: audit check_error naming the part and the reason, outcome error, the finding stays. The caller holds the finding''s row lock. (finding_id bigint) -> void. Raises nothing.';
