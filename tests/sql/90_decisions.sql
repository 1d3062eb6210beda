-- Decisions that hold on real histories, in plain SQL: line
-- anchors taken from path suffixes and moved by hunks, findings that
-- expect a path present or absent, causality (a merge older than the
-- finding never retires it), the audit's commit and subject, the prompt
-- read by task group, and policy verbs that refuse an unknown scope.
BEGIN;
SELECT plan(23);

-- the path rule as such on drift findings: these scopes retire on a touch
-- (touch retire for kind drift; the shipped mode of drift is flag)
INSERT INTO ledger.scope (scope, touch_modes) VALUES
    ('anchors', '{"drift": "retire"}'), ('kinds', '{"drift": "retire"}'), ('causal', '{"drift": "retire"}');

-- line anchors
INSERT INTO ledger.finding (scope, finding_key, kind, title, paths) VALUES
    ('anchors', 'A-42', 'drift', 'Off-by-one in the pager', ARRAY['src/pager.py:42']),
    ('anchors', 'A-90', 'drift', 'Unused import', ARRAY['./src/pager.py:90:5']),
    ('anchors', 'A-R', 'drift', 'The retry loop never backs off', ARRAY['src/retry.py:40-48']);
SELECT results_eq($$SELECT finding_key, paths, anchors FROM ledger.finding WHERE scope = 'anchors' ORDER BY id$$,
    $$VALUES ('A-42', ARRAY['src/pager.py'], '{"src/pager.py": [42, 42]}'::jsonb),
             ('A-90', ARRAY['src/pager.py'], '{"src/pager.py": [90, 90]}'::jsonb),
             ('A-R', ARRAY['src/retry.py'], '{"src/retry.py": [40, 48]}'::jsonb)$$,
    'A path written file:line, file:line:col or file:first-last keeps its lines as an anchor; paths holds the bare path.');

INSERT INTO ledger.merge (scope, commit_sha, message, paths, hunks) VALUES
    ('anchors', 'a0000001', 'Add a licence header', ARRAY['src/pager.py'], '{"src/pager.py": [[0, 0, 1, 10]]}');
SELECT results_eq($$SELECT f.finding_key, a.action, a.detail -> 'anchor_moves' -> 0 -> 'to'
                      FROM ledger.read_audit('anchors') a JOIN ledger.finding f ON f.id = a.finding_id
                     ORDER BY a.id, a.finding_id$$,
    $$VALUES ('A-42', 'anchor_moved', '[52, 52]'::jsonb), ('A-90', 'anchor_moved', '[100, 100]'::jsonb)$$,
    'Ten lines inserted at the top move both anchors by ten, and each move is audited.');
SELECT results_eq($$SELECT a.finding_id, a.action, a.detail -> 'moves' -> 'src/pager.py'
                      FROM ledger.supersession a WHERE a.scope = 'anchors'$$,
    $$SELECT NULL::bigint, 'anchor_moved'::text,
             jsonb_build_object(min(id)::text, '[42, 42, 52, 52]'::jsonb, max(id)::text, '[90, 90, 100, 100]'::jsonb)
        FROM ledger.finding WHERE finding_key IN ('A-42', 'A-90')$$,
    'Both moves are one row of the merge, its anchor record: finding_id NULL, {path: {finding_id: [from, to]}}.');
SELECT is((SELECT anchors FROM ledger.finding WHERE finding_key = 'A-42'), '{"src/pager.py": [52, 52]}'::jsonb,
    'The finding reads its moved anchor.');

INSERT INTO ledger.merge (scope, commit_sha, paths, hunks) VALUES
    ('anchors', 'a0000002', ARRAY['src/pager.py'], '{"src/pager.py": [[100, 11, 100, 11]]}');
SELECT is((SELECT count(*)::int FROM ledger.active_finding WHERE scope = 'anchors' AND finding_key IN ('A-42', 'A-90')), 1,
    'A hunk over lines 100-110 retires the finding at line 100 only.');
INSERT INTO ledger.merge (scope, commit_sha, paths, hunks) VALUES
    ('anchors', 'a0000003', ARRAY['src/pager.py', 'src/retry.py'],
     '{"src/pager.py": [[50, 6, 50, 7]], "src/retry.py": [[120, 1, 120, 1]]}');
SELECT is((SELECT supersede_rule FROM ledger.finding WHERE finding_key = 'A-42'), 'path',
    'A hunk over lines 50-55 retires the finding anchored at 52 (the line rule is the path rule refined).');
SELECT is((SELECT superseded_at IS NULL FROM ledger.finding WHERE finding_key = 'A-R'), true,
    'A hunk far below a range leaves it active.');
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('anchors', 'a0000004', ARRAY['src/retry.py']);
SELECT is((SELECT superseded_at IS NOT NULL FROM ledger.finding WHERE finding_key = 'A-R'), true,
    'A merge without hunks for the file falls back to the file-level rule.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha, paths, hunks)
                   VALUES ('anchors', 'a0000005', ARRAY['a.py'], '{"a.py": [[1, 2, 3]]}')$$,
    'LD003', NULL, 'A hunk that is not four integers is refused.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, paths) VALUES ('anchors', 'x', ARRAY['a.py:9-3'])$$,
    'LD003', NULL, 'A line range that ends before it starts is refused.');

-- change kinds
INSERT INTO ledger.finding (scope, finding_key, kind, title, paths, expects) VALUES
    ('kinds', 'K-DIR', 'drift', 'packages/nightshift/ does not exist.', ARRAY['packages/nightshift/'], 'present'),
    ('kinds', 'K-OLD', 'drift', 'packages/af/af/nightshift.py still exists.', ARRAY['packages/af/af/nightshift.py'], 'absent');
INSERT INTO ledger.merge (scope, commit_sha, paths, added, deleted) VALUES
    ('kinds', 'b0000001', ARRAY['packages/nightshift/x.py', 'packages/af/af/nightshift.py'], '{}', '{}');
SELECT is((SELECT count(*)::int FROM ledger.active_finding WHERE scope = 'kinds'), 2,
    'A merge that only modifies the paths retires neither a present nor an absent finding.');
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES
    ('kinds', 'b0000002', ARRAY['packages/nightshift/y.py', 'packages/af/af/nightshift.py']);
SELECT bag_eq($$SELECT action FROM ledger.supersession a JOIN ledger.merge m ON m.id = a.merge_id
                 WHERE m.commit_sha = 'b0000002'$$,
    ARRAY['candidate', 'candidate'],
    'A merge that does not say what it added or deleted only records candidates for them.');
INSERT INTO ledger.merge (scope, commit_sha, paths, added, deleted) VALUES
    ('kinds', 'b0000003', ARRAY['packages/nightshift/pyproject.toml', 'packages/af/af/nightshift.py'],
     ARRAY['packages/nightshift/pyproject.toml'], ARRAY['packages/af/af/nightshift.py']);
SELECT is((SELECT count(*)::int FROM ledger.active_finding WHERE scope = 'kinds'), 0,
    'Adding a file under the directory retires the present finding; deleting the file retires the absent one.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha, paths, added) VALUES ('kinds', 'b0000004', ARRAY['a.py'], ARRAY['b.py'])$$,
    'LD003', NULL, 'added must be a subset of paths.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, expects) VALUES ('kinds', 'x', 'maybe')$$,
    'LD003', NULL, 'expects is change, present or absent.');

-- causality
INSERT INTO ledger.finding (scope, finding_key, kind, title, paths, observed_at) VALUES
    ('causal', 'C-1', 'drift', 'Claims never expire', ARRAY['internal/manager.go'], '2026-05-24 09:00+00');
INSERT INTO ledger.merge (scope, commit_sha, message, paths, merged_at) VALUES
    ('causal', 'c0000001', 'Cap the body size', ARRAY['internal/manager.go'], '2026-05-17 12:00+00');
SELECT results_eq($$SELECT action, detail ->> 'would_be' FROM ledger.supersession WHERE scope = 'causal'$$,
    $$VALUES ('not_before_observed', 'supersede')$$,
    'A merge from before the finding was observed is audited as a non-decision.');
SELECT matches((SELECT reason FROM ledger.supersession WHERE scope = 'causal'),
    '2026-05-17T12:00:00Z.*2026-05-24T09:00:00Z', 'Its reason names both times.');
INSERT INTO ledger.merge (scope, commit_sha, message, paths, merged_at) VALUES
    ('causal', 'c0000002', 'Expire claims after their lease', ARRAY['internal/manager.go'], '2026-05-26 12:00+00');
SELECT is((SELECT superseded_by FROM ledger.finding WHERE finding_key = 'C-1'), 'c0000002',
    'A merge after the observation retires it.');

-- the audit shows the commit and its subject
SELECT results_eq($$SELECT commit_sha, subject FROM ledger.read_audit('causal') ORDER BY id$$,
    $$VALUES ('c0000001', 'Cap the body size'), ('c0000002', 'Expire claims after their lease')$$,
    'read_audit returns each row''s commit sha and subject.');

-- the prompt read by task group (the drift-review scenario's Option C), on top of supersession
INSERT INTO ledger.finding (scope, finding_key, kind, title, source) VALUES
    ('groups', 'G0', 'drift', 'From the drift review', '07_x:0'),
    ('groups', 'G3', 'drift', 'From group 3', '07_x:3'),
    ('groups', 'GN', 'drift', 'No group known', 'reviewer');
SELECT results_eq($$SELECT ARRAY(SELECT x ->> 'finding_key' FROM jsonb_array_elements(findings) AS x ORDER BY 1)
                      FROM ledger.read_prompt_findings('groups', p_current_group => '07_x:5', p_max_groups => 2)$$,
    $$VALUES (ARRAY['G3', 'GN'])$$,
    'With the current group 5 and two groups back, group 0''s finding is left out; one of unknown group stays.');
SELECT is((SELECT task_group FROM ledger.finding WHERE finding_key = 'G3'), '07_x:3',
    'A finding takes its task group from a source that is a node id.');

-- policy verbs refuse an unknown scope unless asked to create it
SELECT throws_ok($$SELECT ledger.set_hygiene_mode('no-such-scope', 'dry')$$, 'LD005', NULL,
    'set_hygiene_mode on an unknown scope is LD005.');
SELECT is((ledger.set_match_policy('no-such-scope', p_line_context => 2, p_create => true)).line_context, 2,
    'set_match_policy creates the scope when asked to.');

SELECT * FROM finish();
ROLLBACK;
