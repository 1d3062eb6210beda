CREATE OR REPLACE FUNCTION ledger.add_finding(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_finding_key text DEFAULT NULL,
    p_source text DEFAULT NULL,
    p_observed_at timestamptz DEFAULT NULL,
    p_expects text DEFAULT NULL,
    p_task_group text DEFAULT NULL,
    p_resolved_when jsonb DEFAULT NULL,
    p_observed_at_precision text DEFAULT NULL)
RETURNS ledger.finding
LANGUAGE sql
AS $$
    INSERT INTO ledger.finding (scope, title, description, paths, kind, severity, finding_key, source,
                                observed_at, expects, task_group, resolved_when, observed_at_precision)
    VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
            p_observed_at, p_expects, p_task_group, p_resolved_when, p_observed_at_precision)
    RETURNING *
$$;

COMMENT ON FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) IS
'Insert one finding, returning the stored row. (scope, title, description, paths text[], kind, severity, finding_key, source, observed_at, expects, task_group, resolved_when jsonb (the check; see finding.resolved_when), observed_at_precision instant|day) -> ledger.finding. Raises LD001-LD004 (a bad check names its part), LD301 for a finding_key already used in the scope (use report_finding), 23505 only for a concurrent insert of the same new key.';
