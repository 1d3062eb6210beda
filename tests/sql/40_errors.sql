-- Errors by SQLSTATE: bad input written by any service is refused with the
-- project's code for the rule it breaks (LD001-LD005, LD301, 23505), and
-- nothing of a refused statement is stored. The claims, lifecycle and
-- matching codes (LD2xx, LD3xx, LD1xx) are asserted in their topic files.
BEGIN;
SELECT plan(26);

INSERT INTO ledger.finding (scope, finding_key, title) VALUES ('errs', 'k-1', 'Existing finding');

-- LD001 path_rejected
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, paths) VALUES ('errs', 't', ARRAY['/abs.py'])$$,
    'LD001', NULL, 'A finding with an absolute path is refused with LD001.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('errs', 'abcd', ARRAY['a.py', NULL])$$,
    'LD001', NULL, 'A merge with a NULL path element is refused with LD001.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('errs', 'abcd', ARRAY['../x.py'])$$,
    'LD001', NULL, 'A merge path that climbs out of the repository is refused with LD001.');

-- LD002 value_required
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title) VALUES ('errs', NULL)$$,
    'LD002', NULL, 'A finding without a title is refused with LD002.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title) VALUES ('errs', '   ')$$,
    'LD002', NULL, 'A finding with a blank title is refused with LD002.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title) VALUES (NULL, 't')$$,
    'LD002', NULL, 'A finding without a scope is refused with LD002.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha) VALUES ('errs', NULL)$$,
    'LD002', NULL, 'A merge without a commit sha is refused with LD002.');

-- LD003 value_invalid
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, severity) VALUES ('errs', 't', 'urgent')$$,
    'LD003', NULL, 'A finding with an unknown severity is refused with LD003.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title) VALUES ('errs', E'two\nlines')$$,
    'LD003', NULL, 'A finding title with a control character is refused with LD003.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, finding_key) VALUES ('errs', 't', '  ')$$,
    'LD003', NULL, 'A blank optional finding key is refused with LD003 (use NULL).');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha) VALUES ('errs', 'not-a-sha')$$,
    'LD003', NULL, 'A merge whose commit sha is not hexadecimal is refused with LD003.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha) VALUES ('errs', 'abc')$$,
    'LD003', NULL, 'A commit sha shorter than four digits is refused with LD003.');
SELECT throws_ok($$INSERT INTO ledger.scope (scope, hygiene_mode) VALUES ('errs-2', 'maybe')$$,
    'LD003', NULL, 'A scope with an unknown hygiene mode is refused with LD003.');
SELECT throws_ok($$SELECT ledger.set_hygiene_mode('errs', 'sometimes')$$,
    'LD003', NULL, 'set_hygiene_mode with an unknown mode raises LD003.');

-- LD004 value_too_long
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title) VALUES ('errs', repeat('t', 1001))$$,
    'LD004', NULL, 'A title longer than 1000 characters is refused with LD004.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title) VALUES (repeat('s', 201), 't')$$,
    'LD004', NULL, 'A scope longer than 200 characters is refused with LD004.');
SELECT throws_ok(
    $$INSERT INTO ledger.finding (scope, title, paths)
      SELECT 'errs', 't', array_agg('f' || n || '.py') FROM generate_series(1, 1001) n$$,
    'LD004', NULL, 'A finding with more than 1000 paths is refused with LD004.');
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('errs', 'abcd', repeat('m', 262145))$$,
    'LD004', NULL, 'A merge message over 256 KiB is refused with LD004.');

-- LD005 not_found
SELECT throws_ok($$SELECT * FROM ledger.active_findings('no-such-scope')$$,
    'LD005', NULL, 'active_findings of an unknown scope raises LD005 rather than returning nothing.');

-- LD301 finding_already_reported (0003), and 23505 unique_violation as the backstop
SELECT throws_ok($$INSERT INTO ledger.finding (scope, finding_key, title) VALUES ('errs', ' k-1 ', 'Again')$$,
    'LD301', NULL, 'A finding key already used in the scope is refused with LD301, after trimming.');
SELECT throws_ok(
    $$INSERT INTO ledger.finding (scope, finding_key, title) VALUES ('errs', 'k-1', 'Again') ON CONFLICT DO NOTHING$$,
    'LD301', NULL, 'ON CONFLICT DO NOTHING does not hide a re-report: it is refused with LD301 too.');
DO $$ BEGIN PERFORM set_config('ledger.reporting', 'on', true); END $$;
SELECT throws_ok($$INSERT INTO ledger.finding (scope, finding_key, title) VALUES ('errs', 'k-1', 'Again')$$,
    '23505', NULL, 'With the LD301 check skipped (as report_finding does), the unique key still refuses a duplicate with 23505.');
DO $$ BEGIN PERFORM set_config('ledger.reporting', '', true); END $$;
SELECT throws_ok($$INSERT INTO ledger.merge (scope, commit_sha) VALUES ('errs', 'abcd'), ('errs', 'ABCD')$$,
    '23505', NULL, 'The same commit twice in one scope is refused with 23505, whatever its case.');

-- nothing half-written
SELECT throws_ok(
    $$INSERT INTO ledger.finding (scope, title, paths) VALUES ('errs', 'good', ARRAY['ok.py']), ('errs', 'bad', ARRAY['/abs'])$$,
    'LD001', NULL, 'A multi-row INSERT with one bad row is refused as a whole.');
SELECT is((SELECT count(*) FROM ledger.finding WHERE scope = 'errs')::int, 1,
    'No row of a refused statement is stored.');
SELECT is_empty($$SELECT 1 FROM ledger.scope WHERE scope IN ('errs-2', repeat('s', 201))$$,
    'A refused write creates no scope either.');

SELECT * FROM finish();
ROLLBACK;
