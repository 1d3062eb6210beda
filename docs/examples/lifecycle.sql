-- The finding lifecycle walkthrough of docs/lifecycle.md; one statement fails on purpose, so no ON_ERROR_STOP
-- (run: psql -X -a -f docs/examples/lifecycle.sql, from the checkout, on a freshly migrated database).
\set SHOW_CONTEXT never
-- This scope retires a drift finding on a touch (the shipped touch mode of kind drift is flag).
INSERT INTO ledger.scope (scope, touch_modes) VALUES ('spec-07', '{"drift": "retire"}');
-- Report a finding, then report it again: counted, not duplicated.
SELECT * FROM ledger.report_finding(p_scope => 'spec-07', p_finding_key => 'drift-3',
    p_title => 'packages/nightshift/ does not exist', p_paths => '{packages/nightshift/}',
    p_kind => 'drift', p_severity => 'high', p_source => 'drift-review-g0');
SELECT * FROM ledger.report_finding('spec-07', 'drift-3', 'packages/nightshift/ does not exist');
-- A merge touches its directory (superseded); the next drift review reports it again (reopened).
INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths)
VALUES ('spec-07', '3c1d9e0a', 'group-3', 'Create the nightshift scaffold', '{packages/nightshift/pyproject.toml}');
SELECT * FROM ledger.report_finding('spec-07', 'drift-3', 'packages/nightshift/ does not exist',
    p_source => 'drift-review-g4');
-- A plain INSERT of a key already in the scope is refused.
INSERT INTO ledger.finding (scope, finding_key, title) VALUES ('spec-07', 'drift-3', 'again');
-- Re-review: the run's complete set replaces the previous one.
SELECT * FROM ledger.replace_findings(p_scope => 'spec-07', p_kind => 'drift', p_review_run => 'drift-g5',
    p_findings => '[{"finding_key": "drift-3", "title": "packages/nightshift/ does not exist"},
                    {"finding_key": "drift-9", "title": "docs still mention af night-shift", "paths": ["docs/"]}]');
SELECT * FROM ledger.replace_findings('spec-07', 'drift', 'drift-g6',
    '[{"finding_key": "drift-9", "title": "docs still mention af night-shift", "paths": ["docs/"]}]');
-- Restore and dismiss: a person decides, with a reason.
SELECT id, state, reopen_count FROM ledger.restore_finding(p_finding_id => 1, p_actor => 'bob',
    p_reason => 'group 6 did not touch the scaffold');
SELECT id, state, resolution, dismissed_by FROM ledger.dismiss_finding(p_finding_id => 3,
    p_resolution => 'wont_fix', p_actor => 'alice', p_reason => 'the old docs stay for one release');
-- A merge supersedes finding 1 again; its revert reopens it.
INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths)
VALUES ('spec-07', '3c1d9e0b', 'group-7', 'Drop the scaffold', '{packages/nightshift/pyproject.toml}');
INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths)
VALUES ('spec-07', '7e7e7e7e', 'group-8', E'Revert "Drop the scaffold"\n\nThis reverts commit 3c1d9e0b.',
        '{packages/nightshift/pyproject.toml}');
SELECT id, finding_key, state, resolution, report_count, reopen_count FROM ledger.finding_lifecycle ORDER BY id;
-- What a session was shown, and how much of it still holds.
SELECT * FROM ledger.record_injection(p_session_id => '07:6', p_finding_ids => '{1,3}');
SELECT session_id, finding_id, state FROM ledger.read_injections(p_session_id => '07:6');
SELECT session_id FROM ledger.read_injections(p_finding_id => 1);
SELECT * FROM ledger.measure_convergence(p_session_id => '07:6');
-- Reading for a prompt, under a character budget.
SELECT included_count, included_chars, omitted_count, omitted_chars, findings
  FROM ledger.read_prompt_findings(p_scope => 'spec-07', p_kinds => '{drift}', p_max_age => '7 days',
                                   p_max_chars => 20);
-- A finding's timeline (every row also has a reason; the path rule's are long).
SELECT event, rule, actor, evidence FROM ledger.read_history(p_finding_id => 1);
SELECT reason FROM ledger.read_history(p_finding_id => 1) WHERE rule IN ('manual', 'revert');
