CREATE OR REPLACE FUNCTION ledger._report_finding(
    p_scope text,
    p_finding_key text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_source text DEFAULT NULL,
    p_review_run text DEFAULT NULL,
    p_observed_at timestamptz DEFAULT NULL,
    p_expects text DEFAULT NULL,
    p_task_group text DEFAULT NULL,
    p_resolved_when jsonb DEFAULT NULL,
    p_observed_at_precision text DEFAULT NULL)
RETURNS TABLE (finding_id bigint, outcome text, state text, report_count integer, reopen_count integer)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
    v_scope text := ledger._check_text(p_scope, 'finding.scope', true, 200);
    v_key   text := ledger._check_text(p_finding_key, 'finding.finding_key', true, 200);
    v_run   text := ledger._check_text(p_review_run, 'finding.review_run', false, 200);
    v_row   ledger.finding;
    v_state text;
BEGIN
    PERFORM ledger._check_scope_access(v_scope, 'finding.scope');
    PERFORM ledger._check_text(p_title, 'finding.title', true, 1000);
    LOOP
        SELECT f.* INTO v_row FROM ledger.finding f
         WHERE f.scope = v_scope AND f.finding_key = v_key
           AND (f.scope, f.finding_key) >= (v_scope, v_key)
           FOR NO KEY UPDATE;
        EXIT WHEN FOUND;
        PERFORM set_config('ledger.reporting', 'on', true);
        INSERT INTO ledger.finding AS f
               (scope, finding_key, title, description, paths, kind, severity, source, review_run,
                observed_at, expects, task_group, resolved_when, observed_at_precision)
        VALUES (v_scope, v_key, p_title, p_description, p_paths, p_kind, p_severity, p_source, v_run,
                p_observed_at, p_expects, p_task_group, p_resolved_when, p_observed_at_precision)
        ON CONFLICT (scope, finding_key) DO NOTHING
        RETURNING f.* INTO v_row;
        PERFORM set_config('ledger.reporting', '', true);
        IF v_row.id IS NOT NULL THEN
            finding_id := v_row.id;
            outcome := 'new';
            state := 'active';
            report_count := v_row.report_count;
            reopen_count := v_row.reopen_count;
            RETURN NEXT;
            RETURN;
        END IF;
        -- a concurrent transaction inserted the key first: read it, locked
    END LOOP;

    v_state := ledger._finding_state(v_row.superseded_at, v_row.dismissed_at);
    IF v_state = 'superseded' THEN
        PERFORM ledger._reopen_finding(v_row, 'reopened', 'rereport', coalesce(p_source, v_run), NULL,
                                       coalesce(v_run, p_source), NULL,
                                       jsonb_strip_nulls(jsonb_build_object('review_run', v_run, 'source', p_source)));
        outcome := 'reopened';
        state := 'active';
    ELSE
        outcome := CASE v_state WHEN 'active' THEN 'duplicate' ELSE 'still_dismissed' END;
        state := v_state;
    END IF;

    UPDATE ledger.finding f
       SET report_count = f.report_count + 1,
           last_reported_at = now(),
           review_run = coalesce(v_run, f.review_run)
     WHERE f.id = v_row.id
    RETURNING f.id, f.report_count, f.reopen_count INTO finding_id, report_count, reopen_count;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger._report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) IS
'The work of ledger.report_finding (same arguments and result), without its check of the caller''s role: ledger.report_finding and ledger.replace_findings (once per element) call it after checking their caller. Not granted. Raises LD001-LD004, LD401.';
