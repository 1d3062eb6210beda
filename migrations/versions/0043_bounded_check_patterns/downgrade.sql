-- 0043_bounded_check_patterns undone: the frozen state before it

DROP FUNCTION ledger._eval_check(jsonb, jsonb);
\ir ../0034_pg_temp_last_in_every_pinne/functions/_eval_check.sql
\ir ../0041_failed_checks_flag_the_prom/functions/_settle_checks.sql
\ir ../0038_check_dialects_and_checks_l/functions/_pattern_traps.sql
-- a request that could not be evaluated did not retire its finding: failed is the nearest outcome before
UPDATE ledger.file_state_request SET outcome = 'failed' WHERE outcome = 'error';
ALTER TABLE ledger.file_state_request DROP CONSTRAINT file_state_request_outcome_check;
ALTER TABLE ledger.file_state_request ADD CONSTRAINT file_state_request_outcome_check
    CHECK (outcome IN ('held', 'failed', 'moot', 'overruled')) NOT VALID;
ALTER TABLE ledger.file_state_request VALIDATE CONSTRAINT file_state_request_outcome_check;

COMMENT ON COLUMN ledger.file_state_request.outcome IS
'held (the check held on this merge''s tree: the finding was superseded by this merge, rule check), failed (it did not: audit check_failed), moot (the finding was retired by an earlier merge, dismissed or superseded otherwise before this request was settled), overruled (it held, but on the tree of a merge before the finding''s latest decision by a person, restore or dismiss: audit check_overruled, the finding stays); NULL: not settled (pending, or answered and waiting for an earlier request of the same finding).';
COMMENT ON FUNCTION ledger.record_file_states(bigint, jsonb) IS
'Answer a merge''s file-state requests: states {"<path>": "<file text>" | null (absent)} at its commit; a directory key "pkg/" with any string: a file under it. Settles each concerned finding in merge order (it retires at the first merge whose tree makes its check hold, rule check). Idempotent; any order. (merge_id bigint, states jsonb) -> TABLE(finding_id bigint, outcome text: held | failed | moot | overruled | waiting | pending, part text). Limits: 1 MiB per file text, 10000 paths. SECURITY DEFINER. Raises LD001, LD002, LD003 (not an object, not a string or null, a path not asked for, two keys naming one path), LD004, LD005 (unknown merge), LD104 (a path answered before with another state; a text for a path the merge decided present is that state), LD401; nothing written on error.';
REVOKE EXECUTE ON FUNCTION ledger._eval_check(jsonb, jsonb) FROM PUBLIC;
