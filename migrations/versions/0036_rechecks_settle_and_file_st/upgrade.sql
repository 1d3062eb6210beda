-- 0036_rechecks_settle_and_file_st: rechecks settle and file states agree with the merge

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0035_apply_merge_holds_the_decis']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0036_rechecks_settle_and_file_st expects the database at 0035_apply_merge_holds_the_decis, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

DROP FUNCTION ledger.claim_rechecks(text, text, integer, interval);
DROP FUNCTION ledger.answer_recheck(bigint, boolean, text, text);
ALTER TABLE ledger.file_state_request DROP CONSTRAINT file_state_request_outcome_check;
ALTER TABLE ledger.file_state_request ADD CONSTRAINT file_state_request_outcome_check
    CHECK (outcome IN ('held', 'failed', 'moot', 'overruled')) NOT VALID;
ALTER TABLE ledger.file_state_request VALIDATE CONSTRAINT file_state_request_outcome_check;

ALTER TABLE ledger.recheck_request ADD COLUMN outcome text;
ALTER TABLE ledger.recheck_request ADD CONSTRAINT recheck_request_outcome_check
    CHECK (outcome IN ('resolved', 'kept', 'moot', 'overruled')) NOT VALID;
ALTER TABLE ledger.recheck_request VALIDATE CONSTRAINT recheck_request_outcome_check;
-- the requests answered before: settled as they were (resolved or kept); the
-- open ones of findings no longer active: moot, as the trigger now makes them
UPDATE ledger.recheck_request SET outcome = CASE WHEN resolved THEN 'resolved' ELSE 'kept' END
 WHERE answered_at IS NOT NULL;
UPDATE ledger.recheck_request r SET outcome = 'moot'
  FROM ledger.finding f
 WHERE f.id = r.finding_id AND r.answered_at IS NULL AND f.superseded_at IS NOT NULL;

\ir functions/_commit_subject.sql
\ir functions/_overruled_by_person.sql
\ir functions/_settle_rechecks.sql
\ir functions/tg_finding__settle_rechecks.sql
\ir functions/_merge_decisions.sql
\ir functions/_settle_checks.sql
\ir functions/record_file_states.sql
\ir functions/claim_rechecks.sql
\ir functions/answer_recheck.sql
\ir functions/pending_file_states.sql
\ir triggers/finding___320_settle_rechecks.sql
COMMENT ON COLUMN ledger.file_state_request.outcome IS
'held (the check held on this merge''s tree: the finding was superseded by this merge, rule check), failed (it did not: audit check_failed), moot (the finding was retired by an earlier merge, dismissed or superseded otherwise before this request was settled), overruled (it held, but on the tree of a merge before the finding''s latest decision by a person, restore or dismiss: audit check_overruled, the finding stays); NULL: not settled (pending, or answered and waiting for an earlier request of the same finding).';
COMMENT ON COLUMN ledger.recheck_request.answered_at IS
'When the verifier answered (ledger.answer_recheck); NULL: not answered (open, or moot without an answer).';
COMMENT ON COLUMN ledger.recheck_request.outcome IS
'How the request settled (ledger._settle_rechecks, in merge order per finding): resolved (the answer retired the finding: superseded by this merge, rule recheck; would_supersede unless hygiene_mode on), kept (answered false: audit recheck_kept), moot (the finding was retired by any rule, by an earlier merge''s answer or dismissed before this request settled: not claimable, an answer changes nothing), overruled (answered resolved for a merge before the finding''s latest decision by a person, restore or dismiss: audit recheck_overruled, the finding stays); NULL: open, or answered resolved and waiting for an earlier open request of the finding.';
COMMENT ON COLUMN ledger.recheck_request.resolved IS
'The verifier''s answer: true retires the finding (rule recheck, superseded by the request''s merge) once the earlier requests of the finding are settled, false keeps it; NULL while unanswered.';
COMMENT ON TABLE ledger.recheck_request IS
'The recheck queue: one row per (finding, merge) whose touch of a file of a finding without a check counts under touch mode recheck. Claimed with ledger.claim_rechecks (verifier, lease_until), answered with ledger.answer_recheck (answered_at, resolved, evidence), settled in merge order (outcome). Open (claimable) while answered_at and outcome are NULL.';
REVOKE EXECUTE ON FUNCTION ledger._commit_subject(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._overruled_by_person(bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._settle_rechecks(bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.claim_rechecks(text, text, integer, interval) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.pending_file_states(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_finding__settle_rechecks() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger._commit_subject(text) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.claim_rechecks(text, text, integer, interval) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.pending_file_states(text) TO ledger_admin, ledger_reader, ledger_writer;
