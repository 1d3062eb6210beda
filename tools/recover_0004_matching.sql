-- tools/recover_0004_matching.sql: finish an upgrade to 0004_matching that
-- stopped at its index builds (docs/dba.md, "Recovering an interrupted
-- upgrade to 0004_matching").
--
--   psql -X -v ON_ERROR_STOP=1 -d "$LEDGER_DSN" -f tools/recover_0004_matching.sql
--   alembic upgrade head        # the revisions after 0004_matching, if any
--
-- Why it exists: 0004_matching commits its columns, functions and triggers
-- first, then builds finding_active_evidence_idx and finding_scope_slug_key
-- with CREATE INDEX CONCURRENTLY, then records the version. A build that
-- fails (most often lock_timeout: the build waits for every transaction
-- older than it, in this database) leaves the database with 0004's
-- columns and triggers in force, an INVALID or missing index, and
-- ledger.alembic_version still at 0003_lifecycle. Running the upgrade again
-- then fails (42701 duplicate_column: the revision's ADD COLUMNs have no
-- IF NOT EXISTS), and 0004's own advice ("drop the INVALID index and run
-- the upgrade again") hits the same error.
--
-- What it does, only in exactly that state (otherwise it says so and
-- changes nothing): drops an INVALID leftover of either index, builds both
-- (the statements of 0004_matching, verbatim; CONCURRENTLY, so writers are
-- not blocked), checks both are valid, and records 0004_matching as the
-- version (what `alembic stamp 0004_matching` writes). Safe to run again if
-- it stops half-way. Run it in psql's default autocommit mode (no -1).
-- Tested by tests/test_interrupted_upgrade.py.

\set ON_ERROR_STOP 1
SET lock_timeout = '5s';
SET statement_timeout = 0;

SELECT to_regclass('ledger.alembic_version') IS NOT NULL AS has_version_table \gset
\if :has_version_table
\else
\echo 'recover_0004_matching: no ledger.alembic_version here; nothing changed.'
\quit
\endif
SELECT coalesce((SELECT version_num FROM ledger.alembic_version) = '0003_lifecycle', false)
       AND EXISTS (SELECT 1 FROM pg_catalog.pg_attribute
                    WHERE attrelid = to_regclass('ledger.finding') AND attname = 'slug' AND NOT attisdropped)
       AS interrupted_0004 \gset
\if :interrupted_0004
\else
\echo 'recover_0004_matching: the database is not in an interrupted 0004_matching upgrade; nothing changed.'
\quit
\endif

-- An INVALID index left by the failed build: CREATE ... IF NOT EXISTS would keep it.
SELECT pg_catalog.format('DROP INDEX CONCURRENTLY IF EXISTS %s;', i.indexrelid::regclass)
  FROM pg_catalog.pg_index i
 WHERE i.indexrelid IN (to_regclass('ledger.finding_active_evidence_idx'), to_regclass('ledger.finding_scope_slug_key'))
   AND NOT (i.indisvalid AND i.indisready)
\gexec

CREATE INDEX CONCURRENTLY IF NOT EXISTS finding_active_evidence_idx ON ledger.finding
    USING gin (ledger._evidence_keys(scope, finding_key, slug, strong_keywords, title)) WITH (fastupdate = off)
    WHERE superseded_at IS NULL;

CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS finding_scope_slug_key ON ledger.finding (scope, slug);

SELECT count(*) = 2 AS indexes_valid
  FROM pg_catalog.pg_index i
 WHERE i.indexrelid IN (to_regclass('ledger.finding_active_evidence_idx'), to_regclass('ledger.finding_scope_slug_key'))
   AND i.indisvalid AND i.indisready \gset
\if :indexes_valid
UPDATE ledger.alembic_version SET version_num = '0004_matching' WHERE version_num = '0003_lifecycle';
\echo 'recover_0004_matching: indexes built, version recorded as 0004_matching; now run alembic upgrade head.'
\else
DO $$ BEGIN
    RAISE EXCEPTION 'recover_0004_matching: an index is still not valid; the version stays 0003_lifecycle'
        USING HINT = 'Run this script again.';
END $$;
\endif
