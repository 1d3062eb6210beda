-- Finding lifecycle: identity and re-reports,
-- dismissal, restore, reopening by re-report, re-review and revert, the
-- state at a glance in ledger.finding_lifecycle, and the LD30x errors by
-- SQLSTATE with nothing half-written. Runs on the small fixture.
BEGIN;
SELECT plan(39);
\ir fixtures/small.sql

CREATE TEMP VIEW life AS
SELECT l.finding_key, l.state, l.resolution, l.dismissed_by, l.supersede_rule, l.report_count, l.reopen_count,
       l.review_run, l.last_reported_at IS NOT NULL AS rereported
  FROM ledger.finding_lifecycle l;

-- the state at a glance, on the fixture
SELECT results_eq($$SELECT state, count(*)::int FROM life GROUP BY state ORDER BY state$$,
    $$VALUES ('active', 7), ('superseded', 2)$$,
    'Every finding has a derived state: the fixture has seven active and two superseded.');
SELECT results_eq($$SELECT finding_key, supersede_rule FROM life WHERE state = 'superseded' ORDER BY 1$$,
    $$VALUES ('ns-1', 'path'), ('ns-2', 'path')$$,
    'A finding superseded by a merge shows the path rule.');
SELECT is_empty($$SELECT 1 FROM life WHERE report_count <> 1 OR reopen_count <> 0 OR rereported$$,
    'A finding reported once has report_count 1, reopen_count 0 and no re-report time.');

-- report_finding: identity and re-reports
SELECT results_eq(
    $$SELECT outcome, state, report_count, reopen_count
        FROM ledger.report_finding('nightshift', 'ns-7', 'Log the retry count', p_paths => ARRAY['src/retry.py'])$$,
    $$VALUES ('new', 'active', 1, 0)$$,
    'Reporting an unknown key adds the finding: new and active.');
SELECT results_eq(
    $$SELECT outcome, state, report_count, reopen_count FROM ledger.report_finding('nightshift', 'ns-7', 'Log the retry count')$$,
    $$VALUES ('duplicate', 'active', 2, 0)$$,
    'Reporting an active finding again counts the re-report and adds no row.');
SELECT is((SELECT count(*)::int FROM ledger.finding WHERE finding_key = 'ns-7'), 1,
    'A finding reported twice is still one row.');
SELECT results_eq(
    $$SELECT outcome, state, report_count, reopen_count
        FROM ledger.report_finding('nightshift', 'ns-1', 'Handle the timeout in the worker loop', p_review_run => 'review-2')$$,
    $$VALUES ('reopened', 'active', 2, 1)$$,
    'Reporting a superseded finding again reopens it and counts the reopen.');
SELECT results_eq(
    $$SELECT s.action, s.rule, s.evidence FROM ledger.supersession s JOIN ledger.finding f ON f.id = s.finding_id
       WHERE f.finding_key = 'ns-1' ORDER BY s.id DESC LIMIT 1$$,
    $$VALUES ('reopened', 'rereport', 'review-2')$$,
    'The reopen is audited with the rereport rule and the review run as evidence.');
SELECT is((SELECT review_run FROM life WHERE finding_key = 'ns-1'), 'review-2',
    'The finding remembers the review run that last reported it.');

-- dismiss and restore
SELECT id AS ns3 FROM ledger.finding WHERE finding_key = 'ns-3' \gset
SELECT results_eq(
    format($f$SELECT state, resolution, dismissed_by, supersede_rule
                FROM ledger.dismiss_finding(%s, 'Wont-Fix', 'alice', 'the README is rewritten next month')$f$, :ns3),
    $$VALUES ('dismissed', 'wont_fix', 'alice', 'dismissal')$$,
    'Dismissing a finding stores the normalised resolution, the actor and the rule dismissal.');
SELECT is_empty($$SELECT 1 FROM ledger.active_finding WHERE finding_key = 'ns-3'$$,
    'A dismissed finding is not active.');
SELECT results_eq(
    $$SELECT outcome, state, report_count FROM ledger.report_finding('nightshift', 'ns-3', 'Fix the typo in the README')$$,
    $$VALUES ('still_dismissed', 'dismissed', 2)$$,
    'A re-report never overrides a person''s dismissal; it is still counted.');
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('nightshift', 'aa00aa00', ARRAY['README.md']);
SELECT is((SELECT state FROM life WHERE finding_key = 'ns-3'), 'dismissed', 'A merge touching a dismissed finding leaves it dismissed.');
SELECT throws_ok(format($f$SELECT ledger.dismiss_finding(%s, 'accepted', 'bob', 'again')$f$, :ns3), 'LD302', NULL,
    'Dismissing a finding that is already dismissed raises LD302.');
SELECT results_eq(
    format($f$SELECT state, resolution, reopen_count FROM ledger.restore_finding(%s, 'bob', 'we keep the old README')$f$, :ns3),
    $$VALUES ('active', NULL::text, 1)$$,
    'Restoring a dismissed finding makes it active again, clears the decision and counts the reopen.');
SELECT throws_ok(format($f$SELECT ledger.restore_finding(%s, 'bob', 'again')$f$, :ns3), 'LD302', NULL,
    'Restoring a finding that is already active raises LD302.');
SELECT results_eq(
    $$SELECT s.action, s.rule, s.actor FROM ledger.supersession s JOIN ledger.finding f ON f.id = s.finding_id
       WHERE f.finding_key = 'ns-3' AND s.rule = 'manual' ORDER BY s.id$$,
    $$VALUES ('dismissed', 'manual', 'alice'), ('restored', 'manual', 'bob')$$,
    'Dismissal and restore are audited with their actor.');

-- re-review: the new set replaces the previous one
SELECT results_eq(
    $$SELECT added, kept, reopened, still_dismissed, superseded, would_supersede
        FROM ledger.replace_findings('nightshift', 'drift', 'drift-g2',
             '[{"finding_key": "ns-6", "title": "The architecture note is out of date"},
               {"finding_key": "ns-8", "title": "The CLI help is out of date", "paths": ["src/cli.py"]}]')$$,
    $$VALUES (1, 1, 0, 0, 0, 0)$$,
    'A re-review keeps a present finding and adds a new one.');
SELECT results_eq(
    $$SELECT added, kept, superseded
        FROM ledger.replace_findings('nightshift', 'drift', 'drift-g3',
             '[{"finding_key": "ns-8", "title": "The CLI help is out of date", "paths": ["src/cli.py"]}]')$$,
    $$VALUES (0, 1, 1)$$,
    'A finding absent from the next re-review of its kind is superseded.');
SELECT results_eq($$SELECT state, supersede_rule FROM life WHERE finding_key = 'ns-6'$$,
    $$VALUES ('superseded', 'rereview')$$,
    'The absent finding is superseded with the rereview rule.');
SELECT is((SELECT state FROM life WHERE finding_key = 'ns-5'), 'active',
    'A re-review of one kind leaves findings of other kinds alone.');
SELECT results_eq(
    $$SELECT would_supersede, superseded FROM ledger.replace_findings('docs-site', NULL, 'docs-g2', '[]')$$,
    $$VALUES (2, 0)$$,
    'In a dry scope a re-review only audits what it would supersede.');

-- a revert reopens what the reverted merge superseded
INSERT INTO ledger.merge (scope, commit_sha, message, paths)
VALUES ('nightshift', 'beefbeef00000000000000000000000000000000', 'Rename ab.py', ARRAY['src/ab.py']);
SELECT is((SELECT state FROM life WHERE finding_key = 'ns-5'), 'superseded', 'A merge supersedes ns-5 by its path.');
INSERT INTO ledger.merge (scope, commit_sha, message)
VALUES ('nightshift', 'c0ffee00', E'Revert "Rename ab.py"\n\nThis reverts commit beefbeef00000000000000000000000000000000.');
SELECT results_eq($$SELECT state, reopen_count FROM life WHERE finding_key = 'ns-5'$$,
    $$VALUES ('active', 1)$$,
    'Reverting the merge reopens the finding it superseded.');
SELECT results_eq(
    $$SELECT s.action, s.rule, s.evidence FROM ledger.supersession s JOIN ledger.merge m ON m.id = s.merge_id
       WHERE m.commit_sha = 'c0ffee00'$$,
    $$VALUES ('reopened', 'revert', 'beefbeef00000000000000000000000000000000')$$,
    'The reopen by a revert is audited with the reverted commit as evidence.');

-- errors by SQLSTATE
SELECT id AS ns4 FROM ledger.finding WHERE finding_key = 'ns-4' \gset
SELECT throws_ok($$SELECT ledger.add_finding('nightshift', 'Again', p_finding_key => 'ns-4')$$, 'LD301', NULL,
    'add_finding of a key already reported raises LD301, like a plain INSERT.');
SELECT throws_ok(
    $$SELECT * FROM ledger.replace_findings('nightshift', NULL, 'g9',
        '[{"finding_key": "x-1", "title": "a"}, {"finding_key": "x-1", "title": "b"}]')$$,
    'LD303', NULL, 'A re-review set naming the same key twice raises LD303.');
SELECT throws_ok(format('DELETE FROM ledger.finding WHERE id = %s', :ns4), 'LD304', NULL,
    'Deleting a finding is refused with LD304: findings are dismissed, never deleted.');
SELECT throws_ok(format('UPDATE ledger.finding SET dismissed_at = now(), superseded_at = now() WHERE id = %s', :ns4),
    'LD305', NULL, 'A dismissal written by hand without a resolution is refused with LD305.');
SELECT throws_ok(
    format($f$UPDATE ledger.finding SET dismissed_at = now(), resolution = 'accepted' WHERE id = %s$f$, :ns4),
    'LD305', NULL, 'A dismissed finding that would still be active is refused with LD305.');
SELECT throws_ok(format($f$UPDATE ledger.finding SET resolution = 'accepted' WHERE id = %s$f$, :ns4),
    'LD305', NULL, 'A resolution without a dismissal is refused with LD305.');
SELECT throws_ok(format($f$SELECT ledger.dismiss_finding(%s, 'ignored', 'alice', 'why')$f$, :ns4), 'LD003', NULL,
    'An unknown resolution is refused with LD003.');
SELECT throws_ok(format($f$SELECT ledger.dismiss_finding(%s, 'accepted', 'alice', '  ')$f$, :ns4), 'LD002', NULL,
    'A dismissal without a reason is refused with LD002.');
SELECT throws_ok($$SELECT ledger.restore_finding(-1, 'bob', 'why')$$, 'LD005', NULL,
    'Restoring an unknown finding raises LD005.');
SELECT results_eq($$SELECT state, resolution, report_count FROM life WHERE finding_key = 'ns-4'$$,
    $$VALUES ('active', NULL::text, 1)$$,
    'Nothing of a refused statement is written: ns-4 is untouched.');

-- an injection's scope is its finding's, set by the trigger; another one sent is refused
SELECT lives_ok(format($f$SELECT ledger.record_injection('sess-scope', ARRAY[%s]::bigint[])$f$, :ns4),
    'record_injection records a finding shown to a session (without a scope).');
SELECT results_eq($$SELECT scope FROM ledger.injection WHERE session_id = 'sess-scope'$$,
    $$VALUES ('nightshift')$$,
    'An injection carries its finding''s scope, though record_injection does not send it.');
SELECT throws_ok(format($f$INSERT INTO ledger.injection (session_id, finding_id, scope) VALUES ('sess-x', %s, 'legacy')$f$,
                        :ns4),
    'LD003', NULL, 'An injection sent with another scope than its finding''s is refused with LD003.');
SELECT throws_like(format($f$INSERT INTO ledger.injection (session_id, finding_id, scope) VALUES ('sess-x', %s, 'legacy')$f$,
                          :ns4),
    'invalid injection.scope: ''legacy'' (finding % is in scope ''nightshift'')',
    'The refusal names the scope sent and the finding''s.');

SELECT * FROM finish();
ROLLBACK;
