CREATE OR REPLACE FUNCTION ledger.verify_finding(
    p_finding_id bigint, p_verdict text, p_evidence text, p_verifier text)
RETURNS ledger.supersession
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_verdict  text;
    v_evidence text;
    v_verifier text;
    v_before   ledger.finding;
    v_row      ledger.finding;
    v_touch    bigint;
    v_merge    ledger.merge;
    v_mode     text;
    v_action   text;
    v_out      ledger.supersession;
BEGIN
    PERFORM ledger._require_role('ledger_agent', 'ledger.verify_finding');
    IF p_finding_id IS NULL THEN
        RAISE EXCEPTION 'finding_id is required' USING ERRCODE = 'LD002';
    END IF;
    IF p_verdict IS NULL OR btrim(p_verdict, E' \t\r\n\f\x0b') = '' THEN
        RAISE EXCEPTION 'verdict is required (resolved or still_true)%',
            CASE WHEN p_verdict IS NULL THEN '' ELSE ': got ' || quote_literal(p_verdict) END
            USING ERRCODE = 'LD002';
    END IF;
    v_verdict := replace(lower(btrim(p_verdict, E' \t\r\n\f\x0b') COLLATE "C"), '-', '_');
    IF v_verdict NOT IN ('resolved', 'still_true') THEN
        RAISE EXCEPTION 'invalid verdict: % (expected resolved or still_true)', quote_literal(left(p_verdict, 200))
            USING ERRCODE = 'LD003';
    END IF;
    v_evidence := ledger._check_text(p_evidence, 'evidence', true, 10000, false);
    v_verifier := ledger._check_text(p_verifier, 'verifier', true, 200);

    SELECT f.* INTO v_before FROM ledger.finding f WHERE f.id = p_finding_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown finding: %', p_finding_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_scope_access(v_before.scope, 'finding.scope');
    IF v_before.superseded_at IS NOT NULL THEN
        RAISE EXCEPTION 'finding % is %, not active: a verdict needs an active finding (% by %)', v_before.id,
            ledger._finding_state(v_before.superseded_at, v_before.dismissed_at),
            coalesce(v_before.supersede_rule, 'superseded'), quote_nullable(v_before.superseded_by)
            USING ERRCODE = 'LD302',
                  HINT = 'A superseded or dismissed finding is out of the prompts; ledger.restore_finding brings it back.';
    END IF;
    -- the touch the verdict judges: the latest flagged merge after the last
    -- still_true verdict, as the prompt listed it when the call began
    SELECT a.merge_id INTO v_touch
      FROM ledger.supersession a
     WHERE a.finding_id = v_before.id AND a.action = 'flagged' AND a.merge_id IS NOT NULL
       AND a.id > coalesce((SELECT max(b.id) FROM ledger.supersession b
                             WHERE b.finding_id = v_before.id
                               AND b.action IN ('verified_still_true', 'restored', 'reopened')), 0)
     ORDER BY a.id DESC
     LIMIT 1;
    SELECT m.* INTO v_merge FROM ledger.merge m WHERE m.id = v_touch;

    SELECT f.* INTO v_row FROM ledger.finding f WHERE f.id = v_before.id FOR NO KEY UPDATE;
    IF v_row.dismissed_at IS NOT NULL THEN
        RAISE EXCEPTION 'finding % is dismissed, not active: a verdict needs an active finding (% by %)', v_row.id,
            v_row.resolution, quote_nullable(v_row.dismissed_by)
            USING ERRCODE = 'LD302', HINT = 'A person dismissed it; a dismissal stays above every verdict.';
    END IF;
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_row.scope;
    v_action := CASE WHEN v_row.superseded_at IS NOT NULL THEN 'already_superseded'
                     WHEN v_verdict = 'still_true' THEN 'verified_still_true'
                     WHEN v_mode = 'on' THEN 'superseded'
                     ELSE 'would_supersede' END;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail, actor)
    VALUES (v_row.scope, v_row.id, v_touch, v_action, 'verified', v_evidence,
            format('%s verified the finding%s: %s', v_verifier,
                   CASE WHEN v_touch IS NOT NULL THEN ' after ' || v_merge.commit_sha ELSE '' END,
                   CASE v_verdict WHEN 'resolved' THEN 'resolved' ELSE 'still true' END),
            jsonb_strip_nulls(jsonb_build_object(
                'verdict', v_verdict,
                'verifier', v_verifier,
                'commit_sha', v_merge.commit_sha,
                'subject', ledger._commit_subject(v_merge.message),
                'finding_key', v_row.finding_key,
                'hygiene_mode', v_mode,
                'superseded_by', CASE WHEN v_action = 'already_superseded' THEN v_row.superseded_by END,
                'supersede_rule', CASE WHEN v_action = 'already_superseded' THEN v_row.supersede_rule END,
                'superseded_by_merge_id',
                    CASE WHEN v_action = 'already_superseded' THEN v_row.superseded_by_merge_id END)),
            v_verifier)
    RETURNING * INTO v_out;

    IF v_action = 'superseded' THEN
        UPDATE ledger.finding f
           SET superseded_at = now(),
               superseded_by = coalesce(v_merge.node_id, v_merge.commit_sha, v_verifier),
               superseded_by_merge_id = v_touch,
               supersede_rule = 'verified'
         WHERE f.id = v_row.id;
    END IF;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.verify_finding(bigint, text, text, text) IS
'An agent''s verdict on a finding it was shown (a flagged one: its latest touch after the last still_true verdict, restore or reopen is the merge judged). resolved: audit superseded (rule verified, evidence, actor = verifier, merge_id = the touch) then the finding is superseded by that merge (by the verifier without one); would_supersede under hygiene_mode dry or off. still_true: audit verified_still_true, which clears the flag (touches count after it). A finding superseded while the call waited for its lock: audit already_superseded, returned. SECURITY DEFINER (ledger_agent). (finding_id bigint, verdict text: resolved | still_true, evidence text, verifier text) -> ledger.supersession (the audit row written). Raises LD002, LD003, LD004, LD005, LD302 (finding superseded or dismissed), LD401; nothing written on error. The caller must hold ledger_agent, else LD403.';
