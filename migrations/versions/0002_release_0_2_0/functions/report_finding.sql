CREATE OR REPLACE FUNCTION ledger.report_finding(
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
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.report_finding');
    RETURN QUERY
        SELECT r.finding_id, r.outcome, r.state, r.report_count, r.reopen_count
          FROM ledger._report_finding(p_scope, p_finding_key, p_title, p_description, p_paths, p_kind,
                                      p_severity, p_source, p_review_run, p_observed_at, p_expects,
                                      p_task_group, p_resolved_when, p_observed_at_precision) AS r;
END
$$;

COMMENT ON FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) IS
'Report a finding by (scope, finding_key): new (inserted), duplicate (active: re-report counted), reopened (was superseded: active again, audited), still_dismissed (a person dismissed it: unchanged but counted). (scope, finding_key, title, description, paths, kind, severity, source, review_run, observed_at, expects, task_group, resolved_when jsonb, observed_at_precision; the last two as the other fields of a new finding) -> TABLE(finding_id, outcome, state, report_count, reopen_count). SECURITY DEFINER (ledger_writer). Raises LD001-LD004, LD401. The caller must hold ledger_writer, else LD403.';
