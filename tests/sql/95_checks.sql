-- Checked findings, in plain SQL as a service in another
-- language writes them: a check validated and normalised on write, a touch
-- that opens a file-state request instead of retiring, answers in reverse
-- merge order settled in merge order, the parts the merge's added/deleted
-- decide without a request.
BEGIN;
SELECT plan(9);

SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, resolved_when)
                   VALUES ('chk', 't', '{"any": [{"file_lacks": {"path": "a.py", "pattern": "(("}}]}')$$,
    'LD003', NULL, 'A pattern that does not compile is LD003.');
SELECT throws_like($$INSERT INTO ledger.finding (scope, title, resolved_when)
                     VALUES ('chk', 't', '{"all": [{"path_exists": "a.py"}, {"exists": "b"}]}')$$,
    '%finding.resolved_when.all[1]: unknown key ''exists''%', 'The error names the part.');

INSERT INTO ledger.finding (scope, finding_key, kind, title, observed_at, resolved_when) VALUES
    ('chk', 'C1', 'drift', 'x() missing from a.py', '2020-01-01', '{"file_contains": {"path": "./a.py", "pattern": "def x"}}'),
    ('chk', 'C2', 'drift', 'old/ still there', '2020-01-01', '{"path_absent": "old/"}');
SELECT results_eq($$SELECT finding_key, paths FROM ledger.finding WHERE scope = 'chk' ORDER BY id$$,
    $$VALUES ('C1', ARRAY['a.py']), ('C2', ARRAY['old/'])$$, 'The paths a check names join the finding''s paths.');

INSERT INTO ledger.merge (scope, commit_sha, paths, message) VALUES
    ('chk', 'c0000001', ARRAY['a.py'], 'stub x'), ('chk', 'c0000002', ARRAY['a.py'], 'implement x');
SELECT is((SELECT count(*)::int FROM ledger.active_finding WHERE scope = 'chk'), 2,
    'A touch never retires a checked finding.');
SELECT results_eq($$SELECT commit_sha, paths FROM ledger.pending_file_state WHERE scope = 'chk' ORDER BY merge_id$$,
    $$VALUES ('c0000001', ARRAY['a.py']), ('c0000002', ARRAY['a.py'])$$,
    'Each touching merge opens a request for the paths the check needs.');

SELECT results_eq($$SELECT outcome FROM ledger.record_file_states(
                       (SELECT id FROM ledger.merge WHERE commit_sha = 'c0000002'), '{"a.py": "def x(): pass"}')$$,
    $$VALUES ('waiting')$$, 'A held answer for the later merge waits for the earlier request.');
SELECT results_eq($$SELECT outcome, part FROM ledger.record_file_states(
                       (SELECT id FROM ledger.merge WHERE commit_sha = 'c0000001'), '{"a.py": "pass"}')$$,
    $$VALUES ('failed', 'file_contains')$$, 'The earlier tree fails the check, naming the part.');
SELECT is((SELECT m.commit_sha FROM ledger.finding f JOIN ledger.merge m ON m.id = f.superseded_by_merge_id
            WHERE f.finding_key = 'C1' AND f.supersede_rule = 'check'), 'c0000002',
    'The first merge whose tree holds supersedes, rule check.');

INSERT INTO ledger.merge (scope, commit_sha, paths, added, deleted) VALUES
    ('chk', 'c0000003', ARRAY['old/a.py'], '{}', ARRAY['old/a.py', 'old/']);
SELECT is((SELECT supersede_rule FROM ledger.finding WHERE finding_key = 'C2'), 'check',
    'A directory the merge deletes decides path_absent without a request.');

SELECT * FROM finish();
ROLLBACK;
