-- 0038_check_dialects_and_checks_l: check dialects and checks lint

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0037_verdicts_and_the_prompt_tex']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0038_check_dialects_and_checks_l expects the database at 0037_verdicts_and_the_prompt_tex, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

\ir functions/_pattern_traps.sql
\ir functions/_check_pattern.sql
\ir functions/_check_resolved_when.sql
\ir functions/validate_check.sql
\ir functions/_check_leaves.sql
\ir functions/_lint_stubs.sql
\ir functions/lint_check.sql
\ir functions/tg_finding__prepare_check.sql
REVOKE EXECUTE ON FUNCTION ledger._check_leaves(jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_pattern(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._lint_stubs(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._pattern_traps(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.lint_check(jsonb, jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.validate_check(jsonb, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger._check_pattern(text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._pattern_traps(text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.lint_check(jsonb, jsonb, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.validate_check(jsonb, text) TO ledger_writer;
