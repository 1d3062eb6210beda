-- Normalisation: paths and fields are normalised on write, whoever writes
-- them (INSERT, multi-row INSERT, the functions), and bad paths are refused
-- with LD001 before anything is stored.
BEGIN;
SELECT plan(26);

-- ledger.normalize_path, rule by rule
SELECT is(ledger.normalize_path('src/a.py'), 'src/a.py', 'A clean relative path is kept as it is.');
SELECT is(ledger.normalize_path('./src/a.py'), 'src/a.py', 'A leading ./ is dropped.');
SELECT is(ledger.normalize_path('src//a.py'), 'src/a.py', 'Repeated slashes collapse into one.');
SELECT is(ledger.normalize_path('src/./a.py'), 'src/a.py', 'A . segment in the middle is dropped.');
SELECT is(ledger.normalize_path(E'src\\win\\a.py'), 'src/win/a.py', 'Backslashes become slashes.');
SELECT is(ledger.normalize_path(E'  src/a.py\t'), 'src/a.py', 'Surrounding white space is trimmed.');
SELECT is(ledger.normalize_path('src/foo.py:42'), 'src/foo.py', 'A :line suffix is dropped.');
SELECT is(ledger.normalize_path('src/foo.py:42:10'), 'src/foo.py', 'A :line:col suffix is dropped.');
SELECT is(ledger.normalize_path('packages/nightshift/'), 'packages/nightshift/',
    'A trailing slash is kept, because it marks a directory.');
SELECT is(ledger.normalize_path('a:b/c.py'), 'a:b/c.py', 'A colon inside a segment is not a line suffix.');
SELECT is(ledger.normalize_path('naïve/日本.py'), 'naïve/日本.py', 'Non-ASCII paths pass through unchanged.');

-- refused paths
SELECT throws_ok($$SELECT ledger.normalize_path('/etc/passwd')$$, 'LD001', NULL,
    'An absolute path is refused with LD001.');
SELECT throws_ok($$SELECT ledger.normalize_path('C:\temp\a.py')$$, 'LD001', NULL,
    'A Windows drive path is refused with LD001.');
SELECT throws_ok($$SELECT ledger.normalize_path('src/../../up.py')$$, 'LD001', NULL,
    'A path with a .. segment is refused with LD001.');
SELECT throws_ok($$SELECT ledger.normalize_path('./')$$, 'LD001', NULL,
    'A path that is empty once normalised is refused with LD001.');
SELECT throws_ok($$SELECT ledger.normalize_path(E'src/a\nb.py')$$, 'LD001', NULL,
    'A path with a control character is refused with LD001.');
SELECT throws_ok($$SELECT ledger.normalize_path(repeat('x', 4097))$$, 'LD001', NULL,
    'A path longer than 4096 characters is refused with LD001.');

-- arrays
SELECT is(ledger.normalize_paths(ARRAY['b.py', './a.py', 'b.py:3', 'a.py', 'dir//', 'dir/']),
    ARRAY['b.py', 'a.py', 'dir/'], 'Duplicates collapse, keeping the first position.');
SELECT is(ledger.normalize_paths(NULL), '{}'::text[], 'A NULL path array means no paths.');
SELECT throws_ok($$SELECT ledger.normalize_paths(ARRAY['a.py', NULL])$$, 'LD001', NULL,
    'A NULL element in a path array is refused with LD001.');

-- through plain INSERTs, as a service writes them
INSERT INTO ledger.finding (scope, finding_key, kind, severity, title, description, paths)
VALUES ('  norm  ', ' k-1 ', 'Drift', 'Major', '  Close the handle ', '', ARRAY['./src\io.py:7', 'docs//']);
SELECT results_eq(
    $$SELECT scope, finding_key, kind, severity, title, description, paths FROM ledger.finding WHERE scope = 'norm'$$,
    $$VALUES ('norm', 'k-1', 'drift', 'high', 'Close the handle', NULL::text, ARRAY['src/io.py', 'docs/'])$$,
    'An inserted finding is stored trimmed, lower-cased, with major mapped to high and normalised paths.');
SELECT is((SELECT hygiene_mode FROM ledger.scope WHERE scope = 'norm'), 'on',
    'The first finding of a new scope creates the scope with hygiene on.');
INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths)
VALUES ('norm', 'ABCDEF12', ' node-1 ', NULL, ARRAY[' ./src/x.py:3:4 ']);
SELECT results_eq(
    $$SELECT commit_sha, node_id, message, paths, processed FROM ledger.merge WHERE scope = 'norm'$$,
    $$VALUES ('abcdef12', 'node-1', '', ARRAY['src/x.py'], true)$$,
    'An inserted merge has a lower-case sha, a trimmed node id, an empty message and normalised paths.');
INSERT INTO ledger.finding (scope, title, paths) VALUES ('norm', 'one', ARRAY['a.py']), ('norm', 'two', ARRAY['./b.py']);
SELECT results_eq(
    $$SELECT paths FROM ledger.finding WHERE scope = 'norm' AND title IN ('one', 'two') ORDER BY id$$,
    $$VALUES (ARRAY['a.py']), (ARRAY['b.py'])$$,
    'A multi-row INSERT normalises every row.');
SELECT is((ledger.add_finding('norm', 'via function', p_paths => ARRAY['.\c.py'])).paths, ARRAY['c.py'],
    'add_finding normalises exactly as a plain INSERT does.');
UPDATE ledger.finding SET paths = ARRAY['./moved.py:9'] WHERE scope = 'norm' AND title = 'one';
SELECT is((SELECT paths FROM ledger.finding WHERE scope = 'norm' AND title = 'one'), ARRAY['moved.py'],
    'An UPDATE of paths is normalised too.');

SELECT * FROM finish();
ROLLBACK;
