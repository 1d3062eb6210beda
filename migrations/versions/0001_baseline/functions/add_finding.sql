-- ledger.add_finding(p_scope, p_title, p_description, p_paths, p_kind,
--                    p_severity, p_finding_key, p_source) -> ledger.finding
--
-- Inserts one finding and returns the stored row (normalised paths, id,
-- created_at). Equivalent to a plain INSERT INTO ledger.finding: the same
-- triggers validate it. Raises LD001-LD004 (see tg_finding__prepare) and
-- LD301 (duplicate_finding, see tg_finding__lifecycle) for a finding_key
-- already used in the scope: report a finding again with
-- ledger.report_finding. 23505 (unique_violation) remains only for two
-- transactions inserting the same new key at once.
CREATE OR REPLACE FUNCTION ledger.add_finding(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_finding_key text DEFAULT NULL,
    p_source text DEFAULT NULL)
RETURNS ledger.finding
LANGUAGE sql
AS $$
    INSERT INTO ledger.finding (scope, title, description, paths, kind, severity, finding_key, source)
    VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source)
    RETURNING *
$$;

COMMENT ON FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text) IS
'Insert one finding, returning the stored row. (scope, title, description, paths text[], kind, severity, finding_key, source) -> ledger.finding. Raises LD001-LD004, LD301 for a finding_key already used in the scope (use report_finding), 23505 only for a concurrent insert of the same new key.';
