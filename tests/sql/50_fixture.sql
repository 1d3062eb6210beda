-- The fixture data set (tests/sql/fixtures/small.sql) holds what its header
-- promises, so SQL-level tests can rely on it.
BEGIN;
SELECT plan(8);
\ir fixtures/small.sql

SELECT results_eq($$SELECT scope, hygiene_mode FROM ledger.scope ORDER BY scope$$,
    $$VALUES ('docs-site', 'dry'), ('legacy', 'off'), ('nightshift', 'on')$$,
    'The fixture has three scopes, one per hygiene mode.');
SELECT is((SELECT count(*) FROM ledger.finding)::int, 9, 'The fixture has nine findings.');
SELECT is((SELECT count(*) FROM ledger.merge)::int, 5, 'The fixture has five merges (the redelivery adds none).');
SELECT is_empty($$SELECT 1 FROM ledger.merge WHERE NOT processed$$,
    'Every fixture merge went through the triggers.');
SELECT set_eq($$SELECT finding_key FROM ledger.active_finding$$,
    ARRAY['ns-3', 'ns-4', 'ns-5', 'ns-6', 'ds-1', 'ds-2', 'lg-1'],
    'Seven of the nine findings are active.');
SELECT results_eq($$SELECT finding_key, paths FROM ledger.finding WHERE finding_key IN ('ns-1', 'ns-4', 'ns-6') ORDER BY finding_key$$,
    $$VALUES ('ns-1', ARRAY['src/worker.py']), ('ns-4', ARRAY['src/win/io.py']), ('ns-6', '{}'::text[])$$,
    'The fixture''s messy paths are stored normalised.');
SELECT is((SELECT severity FROM ledger.finding WHERE finding_key = 'ns-2'), 'high',
    'The fixture''s Major severity is stored as high.');
SELECT results_eq($$SELECT action, count(*)::int FROM ledger.supersession GROUP BY 1 ORDER BY 1$$,
    $$VALUES ('superseded', 2), ('would_supersede', 2)$$,
    'The fixture leaves two superseded and two would_supersede audit rows.');

SELECT * FROM finish();
ROLLBACK;
