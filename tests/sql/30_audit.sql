-- Audit: every supersession decision leaves one row in ledger.supersession,
-- written in the same transaction as the change, with the evidence that
-- matched; read_audit and record_merge report it. Runs on the small fixture.
BEGIN;
SELECT plan(14);
\ir fixtures/small.sql

CREATE TEMP VIEW a AS
SELECT s.id, s.scope, f.finding_key, m.commit_sha, s.action, s.rule, s.evidence, s.detail
  FROM ledger.supersession s
  LEFT JOIN ledger.finding f ON f.id = s.finding_id
  LEFT JOIN ledger.merge m ON m.id = s.merge_id;

SELECT results_eq($$SELECT action, count(*)::int FROM a GROUP BY action ORDER BY action$$,
    $$VALUES ('superseded', 2), ('would_supersede', 2)$$,
    'The fixture leaves two superseded and two would_supersede audit rows.');
SELECT results_eq($$SELECT commit_sha, action, rule, evidence FROM a WHERE finding_key = 'ns-1'$$,
    $$VALUES ('a1b2c3d4', 'superseded', 'path', 'src/worker.py')$$,
    'The audit row names the merge, the action, the rule and the touched path as evidence.');
SELECT results_eq(
    $$SELECT detail ->> 'finding_path', detail ->> 'touched_path', detail -> 'pieces' -> 0 ->> 'outcome'
        FROM a WHERE finding_key = 'ns-2'$$,
    $$VALUES ('packages/nightshift/', 'packages/nightshift/core/run.py', 'supersede')$$,
    'The detail records which finding path matched which touched path, and the deciding piece of evidence.');
SELECT set_eq($$SELECT finding_key FROM a WHERE action = 'would_supersede'$$, ARRAY['ds-1', 'ds-2'],
    'A dry scope audits what it would have superseded.');
SELECT is_empty($$SELECT 1 FROM a WHERE scope = 'legacy'$$, 'A scope with hygiene off writes no audit rows.');
SELECT is((SELECT count(*) FROM a WHERE action = 'superseded')::int,
          (SELECT count(*) FROM ledger.finding WHERE superseded_at IS NOT NULL)::int,
    'Every superseded finding has exactly one superseded audit row.');
SELECT is_empty(
    $$SELECT 1 FROM ledger.supersession s JOIN ledger.finding f ON f.id = s.finding_id
       WHERE s.action = 'superseded' AND (f.superseded_by_merge_id IS DISTINCT FROM s.merge_id
                                          OR s.created_at <> f.superseded_at)$$,
    'Each superseded audit row and its finding change belong to the same merge and transaction.');

-- read_audit
SELECT results_eq(
    $$SELECT action, evidence FROM ledger.read_audit('docs-site') ORDER BY id$$,
    $$VALUES ('would_supersede', 'docs/guide.md'), ('would_supersede', 'docs/img/logo.png')$$,
    'read_audit returns a scope''s audit rows in the order they were written.');
SELECT is((SELECT count(*) FROM ledger.read_audit('nightshift',
            p_finding_id => (SELECT id FROM ledger.finding WHERE finding_key = 'ns-2')))::int, 1,
    'read_audit can be narrowed to one finding.');
SELECT is((SELECT count(*) FROM ledger.read_audit('nightshift',
            p_merge_id => (SELECT id FROM ledger.merge WHERE commit_sha = 'c3d4e5f6')))::int, 0,
    'read_audit narrowed to a merge that matched nothing is empty.');
SELECT throws_ok($$SELECT * FROM ledger.read_audit('no-such-scope')$$, 'LD005', NULL,
    'read_audit of an unknown scope raises LD005.');

-- record_merge reports the decisions, also on redelivery
CREATE TEMP TABLE r AS
SELECT * FROM ledger.record_merge('nightshift', 'ABCD0001', ARRAY['./src/ab.py:3'], 'Rename', 'node-3');
SELECT results_eq($$SELECT recorded, decisions -> 0 ->> 'action', decisions -> 0 ->> 'evidence' FROM r$$,
    $$VALUES (true, 'superseded', 'src/ab.py')$$,
    'record_merge records the merge and returns its decisions.');
SELECT results_eq(
    $$SELECT recorded, merge_id = (SELECT merge_id FROM r), jsonb_array_length(decisions)
        FROM ledger.record_merge('nightshift', 'abcd0001', ARRAY['src/ab.py'], 'Rename')$$,
    $$VALUES (false, true, 1)$$,
    'Recording the same merge again returns recorded = false and the original decisions.');
SELECT is((SELECT count(*) FROM ledger.supersession WHERE merge_id = (SELECT merge_id FROM r))::int, 1,
    'The redelivery added no audit row.');

SELECT * FROM finish();
ROLLBACK;
