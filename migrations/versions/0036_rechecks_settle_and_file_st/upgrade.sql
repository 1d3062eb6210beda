-- 0036_rechecks_settle_and_file_st: rechecks settle and file-state answers agree with the merge

ALTER TABLE ledger.file_state_request DROP CONSTRAINT file_state_request_outcome_check;
ALTER TABLE ledger.file_state_request ADD CONSTRAINT file_state_request_outcome_check
    CHECK (outcome IN ('held', 'failed', 'moot', 'overruled')) NOT VALID;
ALTER TABLE ledger.file_state_request VALIDATE CONSTRAINT file_state_request_outcome_check;
COMMENT ON COLUMN ledger.file_state_request.outcome IS
'held (the check held on this merge''s tree: the finding was superseded by this merge, rule check), failed (it did not: audit check_failed), moot (the finding was retired by an earlier merge, dismissed or superseded otherwise before this request was settled), overruled (it held, but on the tree of a merge before the finding''s latest decision by a person, restore or dismiss: audit check_overruled, the finding stays); NULL: not settled (pending, or answered and waiting for an earlier request of the same finding).';

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
COMMENT ON TABLE ledger.recheck_request IS
'The recheck queue: one row per (finding, merge) whose touch of a file of a finding without a check counts under touch mode recheck. Claimed with ledger.claim_rechecks (verifier, lease_until), answered with ledger.answer_recheck (answered_at, resolved, evidence), settled in merge order (outcome). Open (claimable) while answered_at and outcome are NULL.';
COMMENT ON COLUMN ledger.recheck_request.resolved IS
'The verifier''s answer: true retires the finding (rule recheck, superseded by the request''s merge) once the earlier requests of the finding are settled, false keeps it; NULL while unanswered.';
COMMENT ON COLUMN ledger.recheck_request.outcome IS
'How the request settled (ledger._settle_rechecks, in merge order per finding): resolved (the answer retired the finding: superseded by this merge, rule recheck; would_supersede unless hygiene_mode on), kept (answered false: audit recheck_kept), moot (the finding was retired by any rule, by an earlier merge''s answer or dismissed before this request settled: not claimable, an answer changes nothing), overruled (answered resolved for a merge before the finding''s latest decision by a person, restore or dismiss: audit recheck_overruled, the finding stays); NULL: open, or answered resolved and waiting for an earlier open request of the finding.';
COMMENT ON COLUMN ledger.recheck_request.answered_at IS
'When the verifier answered (ledger.answer_recheck); NULL: not answered (open, or moot without an answer).';

\ir functions/_commit_subject.sql
\ir functions/_overruled_by_person.sql
\ir functions/_settle_rechecks.sql
\ir functions/tg_finding__settle_rechecks.sql
\ir functions/_merge_decisions.sql
\ir functions/_settle_checks.sql
\ir functions/record_file_states.sql
DROP FUNCTION ledger.claim_rechecks(p_scope text, p_verifier text, p_max integer, p_lease interval);
\ir functions/claim_rechecks.sql
DROP FUNCTION ledger.answer_recheck(p_id bigint, p_resolved boolean, p_evidence text, p_verifier text);
\ir functions/answer_recheck.sql
\ir functions/pending_file_states.sql
\ir triggers/finding___320_settle_rechecks.sql
\ir privileges.sql
