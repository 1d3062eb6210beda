-- Hostile and careless writers: merges are recorded once and never
-- rewritten (LD006, LD007, abbreviated shas), paths are stored in NFC and
-- unquoted from git's C-quoting, look-alike and blank paths, arrays of
-- another shape, scope names ledger.scopes cannot list and future times are
-- refused, and notifications carry only an audit id that a reader re-reads.
BEGIN;
SELECT plan(24);

-- the path rule as such: this scope retires a drift finding on a touch
INSERT INTO ledger.scope (scope, touch_modes) VALUES ('hard', '{"drift": "retire"}');
INSERT INTO ledger.finding (scope, finding_key, kind, title, paths) VALUES
    ('hard', 'H1', 'drift', 'The café docs are stale.', ARRAY[U&'docs/caf\00e9.md']),
    ('hard', 'H2', 'drift', 'The worker is stale.', ARRAY['src/worker.py']);

-- paths: NFC, git's C-quoting, Unicode white space, format characters, shapes
SELECT is(ledger.normalize_path(U&'docs/cafe\0301.md'), U&'docs/caf\00e9.md',
    'A decomposed path is stored in NFC.');
SELECT is(ledger.normalize_path('"docs/caf\303\251.md"'), U&'docs/caf\00e9.md',
    'A path git printed C-quoted is unquoted and decoded as UTF-8.');
SELECT is(ledger.normalize_path(U&'\00a0src/a.py\3000'), 'src/a.py',
    'Unicode white space around a path is trimmed.');
SELECT throws_ok($$SELECT ledger.normalize_path(U&'\00a0')$$, 'LD001', NULL,
    'A path of a no-break space alone is blank and refused with LD001.');
SELECT throws_ok($$SELECT ledger.normalize_path(U&'src/\202egnp.exe')$$, 'LD001', NULL,
    'A bidirectional override in a path is refused with LD001.');
SELECT throws_ok($$SELECT ledger.normalize_path(U&'src/a\200b.py')$$, 'LD001', NULL,
    'A zero-width space in a path is refused with LD001.');
SELECT throws_ok($$SELECT ledger.normalize_path('"docs/caf\303')$$, 'LD001', NULL,
    'A C-quoted path without its closing quote is refused with LD001.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, paths) VALUES ('hard', 't', '{{a.py},{b.py}}')$$,
    'LD003', NULL, 'A two-dimensional path array is refused with LD003.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, paths) VALUES ('hard', 't', '[0:1]={a.py,b.py}')$$,
    'LD003', NULL, 'A path array that does not start at index 1 is refused with LD003.');

-- a merge of the NFD spelling retires the NFC finding
INSERT INTO ledger.merge (scope, commit_sha, message, paths)
VALUES ('hard', 'abcdef12', 'Update the café docs', ARRAY[U&'docs/cafe\0301.md']);
SELECT ok((SELECT superseded_at IS NOT NULL FROM ledger.finding WHERE scope = 'hard' AND finding_key = 'H1'),
    'A merge of the NFD spelling supersedes the finding written in NFC.');

-- merges are recorded once
SELECT lives_ok($$INSERT INTO ledger.merge (scope, commit_sha, message, paths)
                  VALUES ('hard', 'ABCDEF1234567890ABCDEF1234567890ABCDEF12', 'Update the café docs',
                          ARRAY[U&'docs/caf\00e9.md'])
                  ON CONFLICT (scope, commit_sha) DO NOTHING$$,
    'The full sha of a recorded abbreviation, with the same content, is a silent redelivery.');
SELECT is((SELECT count(*) FROM ledger.merge WHERE scope = 'hard')::int, 1,
    'The redelivery by the full sha added no merge.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha, message, paths)
                   VALUES ('hard', 'abcdef12', 'Update the café docs', ARRAY['src/worker.py'])
                   ON CONFLICT (scope, commit_sha) DO NOTHING$$,
    'LD007', NULL, 'A redelivery with other paths is refused with LD007.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha, message, paths)
                   VALUES ('hard', 'abcdef', 'Something else', ARRAY[U&'docs/caf\00e9.md'])
                   ON CONFLICT (scope, commit_sha) DO NOTHING$$,
    'LD007', NULL, 'A redelivery by a shorter abbreviation with another message is refused with LD007.');
SELECT throws_ok($$UPDATE ledger.merge SET message = 'rewritten' WHERE scope = 'hard'$$,
    'LD006', NULL, 'An UPDATE of a recorded merge is refused with LD006.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha, message, paths)
                   VALUES ('hard', 'abcdef12', 'Update the café docs', ARRAY[U&'docs/caf\00e9.md'])
                   ON CONFLICT (scope, commit_sha) DO UPDATE SET node_id = 'x'$$,
    'LD006', NULL, 'INSERT ... ON CONFLICT DO UPDATE of a recorded merge is refused with LD006.');
SELECT is((SELECT message FROM ledger.merge WHERE scope = 'hard'), 'Update the café docs',
    'The recorded merge still says what was decided on.');
SELECT is((SELECT count(*) FROM ledger.finding WHERE scope = 'hard' AND superseded_at IS NULL)::int, 1,
    'The refused statements superseded nothing.');

-- scope names, future times, JSON shapes
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title) VALUES ('a,b', 't')$$,
    'LD003', NULL, 'A scope name with a comma, which ledger.scopes cannot list, is refused with LD003.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, created_at) VALUES ('hard', 't', '9999-01-01')$$,
    'LD003', NULL, 'A finding created in the future is refused with LD003.');
SELECT throws_ok($$SELECT * FROM ledger.replace_findings('hard', NULL, 'run-2',
                                                         '[{"finding_key": "H2", "title": 5}]')$$,
    'LD003', NULL, 'A re-review element whose title is a number is refused with LD003.');
SELECT throws_ok($$SELECT * FROM ledger.replace_findings('hard', NULL, 'run-2',
                       '[{"finding_key": "H2", "title": "t", "superseded_at": "2020-01-01"}]')$$,
    'LD003', NULL, 'A re-review element with an undeclared field is refused with LD003.');

-- notifications: a reader re-reads the audit id it was sent
SELECT results_eq(
    $$SELECT action, rule FROM ledger.read_finding_events(
        ARRAY(SELECT id FROM ledger.supersession WHERE scope = 'hard'))$$,
    $$VALUES ('superseded'::text, 'path'::text)$$,
    'read_finding_events returns the transition an audit id names.');
SELECT is_empty($$SELECT * FROM ledger.read_finding_events(ARRAY[-1, 0, NULL]::bigint[])$$,
    'read_finding_events returns nothing for ids no transition has.');

SELECT * FROM finish();
ROLLBACK;
