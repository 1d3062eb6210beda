-- Supersession rules (the drift-review scenario's "Option A"): a merge supersedes the active
-- findings of its scope that reference a path it touched, as a file or
-- through a directory, according to the scope's hygiene mode and (0004) the
-- kinds its path rule supersedes. Runs on the small fixture data set
-- (tests/sql/fixtures/small.sql).
BEGIN;
SELECT plan(21);
\ir fixtures/small.sql

CREATE TEMP VIEW f AS
SELECT fi.finding_key, fi.superseded_at IS NOT NULL AS superseded, fi.superseded_by, m.commit_sha AS by_commit,
       fi.supersede_rule
  FROM ledger.finding fi LEFT JOIN ledger.merge m ON m.id = fi.superseded_by_merge_id;

SELECT results_eq($$SELECT superseded, superseded_by, by_commit, supersede_rule FROM f WHERE finding_key = 'ns-1'$$,
    $$VALUES (true, 'node-7', 'a1b2c3d4', 'path')$$,
    'A merge touching a finding''s file supersedes it, marked with the merge''s node id and the path rule.');
SELECT results_eq($$SELECT superseded, superseded_by, by_commit FROM f WHERE finding_key = 'ns-2'$$,
    $$VALUES (true, 'b2c3d4e5', 'b2c3d4e5')$$,
    'A merge touching a file under a directory finding supersedes it, marked with the sha when it has no node id.');
SELECT is((SELECT superseded FROM f WHERE finding_key = 'ns-5'), false,
    'src/ab.py is not under src/a/: a directory matches only at a slash boundary.');
SELECT is((SELECT superseded FROM f WHERE finding_key = 'ns-6'), false,
    'A finding without paths is never superseded by the path rule.');
SELECT set_eq($$SELECT finding_key FROM f WHERE NOT superseded AND finding_key LIKE 'ds-%'$$,
    ARRAY['ds-1', 'ds-2'], 'In a dry scope the matched findings stay active.');
SELECT is((SELECT superseded FROM f WHERE finding_key = 'lg-1'), false,
    'In a scope with hygiene off a merge supersedes nothing.');
SELECT set_eq($$SELECT finding_key FROM ledger.active_finding$$,
    ARRAY['ns-3', 'ns-4', 'ns-5', 'ns-6', 'ds-1', 'ds-2', 'lg-1'],
    'The active_finding view lists exactly the findings nobody superseded.');
SELECT results_eq($$SELECT finding_key FROM ledger.active_findings('nightshift')$$,
    ARRAY['ns-6', 'ns-4', 'ns-3', 'ns-5'],
    'active_findings orders a scope''s active findings by severity, most severe first.');

-- a finding in another scope with the same path is left alone
INSERT INTO ledger.finding (scope, finding_key, kind, title, paths) VALUES ('other', 'o-1', 'drift', 'Same path elsewhere', ARRAY['README.md']);
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('nightshift', 'f0f0f0f0', ARRAY['README.md']);
SELECT is((SELECT superseded FROM f WHERE finding_key = 'ns-3'), true,
    'A merge touching README.md supersedes the scope''s README finding.');
SELECT is((SELECT superseded FROM f WHERE finding_key = 'o-1'), false,
    'A merge never supersedes findings of another scope.');

-- an already superseded finding is not superseded again
INSERT INTO ledger.merge (scope, commit_sha, node_id, paths) VALUES ('nightshift', 'f1f1f1f1', 'node-9', ARRAY['README.md']);
SELECT results_eq($$SELECT superseded_by, by_commit FROM f WHERE finding_key = 'ns-3'$$,
    $$VALUES ('f0f0f0f0', 'f0f0f0f0')$$,
    'A later merge touching the same path leaves the first supersession in place.');
SELECT is((SELECT count(*) FROM ledger.supersession a JOIN ledger.merge m ON m.id = a.merge_id
            WHERE m.commit_sha = 'f1f1f1f1')::int, 0,
    'A merge that matches only superseded findings writes no audit row.');

-- redelivery
SELECT is((SELECT count(*) FROM ledger.merge WHERE commit_sha = 'a1b2c3d4')::int, 1,
    'A redelivered merge (ON CONFLICT DO NOTHING) is stored once.');
SELECT is((SELECT count(*) FROM ledger.supersession a JOIN ledger.merge m ON m.id = a.merge_id
            WHERE m.commit_sha = 'a1b2c3d4')::int, 1,
    'A redelivered merge has no second effect on the audit.');

-- switching a scope on makes later merges supersede
SELECT is((ledger.set_hygiene_mode('legacy', 'on')).hygiene_mode, 'on', 'set_hygiene_mode switches a scope on.');
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('legacy', 'f2f2f2f2', ARRAY['lib/']);
SELECT is((SELECT superseded FROM f WHERE finding_key = 'lg-1'), false,
    'A merge touching a directory does not supersede a file finding inside it (only the reverse).');
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('legacy', 'f3f3f3f3', ARRAY['lib/old.py']);
SELECT is((SELECT superseded FROM f WHERE finding_key = 'lg-1'), true,
    'Once the scope is on, a merge touching the file supersedes the finding.');

-- a multi-row INSERT behaves like the same rows one by one, in order
-- (the path rule alone: touch retire for kind drift)
INSERT INTO ledger.scope (scope, touch_modes) VALUES ('multi', '{"drift": "retire"}');
INSERT INTO ledger.finding (scope, finding_key, kind, title, paths) VALUES ('multi', 'm-1', 'drift', 'Two merges race', ARRAY['x.py']);
INSERT INTO ledger.merge (scope, commit_sha, node_id, paths)
VALUES ('multi', 'aaaa1111', 'first', ARRAY['x.py']), ('multi', 'bbbb2222', 'second', ARRAY['x.py']);
SELECT is((SELECT superseded_by FROM f WHERE finding_key = 'm-1'), 'first',
    'In a multi-row INSERT the first merge in the statement supersedes the finding.');

-- the path rule follows the scope's path_supersede_kinds (default {drift});
-- the shipped touch mode of kind drift is flag: the touched drift finding stays
INSERT INTO ledger.finding (scope, finding_key, kind, title, paths) VALUES
    ('kinds', 'k-review', 'review', 'A review note on y.py', ARRAY['y.py']),
    ('kinds', 'k-drift', 'drift', 'A drift note on y.py', ARRAY['y.py']);
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('kinds', 'cccc1111', ARRAY['y.py']);
SELECT results_eq(
    $$SELECT fi.finding_key, fi.superseded_at IS NOT NULL, s.action FROM ledger.finding fi
        JOIN ledger.supersession s ON s.finding_id = fi.id WHERE fi.scope = 'kinds' ORDER BY 1$$,
    $$VALUES ('k-drift', false, 'flagged'), ('k-review', false, 'candidate')$$,
    'With the default policy a touched drift finding is flagged (it stays active) and a review finding only audited as a candidate.');
SELECT is((ledger.set_match_policy('kinds', p_path_supersede_kinds => '{*}')).path_supersede_kinds, '{*}'::text[],
    'set_match_policy can make the path rule supersede every kind.');
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('kinds', 'cccc2222', ARRAY['y.py']);
SELECT is((SELECT superseded_by FROM f WHERE finding_key = 'k-review'), 'cccc2222',
    'With path_supersede_kinds {*} the next merge touching the file supersedes the review finding.');

SELECT * FROM finish();
ROLLBACK;
