-- 0043_bounded_check_patterns: bounded check patterns

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0042_touches_count_after_a_resto']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0043_bounded_check_patterns expects the database at 0042_touches_count_after_a_resto, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

DROP FUNCTION ledger._eval_check(jsonb, jsonb);
ALTER TABLE ledger.file_state_request DROP CONSTRAINT file_state_request_outcome_check;
ALTER TABLE ledger.file_state_request ADD CONSTRAINT file_state_request_outcome_check
    CHECK (outcome IN ('held', 'failed', 'moot', 'overruled', 'error')) NOT VALID;
ALTER TABLE ledger.file_state_request VALIDATE CONSTRAINT file_state_request_outcome_check;

\ir functions/_pattern_traps.sql
\ir functions/_eval_check.sql
\ir functions/_settle_checks.sql
COMMENT ON COLUMN ledger.file_state_request.outcome IS
'held (the check held on this merge''s tree: the finding was superseded by this merge, rule check), failed (it did not: audit check_failed), moot (the finding was retired by an earlier merge, dismissed or superseded otherwise before this request was settled), overruled (it held, but on the tree of a merge before the finding''s latest decision by a person, restore or dismiss: audit check_overruled, the finding stays), error (a part of the check could not be evaluated, a back reference or a match PostgreSQL gave up: audit check_error naming the part and the reason, the finding stays); NULL: not settled (pending, or answered and waiting for an earlier request of the same finding).';
COMMENT ON FUNCTION ledger.record_file_states(bigint, jsonb) IS
'Answer a merge''s file-state requests: states {"<path>": "<file text>" | null (absent)} at its commit; a directory key "pkg/" with any string: a file under it. Settles each concerned finding in merge order (it retires at the first merge whose tree makes its check hold, rule check). Idempotent; any order. (merge_id bigint, states jsonb) -> TABLE(finding_id bigint, outcome text: held | failed | moot | overruled | error | waiting | pending, part text). Limits: 1 MiB per file text, 10000 paths. SECURITY DEFINER. Raises LD001, LD002, LD003 (not an object, not a string or null, a path not asked for, two keys naming one path), LD004, LD005 (unknown merge), LD104 (a path answered before with another state; a text for a path the merge decided present is that state), LD401; nothing written on error.';
REVOKE EXECUTE ON FUNCTION ledger._eval_check(jsonb, jsonb) FROM PUBLIC;
