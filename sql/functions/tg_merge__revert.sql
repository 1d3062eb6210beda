-- ledger.tg_merge__revert() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW;
-- fires after _200_supersede)
--
-- Reverts reopen (issue 5): a merge whose message says git's
-- "This reverts commit <sha>." (or, for a reverted merge commit, "This
-- reverts commit <sha>, reversing ...") for a merge recorded in the same
-- scope reopens exactly the findings that merge superseded and that are
-- still superseded by it: audit row first (action 'reopened', rule
-- 'revert', merge_id the reverting merge, evidence the reverted sha, detail
-- {reverted_merge_id, reverted_commit} plus what is undone), then the
-- finding is active again (reopen_count + 1). Every sha named is handled;
-- the sha must be the full recorded commit id (git writes it in full), in
-- any case.
-- Explained, never silent (audit rows, no finding change):
--   'not_reopened'  a finding that merge superseded is now dismissed (a
--                   human decision stands), active again, or superseded by
--                   something else since (detail.state, detail.superseded_by);
--   'revert_unknown' the reverted sha is not a merge of this scope
--                   (finding_id NULL, evidence the sha).
-- hygiene_mode: 'dry' writes 'would_reopen' instead of reopening, 'off' does
-- nothing. Findings are locked in id order, like the supersede trigger.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__revert()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_mode   text;
    v_sha    text;
    v_target bigint;
    v_row    ledger.finding;
    v_state  text;
    v_detail jsonb;
BEGIN
    IF strpos(NEW.message, 'This reverts commit ') = 0 THEN
        RETURN NULL;
    END IF;
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = NEW.scope;
    IF v_mode = 'off' THEN
        RETURN NULL;
    END IF;

    FOR v_sha IN
        SELECT lower(m[1]) FROM regexp_matches(NEW.message, 'This reverts commit ([0-9A-Fa-f]{4,64})[.,]', 'g') AS m
         GROUP BY 1 ORDER BY min(strpos(NEW.message, m[1]))
    LOOP
        SELECT mg.id INTO v_target FROM ledger.merge mg WHERE mg.scope = NEW.scope AND mg.commit_sha = v_sha;
        IF NOT FOUND OR v_target = NEW.id THEN
            INSERT INTO ledger.supersession (scope, merge_id, action, rule, evidence, detail, reason)
            VALUES (NEW.scope, NEW.id, 'revert_unknown', 'revert', v_sha,
                    jsonb_build_object('reverted_commit', v_sha),
                    'the message reverts commit ' || v_sha || ', which is not a recorded merge of this scope');
            CONTINUE;
        END IF;
        v_detail := jsonb_build_object('reverted_merge_id', v_target, 'reverted_commit', v_sha);

        FOR v_row IN
            SELECT f.* FROM ledger.finding f
             WHERE f.id IN (SELECT a.finding_id FROM ledger.supersession a
                             WHERE a.merge_id = v_target AND a.action = 'superseded')
             ORDER BY f.id
               FOR UPDATE
        LOOP
            v_state := ledger._finding_state(v_row.superseded_at, v_row.dismissed_at);
            IF v_state = 'superseded' AND v_row.superseded_by_merge_id = v_target THEN
                IF v_mode = 'dry' THEN
                    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail, reason)
                    VALUES (NEW.scope, v_row.id, NEW.id, 'would_reopen', 'revert', v_sha, v_detail,
                            'dry mode: the reverted commit ' || v_sha || ' superseded this finding');
                ELSE
                    PERFORM ledger._reopen_finding(v_row, 'reopened', 'revert', NULL,
                        'the merge reverts commit ' || v_sha || ', which superseded this finding',
                        v_sha, NEW.id, v_detail);
                END IF;
            ELSE
                INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
                VALUES (NEW.scope, v_row.id, NEW.id, 'not_reopened', 'revert', v_sha,
                        'the reverted commit ' || v_sha || ' superseded this finding, but it was '
                            || CASE WHEN v_state = 'dismissed' THEN 'dismissed' ELSE 'superseded again' END || ' since',
                        v_detail || jsonb_strip_nulls(jsonb_build_object(
                            'state', v_state, 'superseded_by', v_row.superseded_by,
                            'superseded_by_merge_id', v_row.superseded_by_merge_id,
                            'resolution', v_row.resolution)));
            END IF;
        END LOOP;
    END LOOP;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__revert() IS
'AFTER INSERT row trigger on ledger.merge: a message "This reverts commit <sha>." naming a merge of the same scope reopens the findings that merge superseded and still stand superseded by it (audit reopened, rule revert); dismissed or since re-superseded ones are audited not_reopened, an unknown sha revert_unknown; dry: would_reopen; off: nothing. Raises nothing.';
