-- The fixture data set (tests/sql/fixtures/small.sql) holds what its header
-- promises, so SQL-level tests can rely on it.
BEGIN;
SELECT plan(15);
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
SELECT results_eq($$SELECT action, rule, count(*)::int FROM ledger.supersession GROUP BY 1, 2 ORDER BY 1, 2$$,
    $$VALUES ('superseded', 'path', 2), ('would_supersede', 'path', 2)$$,
    'The fixture leaves two superseded and two would_supersede audit rows, all by the path rule.');
SELECT results_eq($$SELECT scope, path_supersede_kinds FROM ledger.scope ORDER BY scope$$,
    $$VALUES ('docs-site', '{drift}'::text[]), ('legacy', '{drift}'::text[]), ('nightshift', '{drift,review}'::text[])$$,
    'Nightshift''s path rule retires review findings too; the other scopes keep the default, drift only.');

-- issues, tasks, claims
SELECT results_eq($$SELECT scope, title, status, priority FROM ledger.issue ORDER BY title$$,
    $$VALUES ('docs-site', 'Document the scheduler', 'backlog', 'none'),
             ('nightshift', 'Fix the worker timeout', 'in_progress', 'urgent'),
             ('nightshift', 'Ship the nightshift CLI', 'todo', 'high')$$,
    'The fixture has three issues with their status and priority.');
SELECT results_eq(
    $$SELECT i.title, t.agent_id, t.runtime_id, t.status, t.session_id, t.failure_reason
        FROM ledger.agent_task t JOIN ledger.issue i ON i.id = t.issue_id ORDER BY t.id$$,
    $$VALUES ('Ship the nightshift CLI', 'coder', 'rt-1', 'completed', 'sess-1', NULL::text),
             ('Ship the nightshift CLI', 'coder', 'rt-1', 'dispatched', 'sess-1', NULL),
             ('Fix the worker timeout', 'reviewer', 'rt-2', 'failed', 'sess-9', 'context_window_exceeded'),
             ('Fix the worker timeout', 'reviewer', 'rt-2', 'queued', NULL, NULL)$$,
    'The fixture has four tasks: delivered, dispatched follow-up, poisoned failure, queued.');
SELECT is((SELECT count(*)::int FROM ledger.agent_task WHERE issue_snapshot ->> 'v' = '1'), 3,
    'Every claimed task carries a version 1 snapshot and the queued one none.');
SELECT isnt(
    (SELECT t.issue_snapshot ->> 'description_sha256' FROM ledger.agent_task t WHERE t.status = 'completed'),
    (SELECT t.issue_snapshot ->> 'description_sha256' FROM ledger.agent_task t WHERE t.status = 'dispatched'),
    'The delivered run and the follow-up saw different descriptions.');
SELECT is((SELECT assignee_type || ':' || assignee_id FROM ledger.issue WHERE title = 'Fix the worker timeout'),
    'agent:coder', 'The urgent issue is assigned to the agent coder.');
SELECT ok((SELECT strpos(description, E'\r\n') > 0 FROM ledger.issue WHERE title = 'Fix the worker timeout'),
    'An issue description is stored exactly as written, CRLF included.');

SELECT * FROM finish();
ROLLBACK;
