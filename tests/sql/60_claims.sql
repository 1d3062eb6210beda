-- Snapshots and claims (the issue-snapshot rules): issue_snapshot against
-- independent SHA-256 test vectors, the claim's anchor and delta through a
-- task's transitions, and every claims error by SQLSTATE with nothing
-- half-written. Runs on the small fixture (its issues and tasks).
BEGIN;
SELECT plan(48);
\ir fixtures/small.sql

-- Rows by natural keys: the task's agent, runtime and status, the issue's title.
CREATE TEMP VIEW task AS
SELECT t.id, i.title, t.agent_id, t.runtime_id, t.status, t.session_id, t.dispatch_count, t.failure_reason,
       t.issue_snapshot, t.started_at, t.completed_at
  FROM ledger.agent_task t JOIN ledger.issue i ON i.id = t.issue_id;

-- issue_snapshot: the hex digests below are SHA-256 computed outside PostgreSQL.
SELECT is(ledger.issue_snapshot('', ''),
    '{"v": 1, "title_sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "description_sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}'::jsonb,
    'The snapshot of an empty body is version 1 with the SHA-256 of no bytes, twice.');
SELECT is(ledger.issue_snapshot('abc', NULL) ->> 'title_sha256',
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    'The title hash of abc is the standard SHA-256 test vector.');
SELECT is(ledger.issue_snapshot('abc', NULL) ->> 'description_sha256',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'A NULL description hashes like the empty string.');
SELECT is(ledger.issue_snapshot(U&'caf\00E9', NULL) ->> 'title_sha256',
    '850f7dc43910ff890f8879c0ed26fe697c93a067ad93a7d50f466a7028a9bf4e',
    'Non-ASCII text is hashed as its UTF-8 bytes.');
SELECT is(ledger.issue_snapshot(E'\\x41', NULL) ->> 'title_sha256',
    '1896ffde59d289c620736dfe59b6cd146ab433b57ef92479bd77bdd57fcc3e27',
    'A backslash escape is hashed as the characters written, never parsed as bytea.');
SELECT is(ledger.issue_snapshot('100% {"v":1} :name $$', NULL) ->> 'title_sha256',
    '70af479c331a916d81d1acc6fdc12a1079262d251d9bbdc4b5738088864ff638',
    'Percent signs, JSON, :name and dollar quotes are hashed as plain text.');
SELECT isnt(ledger.issue_snapshot(U&'caf\00E9', NULL, 1), ledger.issue_snapshot(U&'cafe\0301', NULL, 1),
    'Version 1 tells the NFC and NFD spellings of a title apart (exact bytes).');
SELECT is(ledger.issue_snapshot(U&'caf\00E9', NULL, 2), ledger.issue_snapshot(U&'cafe\0301', NULL, 2),
    'Version 2 reads the NFC and NFD spellings of a title as the same.');
SELECT is(ledger.issue_snapshot('t', E'a\r\nb', 2), ledger.issue_snapshot('t', E'a\nb', 2),
    'Version 2 reads a line-ending-only edit as unchanged.');
SELECT is(ledger.issue_snapshot('t', E'a\r\nb', 2) -> 'v', '2'::jsonb, 'A version 2 snapshot says v 2.');
SELECT unalike(ledger.issue_snapshot('secret title', 'secret body')::text, '%secret%',
    'A snapshot holds hashes only, never the issue text.');
SELECT throws_ok($$SELECT ledger.issue_snapshot('t', 'd', 3)$$, 'LD003', NULL,
    'An unknown snapshot version is refused with LD003.');
SET LOCAL ledger.snapshot_version = '2';
SELECT is(ledger.issue_snapshot('t', 'd') -> 'v', '2'::jsonb,
    'The setting ledger.snapshot_version selects the deployment''s version.');
SET LOCAL ledger.snapshot_version = 'two';
SELECT throws_ok($$SELECT * FROM ledger.claim_task('rt-2')$$, 'LD003', NULL,
    'A claim under an invalid ledger.snapshot_version fails with LD003.');
RESET ledger.snapshot_version;
SELECT is((SELECT status FROM task WHERE agent_id = 'reviewer' AND failure_reason IS NULL), 'queued',
    'The refused claim dispatched nothing.');

-- What the fixture's claims recorded
SELECT is((SELECT issue_snapshot FROM task WHERE status = 'completed'),
    ledger.issue_snapshot('Ship the nightshift CLI', 'Add the nightshift entry point.', 1),
    'The delivered run keeps the snapshot of the body its claim saw, not the edited one.');
SELECT is((SELECT t.issue_snapshot FROM task t WHERE t.status = 'dispatched'),
    (SELECT ledger.issue_snapshot(i.title, i.description, 1) FROM ledger.issue i WHERE i.title = 'Ship the nightshift CLI'),
    'The follow-up''s claim recorded the body as it is now.');
SELECT is((SELECT session_id FROM task WHERE status = 'dispatched'), 'sess-1',
    'The follow-up''s claim resumes the delivered run''s session.');
SELECT is((SELECT issue_snapshot ->> 'description_sha256' FROM task WHERE status = 'failed'),
    '773b3c1a372a60a55fc291cad41b06468d857cf3b9c78c3fd8adc9f948cd11fe',
    'A description with CRLF line endings is hashed byte for byte in version 1.');

-- Claim transitions
CREATE TEMP TABLE c_rt2 AS SELECT * FROM ledger.claim_task('rt-2');
SELECT results_eq(
    $$SELECT c.task_id = t.id, c.resume_session_id, c.anchor_task_id, c.delta_basis,
             c.issue_state_delta_known, c.issue_changed_fields
        FROM c_rt2 c, task t WHERE t.agent_id = 'reviewer' AND t.failure_reason IS NULL$$,
    $$VALUES (true, NULL::text, NULL::bigint, 'nothing_resumed', false, NULL::text[])$$,
    'A session whose latest run failed with a poisoning reason is not resumed: the claim resumes nothing.');
SELECT results_eq($$SELECT issue_status, issue_assignee_type, issue_assignee_id, issue_priority FROM c_rt2$$,
    $$VALUES ('in_progress', 'agent', 'coder', 'urgent')$$,
    'A claim ships the issue''s current status, assignee and priority without comparing them.');
SELECT is_empty($$SELECT * FROM ledger.claim_task('rt-9')$$, 'A claim on an empty queue returns no row.');

SELECT id AS follow_up FROM task WHERE status = 'dispatched' AND runtime_id = 'rt-1' \gset
SELECT is((ledger.requeue_task(:follow_up)).status, 'queued', 'A dispatched run that never started can be requeued.');
CREATE TEMP TABLE c_rt1 AS SELECT * FROM ledger.claim_task('rt-1');
SELECT results_eq(
    $$SELECT c.task_id, c.dispatch_count, c.resume_session_id, c.anchor_task_id = t.id, c.delta_basis,
             c.issue_state_delta_known, c.issue_changed_fields
        FROM c_rt1 c, task t WHERE t.status = 'completed'$$,
    format($f$VALUES (%s::bigint, 2, 'sess-1', true, 'compared', true, ARRAY['description'])$f$, :follow_up),
    'The reclaim is a new dispatch that anchors on the delivered run and names the edited description.');
SELECT is((ledger.start_task(:follow_up, 'sess-1')).status, 'running', 'A dispatched run starts.');
SELECT is((ledger.complete_task(:follow_up)).status, 'completed', 'A running run completes.');
SELECT isnt((SELECT completed_at FROM task WHERE id = :follow_up), NULL, 'Completing a run sets completed_at.');

SELECT ledger.enqueue_task(i.id, 'coder', 'rt-1') IS NOT NULL AS enqueued FROM ledger.issue i
 WHERE i.title = 'Ship the nightshift CLI' \gset
SELECT results_eq(
    $$SELECT anchor_task_id, delta_basis, issue_changed_fields FROM ledger.claim_task('rt-1')$$,
    format($f$VALUES (%s::bigint, 'compared', '{}'::text[])$f$, :follow_up),
    'When nothing changed since the anchor, the delta is known and empty.');
SELECT id AS third FROM task WHERE status = 'dispatched' AND runtime_id = 'rt-1' \gset
SELECT is((ledger.cancel_task(:third, 'operator stopped it')).status, 'cancelled', 'A dispatched run can be cancelled.');
UPDATE ledger.issue SET title = 'Ship the nightshift CLI and its docs' WHERE title = 'Ship the nightshift CLI';
SELECT ledger.enqueue_task(i.id, 'coder', 'rt-1') IS NOT NULL AS enqueued FROM ledger.issue i
 WHERE i.title = 'Ship the nightshift CLI and its docs' \gset
SELECT results_eq(
    $$SELECT resume_session_id, anchor_task_id, delta_basis, issue_changed_fields FROM ledger.claim_task('rt-1')$$,
    $$VALUES ('sess-1', NULL::bigint, 'not_delivered', NULL::text[])$$,
    'After a cancelled run the claim resumes its session but dates no delta: not delivered, never "unchanged".');

SELECT ledger.enqueue_task(i.id, 'coder', 'rt-1', p_force_fresh_session => true) IS NOT NULL AS enqueued
  FROM ledger.issue i WHERE i.title = 'Document the scheduler' \gset
SELECT results_eq($$SELECT resume_session_id, delta_basis FROM ledger.claim_task('rt-1')$$,
    $$VALUES (NULL::text, 'fresh_session')$$,
    'A task that asks for a fresh session resumes nothing.');

-- Errors by SQLSTATE
SELECT ledger.enqueue_task(i.id, 'tester', 'rt-3') IS NOT NULL AS enqueued FROM ledger.issue i
 WHERE i.title = 'Document the scheduler' \gset
SELECT id AS queued FROM task WHERE agent_id = 'tester' \gset
SELECT id AS delivered FROM task WHERE status = 'completed' AND dispatch_count = 1 \gset
SELECT id AS dispatched FROM task WHERE agent_id = 'reviewer' AND status = 'dispatched' \gset
SELECT throws_ok(format('UPDATE ledger.agent_task SET status = %L WHERE id = %s', 'completed', :queued),
    'LD201', NULL, 'A queued task cannot jump to completed: LD201.');
SELECT throws_ok(format('SELECT ledger.complete_task(%s)', :queued), 'LD201', NULL,
    'complete_task on a queued task raises LD201 too.');
SELECT throws_ok($$INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, status)
                   SELECT id, 'tester', 'rt-3', 'running' FROM ledger.issue WHERE title = 'Document the scheduler'$$,
    'LD201', NULL, 'A new task that is not queued is refused with LD201.');
SELECT throws_ok(format('UPDATE ledger.agent_task SET status = %L WHERE id = %s', 'dispatched', :queued),
    'LD202', NULL, 'Dispatching a task outside claim_task is refused with LD202.');
SELECT throws_ok(format('UPDATE ledger.agent_task SET dispatch_count = 7 WHERE id = %s', :queued),
    'LD202', NULL, 'Changing the dispatch bookkeeping outside claim_task is refused with LD202.');
SELECT throws_ok(format($f$UPDATE ledger.agent_task SET issue_snapshot = '{"v": 1}' WHERE id = %s$f$, :delivered),
    'LD203', NULL, 'Writing issue_snapshot outside the claim is refused with LD203.');
SELECT throws_ok($$INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, issue_snapshot)
                   SELECT id, 'tester', 'rt-3', '{"v": 1}' FROM ledger.issue WHERE title = 'Document the scheduler'$$,
    'LD203', NULL, 'A new task carrying a snapshot is refused with LD203.');
SELECT throws_ok(format('UPDATE ledger.agent_task SET agent_id = %L WHERE id = %s', 'someone-else', :dispatched),
    'LD204', NULL, 'The agent of a dispatched task is frozen: LD204.');
SELECT throws_ok(format('SELECT ledger.fail_task(%s, NULL)', :dispatched), 'LD002', NULL,
    'A failure without a failure_reason is refused with LD002.');
SELECT throws_ok($$SELECT ledger.start_task(-1)$$, 'LD005', NULL, 'An unknown task id raises LD005.');
SELECT throws_ok($$SELECT ledger.enqueue_task(-1, 'coder', 'rt-1')$$, 'LD005', NULL,
    'Enqueueing a task for an unknown issue raises LD005.');
SELECT throws_ok($$INSERT INTO ledger.issue (scope, title, status) VALUES ('nightshift', 'x', 'doing')$$, 'LD003', NULL,
    'An issue with an unknown status is refused with LD003.');
-- a task's scope is its issue's, set by the trigger; another one sent is refused
SELECT results_eq($$SELECT t.scope, count(*)::int FROM ledger.agent_task t JOIN ledger.issue i ON i.id = t.issue_id
                    WHERE t.scope = i.scope GROUP BY t.scope ORDER BY 1$$,
    $$SELECT i.scope, count(*)::int FROM ledger.agent_task t JOIN ledger.issue i ON i.id = t.issue_id
       GROUP BY i.scope ORDER BY 1$$,
    'Every task of the fixture carries its issue''s scope, though no writer sent it.');
SELECT lives_ok($$INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, scope)
                  SELECT id, 'tester', 'rt-3', 'docs-site' FROM ledger.issue WHERE title = 'Document the scheduler'$$,
    'A task sent with its issue''s scope is taken.');
SELECT throws_ok($$INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, scope)
                   SELECT id, 'tester', 'rt-3', 'nightshift' FROM ledger.issue WHERE title = 'Document the scheduler'$$,
    'LD003', NULL, 'A task sent with another scope than its issue''s is refused with LD003.');
SELECT throws_like($$INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, scope)
                     SELECT id, 'tester', 'rt-3', 'nightshift' FROM ledger.issue WHERE title = 'Document the scheduler'$$,
    'invalid agent_task.scope: ''nightshift'' (issue % is in scope ''docs-site'')',
    'The refusal names the scope sent and the issue''s.');
SELECT results_eq(
    format('SELECT status, dispatch_count, issue_snapshot FROM ledger.agent_task WHERE id = %s', :queued),
    $$VALUES ('queued', 0, NULL::jsonb)$$,
    'Nothing of a refused statement is written: the queued task is untouched.');

SELECT * FROM finish();
ROLLBACK;
