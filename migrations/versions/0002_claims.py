"""Task claims with versioned issue snapshots (seed 003, issue 4).

Revision ID: 0002_claims
Revises: 0001_foundation
Create Date: 2026-12-01

Creates, in schema ``ledger``: tables issue, agent_task (with the nullable
jsonb column issue_snapshot), poisoned_failure_reason (seeded with three
reasons) and retired_session; their validation, status-machine and
snapshot-guard triggers; the functions issue_snapshot, claim_task,
start_task, complete_task, fail_task, cancel_task, requeue_task, add_issue,
enqueue_task and their helpers. Every table is new, so nothing existing is
rewritten or locked.

The SQL below is frozen: it is the text of sql/ when this revision was
written (tools/freeze_sql.py) and must never be edited; a later change to a
function is a new revision.
"""

from findings_ledger.migration_ops import run_sql

revision = "0002_claims"
down_revision = "0001_foundation"
branch_labels = None
depends_on = None

TABLES = r'''
CREATE TABLE ledger.issue (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope         text NOT NULL REFERENCES ledger.scope (scope),
    title         text NOT NULL,
    description   text,
    status        text NOT NULL DEFAULT 'todo',
    assignee_type text,
    assignee_id   text,
    priority      text NOT NULL DEFAULT 'none',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT issue_status_check
        CHECK (status IN ('backlog', 'todo', 'in_progress', 'in_review', 'done', 'blocked', 'cancelled')),
    CONSTRAINT issue_priority_check CHECK (priority IN ('urgent', 'high', 'medium', 'low', 'none')),
    CONSTRAINT issue_assignee_check CHECK ((assignee_type IS NULL) = (assignee_id IS NULL)
                                           AND (assignee_type IS NULL OR assignee_type IN ('member', 'agent')))
);
COMMENT ON TABLE ledger.issue IS
'An issue agents work on. Services create and update it with plain SQL; many writers touch it and none has to do anything for claim snapshots to stay correct. title and description are stored exactly as written (claims hash their bytes).';

CREATE TABLE ledger.agent_task (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    issue_id            bigint NOT NULL REFERENCES ledger.issue (id),
    agent_id            text NOT NULL,
    runtime_id          text NOT NULL,
    status              text NOT NULL DEFAULT 'queued',
    session_id          text,
    rerun_of_task_id    bigint REFERENCES ledger.agent_task (id),
    force_fresh_session boolean NOT NULL DEFAULT false,
    failure_reason      text,
    dispatch_count      integer NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now(),
    dispatched_at       timestamptz,
    started_at          timestamptz,
    completed_at        timestamptz,
    issue_snapshot      jsonb,
    CONSTRAINT agent_task_status_check
        CHECK (status IN ('queued', 'dispatched', 'running', 'completed', 'failed', 'cancelled')),
    CONSTRAINT agent_task_rerun_check CHECK (rerun_of_task_id <> id)
);
COMMENT ON TABLE ledger.agent_task IS
'One row per agent run on an issue. status: queued -> dispatched (ledger.claim_task) -> running -> completed | failed | cancelled; dispatched -> queued requeues a run that never started. session_id: the provider session (set by the claim to the session it resumes, updated by start/complete/fail). dispatch_count: the claim''s CAS token.';
COMMENT ON COLUMN ledger.agent_task.issue_snapshot IS
'The issue body AS THIS CLAIM SAW IT: {"v":1,"title_sha256":"<hex>","description_sha256":"<hex>"} (ledger.issue_snapshot). Hashes, never text: a comparison key. Written only by ledger.claim_task, under a CAS. Read back by a later claim only off the row whose session it resumes, and only when that row proves delivery (completed, started_at set). NULL (never claimed, or written before this column existed), another version or a row that does not parse mean "not compared", never "unchanged". No index: never a lookup key.';

CREATE TABLE ledger.poisoned_failure_reason (
    failure_reason text PRIMARY KEY,
    note           text,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE ledger.poisoned_failure_reason IS
'Failure reasons that poison a provider session: a session whose latest run ended with one of these is never resumed by a later claim (and so never anchors a delta). Edit with plain INSERT / DELETE.';
INSERT INTO ledger.poisoned_failure_reason (failure_reason, note) VALUES
    ('context_window_exceeded', 'the session can no longer take a turn'),
    ('session_corrupted', 'the provider reported the session state as unusable'),
    ('session_not_found', 'the provider no longer knows the session');

CREATE TABLE ledger.retired_session (
    session_id text PRIMARY KEY,
    reason     text,
    retired_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE ledger.retired_session IS
'Provider sessions that must not be resumed any more (rotated, expired, deliberately abandoned). A later claim skips them when it looks for the session to resume. Add with INSERT INTO ledger.retired_session (session_id, reason).';

CREATE INDEX issue_scope_idx ON ledger.issue (scope, id);
CREATE INDEX agent_task_queue_idx ON ledger.agent_task (runtime_id, id) WHERE status = 'queued';
CREATE INDEX agent_task_anchor_idx ON ledger.agent_task (issue_id, agent_id, runtime_id);
CREATE INDEX agent_task_rerun_idx ON ledger.agent_task (rerun_of_task_id) WHERE rerun_of_task_id IS NOT NULL;
'''
FROZEN_SQL = [
    # sql/functions/_snapshot_version.sql
    r'''
-- ledger._snapshot_version() -> integer
--
-- The issue-snapshot version this deployment writes and compares: the value
-- of the setting ledger.snapshot_version, 1 when it is unset or empty. A DBA
-- selects version 2 for a database with
--     ALTER DATABASE <db> SET ledger.snapshot_version = 2;
-- (new sessions pick it up; SET ledger.snapshot_version = 2 works per session).
-- Raises LD003 value_invalid when the setting is anything but 1 or 2.
-- Implements the per-deployment version switch of issue 4 (seed 003's `v`).
CREATE OR REPLACE FUNCTION ledger._snapshot_version()
RETURNS integer
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_raw text := nullif(btrim(current_setting('ledger.snapshot_version', true)), '');
BEGIN
    IF v_raw IS NULL THEN
        RETURN 1;
    END IF;
    IF v_raw NOT IN ('1', '2') THEN
        RAISE EXCEPTION 'invalid setting ledger.snapshot_version: % (expected 1 or 2)', quote_literal(v_raw)
            USING ERRCODE = 'LD003',
                  HINT = 'ALTER DATABASE <db> SET ledger.snapshot_version = 2, or RESET it for version 1';
    END IF;
    RETURN v_raw::integer;
END
$$;

COMMENT ON FUNCTION ledger._snapshot_version() IS
'The issue-snapshot version of this deployment: setting ledger.snapshot_version (ALTER DATABASE <db> SET ledger.snapshot_version = 2), default 1. () -> integer. Raises LD003 when the setting is not 1 or 2.';
''',
    # sql/functions/issue_snapshot.sql
    r'''
-- ledger.issue_snapshot(p_title text, p_description text, p_version integer DEFAULT NULL) -> jsonb
--
-- The comparison key of an issue body, as a claim records it in
-- agent_task.issue_snapshot:
--   {"v": 1, "title_sha256": "<hex>", "description_sha256": "<hex>"}
-- each the lowercase hexadecimal SHA-256 of the text's UTF-8 bytes
-- (convert_to(text, 'UTF8'), never a bytea cast, which parses escapes such as
-- \x41; never a jsonb::text rendering). A NULL title or description hashes
-- like the empty string.
--   v = 1  the exact bytes, no normalisation (byte-compatible with seed 003's
--          system: its rows compare correctly here);
--   v = 2  after CRLF -> LF and Unicode NFC normalisation (normalize(.., NFC),
--          which needs a UTF8 database), so line-ending-only edits and NFC/NFD
--          differences read as unchanged.
-- p_version NULL means the deployment's version (ledger._snapshot_version()).
-- Hashes only: the result never carries any of the text.
-- Raises LD003 value_invalid for a version other than 1 or 2 (or an invalid
-- ledger.snapshot_version setting).
CREATE OR REPLACE FUNCTION ledger.issue_snapshot(p_title text, p_description text, p_version integer DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_version integer := coalesce(p_version, ledger._snapshot_version());
    v_title text := coalesce(p_title, '');
    v_description text := coalesce(p_description, '');
BEGIN
    IF v_version = 2 THEN
        v_title := normalize(replace(v_title, E'\r\n', E'\n'), NFC);
        v_description := normalize(replace(v_description, E'\r\n', E'\n'), NFC);
    ELSIF v_version IS DISTINCT FROM 1 THEN
        RAISE EXCEPTION 'invalid issue_snapshot.p_version: % (expected 1 or 2)', v_version
            USING ERRCODE = 'LD003';
    END IF;
    RETURN jsonb_build_object(
        'v', v_version,
        'title_sha256', encode(sha256(convert_to(v_title, 'UTF8')), 'hex'),
        'description_sha256', encode(sha256(convert_to(v_description, 'UTF8')), 'hex'));
END
$$;

COMMENT ON FUNCTION ledger.issue_snapshot(text, text, integer) IS
'Snapshot of an issue body: {"v", "title_sha256", "description_sha256"}, lowercase hex SHA-256 of the UTF-8 bytes (NULL hashes as the empty string). v1: exact bytes (default); v2: CRLF -> LF and NFC first. (title, description, version NULL = setting ledger.snapshot_version) -> jsonb. Raises LD003 for another version.';
''',
    # sql/functions/_snapshot_changes.sql
    r'''
-- ledger._snapshot_changes(p_anchor jsonb, p_current jsonb) -> text[]
--
-- Compares the snapshot an anchor row recorded with the issue's current one
-- (both from ledger.issue_snapshot). Returns the changed fields in the fixed
-- order title, description ('{}' when nothing changed), or NULL when the
-- anchor cannot answer the question ("not compared"):
--   NULL, not a JSON object, "v" not a number equal to the current version,
--   or a title_sha256 / description_sha256 that is not a 64-digit lowercase
--   hex string.
-- Keys the current version does not read (a legacy "status") are ignored:
-- removing a field from the compared set never bumps "v" (seed 003's rule).
-- Raises nothing.
CREATE OR REPLACE FUNCTION ledger._snapshot_changes(p_anchor jsonb, p_current jsonb)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_field text;
    v_old jsonb;
    v_changed text[] := '{}';
BEGIN
    IF p_anchor IS NULL OR p_current IS NULL OR jsonb_typeof(p_anchor) <> 'object'
       OR jsonb_typeof(p_anchor -> 'v') IS DISTINCT FROM 'number'
       OR (p_anchor ->> 'v')::numeric IS DISTINCT FROM (p_current ->> 'v')::numeric THEN
        RETURN NULL;
    END IF;
    FOREACH v_field IN ARRAY ARRAY['title', 'description'] LOOP
        v_old := p_anchor -> (v_field || '_sha256');
        IF jsonb_typeof(v_old) IS DISTINCT FROM 'string' OR (v_old #>> '{}') !~ '^[0-9a-f]{64}$' THEN
            RETURN NULL;
        END IF;
        IF (v_old #>> '{}') IS DISTINCT FROM (p_current ->> (v_field || '_sha256')) THEN
            v_changed := v_changed || v_field;
        END IF;
    END LOOP;
    RETURN v_changed;
END
$$;

COMMENT ON FUNCTION ledger._snapshot_changes(jsonb, jsonb) IS
'Changed fields between an anchor snapshot and the current one, in the order title, description; NULL when the anchor is NULL, of another version or does not parse (not compared). Extra keys such as a legacy "status" are ignored. (anchor jsonb, current jsonb) -> text[]. Raises nothing.';
''',
    # sql/functions/_check_task_transition.sql
    r'''
-- ledger._check_task_transition(p_task_id bigint, p_from text, p_to text) -> void
--
-- The agent_task status machine, in one place:
--   queued     -> dispatched (ledger.claim_task only), cancelled
--   dispatched -> running, failed, cancelled, queued (requeue: never started)
--   running    -> completed, failed, cancelled
--   completed, failed and cancelled are final.
-- Called by the _100_prepare trigger for every UPDATE that changes status,
-- however it is written, and by the lifecycle functions, which also reject a
-- repeated transition (starting a running task, completing a completed one).
-- Raises LD201 task_transition_invalid naming the task, both statuses and the
-- allowed targets.
CREATE OR REPLACE FUNCTION ledger._check_task_transition(p_task_id bigint, p_from text, p_to text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_allowed text[] := CASE p_from
        WHEN 'queued' THEN ARRAY['dispatched', 'cancelled']
        WHEN 'dispatched' THEN ARRAY['running', 'failed', 'cancelled', 'queued']
        WHEN 'running' THEN ARRAY['completed', 'failed', 'cancelled']
        ELSE '{}'::text[] END;
BEGIN
    IF NOT (p_to = ANY (v_allowed)) THEN
        RAISE EXCEPTION 'invalid agent_task.status transition for task %: % -> %', p_task_id, p_from, p_to
            USING ERRCODE = 'LD201',
                  HINT = CASE WHEN v_allowed = '{}' THEN format('%s is final', p_from)
                              ELSE format('from %s a task may move to %s', p_from, array_to_string(v_allowed, ', ')) END;
    END IF;
END
$$;

COMMENT ON FUNCTION ledger._check_task_transition(bigint, text, text) IS
'Enforce the agent_task status machine: queued -> dispatched | cancelled; dispatched -> running | failed | cancelled | queued; running -> completed | failed | cancelled; completed, failed, cancelled final. (task_id, from, to) -> void. Raises LD201 naming the task and both statuses.';
''',
    # sql/functions/tg_issue__prepare.sql
    r'''
-- ledger.tg_issue__prepare() -> trigger (BEFORE INSERT OR UPDATE ON ledger.issue)
--
-- Every issue, however it is written (INSERT, multi-row INSERT, COPY,
-- UPDATE by any of its many writers, ledger.add_issue), passes through here:
--   scope          required, single line, <= 200 chars, trimmed; the scope row
--                  is created with defaults the first time it is named;
--   title          required, not blank, single line, <= 1000 chars;
--   description    optional, <= 1000000 chars;
--                  title and description are validated but stored EXACTLY as
--                  given: the claim hashes their exact bytes (seed 003 v1);
--   status         backlog | todo | in_progress | in_review | done | blocked |
--                  cancelled, case-insensitive, default todo;
--   priority       urgent | high | medium | low | none, default none;
--   assignee_type  member | agent, and assignee_id (single line, <= 200),
--                  both set or both NULL;
--   updated_at     set on every UPDATE.
-- Nothing here maintains a revision counter: the snapshot is taken by the
-- claim, so no writer has to do anything for it to stay correct.
-- Raises LD002, LD003, LD004 naming the field and the value.
CREATE OR REPLACE FUNCTION ledger.tg_issue__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    NEW.scope := ledger._check_text(NEW.scope, 'issue.scope', true, 200);
    PERFORM ledger._check_text(NEW.title, 'issue.title', true, 1000);
    IF length(NEW.description) > 1000000 THEN
        RAISE EXCEPTION 'invalid issue.description: % characters, at most 1000000 are accepted',
            length(NEW.description) USING ERRCODE = 'LD004';
    END IF;
    NEW.status := lower(ledger._check_text(coalesce(NEW.status, 'todo'), 'issue.status', true, 20));
    IF NEW.status NOT IN ('backlog', 'todo', 'in_progress', 'in_review', 'done', 'blocked', 'cancelled') THEN
        RAISE EXCEPTION 'invalid issue.status: % (expected backlog, todo, in_progress, in_review, done, blocked or cancelled)',
            quote_literal(NEW.status) USING ERRCODE = 'LD003';
    END IF;
    NEW.priority := lower(ledger._check_text(coalesce(NEW.priority, 'none'), 'issue.priority', true, 20));
    IF NEW.priority NOT IN ('urgent', 'high', 'medium', 'low', 'none') THEN
        RAISE EXCEPTION 'invalid issue.priority: % (expected urgent, high, medium, low or none)',
            quote_literal(NEW.priority) USING ERRCODE = 'LD003';
    END IF;
    NEW.assignee_type := lower(ledger._check_text(NEW.assignee_type, 'issue.assignee_type', false, 20));
    NEW.assignee_id := ledger._check_text(NEW.assignee_id, 'issue.assignee_id', false, 200);
    IF NEW.assignee_type NOT IN ('member', 'agent') THEN
        RAISE EXCEPTION 'invalid issue.assignee_type: % (expected member or agent)',
            quote_literal(NEW.assignee_type) USING ERRCODE = 'LD003';
    END IF;
    IF (NEW.assignee_type IS NULL) <> (NEW.assignee_id IS NULL) THEN
        RAISE EXCEPTION 'invalid issue.assignee_id: % with issue.assignee_type % (set both or neither)',
            quote_nullable(NEW.assignee_id), quote_nullable(NEW.assignee_type) USING ERRCODE = 'LD003';
    END IF;
    IF TG_OP = 'UPDATE' THEN
        NEW.updated_at := now();
    END IF;
    IF TG_OP = 'INSERT' OR NEW.scope IS DISTINCT FROM OLD.scope THEN
        PERFORM ledger._ensure_scope(NEW.scope);
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_issue__prepare() IS
'BEFORE INSERT/UPDATE trigger on ledger.issue: validates scope (created on first use), title, description (both stored exactly as given), status, priority, assignee_type/assignee_id; sets updated_at. Raises LD002, LD003, LD004 naming field and value.';
''',
    # sql/functions/tg_agent_task__prepare.sql
    r'''
-- ledger.tg_agent_task__prepare() -> trigger (BEFORE INSERT OR UPDATE ON ledger.agent_task)
--
-- Every agent_task row, however it is written (INSERT, COPY, a plain UPDATE
-- by a service, the lifecycle functions), passes through here:
--   agent_id, runtime_id  required, single line, <= 200 chars, trimmed;
--   session_id            optional, single line, <= 200 chars, trimmed;
--   failure_reason        optional (required when status is failed), single
--                         line, <= 200 chars, trimmed;
--   issue_id              required, an existing issue (LD005 otherwise);
--   rerun_of_task_id      optional, an existing other task (LD005 / LD003);
--   status                one of queued, dispatched, running, completed,
--                         failed, cancelled.
-- On INSERT a task starts queued, never dispatched (dispatch_count 0, no
-- timestamps but created_at). On UPDATE:
--   * a status change must follow ledger._check_task_transition (LD201);
--     queued -> dispatched, and any change of dispatch_count or
--     dispatched_at, only inside ledger.claim_task (LD202): the claim is what
--     writes the snapshot that goes with a dispatch;
--   * -> running sets started_at, -> completed | failed | cancelled sets
--     completed_at (when not given);
--   * once dispatched, issue_id, agent_id, runtime_id, rerun_of_task_id and
--     force_fresh_session are frozen (LD204): they decide the anchor.
-- Raises LD002, LD003, LD004, LD005, LD201, LD202, LD204, each naming the
-- field or the task and the value; nothing is written on error.
CREATE OR REPLACE FUNCTION ledger.tg_agent_task__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_claiming boolean := current_setting('ledger.claim_writer', true) IS NOT DISTINCT FROM NEW.id::text;
BEGIN
    NEW.agent_id := ledger._check_text(NEW.agent_id, 'agent_task.agent_id', true, 200);
    NEW.runtime_id := ledger._check_text(NEW.runtime_id, 'agent_task.runtime_id', true, 200);
    NEW.session_id := ledger._check_text(NEW.session_id, 'agent_task.session_id', false, 200);
    NEW.failure_reason := ledger._check_text(NEW.failure_reason, 'agent_task.failure_reason', false, 200);
    NEW.force_fresh_session := coalesce(NEW.force_fresh_session, false);
    NEW.status := lower(ledger._check_text(coalesce(NEW.status, 'queued'), 'agent_task.status', true, 20));
    IF NEW.status NOT IN ('queued', 'dispatched', 'running', 'completed', 'failed', 'cancelled') THEN
        RAISE EXCEPTION 'invalid agent_task.status: % (expected queued, dispatched, running, completed, failed or cancelled)',
            quote_literal(NEW.status) USING ERRCODE = 'LD003';
    END IF;
    IF NEW.issue_id IS NULL THEN
        RAISE EXCEPTION 'agent_task.issue_id is required' USING ERRCODE = 'LD002';
    END IF;
    IF TG_OP = 'INSERT' OR NEW.issue_id IS DISTINCT FROM OLD.issue_id THEN
        IF NOT EXISTS (SELECT 1 FROM ledger.issue i WHERE i.id = NEW.issue_id) THEN
            RAISE EXCEPTION 'unknown agent_task.issue_id: %', NEW.issue_id USING ERRCODE = 'LD005';
        END IF;
    END IF;
    IF NEW.rerun_of_task_id IS NOT NULL
       AND (TG_OP = 'INSERT' OR NEW.rerun_of_task_id IS DISTINCT FROM OLD.rerun_of_task_id) THEN
        IF NEW.rerun_of_task_id = NEW.id THEN
            RAISE EXCEPTION 'invalid agent_task.rerun_of_task_id: % is the task itself', NEW.rerun_of_task_id
                USING ERRCODE = 'LD003';
        END IF;
        IF NOT EXISTS (SELECT 1 FROM ledger.agent_task s WHERE s.id = NEW.rerun_of_task_id) THEN
            RAISE EXCEPTION 'unknown agent_task.rerun_of_task_id: %', NEW.rerun_of_task_id USING ERRCODE = 'LD005';
        END IF;
    END IF;

    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'queued' THEN
            RAISE EXCEPTION 'invalid agent_task.status for a new task: % (a task starts queued; ledger.claim_task dispatches it)',
                quote_literal(NEW.status) USING ERRCODE = 'LD201';
        END IF;
        NEW.dispatch_count := 0;
        NEW.dispatched_at := NULL;
        NEW.started_at := NULL;
        NEW.completed_at := NULL;
    ELSE
        IF NEW.status IS DISTINCT FROM OLD.status THEN
            PERFORM ledger._check_task_transition(NEW.id, OLD.status, NEW.status);
        END IF;
        IF NOT v_claiming AND ((NEW.status = 'dispatched' AND OLD.status <> 'dispatched')
                               OR NEW.dispatch_count IS DISTINCT FROM OLD.dispatch_count
                               OR NEW.dispatched_at IS DISTINCT FROM OLD.dispatched_at) THEN
            RAISE EXCEPTION 'task % can only be dispatched by ledger.claim_task (status %, dispatch_count %)',
                NEW.id, quote_literal(NEW.status), NEW.dispatch_count
                USING ERRCODE = 'LD202', HINT = 'SELECT * FROM ledger.claim_task(p_runtime_id => ...)';
        END IF;
        IF OLD.status <> 'queued' AND (NEW.issue_id, NEW.agent_id, NEW.runtime_id, NEW.rerun_of_task_id, NEW.force_fresh_session)
              IS DISTINCT FROM (OLD.issue_id, OLD.agent_id, OLD.runtime_id, OLD.rerun_of_task_id, OLD.force_fresh_session) THEN
            RAISE EXCEPTION 'task % is %: issue_id, agent_id, runtime_id, rerun_of_task_id and force_fresh_session are frozen once dispatched',
                NEW.id, OLD.status USING ERRCODE = 'LD204';
        END IF;
        IF NEW.status IS DISTINCT FROM OLD.status THEN
            IF NEW.status = 'running' THEN
                NEW.started_at := coalesce(NEW.started_at, clock_timestamp());
            ELSIF NEW.status IN ('completed', 'failed', 'cancelled') THEN
                NEW.completed_at := coalesce(NEW.completed_at, clock_timestamp());
            END IF;
        END IF;
    END IF;
    IF NEW.status = 'failed' AND NEW.failure_reason IS NULL THEN
        RAISE EXCEPTION 'agent_task.failure_reason is required when task % fails', NEW.id USING ERRCODE = 'LD002';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_agent_task__prepare() IS
'BEFORE INSERT/UPDATE trigger on ledger.agent_task: validates agent_id, runtime_id, session_id, failure_reason (required when failed), issue_id and rerun_of_task_id; new tasks start queued; status changes follow the task machine (LD201), dispatching only inside ledger.claim_task (LD202), anchor fields frozen once dispatched (LD204); sets started_at / completed_at. Raises LD002-LD005, LD201, LD202, LD204.';
''',
    # sql/functions/tg_agent_task__guard_snapshot.sql
    r'''
-- ledger.tg_agent_task__guard_snapshot() -> trigger (BEFORE INSERT OR UPDATE ON ledger.agent_task)
--
-- issue_snapshot has exactly one writer, the claim (seed 003: "a snapshot
-- taken at claim time has exactly one writer"). A new row must carry NULL,
-- and an UPDATE may change the column only while the transaction-local flag
-- ledger.claim_writer, raised by ledger.claim_task / _write_issue_snapshot,
-- names this very task. Any other write (a service's UPDATE, a COPY of
-- snapshots) is rejected. Importing history from the seed's system is done
-- with session_replication_role = replica, which does not fire triggers.
-- The flag is a guard against mistakes, not a security boundary: privileges
-- (UPDATE on ledger.agent_task withheld from service roles) are the wall.
-- Raises LD203 snapshot_write_rejected naming the task.
CREATE OR REPLACE FUNCTION ledger.tg_agent_task__guard_snapshot()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.issue_snapshot IS NOT NULL THEN
            RAISE EXCEPTION 'agent_task.issue_snapshot of new task % must be NULL: only ledger.claim_task writes it', NEW.id
                USING ERRCODE = 'LD203';
        END IF;
    ELSIF NEW.issue_snapshot IS DISTINCT FROM OLD.issue_snapshot
          AND current_setting('ledger.claim_writer', true) IS DISTINCT FROM NEW.id::text THEN
        RAISE EXCEPTION 'agent_task.issue_snapshot of task % is written only by ledger.claim_task', NEW.id
            USING ERRCODE = 'LD203';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_agent_task__guard_snapshot() IS
'BEFORE INSERT/UPDATE trigger on ledger.agent_task: issue_snapshot is NULL on insert and changes only inside ledger.claim_task (transaction-local flag ledger.claim_writer = task id). Raises LD203 naming the task.';
''',
    # sql/triggers/issue___100_prepare.sql
    r'''
-- Trigger _100_prepare on ledger.issue: validation (and scope creation)
-- before every insert and every update, whoever writes the row.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.issue;
CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE
    ON ledger.issue
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_issue__prepare();
''',
    # sql/triggers/agent_task___100_prepare.sql
    r'''
-- Trigger _100_prepare on ledger.agent_task: validation, the status machine
-- and the lifecycle timestamps before every insert and update.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.agent_task;
CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE
    ON ledger.agent_task
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_agent_task__prepare();
''',
    # sql/triggers/agent_task___200_guard_snapshot.sql
    r'''
-- Trigger _200_guard_snapshot on ledger.agent_task: nothing but the claim
-- writes issue_snapshot. Fires after _100_prepare (name order).
DROP TRIGGER IF EXISTS _200_guard_snapshot ON ledger.agent_task;
CREATE TRIGGER _200_guard_snapshot
    BEFORE INSERT OR UPDATE
    ON ledger.agent_task
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_agent_task__guard_snapshot();
''',
    # sql/functions/_resumed_task.sql
    r'''
-- ledger._resumed_task(p_task_id bigint) -> bigint
--
-- The earlier agent_task row whose provider session task p_task_id resumes
-- when it is claimed, or NULL when it resumes none (seed 003: the row
-- GetLastTaskSession returns, or the operator-chosen source of a manual rerun):
--   1. force_fresh_session: none.
--   2. a manual rerun (rerun_of_task_id set): exactly that source task, when it
--      is for the same agent and issue, ran on the same runtime and has a
--      session_id; otherwise none (never a fallback to another row).
--   3. otherwise: among the other runs of the same agent on the same issue and
--      runtime that have a session_id, the latest row of each session (by
--      coalesce(dispatched_at, created_at), then id); sessions whose latest
--      row carries a failure_reason listed in ledger.poisoned_failure_reason,
--      and sessions listed in ledger.retired_session, are skipped; the newest
--      remaining row wins.
-- The row is returned whatever its status: whether it dates a delta (proof
-- of delivery) is the claim's decision. "The run that started last" is a
-- different row whenever a poisoned session is skipped or an older run is
-- rerun, which is why this is not an ORDER BY started_at.
-- Raises LD005 not_found for an unknown task.
CREATE OR REPLACE FUNCTION ledger._resumed_task(p_task_id bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
DECLARE
    v_task ledger.agent_task;
    v_id bigint;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t WHERE t.id = p_task_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    IF v_task.force_fresh_session THEN
        RETURN NULL;
    END IF;
    IF v_task.rerun_of_task_id IS NOT NULL THEN
        SELECT s.id INTO v_id
          FROM ledger.agent_task s
         WHERE s.id = v_task.rerun_of_task_id
           AND s.agent_id = v_task.agent_id
           AND s.issue_id = v_task.issue_id
           AND s.runtime_id = v_task.runtime_id
           AND s.session_id IS NOT NULL;
        RETURN v_id;
    END IF;
    SELECT latest.id INTO v_id
      FROM (SELECT DISTINCT ON (r.session_id)
                   r.id, r.session_id, r.failure_reason, coalesce(r.dispatched_at, r.created_at) AS at
              FROM ledger.agent_task r
             WHERE r.issue_id = v_task.issue_id
               AND r.agent_id = v_task.agent_id
               AND r.runtime_id = v_task.runtime_id
               AND r.session_id IS NOT NULL
               AND r.id <> v_task.id
             ORDER BY r.session_id, coalesce(r.dispatched_at, r.created_at) DESC, r.id DESC) latest
     WHERE NOT EXISTS (SELECT 1 FROM ledger.poisoned_failure_reason p
                        WHERE p.failure_reason = latest.failure_reason)
       AND NOT EXISTS (SELECT 1 FROM ledger.retired_session s WHERE s.session_id = latest.session_id)
     ORDER BY latest.at DESC, latest.id DESC
     LIMIT 1;
    RETURN v_id;
END
$$;

COMMENT ON FUNCTION ledger._resumed_task(bigint) IS
'The earlier agent_task row whose session a claim of this task resumes: none when force_fresh_session; the rerun source when it is for the same agent, issue and runtime and has a session; else the newest latest-row-per-session of the same agent, issue and runtime, skipping poisoned (ledger.poisoned_failure_reason) and retired (ledger.retired_session) sessions. (task_id) -> bigint or NULL. Raises LD005.';
''',
    # sql/functions/_write_issue_snapshot.sql
    r'''
-- ledger._write_issue_snapshot(p_task_id bigint, p_dispatch_count integer) -> jsonb
--
-- The compare-and-swap write of a claim's issue_snapshot (seed 003: "written
-- once per claim ... under the same CAS"). Computes the snapshot of the
-- task's issue as the row is at this moment (ledger.issue_snapshot, the
-- deployment's version) and writes it only if the task is still dispatched,
-- not yet started (started_at IS NULL) and in the same dispatch
-- (dispatch_count = p_dispatch_count). Returns the snapshot written, or NULL
-- when the CAS was lost: then nothing is written, so the row keeps what it
-- had (NULL after a dispatch that never got its write), never a wrong value.
-- It is the only writer of issue_snapshot: it raises the transaction-local
-- flag ledger.claim_writer (the task id) that the _200_guard_snapshot trigger
-- checks, and lowers it again. Called by ledger.claim_task.
-- Raises LD005 not_found for an unknown task.
CREATE OR REPLACE FUNCTION ledger._write_issue_snapshot(p_task_id bigint, p_dispatch_count integer)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_snapshot jsonb;
    v_written bigint;
BEGIN
    SELECT ledger.issue_snapshot(i.title, i.description) INTO v_snapshot
      FROM ledger.agent_task t
      JOIN ledger.issue i ON i.id = t.issue_id
     WHERE t.id = p_task_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM set_config('ledger.claim_writer', p_task_id::text, true);
    UPDATE ledger.agent_task t
       SET issue_snapshot = v_snapshot
     WHERE t.id = p_task_id
       AND t.status = 'dispatched'
       AND t.started_at IS NULL
       AND t.dispatch_count = p_dispatch_count
    RETURNING t.id INTO v_written;
    PERFORM set_config('ledger.claim_writer', '', true);
    IF v_written IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN v_snapshot;
END
$$;

COMMENT ON FUNCTION ledger._write_issue_snapshot(bigint, integer) IS
'CAS write of a claim''s issue_snapshot: the current issue''s snapshot lands only while the task is dispatched, not started and in dispatch p_dispatch_count. (task_id, dispatch_count) -> jsonb written, or NULL when the CAS was lost (nothing written). The only writer of issue_snapshot. Raises LD005.';
''',
    # sql/functions/claim_task.sql
    r'''
-- ledger.claim_task(p_runtime_id text, p_agent_id text DEFAULT NULL)
--   -> TABLE(task_id, issue_id, agent_id, runtime_id, dispatch_count,
--            dispatched_at, rerun_of_task_id, force_fresh_session,
--            resume_session_id, resumed_task_id, anchor_task_id,
--            snapshot_written, issue_status, issue_assignee_type,
--            issue_assignee_id, issue_priority, issue_state_delta_known,
--            issue_changed_fields, delta_basis)
--
-- Claims the next queued task (lowest id) for runtime p_runtime_id, and for
-- agent p_agent_id when given, with FOR UPDATE SKIP LOCKED: concurrent
-- claimers never take the same task and never wait for each other. No row
-- when the queue is empty. The claim (seed 003 / issue 4):
--   1. marks the task dispatched (dispatched_at, dispatch_count + 1), sets
--      its session_id to the session it resumes (ledger._resumed_task; NULL
--      for a fresh session) and clears issue_snapshot, started_at,
--      completed_at and failure_reason;
--   2. writes issue_snapshot from the issue row as it is now, under the CAS
--      of ledger._write_issue_snapshot (snapshot_written = it landed);
--   3. returns the issue's current status, assignee and priority (always:
--      they are never compared) and the delta:
--        resume_session_id / resumed_task_id  the session resumed and its row;
--        anchor_task_id  the resumed row when it proves delivery (status
--                        completed and started_at set), else NULL;
--        issue_state_delta_known  true only when the anchor has a snapshot of
--                        the current version that parses;
--        issue_changed_fields  title, description in that order ('{}' for
--                        unchanged), NULL when the delta is unknown;
--        delta_basis     why: compared | fresh_session | nothing_resumed |
--                        not_delivered | no_snapshot | not_comparable.
-- Raises LD002/LD003/LD004 for a missing or malformed p_runtime_id or
-- p_agent_id, LD003 for an invalid ledger.snapshot_version setting.
CREATE OR REPLACE FUNCTION ledger.claim_task(p_runtime_id text, p_agent_id text DEFAULT NULL)
RETURNS TABLE (
    task_id bigint,
    issue_id bigint,
    agent_id text,
    runtime_id text,
    dispatch_count integer,
    dispatched_at timestamptz,
    rerun_of_task_id bigint,
    force_fresh_session boolean,
    resume_session_id text,
    resumed_task_id bigint,
    anchor_task_id bigint,
    snapshot_written boolean,
    issue_status text,
    issue_assignee_type text,
    issue_assignee_id text,
    issue_priority text,
    issue_state_delta_known boolean,
    issue_changed_fields text[],
    delta_basis text)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
#variable_conflict use_column
DECLARE
    v_runtime text := ledger._check_text(p_runtime_id, 'claim_task.p_runtime_id', true, 200);
    v_agent text := ledger._check_text(p_agent_id, 'claim_task.p_agent_id', false, 200);
    v_task ledger.agent_task;
    v_resumed ledger.agent_task;
    v_issue ledger.issue;
    v_snapshot jsonb;
BEGIN
    PERFORM ledger._snapshot_version();  -- an invalid setting fails before anything is written
    SELECT t.* INTO v_task
      FROM ledger.agent_task t
     WHERE t.status = 'queued'
       AND t.runtime_id = v_runtime
       AND (v_agent IS NULL OR t.agent_id = v_agent)
     ORDER BY t.id
     LIMIT 1
       FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN;
    END IF;

    SELECT r.* INTO v_resumed FROM ledger.agent_task r WHERE r.id = ledger._resumed_task(v_task.id);

    PERFORM set_config('ledger.claim_writer', v_task.id::text, true);
    UPDATE ledger.agent_task t
       SET status = 'dispatched',
           dispatched_at = clock_timestamp(),
           dispatch_count = t.dispatch_count + 1,
           session_id = v_resumed.session_id,
           issue_snapshot = NULL,
           started_at = NULL,
           completed_at = NULL,
           failure_reason = NULL
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    PERFORM set_config('ledger.claim_writer', '', true);

    v_snapshot := ledger._write_issue_snapshot(v_task.id, v_task.dispatch_count);
    snapshot_written := v_snapshot IS NOT NULL;

    SELECT i.* INTO v_issue FROM ledger.issue i WHERE i.id = v_task.issue_id;
    IF v_snapshot IS NULL THEN
        v_snapshot := ledger.issue_snapshot(v_issue.title, v_issue.description);
    END IF;

    task_id := v_task.id;
    issue_id := v_task.issue_id;
    agent_id := v_task.agent_id;
    runtime_id := v_task.runtime_id;
    dispatch_count := v_task.dispatch_count;
    dispatched_at := v_task.dispatched_at;
    rerun_of_task_id := v_task.rerun_of_task_id;
    force_fresh_session := v_task.force_fresh_session;
    resume_session_id := v_resumed.session_id;
    resumed_task_id := v_resumed.id;
    issue_status := v_issue.status;
    issue_assignee_type := v_issue.assignee_type;
    issue_assignee_id := v_issue.assignee_id;
    issue_priority := v_issue.priority;

    IF v_task.force_fresh_session THEN
        delta_basis := 'fresh_session';
    ELSIF v_resumed.id IS NULL THEN
        delta_basis := 'nothing_resumed';
    ELSIF v_resumed.status <> 'completed' OR v_resumed.started_at IS NULL THEN
        delta_basis := 'not_delivered';
    ELSE
        anchor_task_id := v_resumed.id;
        IF v_resumed.issue_snapshot IS NULL THEN
            delta_basis := 'no_snapshot';
        ELSE
            issue_changed_fields := ledger._snapshot_changes(v_resumed.issue_snapshot, v_snapshot);
            delta_basis := CASE WHEN issue_changed_fields IS NULL THEN 'not_comparable' ELSE 'compared' END;
        END IF;
    END IF;
    issue_state_delta_known := delta_basis = 'compared';
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.claim_task(text, text) IS
'Claim the next queued task of a runtime (optionally of one agent) with FOR UPDATE SKIP LOCKED: dispatch it, CAS-write its issue_snapshot, and return (task_id, issue_id, agent_id, runtime_id, dispatch_count, dispatched_at, rerun_of_task_id, force_fresh_session, resume_session_id, resumed_task_id, anchor_task_id, snapshot_written, issue_status, issue_assignee_type, issue_assignee_id, issue_priority, issue_state_delta_known, issue_changed_fields text[] in order title, description or NULL when unknown, delta_basis). No row when the queue is empty. Raises LD002-LD004 for the arguments, LD003 for an invalid ledger.snapshot_version.';
''',
    # sql/functions/start_task.sql
    r'''
-- ledger.start_task(p_task_id bigint, p_session_id text DEFAULT NULL) -> ledger.agent_task
--
-- The agent's run began: dispatched -> running, started_at = now (clock).
-- p_session_id records the provider session the run uses (when it differs
-- from the one the claim resumed, e.g. the provider opened a new one);
-- NULL keeps the session_id the claim set. Returns the updated row.
-- The same as UPDATE ledger.agent_task SET status = 'running' ..., which the
-- _100_prepare trigger checks identically.
-- Raises LD005 not_found (unknown task), LD201 (not dispatched), LD003/LD004
-- (malformed p_session_id).
CREATE OR REPLACE FUNCTION ledger.start_task(p_task_id bigint, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t WHERE t.id = p_task_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'running');
    UPDATE ledger.agent_task t
       SET status = 'running', session_id = coalesce(p_session_id, t.session_id)
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.start_task(bigint, text) IS
'Start a dispatched task: status running, started_at set, optionally the provider session_id. (task_id, session_id) -> ledger.agent_task. Raises LD005 (unknown task), LD201 (not dispatched), LD003/LD004 (session_id).';
''',
    # sql/functions/complete_task.sql
    r'''
-- ledger.complete_task(p_task_id bigint, p_session_id text DEFAULT NULL) -> ledger.agent_task
--
-- The run delivered: running -> completed, completed_at = now (clock).
-- p_session_id records the provider session the run ended in (NULL keeps the
-- current session_id). A completed row with started_at set is what proves
-- delivery, so only it can later date a delta (seed 003). Returns the row.
-- Raises LD005 not_found, LD201 (not running), LD003/LD004 (p_session_id).
CREATE OR REPLACE FUNCTION ledger.complete_task(p_task_id bigint, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t WHERE t.id = p_task_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'completed');
    UPDATE ledger.agent_task t
       SET status = 'completed', session_id = coalesce(p_session_id, t.session_id)
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.complete_task(bigint, text) IS
'Complete a running task: status completed, completed_at set, optionally the final session_id. (task_id, session_id) -> ledger.agent_task. Raises LD005, LD201 (not running), LD003/LD004.';
''',
    # sql/functions/fail_task.sql
    r'''
-- ledger.fail_task(p_task_id bigint, p_failure_reason text, p_session_id text DEFAULT NULL) -> ledger.agent_task
--
-- The run failed: dispatched or running -> failed, completed_at = now,
-- failure_reason recorded (required, single line, <= 200 characters). A
-- reason listed in ledger.poisoned_failure_reason poisons the row's session:
-- later claims do not resume it. p_session_id as in complete_task.
-- Returns the updated row.
-- Raises LD005 not_found, LD201 (not dispatched or running), LD002 (reason
-- missing), LD003/LD004 (malformed reason or session).
CREATE OR REPLACE FUNCTION ledger.fail_task(p_task_id bigint, p_failure_reason text, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t WHERE t.id = p_task_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'failed');
    UPDATE ledger.agent_task t
       SET status = 'failed', failure_reason = p_failure_reason, session_id = coalesce(p_session_id, t.session_id)
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.fail_task(bigint, text, text) IS
'Fail a dispatched or running task with a failure_reason (poisoned reasons stop its session from being resumed). (task_id, failure_reason, session_id) -> ledger.agent_task. Raises LD005, LD201, LD002 (reason missing), LD003/LD004.';
''',
    # sql/functions/cancel_task.sql
    r'''
-- ledger.cancel_task(p_task_id bigint, p_reason text DEFAULT NULL) -> ledger.agent_task
--
-- Cancels a task that has not finished: queued, dispatched or running ->
-- cancelled, completed_at = now. p_reason, when given, is stored in
-- failure_reason (a poisoned reason poisons the session like a failure).
-- Returns the updated row.
-- Raises LD005 not_found, LD201 (already completed, failed or cancelled),
-- LD003/LD004 (malformed reason).
CREATE OR REPLACE FUNCTION ledger.cancel_task(p_task_id bigint, p_reason text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t WHERE t.id = p_task_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'cancelled');
    UPDATE ledger.agent_task t
       SET status = 'cancelled', failure_reason = coalesce(p_reason, t.failure_reason)
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.cancel_task(bigint, text) IS
'Cancel a queued, dispatched or running task (optional reason kept in failure_reason). (task_id, reason) -> ledger.agent_task. Raises LD005, LD201 (already final), LD003/LD004.';
''',
    # sql/functions/requeue_task.sql
    r'''
-- ledger.requeue_task(p_task_id bigint) -> ledger.agent_task
--
-- Puts back a dispatched task that never started (its runtime went away
-- before the run began): dispatched -> queued. The next ledger.claim_task
-- reclaims it as a new dispatch (dispatch_count + 1) and writes the newer
-- view of the issue into issue_snapshot. Returns the updated row.
-- Raises LD005 not_found, LD201 (not dispatched: a started run is failed or
-- cancelled, never requeued).
CREATE OR REPLACE FUNCTION ledger.requeue_task(p_task_id bigint)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t WHERE t.id = p_task_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'queued');
    UPDATE ledger.agent_task t SET status = 'queued' WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.requeue_task(bigint) IS
'Put a dispatched, never-started task back in the queue; the next claim is a new dispatch with a fresh snapshot. (task_id) -> ledger.agent_task. Raises LD005, LD201 (not dispatched).';
''',
    # sql/functions/add_issue.sql
    r'''
-- ledger.add_issue(p_scope, p_title, p_description, p_status, p_priority,
--                  p_assignee_type, p_assignee_id) -> ledger.issue
--
-- Inserts one issue and returns the stored row. Equivalent to a plain
-- INSERT INTO ledger.issue: the _100_prepare trigger validates it the same
-- way (title and description are stored exactly as given, since snapshots
-- hash their exact bytes). Raises LD002 (scope or title missing), LD003
-- (status, priority or assignee invalid), LD004 (too long).
CREATE OR REPLACE FUNCTION ledger.add_issue(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_status text DEFAULT 'todo',
    p_priority text DEFAULT 'none',
    p_assignee_type text DEFAULT NULL,
    p_assignee_id text DEFAULT NULL)
RETURNS ledger.issue
LANGUAGE sql
AS $$
    INSERT INTO ledger.issue (scope, title, description, status, priority, assignee_type, assignee_id)
    VALUES (p_scope, p_title, p_description, p_status, p_priority, p_assignee_type, p_assignee_id)
    RETURNING *
$$;

COMMENT ON FUNCTION ledger.add_issue(text, text, text, text, text, text, text) IS
'Insert one issue, returning the stored row. (scope, title, description, status, priority, assignee_type, assignee_id) -> ledger.issue. Raises LD002, LD003, LD004 naming field and value.';
''',
    # sql/functions/enqueue_task.sql
    r'''
-- ledger.enqueue_task(p_issue_id, p_agent_id, p_runtime_id, p_rerun_of_task_id,
--                     p_force_fresh_session) -> ledger.agent_task
--
-- Queues one agent run on an issue and returns the stored row (status
-- queued). Equivalent to a plain INSERT INTO ledger.agent_task. A manual
-- rerun names its source in p_rerun_of_task_id; p_force_fresh_session starts
-- a new provider session (no resume, so no delta).
-- Raises LD002 (agent, runtime or issue missing), LD003/LD004 (malformed),
-- LD005 not_found (unknown issue or rerun source).
CREATE OR REPLACE FUNCTION ledger.enqueue_task(
    p_issue_id bigint,
    p_agent_id text,
    p_runtime_id text,
    p_rerun_of_task_id bigint DEFAULT NULL,
    p_force_fresh_session boolean DEFAULT false)
RETURNS ledger.agent_task
LANGUAGE sql
AS $$
    INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, rerun_of_task_id, force_fresh_session)
    VALUES (p_issue_id, p_agent_id, p_runtime_id, p_rerun_of_task_id, p_force_fresh_session)
    RETURNING *
$$;

COMMENT ON FUNCTION ledger.enqueue_task(bigint, text, text, bigint, boolean) IS
'Queue an agent run on an issue, returning the stored row. (issue_id, agent_id, runtime_id, rerun_of_task_id, force_fresh_session) -> ledger.agent_task. Raises LD002, LD003, LD004, LD005 (unknown issue or rerun source).';
''',
]

DOWNGRADE = r'''
DROP FUNCTION ledger.enqueue_task(bigint, text, text, bigint, boolean);
DROP FUNCTION ledger.add_issue(text, text, text, text, text, text, text);
DROP FUNCTION ledger.requeue_task(bigint);
DROP FUNCTION ledger.cancel_task(bigint, text);
DROP FUNCTION ledger.fail_task(bigint, text, text);
DROP FUNCTION ledger.complete_task(bigint, text);
DROP FUNCTION ledger.start_task(bigint, text);
DROP FUNCTION ledger.claim_task(text, text);
DROP FUNCTION ledger._write_issue_snapshot(bigint, integer);
DROP FUNCTION ledger._resumed_task(bigint);
DROP TABLE ledger.retired_session, ledger.poisoned_failure_reason, ledger.agent_task, ledger.issue;
DROP FUNCTION ledger.tg_agent_task__guard_snapshot();
DROP FUNCTION ledger.tg_agent_task__prepare();
DROP FUNCTION ledger.tg_issue__prepare();
DROP FUNCTION ledger._check_task_transition(bigint, text, text);
DROP FUNCTION ledger._snapshot_changes(jsonb, jsonb);
DROP FUNCTION ledger.issue_snapshot(text, text, integer);
DROP FUNCTION ledger._snapshot_version();
'''


def upgrade() -> None:
    run_sql(TABLES)
    for sql in FROZEN_SQL:
        run_sql(sql)


def downgrade() -> None:
    run_sql(DOWNGRADE)
