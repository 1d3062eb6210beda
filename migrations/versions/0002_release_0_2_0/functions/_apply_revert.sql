CREATE OR REPLACE FUNCTION ledger._apply_revert(p_merge_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_merge   ledger.merge;
    v_mode    text;
    v_shas    text[];
    v_ids     bigint[];
    v_sha     text;
    v_target  bigint;
    v_row     ledger.finding;
    v_state   text;
    v_detail  jsonb;
BEGIN
    SELECT m.* INTO v_merge FROM ledger.merge m WHERE m.id = p_merge_id;
    IF NOT FOUND OR strpos(v_merge.message, 'This reverts commit ') = 0 THEN
        RETURN;
    END IF;
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_merge.scope;
    IF v_mode = 'off' THEN
        RETURN;
    END IF;

    SELECT array_agg(t.sha ORDER BY t.o), array_agg(t.target_merge_id ORDER BY t.o) INTO v_shas, v_ids
      FROM ledger._revert_targets(v_merge.scope, v_merge.message, v_merge.id) WITH ORDINALITY AS t(sha, target_merge_id, o);
    IF v_shas IS NULL THEN
        RETURN;
    END IF;
    -- one pass, in id order, over every finding the named merges superseded
    PERFORM count(*)
       FROM (SELECT f.id FROM ledger.finding f
              WHERE f.id IN (SELECT a.finding_id FROM ledger.supersession a
                              WHERE a.merge_id = ANY (v_ids) AND a.action = 'superseded')
              ORDER BY f.id
                FOR NO KEY UPDATE) AS l;

    FOR v_i IN 1 .. cardinality(v_shas) LOOP
        v_sha := v_shas[v_i];
        v_target := v_ids[v_i];
        IF v_target IS NULL THEN
            INSERT INTO ledger.supersession (scope, merge_id, action, rule, evidence, detail, reason)
            VALUES (v_merge.scope, v_merge.id, 'revert_unknown', 'revert', v_sha,
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
               FOR NO KEY UPDATE
        LOOP
            v_state := ledger._finding_state(v_row.superseded_at, v_row.dismissed_at);
            IF v_state = 'superseded' AND v_row.superseded_by_merge_id = v_target THEN
                IF v_mode = 'dry' THEN
                    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail, reason)
                    VALUES (v_merge.scope, v_row.id, v_merge.id, 'would_reopen', 'revert', v_sha, v_detail,
                            'dry mode: the reverted commit ' || v_sha || ' superseded this finding');
                ELSE
                    PERFORM ledger._reopen_finding(v_row, 'reopened', 'revert', NULL,
                        'the merge reverts commit ' || v_sha || ', which superseded this finding',
                        v_sha, v_merge.id, v_detail);
                END IF;
            ELSE
                INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
                VALUES (v_merge.scope, v_row.id, v_merge.id, 'not_reopened', 'revert', v_sha,
                        'the reverted commit ' || v_sha || ' superseded this finding, but it was '
                            || CASE WHEN v_state = 'dismissed' THEN 'dismissed' ELSE 'superseded again' END || ' since',
                        v_detail || jsonb_strip_nulls(jsonb_build_object(
                            'state', v_state, 'superseded_by', v_row.superseded_by,
                            'superseded_by_merge_id', v_row.superseded_by_merge_id,
                            'resolution', v_row.resolution)));
            END IF;
        END LOOP;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger._apply_revert(bigint) IS
'Revert rule for one merge (run by the _200_supersede trigger after _apply_merge, and by reconcile): a message "This reverts commit <sha>." naming a merge of the same scope reopens the findings that merge superseded and still stand superseded by it (audit reopened, rule revert); dismissed or since re-superseded ones are audited not_reopened, an unknown sha revert_unknown; dry: would_reopen; off: nothing. Findings locked in one id-ordered pass FOR NO KEY UPDATE. (merge_id bigint) -> void. Raises nothing.';
