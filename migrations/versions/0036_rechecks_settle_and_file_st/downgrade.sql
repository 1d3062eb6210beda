-- 0036_rechecks_settle_and_file_st undone: the frozen state before it

-- Refuses while a column or table it drops holds data (downgrade_guard.sql:
-- SQLSTATE LD501), unless the setting ledger.allow_data_loss is 'true'.
\ir downgrade_guard.sql

DROP TRIGGER _320_settle_rechecks ON ledger.finding;
DROP FUNCTION ledger.pending_file_states(text);
DROP FUNCTION ledger.tg_finding__settle_rechecks();
DROP FUNCTION ledger._settle_rechecks(bigint);
DROP FUNCTION ledger._overruled_by_person(bigint, bigint);
DROP FUNCTION ledger._commit_subject(text);
DROP FUNCTION ledger.answer_recheck(bigint, boolean, text, text);
DROP FUNCTION ledger.claim_rechecks(text, text, integer, interval);
\ir ../0034_pg_temp_last_in_every_pinne/functions/_merge_decisions.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/_settle_checks.sql
\ir ../0023_finding_checks_file_state_r/functions/record_file_states.sql
\ir ../0023_finding_checks_file_state_r/functions/claim_rechecks.sql
\ir ../0023_finding_checks_file_state_r/functions/answer_recheck.sql
ALTER TABLE ledger.recheck_request DROP CONSTRAINT recheck_request_outcome_check;
ALTER TABLE ledger.recheck_request DROP COLUMN outcome;

-- an overruled request left the finding alone, as a moot one does
UPDATE ledger.file_state_request SET outcome = 'moot' WHERE outcome = 'overruled';
ALTER TABLE ledger.file_state_request DROP CONSTRAINT file_state_request_outcome_check;
ALTER TABLE ledger.file_state_request ADD CONSTRAINT file_state_request_outcome_check
    CHECK (outcome IN ('held', 'failed', 'moot')) NOT VALID;
ALTER TABLE ledger.file_state_request VALIDATE CONSTRAINT file_state_request_outcome_check;

COMMENT ON COLUMN ledger.file_state_request.outcome IS
'held (the check held on this merge''s tree: the finding was superseded by this merge, rule check), failed (it did not: audit check_failed), moot (the finding was retired by an earlier merge, dismissed or superseded otherwise before this request was settled); NULL: not settled (pending, or answered and waiting for an earlier request of the same finding).';
COMMENT ON COLUMN ledger.recheck_request.answered_at IS
'When the verifier answered (ledger.answer_recheck); NULL: open.';
COMMENT ON COLUMN ledger.recheck_request.resolved IS
'The verifier''s answer: true retires the finding (rule recheck, superseded by the request''s merge), false keeps it; NULL while open.';
COMMENT ON TABLE ledger.recheck_request IS
'The recheck queue: one row per (finding, merge) whose touch would have retired a finding without a check under touch mode recheck. Claimed with ledger.claim_rechecks (verifier, lease_until), answered with ledger.answer_recheck (answered_at, resolved, evidence). Open while answered_at IS NULL.';
REVOKE EXECUTE ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.claim_rechecks(text, text, integer, interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.claim_rechecks(text, text, integer, interval) TO ledger_writer;
