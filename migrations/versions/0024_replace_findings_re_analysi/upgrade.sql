-- 0024_replace_findings_re_analysi: replace_findings re-analysis: tool and category, rule reanalysis, anchors move, baseline_state

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0023_finding_checks_file_state_r']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0024_replace_findings_re_analysi expects the database at 0023_finding_checks_file_state_r, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

DROP FUNCTION ledger.replace_findings(p_scope text, p_kind text, p_review_run text, p_findings jsonb, p_actor text);
\ir functions/replace_findings.sql
\ir privileges.sql
