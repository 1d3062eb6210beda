-- 0037_verdicts_and_the_prompt_tex: verdicts and the prompt text

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0036_rechecks_settle_and_file_st']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0037_verdicts_and_the_prompt_tex expects the database at 0036_rechecks_settle_and_file_st, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

DROP FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer);
\ir functions/read_audit.sql
\ir functions/_finding_touches.sql
\ir functions/read_prompt_findings.sql
\ir functions/read_prompt_text.sql
\ir functions/verify_finding.sql
REVOKE EXECUTE ON FUNCTION ledger._finding_touches(bigint, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.verify_finding(bigint, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger._finding_touches(bigint, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.verify_finding(bigint, text, text, text) TO ledger_agent;
