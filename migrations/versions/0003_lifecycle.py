"""Finding lifecycle: identity and re-reports, re-review, dismissal, restore,
reverts that reopen, injections, the prompt read and notifications (issue 5).

Revision ID: 0003_lifecycle
Revises: 0002_claims
Create Date: 2026-12-01

Adds, in schema ``ledger``:

* columns on ``finding`` (all NULL or a constant default: no table rewrite,
  no backfill; the state of existing rows is derived, see
  ``ledger._finding_state``): dismissed_at, dismissed_by, resolution,
  dismissal_reason, report_count (default 1), last_reported_at,
  reopen_count (default 0), review_run; two CHECK constraints added
  ``NOT VALID`` (every existing row has NULL dismissal columns and passes,
  and a VALIDATE would scan the table under this revision's lock; new and
  updated rows are checked);
* table ``injection`` (new, so nothing else is locked);
* view ``finding_lifecycle``; functions report_finding, replace_findings,
  dismiss_finding, restore_finding, read_finding, read_history,
  record_injection, read_injections, measure_convergence,
  read_prompt_findings and their helpers; triggers ``finding._100_forbid_delete``,
  ``finding._200_lifecycle``, ``merge._300_revert``, ``supersession._100_notify``,
  ``injection._100_prepare``; a new text of ``add_finding`` (its documented
  duplicate-key error is now LD301).

Downgrade drops all of it and restores 0001's add_finding. A finding dismissed
under this revision keeps superseded_at after a downgrade, so it stays out of
the active set.

The SQL below is frozen: it is the text of sql/ when this revision was
written (tools/freeze_sql.py) and must never be edited; a later change to a
function is a new revision.
"""

from findings_ledger.migration_ops import run_sql

revision = "0003_lifecycle"
down_revision = "0002_claims"
branch_labels = None
depends_on = None

TABLES = r'''
ALTER TABLE ledger.finding
    ADD COLUMN dismissed_at     timestamptz,
    ADD COLUMN dismissed_by     text,
    ADD COLUMN resolution       text,
    ADD COLUMN dismissal_reason text,
    ADD COLUMN report_count     integer NOT NULL DEFAULT 1,
    ADD COLUMN last_reported_at timestamptz,
    ADD COLUMN reopen_count     integer NOT NULL DEFAULT 0,
    ADD COLUMN review_run       text;
ALTER TABLE ledger.finding
    ADD CONSTRAINT finding_resolution_check
        CHECK (resolution IN ('accepted', 'false_positive', 'wont_fix', 'duplicate')) NOT VALID;
ALTER TABLE ledger.finding
    ADD CONSTRAINT finding_dismissal_check
        CHECK (dismissed_at IS NULL OR (resolution IS NOT NULL AND superseded_at IS NOT NULL)) NOT VALID;
COMMENT ON COLUMN ledger.finding.dismissed_at IS
'When a person dismissed the finding (ledger.dismiss_finding); NULL when it is not dismissed. A dismissed finding also has superseded_at set, so it is never active.';
COMMENT ON COLUMN ledger.finding.resolution IS
'The dismissal decision: accepted, false_positive, wont_fix or duplicate; NULL unless dismissed.';
COMMENT ON COLUMN ledger.finding.dismissal_reason IS
'Why the person dismissed it (required by ledger.dismiss_finding).';
COMMENT ON COLUMN ledger.finding.report_count IS
'How many times the finding was reported, the first report included (ledger.report_finding counts re-reports).';
COMMENT ON COLUMN ledger.finding.last_reported_at IS
'When it was last re-reported; NULL when it was reported only once.';
COMMENT ON COLUMN ledger.finding.reopen_count IS
'How many times it went back to active: re-reported while superseded, reverted merge, restore.';
COMMENT ON COLUMN ledger.finding.review_run IS
'The review run (ledger.replace_findings / report_finding p_review_run) that last reported it.';

CREATE TABLE ledger.injection (
    session_id  text NOT NULL,
    finding_id  bigint NOT NULL REFERENCES ledger.finding (id),
    injected_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT injection_pkey PRIMARY KEY (session_id, finding_id)
);
CREATE INDEX injection_finding_idx ON ledger.injection (finding_id, session_id);
COMMENT ON TABLE ledger.injection IS
'Which findings were injected into which session''s prompt: one row per (session, finding) pair, the first injection time. Write with ledger.record_injection or INSERT ... ON CONFLICT DO NOTHING.';
'''

FROZEN_SQL = [
    # sql/functions/_finding_state.sql
    r'''
-- ledger._finding_state(p_superseded_at timestamptz, p_dismissed_at timestamptz) -> text
--
-- The lifecycle state of a finding, derived from its row (issue 5, "the
-- state is derivable from the row at a glance"):
--   'active'      superseded_at IS NULL (the one rule every reader applies);
--   'dismissed'   dismissed_at is set (a person decided; superseded_at is
--                 then set too, so no reader treats it as active);
--   'superseded'  otherwise (retired by a merge, a re-review or a revert of a
--                 reopen).
-- Derived rather than stored, so rows written before revision 0003 need no
-- backfill. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._finding_state(p_superseded_at timestamptz, p_dismissed_at timestamptz)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN p_superseded_at IS NULL THEN 'active'
                WHEN p_dismissed_at IS NOT NULL THEN 'dismissed'
                ELSE 'superseded' END
$$;

COMMENT ON FUNCTION ledger._finding_state(timestamptz, timestamptz) IS
'Lifecycle state of a finding derived from its row: active (superseded_at IS NULL), dismissed (dismissed_at set), else superseded. (superseded_at, dismissed_at) -> text. Raises nothing.';
''',
    # sql/views/finding_lifecycle.sql
    r'''
-- ledger.finding_lifecycle: every finding with its lifecycle state at a glance.
--
-- One row per finding (nothing is ever deleted). Columns: id, scope,
-- finding_key, kind, severity, title, state ('active', 'superseded',
-- 'dismissed', see ledger._finding_state), resolution (accepted,
-- false_positive, wont_fix, duplicate; dismissed findings only),
-- dismissed_at, dismissed_by, dismissal_reason, superseded_at,
-- superseded_by, superseded_by_merge_id, supersede_rule (path, rereview,
-- dismissal, ...), report_count (times reported, the first report
-- included), last_reported_at (latest re-report, NULL if never re-reported),
-- reopen_count (times it went back to active: re-report, revert, restore),
-- review_run (the review run that last reported it), created_at.
-- Implements issue 5's states; the audit (ledger.supersession) holds the
-- timeline (ledger.read_history).
CREATE OR REPLACE VIEW ledger.finding_lifecycle AS
SELECT f.id, f.scope, f.finding_key, f.kind, f.severity, f.title,
       ledger._finding_state(f.superseded_at, f.dismissed_at) AS state,
       f.resolution, f.dismissed_at, f.dismissed_by, f.dismissal_reason,
       f.superseded_at, f.superseded_by, f.superseded_by_merge_id, f.supersede_rule,
       f.report_count, f.last_reported_at, f.reopen_count, f.review_run, f.created_at
  FROM ledger.finding f;

COMMENT ON VIEW ledger.finding_lifecycle IS
'Every finding with its derived lifecycle state (active, superseded, dismissed), its dismissal (resolution, by, reason), its supersession and its counters (report_count, last_reported_at, reopen_count, review_run). Implements the states of issue 5.';
''',
    # sql/functions/_reopen_finding.sql
    r'''
-- ledger._reopen_finding(p_finding ledger.finding, p_action text, p_rule text,
--     p_actor text, p_reason text, p_evidence text, p_merge_id bigint,
--     p_detail jsonb) -> void
--
-- Makes a superseded or dismissed finding active again: writes one audit row
-- first (action p_action: 'reopened' or 'restored'; rule p_rule: 'rereport',
-- 'revert', 'manual'), whose detail is p_detail plus what is being undone
-- (from_state, superseded_at, superseded_by, superseded_by_merge_id,
-- supersede_rule, resolution, dismissed_by, dismissal_reason), then clears
-- the supersession and dismissal columns and increments reopen_count.
-- The caller has locked p_finding's row (SELECT ... FOR UPDATE) and checked
-- that it is not active. Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger._reopen_finding(
    p_finding ledger.finding, p_action text, p_rule text, p_actor text, p_reason text,
    p_evidence text, p_merge_id bigint, p_detail jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail, actor, reason)
    VALUES (p_finding.scope, p_finding.id, p_merge_id, p_action, p_rule, p_evidence,
            coalesce(p_detail, '{}'::jsonb) || jsonb_strip_nulls(jsonb_build_object(
                'from_state', ledger._finding_state(p_finding.superseded_at, p_finding.dismissed_at),
                'superseded_at', p_finding.superseded_at,
                'superseded_by', p_finding.superseded_by,
                'superseded_by_merge_id', p_finding.superseded_by_merge_id,
                'supersede_rule', p_finding.supersede_rule,
                'resolution', p_finding.resolution,
                'dismissed_by', p_finding.dismissed_by,
                'dismissal_reason', p_finding.dismissal_reason)),
            p_actor, p_reason);

    UPDATE ledger.finding f
       SET superseded_at = NULL,
           superseded_by = NULL,
           superseded_by_merge_id = NULL,
           supersede_rule = NULL,
           dismissed_at = NULL,
           dismissed_by = NULL,
           resolution = NULL,
           dismissal_reason = NULL,
           reopen_count = f.reopen_count + 1
     WHERE f.id = p_finding.id;
END
$$;

COMMENT ON FUNCTION ledger._reopen_finding(ledger.finding, text, text, text, text, text, bigint, jsonb) IS
'Make a locked, inactive finding active again: audit row first (action reopened or restored, with what is undone in detail), then clear supersession and dismissal, reopen_count + 1. (finding, action, rule, actor, reason, evidence, merge_id, detail) -> void. Raises nothing.';
''',
    # sql/functions/tg_finding__lifecycle.sql
    r'''
-- ledger.tg_finding__lifecycle() -> trigger (BEFORE INSERT OR UPDATE OF the
-- lifecycle columns ON ledger.finding; fires after _100_prepare)
--
-- Identity: a plain INSERT (single row, multi-row, COPY, ledger.add_finding)
-- of a finding whose (scope, finding_key) is already in the ledger fails
-- with LD301 and a HINT naming ledger.report_finding, which is the one way
-- to report a finding again (it counts the re-report, reopens a superseded
-- finding, leaves a dismissed one dismissed). The unique constraint
-- finding_scope_finding_key_key stays the backstop (23505) for two
-- transactions inserting the same new key at once. ledger.report_finding
-- itself inserts with ON CONFLICT DO NOTHING under the transaction-local
-- setting ledger.reporting = 'on', which skips this check.
--
-- Consistency of the lifecycle columns, however they are written:
--   resolution    NULL or accepted | false_positive | wont_fix | duplicate
--                 (case-insensitive, '-' accepted for '_'), else LD003;
--   dismissed_at  set  -> resolution required and superseded_at set (a
--                         dismissed finding is never active), else LD305;
--   dismissed_at  NULL -> resolution, dismissed_by, dismissal_reason NULL,
--                         else LD305;
--   report_count, reopen_count: NULL -> their defaults (1, 0).
-- Raises LD301, LD003, LD305, each naming the field and the value.
CREATE OR REPLACE FUNCTION ledger.tg_finding__lifecycle()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_existing bigint;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.finding_key IS NOT NULL
           AND coalesce(current_setting('ledger.reporting', true), '') <> 'on' THEN
            SELECT f.id INTO v_existing FROM ledger.finding f
             WHERE f.scope = NEW.scope AND f.finding_key = NEW.finding_key;
            IF FOUND THEN
                RAISE EXCEPTION 'duplicate finding.finding_key: % is already reported in scope % (finding %)',
                    quote_literal(NEW.finding_key), quote_literal(NEW.scope), v_existing
                    USING ERRCODE = 'LD301',
                          HINT = 'Report a finding again with ledger.report_finding(p_scope, p_finding_key, p_title, ...): '
                                 'it counts the re-report, reopens a superseded finding and keeps a dismissed one dismissed.';
            END IF;
        END IF;
        NEW.report_count := coalesce(NEW.report_count, 1);
        NEW.reopen_count := coalesce(NEW.reopen_count, 0);
    END IF;

    IF NEW.resolution IS NOT NULL THEN
        NEW.resolution := replace(lower(btrim(NEW.resolution)), '-', '_');
        IF NEW.resolution NOT IN ('accepted', 'false_positive', 'wont_fix', 'duplicate') THEN
            RAISE EXCEPTION 'invalid finding.resolution: % (expected accepted, false_positive, wont_fix or duplicate)',
                quote_literal(NEW.resolution) USING ERRCODE = 'LD003';
        END IF;
    END IF;

    IF NEW.dismissed_at IS NOT NULL THEN
        IF NEW.resolution IS NULL THEN
            RAISE EXCEPTION 'inconsistent finding %: finding.dismissed_at is % but finding.resolution is NULL',
                coalesce(NEW.id::text, 'new'), NEW.dismissed_at
                USING ERRCODE = 'LD305', HINT = 'Dismiss with ledger.dismiss_finding(id, resolution, actor, reason).';
        END IF;
        IF NEW.superseded_at IS NULL THEN
            RAISE EXCEPTION 'inconsistent finding %: finding.dismissed_at is % but finding.superseded_at is NULL (a dismissed finding is never active)',
                coalesce(NEW.id::text, 'new'), NEW.dismissed_at
                USING ERRCODE = 'LD305', HINT = 'Reopen a dismissed finding with ledger.restore_finding(id, actor, reason).';
        END IF;
    ELSIF NEW.resolution IS NOT NULL OR NEW.dismissed_by IS NOT NULL OR NEW.dismissal_reason IS NOT NULL THEN
        RAISE EXCEPTION 'inconsistent finding %: finding.resolution %, finding.dismissed_by % or finding.dismissal_reason set while finding.dismissed_at is NULL',
            coalesce(NEW.id::text, 'new'), quote_nullable(NEW.resolution), quote_nullable(NEW.dismissed_by)
            USING ERRCODE = 'LD305', HINT = 'Dismiss with ledger.dismiss_finding(id, resolution, actor, reason).';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__lifecycle() IS
'BEFORE INSERT/UPDATE trigger on ledger.finding: a plain INSERT of an already reported (scope, finding_key) raises LD301 with a HINT naming ledger.report_finding; resolution must be accepted, false_positive, wont_fix or duplicate (LD003); dismissed_at requires resolution and superseded_at, dismissal columns require dismissed_at (LD305).';
''',
    # sql/triggers/finding___200_lifecycle.sql
    r'''
-- Trigger _200_lifecycle on ledger.finding: identity (a duplicate finding_key
-- is reported with ledger.report_finding, not inserted) and consistency of
-- the lifecycle columns. Fires after _100_prepare has trimmed scope and key.
DROP TRIGGER IF EXISTS _200_lifecycle ON ledger.finding;
CREATE TRIGGER _200_lifecycle
    BEFORE INSERT OR UPDATE OF superseded_at, dismissed_at, dismissed_by, resolution, dismissal_reason
    ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__lifecycle();
''',
    # sql/functions/tg_finding__forbid_delete.sql
    r'''
-- ledger.tg_finding__forbid_delete() -> trigger (BEFORE DELETE ON ledger.finding)
--
-- Nothing is ever deleted (issue 5): a finding leaves the prompts by being
-- superseded or dismissed and keeps its text and its audit. Every DELETE of
-- a finding row fails with LD304 naming the finding, with a HINT naming
-- ledger.dismiss_finding. Raises LD304.
CREATE OR REPLACE FUNCTION ledger.tg_finding__forbid_delete()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    RAISE EXCEPTION 'findings are never deleted: DELETE of finding % (scope %) refused', OLD.id, quote_literal(OLD.scope)
        USING ERRCODE = 'LD304',
              HINT = 'Retire it with ledger.dismiss_finding(id, resolution, actor, reason); it stays in the audit.';
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__forbid_delete() IS
'BEFORE DELETE trigger on ledger.finding: refuses every delete with LD304 (findings are dismissed or superseded, never deleted); the HINT names ledger.dismiss_finding.';
''',
    # sql/triggers/finding___100_forbid_delete.sql
    r'''
-- Trigger _100_forbid_delete on ledger.finding: nothing is ever deleted.
DROP TRIGGER IF EXISTS _100_forbid_delete ON ledger.finding;
CREATE TRIGGER _100_forbid_delete
    BEFORE DELETE ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__forbid_delete();
''',
    # sql/functions/add_finding.sql
    r'''
-- ledger.add_finding(p_scope, p_title, p_description, p_paths, p_kind,
--                    p_severity, p_finding_key, p_source) -> ledger.finding
--
-- Inserts one finding and returns the stored row (normalised paths, id,
-- created_at). Equivalent to a plain INSERT INTO ledger.finding: the same
-- triggers validate it. Raises LD001-LD004 (see tg_finding__prepare) and
-- LD301 (duplicate_finding, see tg_finding__lifecycle) for a finding_key
-- already used in the scope: report a finding again with
-- ledger.report_finding. 23505 (unique_violation) remains only for two
-- transactions inserting the same new key at once.
CREATE OR REPLACE FUNCTION ledger.add_finding(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_finding_key text DEFAULT NULL,
    p_source text DEFAULT NULL)
RETURNS ledger.finding
LANGUAGE sql
AS $$
    INSERT INTO ledger.finding (scope, title, description, paths, kind, severity, finding_key, source)
    VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source)
    RETURNING *
$$;

COMMENT ON FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text) IS
'Insert one finding, returning the stored row. (scope, title, description, paths text[], kind, severity, finding_key, source) -> ledger.finding. Raises LD001-LD004, LD301 for a finding_key already used in the scope (use report_finding), 23505 only for a concurrent insert of the same new key.';
''',
    # sql/functions/report_finding.sql
    r'''
-- ledger.report_finding(p_scope, p_finding_key, p_title, p_description,
--     p_paths, p_kind, p_severity, p_source, p_review_run)
--   -> TABLE(finding_id bigint, outcome text, state text,
--            report_count integer, reopen_count integer)
--
-- Reports a finding identified by (scope, finding_key); the same finding is
-- never a second row (issue 5, "identity and re-reports"). outcome:
--   'new'              no finding has this key in the scope: inserted (the
--                      same triggers as a plain INSERT validate it);
--   'duplicate'        it is active: the same finding; report_count + 1,
--                      last_reported_at = now();
--   'reopened'         it was superseded (by a merge, a re-review, ...): it
--                      is active again, audit row 'reopened' (rule
--                      'rereport', evidence the review run or source),
--                      reopen_count + 1, and the re-report is counted;
--   'still_dismissed'  a person dismissed it: it stays dismissed (automation
--                      never overrides a human decision); the re-report is
--                      counted.
-- A re-report keeps the stored text (title, description, paths, kind,
-- severity, source of the first report), so of its fields only scope,
-- finding_key and title are checked; review_run is updated when given.
-- state is the finding's state afterwards; report_count and reopen_count its
-- counters afterwards. The row is locked (FOR UPDATE) while it is decided;
-- two sessions reporting the same new key at once both succeed, one 'new'
-- and one 'duplicate'.
-- Raises LD002 (scope, finding_key or title missing), LD001-LD004 for a new
-- finding's fields (see tg_finding__prepare), each naming field and value.
CREATE OR REPLACE FUNCTION ledger.report_finding(
    p_scope text,
    p_finding_key text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_source text DEFAULT NULL,
    p_review_run text DEFAULT NULL)
RETURNS TABLE (finding_id bigint, outcome text, state text, report_count integer, reopen_count integer)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_scope text := ledger._check_text(p_scope, 'finding.scope', true, 200);
    v_key   text := ledger._check_text(p_finding_key, 'finding.finding_key', true, 200);
    v_run   text := ledger._check_text(p_review_run, 'finding.review_run', false, 200);
    v_row   ledger.finding;
    v_state text;
BEGIN
    PERFORM ledger._check_text(p_title, 'finding.title', true, 1000);
    LOOP
        SELECT f.* INTO v_row FROM ledger.finding f
         WHERE f.scope = v_scope AND f.finding_key = v_key
           FOR UPDATE;
        EXIT WHEN FOUND;
        PERFORM set_config('ledger.reporting', 'on', true);
        INSERT INTO ledger.finding AS f
               (scope, finding_key, title, description, paths, kind, severity, source, review_run)
        VALUES (v_scope, v_key, p_title, p_description, p_paths, p_kind, p_severity, p_source, v_run)
        ON CONFLICT (scope, finding_key) DO NOTHING
        RETURNING f.* INTO v_row;
        PERFORM set_config('ledger.reporting', '', true);
        IF v_row.id IS NOT NULL THEN
            finding_id := v_row.id;
            outcome := 'new';
            state := 'active';
            report_count := v_row.report_count;
            reopen_count := v_row.reopen_count;
            RETURN NEXT;
            RETURN;
        END IF;
        -- a concurrent transaction inserted the key first: read it, locked
    END LOOP;

    v_state := ledger._finding_state(v_row.superseded_at, v_row.dismissed_at);
    IF v_state = 'superseded' THEN
        PERFORM ledger._reopen_finding(v_row, 'reopened', 'rereport', coalesce(p_source, v_run), NULL,
                                       coalesce(v_run, p_source), NULL,
                                       jsonb_strip_nulls(jsonb_build_object('review_run', v_run, 'source', p_source)));
        outcome := 'reopened';
        state := 'active';
    ELSE
        outcome := CASE v_state WHEN 'active' THEN 'duplicate' ELSE 'still_dismissed' END;
        state := v_state;
    END IF;

    UPDATE ledger.finding f
       SET report_count = f.report_count + 1,
           last_reported_at = now(),
           review_run = coalesce(v_run, f.review_run)
     WHERE f.id = v_row.id
    RETURNING f.id, f.report_count, f.reopen_count INTO finding_id, report_count, reopen_count;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text) IS
'Report a finding by (scope, finding_key): new (inserted), duplicate (active: re-report counted), reopened (was superseded: active again, audited), still_dismissed (a person dismissed it: unchanged but counted). (scope, finding_key, title, description, paths, kind, severity, source, review_run) -> TABLE(finding_id, outcome, state, report_count, reopen_count). Raises LD001-LD004.';
''',
    # sql/functions/replace_findings.sql
    r'''
-- ledger.replace_findings(p_scope text, p_kind text, p_review_run text,
--     p_findings jsonb, p_actor text DEFAULT NULL)
--   -> TABLE(added integer, kept integer, reopened integer,
--            still_dismissed integer, superseded integer, would_supersede integer)
--
-- A review ran again over p_scope (and, when p_kind is not NULL, only over
-- findings of that kind) and p_findings is its complete new set: a JSON
-- array of objects {finding_key (required), title (required), description,
-- paths (array of strings), severity, kind, source}. The new set replaces
-- the previous one (seed 000's "Option B: re-run the check", done safely):
--   present and new         -> added (ledger.report_finding: 'new');
--   present and active      -> kept (re-report counted);
--   present and superseded  -> reopened (audit 'reopened', rule 'rereport');
--   present and dismissed   -> still_dismissed (a human decision stands);
--   absent and active       -> superseded: audit row first (action
--                              'superseded', rule 'rereview', evidence the
--                              review run, actor p_actor or the review run),
--                              then superseded_at = now(), superseded_by =
--                              the review run, supersede_rule = 'rereview';
--   absent and dismissed or superseded -> unchanged.
-- Absent means: an active finding of the scope (of kind p_kind when given)
-- not in the new set, including findings without a finding_key. The scope's
-- hygiene_mode applies to the supersession: 'dry' writes 'would_supersede'
-- audit rows only, 'off' supersedes nothing. Re-reviews of one scope are
-- serialised (transaction-level advisory lock on the scope). Running the
-- same set again changes nothing but the re-report counters.
-- An element's kind must equal p_kind when both are given; with p_kind NULL
-- it defaults to 'review'. The element's source defaults to the review run.
-- Raises LD002 (scope, review_run, an element's finding_key or title
-- missing), LD003 (p_findings not an array, an element not an object, paths
-- not an array of strings, a kind differing from p_kind), LD303 (one
-- finding_key twice in the set), each naming findings[i] and the value;
-- LD001-LD004 from the finding triggers for a new finding's stored fields
-- (naming finding.<field>). The scope is created on first use. Nothing is
-- written on error.
CREATE OR REPLACE FUNCTION ledger.replace_findings(
    p_scope text,
    p_kind text,
    p_review_run text,
    p_findings jsonb,
    p_actor text DEFAULT NULL)
RETURNS TABLE (added integer, kept integer, reopened integer, still_dismissed integer,
               superseded integer, would_supersede integer)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_scope   text := ledger._check_text(p_scope, 'scope', true, 200);
    v_run     text := ledger._check_text(p_review_run, 'review_run', true, 200);
    v_kind    text := lower(ledger._check_text(p_kind, 'kind', false, 100));
    v_actor   text := coalesce(ledger._check_text(p_actor, 'actor', false, 200), v_run);
    v_mode    text;
    v_elem    jsonb;
    v_i       integer := 0;
    v_key     text;
    v_ekind   text;
    v_paths   text[];
    v_dup     record;
    v_present bigint[] := '{}';
    v_absent  bigint[];
    v_rep     record;
BEGIN
    IF p_findings IS NULL OR jsonb_typeof(p_findings) <> 'array' THEN
        RAISE EXCEPTION 'invalid findings: expected a JSON array of findings, got %',
            coalesce(jsonb_typeof(p_findings), 'NULL') USING ERRCODE = 'LD003';
    END IF;
    -- one finding_key twice: named at its second occurrence (one sort, not a scan per element)
    SELECT d.ord, d.key INTO v_dup
      FROM (SELECT e.ord, btrim(e.elem ->> 'finding_key', E' \t\r\n\f\v') AS key,
                   row_number() OVER (PARTITION BY btrim(e.elem ->> 'finding_key', E' \t\r\n\f\v') ORDER BY e.ord) AS nth
              FROM jsonb_array_elements(p_findings) WITH ORDINALITY AS e(elem, ord)
             WHERE jsonb_typeof(e.elem) = 'object' AND e.elem ->> 'finding_key' IS NOT NULL) AS d
     WHERE d.nth = 2
     ORDER BY d.ord
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'duplicate findings[%].finding_key: % appears more than once in the set', v_dup.ord,
            quote_literal(v_dup.key) USING ERRCODE = 'LD303', HINT = 'A review set names each finding once.';
    END IF;
    PERFORM ledger._ensure_scope(v_scope);
    PERFORM pg_advisory_xact_lock(hashtextextended('ledger.replace_findings' || chr(31) || v_scope, 0));
    added := 0; kept := 0; reopened := 0; still_dismissed := 0; superseded := 0; would_supersede := 0;

    FOR v_elem IN SELECT e FROM jsonb_array_elements(p_findings) AS e LOOP
        v_i := v_i + 1;
        IF jsonb_typeof(v_elem) <> 'object' THEN
            RAISE EXCEPTION 'invalid findings[%]: expected an object, got %', v_i, left(v_elem::text, 200)
                USING ERRCODE = 'LD003';
        END IF;
        v_key := ledger._check_text(v_elem ->> 'finding_key', format('findings[%s].finding_key', v_i), true, 200);
        v_ekind := lower(ledger._check_text(v_elem ->> 'kind', format('findings[%s].kind', v_i), false, 100));
        IF v_kind IS NOT NULL AND v_ekind IS NOT NULL AND v_ekind <> v_kind THEN
            RAISE EXCEPTION 'invalid findings[%].kind: % differs from the re-reviewed kind %', v_i,
                quote_literal(v_ekind), quote_literal(v_kind) USING ERRCODE = 'LD003';
        END IF;
        IF v_elem -> 'paths' IS NULL OR jsonb_typeof(v_elem -> 'paths') = 'null' THEN
            v_paths := '{}';
        ELSIF jsonb_typeof(v_elem -> 'paths') <> 'array'
              OR EXISTS (SELECT 1 FROM jsonb_array_elements(v_elem -> 'paths') AS p WHERE jsonb_typeof(p) <> 'string') THEN
            RAISE EXCEPTION 'invalid findings[%].paths: expected an array of strings, got %', v_i,
                left((v_elem -> 'paths')::text, 200) USING ERRCODE = 'LD003';
        ELSE
            v_paths := ARRAY(SELECT jsonb_array_elements_text(v_elem -> 'paths'));
        END IF;
        SELECT r.* INTO v_rep FROM ledger.report_finding(
            p_scope => v_scope, p_finding_key => v_key,
            p_title => ledger._check_text(v_elem ->> 'title', format('findings[%s].title', v_i), true, 1000),
            p_description => v_elem ->> 'description', p_paths => v_paths,
            p_kind => coalesce(v_ekind, v_kind, 'review'),
            p_severity => coalesce(v_elem ->> 'severity', 'medium'),
            p_source => coalesce(v_elem ->> 'source', v_run),
            p_review_run => v_run) AS r;
        v_present := v_present || v_rep.finding_id;
        CASE v_rep.outcome
            WHEN 'new' THEN added := added + 1;
            WHEN 'duplicate' THEN kept := kept + 1;
            WHEN 'reopened' THEN reopened := reopened + 1;
            ELSE still_dismissed := still_dismissed + 1;
        END CASE;
    END LOOP;

    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_scope;
    IF v_mode = 'off' THEN
        RETURN NEXT;
        RETURN;
    END IF;

    -- absent: active findings of the scope (and kind) not in the new set (a hashed
    -- EXCEPT, not a scan of the set per finding), locked in id order
    SELECT array_agg(l.id) INTO v_absent
      FROM (SELECT f.id FROM ledger.finding f
             WHERE f.id IN (SELECT c.id FROM ledger.finding c
                             WHERE c.scope = v_scope AND c.superseded_at IS NULL
                               AND (v_kind IS NULL OR c.kind = v_kind)
                            EXCEPT
                            SELECT p.id FROM unnest(v_present) AS p(id))
               AND f.superseded_at IS NULL
             ORDER BY f.id
               FOR UPDATE) AS l;
    IF v_absent IS NULL THEN
        RETURN NEXT;
        RETURN;
    END IF;

    INSERT INTO ledger.supersession (scope, finding_id, action, rule, evidence, detail, actor)
    SELECT v_scope, a.id, CASE v_mode WHEN 'dry' THEN 'would_supersede' ELSE 'superseded' END,
           'rereview', v_run,
           jsonb_strip_nulls(jsonb_build_object('review_run', v_run, 'kind', v_kind, 'set_size', v_i)),
           v_actor
      FROM unnest(v_absent) AS a(id)
     ORDER BY a.id;

    IF v_mode = 'dry' THEN
        would_supersede := cardinality(v_absent);
    ELSE
        UPDATE ledger.finding f
           SET superseded_at = now(),
               superseded_by = v_run,
               superseded_by_merge_id = NULL,
               supersede_rule = 'rereview'
         WHERE f.id = ANY (v_absent);
        superseded := cardinality(v_absent);
    END IF;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.replace_findings(text, text, text, jsonb, text) IS
'A re-review''s complete new set for a scope (and optionally a kind): present findings are added, kept or reopened (dismissed ones stay dismissed), absent active ones are superseded with rule rereview (audited first; dry: would_supersede; off: nothing). (scope, kind, review_run, findings jsonb array of {finding_key, title, description, paths, severity, kind, source}, actor) -> TABLE(added, kept, reopened, still_dismissed, superseded, would_supersede). Raises LD001-LD004, LD303.';
''',
    # sql/functions/read_finding.sql
    r'''
-- ledger.read_finding(p_finding_id bigint) -> ledger.finding_lifecycle
--
-- One finding with its derived lifecycle state and counters (the header of
-- its timeline, see ledger.read_history). Raises LD005 (not_found) for an
-- unknown id.
CREATE OR REPLACE FUNCTION ledger.read_finding(p_finding_id bigint)
RETURNS ledger.finding_lifecycle
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
DECLARE
    v_out ledger.finding_lifecycle;
BEGIN
    SELECT l.* INTO v_out FROM ledger.finding_lifecycle l WHERE l.id = p_finding_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown finding: %', coalesce(p_finding_id::text, 'NULL') USING ERRCODE = 'LD005';
    END IF;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.read_finding(bigint) IS
'One finding with its lifecycle state and counters. bigint -> ledger.finding_lifecycle. Raises LD005 for an unknown id.';
''',
    # sql/functions/dismiss_finding.sql
    r'''
-- ledger.dismiss_finding(p_finding_id bigint, p_resolution text,
--     p_actor text, p_reason text) -> ledger.finding_lifecycle
--
-- A person decides a finding is not to be shown any more (issue 5,
-- "dismiss"): resolution accepted | false_positive | wont_fix | duplicate
-- (case-insensitive, '-' accepted for '_'), the actor who decided and the
-- reason, all stored on the finding (seed 001's system only logged the
-- reason). Works from active or superseded. Audit row first (action
-- 'dismissed', rule 'manual', actor, reason, detail {resolution,
-- from_state, the supersession it replaces}); then dismissed_at = now(),
-- dismissed_by, resolution, dismissal_reason, and, so that no reader and no
-- merge treats it as active, superseded_at = now(), superseded_by = the
-- actor, supersede_rule = 'dismissal', superseded_by_merge_id = NULL.
-- A dismissed finding stays dismissed on re-reports, re-reviews, merges and
-- reverts; only ledger.restore_finding brings it back.
-- Returns the finding afterwards. Raises LD005 (unknown id), LD002 (actor or
-- reason missing), LD003 (resolution not one of the four), LD004, LD302
-- (already dismissed: restore it first to change the decision).
CREATE OR REPLACE FUNCTION ledger.dismiss_finding(
    p_finding_id bigint, p_resolution text, p_actor text, p_reason text)
RETURNS ledger.finding_lifecycle
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_resolution text := replace(lower(ledger._check_text(p_resolution, 'resolution', true, 40)), '-', '_');
    v_actor  text := ledger._check_text(p_actor, 'actor', true, 200);
    v_reason text := ledger._check_text(p_reason, 'reason', true, 10000, false);
    v_row    ledger.finding;
    v_out    ledger.finding_lifecycle;
BEGIN
    IF v_resolution NOT IN ('accepted', 'false_positive', 'wont_fix', 'duplicate') THEN
        RAISE EXCEPTION 'invalid resolution: % (expected accepted, false_positive, wont_fix or duplicate)',
            quote_literal(p_resolution) USING ERRCODE = 'LD003';
    END IF;
    SELECT f.* INTO v_row FROM ledger.finding f WHERE f.id = p_finding_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown finding: %', coalesce(p_finding_id::text, 'NULL') USING ERRCODE = 'LD005';
    END IF;
    IF v_row.dismissed_at IS NOT NULL THEN
        RAISE EXCEPTION 'finding % is already dismissed (% by %)', v_row.id, v_row.resolution, quote_literal(v_row.dismissed_by)
            USING ERRCODE = 'LD302', HINT = 'To change the decision, ledger.restore_finding it first, then dismiss it again.';
    END IF;

    INSERT INTO ledger.supersession (scope, finding_id, action, rule, detail, actor, reason)
    VALUES (v_row.scope, v_row.id, 'dismissed', 'manual',
            jsonb_strip_nulls(jsonb_build_object(
                'resolution', v_resolution,
                'from_state', ledger._finding_state(v_row.superseded_at, v_row.dismissed_at),
                'superseded_at', v_row.superseded_at,
                'superseded_by', v_row.superseded_by,
                'superseded_by_merge_id', v_row.superseded_by_merge_id,
                'supersede_rule', v_row.supersede_rule)),
            v_actor, v_reason);

    UPDATE ledger.finding f
       SET dismissed_at = now(),
           dismissed_by = v_actor,
           resolution = v_resolution,
           dismissal_reason = v_reason,
           superseded_at = now(),
           superseded_by = v_actor,
           superseded_by_merge_id = NULL,
           supersede_rule = 'dismissal'
     WHERE f.id = v_row.id;

    SELECT l.* INTO v_out FROM ledger.finding_lifecycle l WHERE l.id = v_row.id;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.dismiss_finding(bigint, text, text, text) IS
'A person dismisses a finding (accepted, false_positive, wont_fix, duplicate) with actor and reason; audited first; it also leaves the active set (superseded_at, rule dismissal) and no automation changes it again. (finding_id, resolution, actor, reason) -> ledger.finding_lifecycle. Raises LD002, LD003, LD004, LD005, LD302 (already dismissed).';
''',
    # sql/functions/restore_finding.sql
    r'''
-- ledger.restore_finding(p_finding_id bigint, p_actor text, p_reason text)
--   -> ledger.finding_lifecycle
--
-- Undo (issue 5): a superseded finding (a wrong supersession by a merge, a
-- re-review, ...) or a dismissed one becomes active again. Audit row first
-- (action 'restored', rule 'manual', actor, reason, detail with what is
-- undone: from_state, superseded_by, supersede_rule, merge, resolution ...),
-- then the supersession and dismissal columns are cleared and reopen_count
-- is incremented. Returns the finding afterwards.
-- Raises LD005 (unknown id), LD002 (actor or reason missing), LD004, LD302
-- (the finding is already active).
CREATE OR REPLACE FUNCTION ledger.restore_finding(p_finding_id bigint, p_actor text, p_reason text)
RETURNS ledger.finding_lifecycle
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_actor  text := ledger._check_text(p_actor, 'actor', true, 200);
    v_reason text := ledger._check_text(p_reason, 'reason', true, 10000, false);
    v_row    ledger.finding;
    v_out    ledger.finding_lifecycle;
BEGIN
    SELECT f.* INTO v_row FROM ledger.finding f WHERE f.id = p_finding_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown finding: %', coalesce(p_finding_id::text, 'NULL') USING ERRCODE = 'LD005';
    END IF;
    IF v_row.superseded_at IS NULL THEN
        RAISE EXCEPTION 'finding % is already active: nothing to restore', v_row.id
            USING ERRCODE = 'LD302', HINT = 'Only a superseded or dismissed finding can be restored.';
    END IF;
    PERFORM ledger._reopen_finding(v_row, 'restored', 'manual', v_actor, v_reason, NULL, NULL, NULL);
    SELECT l.* INTO v_out FROM ledger.finding_lifecycle l WHERE l.id = v_row.id;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.restore_finding(bigint, text, text) IS
'Undo a supersession or a dismissal: the finding is active again, audited (restored, manual, actor, reason, what was undone), reopen_count + 1. (finding_id, actor, reason) -> ledger.finding_lifecycle. Raises LD002, LD004, LD005, LD302 (already active).';
''',
    # sql/functions/tg_merge__revert.sql
    r'''
-- ledger.tg_merge__revert() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW;
-- fires after _200_supersede)
--
-- Reverts reopen (issue 5): a merge whose message says git's
-- "This reverts commit <sha>." (or, for a reverted merge commit, "This
-- reverts commit <sha>, reversing ...") for a merge recorded in the same
-- scope reopens exactly the findings that merge superseded and that are
-- still superseded by it: audit row first (action 'reopened', rule
-- 'revert', merge_id the reverting merge, evidence the reverted sha, detail
-- {reverted_merge_id, reverted_commit} plus what is undone), then the
-- finding is active again (reopen_count + 1). Every sha named is handled;
-- the sha must be the full recorded commit id (git writes it in full), in
-- any case.
-- Explained, never silent (audit rows, no finding change):
--   'not_reopened'  a finding that merge superseded is now dismissed (a
--                   human decision stands), active again, or superseded by
--                   something else since (detail.state, detail.superseded_by);
--   'revert_unknown' the reverted sha is not a merge of this scope
--                   (finding_id NULL, evidence the sha).
-- hygiene_mode: 'dry' writes 'would_reopen' instead of reopening, 'off' does
-- nothing. Findings are locked in id order, like the supersede trigger.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__revert()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_mode   text;
    v_sha    text;
    v_target bigint;
    v_row    ledger.finding;
    v_state  text;
    v_detail jsonb;
BEGIN
    IF strpos(NEW.message, 'This reverts commit ') = 0 THEN
        RETURN NULL;
    END IF;
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = NEW.scope;
    IF v_mode = 'off' THEN
        RETURN NULL;
    END IF;

    FOR v_sha IN
        SELECT lower(m[1]) FROM regexp_matches(NEW.message, 'This reverts commit ([0-9A-Fa-f]{4,64})[.,]', 'g') AS m
         GROUP BY 1 ORDER BY min(strpos(NEW.message, m[1]))
    LOOP
        SELECT mg.id INTO v_target FROM ledger.merge mg WHERE mg.scope = NEW.scope AND mg.commit_sha = v_sha;
        IF NOT FOUND OR v_target = NEW.id THEN
            INSERT INTO ledger.supersession (scope, merge_id, action, rule, evidence, detail, reason)
            VALUES (NEW.scope, NEW.id, 'revert_unknown', 'revert', v_sha,
                    jsonb_build_object('reverted_commit', v_sha),
                    'the message reverts commit ' || v_sha || ', which is not a recorded merge of this scope');
            CONTINUE;
        END IF;
        v_detail := jsonb_build_object('reverted_merge_id', v_target, 'reverted_commit', v_sha);

        FOR v_row IN
            SELECT f.* FROM ledger.finding f
             WHERE f.id IN (SELECT a.finding_id FROM ledger.supersession a
                             WHERE a.merge_id = v_target AND a.action = 'superseded')
             ORDER BY f.id
               FOR UPDATE
        LOOP
            v_state := ledger._finding_state(v_row.superseded_at, v_row.dismissed_at);
            IF v_state = 'superseded' AND v_row.superseded_by_merge_id = v_target THEN
                IF v_mode = 'dry' THEN
                    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail, reason)
                    VALUES (NEW.scope, v_row.id, NEW.id, 'would_reopen', 'revert', v_sha, v_detail,
                            'dry mode: the reverted commit ' || v_sha || ' superseded this finding');
                ELSE
                    PERFORM ledger._reopen_finding(v_row, 'reopened', 'revert', NULL,
                        'the merge reverts commit ' || v_sha || ', which superseded this finding',
                        v_sha, NEW.id, v_detail);
                END IF;
            ELSE
                INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
                VALUES (NEW.scope, v_row.id, NEW.id, 'not_reopened', 'revert', v_sha,
                        'the reverted commit ' || v_sha || ' superseded this finding, but it was '
                            || CASE WHEN v_state = 'dismissed' THEN 'dismissed' ELSE 'superseded again' END || ' since',
                        v_detail || jsonb_strip_nulls(jsonb_build_object(
                            'state', v_state, 'superseded_by', v_row.superseded_by,
                            'superseded_by_merge_id', v_row.superseded_by_merge_id,
                            'resolution', v_row.resolution)));
            END IF;
        END LOOP;
    END LOOP;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__revert() IS
'AFTER INSERT row trigger on ledger.merge: a message "This reverts commit <sha>." naming a merge of the same scope reopens the findings that merge superseded and still stand superseded by it (audit reopened, rule revert); dismissed or since re-superseded ones are audited not_reopened, an unknown sha revert_unknown; dry: would_reopen; off: nothing. Raises nothing.';
''',
    # sql/triggers/merge___300_revert.sql
    r'''
-- Trigger _300_revert on ledger.merge: a revert reopens what the reverted
-- merge superseded. Fires after _200_supersede (name order).
DROP TRIGGER IF EXISTS _300_revert ON ledger.merge;
CREATE TRIGGER _300_revert
    AFTER INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__revert();
''',
    # sql/functions/tg_supersession__notify.sql
    r'''
-- ledger.tg_supersession__notify() -> trigger (AFTER INSERT ON
-- ledger.supersession, FOR EACH STATEMENT, transition table new_rows)
--
-- Every transition is audited, so the audit insert is the one place every
-- transition passes (merge triggers, re-reviews, re-reports, reverts,
-- dismiss, restore, plain INSERTs of audit rows). For each new audit row
-- whose action is 'superseded', 'reopened', 'dismissed' or 'restored' it
-- sends, in audit order,
--   NOTIFY ledger_finding, '{"audit_id": 12, "finding_id": 7, "scope": "spec-07",
--       "action": "superseded", "rule": "path", "merge_id": 3, "actor": null}'
-- (a JSON object; actor cut to 200 characters, so the payload stays far
-- below PostgreSQL's 8000-byte limit). Notifications are delivered when the
-- transaction commits and not at all when it rolls back. Other actions
-- (would_supersede, already_superseded, not_reopened, ...) send nothing.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_supersession__notify()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    PERFORM pg_notify('ledger_finding', json_build_object(
                'audit_id', n.id, 'finding_id', n.finding_id, 'scope', n.scope,
                'action', n.action, 'rule', n.rule, 'merge_id', n.merge_id,
                'actor', left(n.actor, 200))::text)
       FROM (SELECT * FROM new_rows r
              WHERE r.finding_id IS NOT NULL
                AND r.action IN ('superseded', 'reopened', 'dismissed', 'restored')
              ORDER BY r.id) AS n;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_supersession__notify() IS
'AFTER INSERT statement trigger on ledger.supersession: NOTIFY ledger_finding with {"audit_id", "finding_id", "scope", "action", "rule", "merge_id", "actor"} for every audit row whose action is superseded, reopened, dismissed or restored, in audit order, delivered at commit. Raises nothing.';
''',
    # sql/triggers/supersession___100_notify.sql
    r'''
-- Trigger _100_notify on ledger.supersession: NOTIFY ledger_finding for each
-- supersede, reopen, dismiss and restore, once per statement.
DROP TRIGGER IF EXISTS _100_notify ON ledger.supersession;
CREATE TRIGGER _100_notify
    AFTER INSERT ON ledger.supersession
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_supersession__notify();
''',
    # sql/functions/tg_injection__prepare.sql
    r'''
-- ledger.tg_injection__prepare() -> trigger (BEFORE INSERT OR UPDATE ON ledger.injection)
--
-- Every injection row, however it is written (ledger.record_injection, a
-- plain INSERT, COPY), passes through here:
--   session_id   required, single line, <= 200 chars, trimmed;
--   finding_id   required, must be a finding of the ledger (LD005 rather
--                than the foreign key's 23503);
--   injected_at  NULL -> now().
-- Raises LD002 (missing), LD003 (control character), LD004 (too long),
-- LD005 (unknown finding), each naming the field and the value.
CREATE OR REPLACE FUNCTION ledger.tg_injection__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    NEW.session_id := ledger._check_text(NEW.session_id, 'injection.session_id', true, 200);
    IF NEW.finding_id IS NULL THEN
        RAISE EXCEPTION 'injection.finding_id is required' USING ERRCODE = 'LD002';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.id = NEW.finding_id) THEN
        RAISE EXCEPTION 'unknown finding in injection.finding_id: %', NEW.finding_id USING ERRCODE = 'LD005';
    END IF;
    NEW.injected_at := coalesce(NEW.injected_at, now());
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_injection__prepare() IS
'BEFORE INSERT/UPDATE trigger on ledger.injection: trims and validates session_id, checks that finding_id is a finding (LD005), defaults injected_at. Raises LD002-LD005 naming field and value.';
''',
    # sql/triggers/injection___100_prepare.sql
    r'''
-- Trigger _100_prepare on ledger.injection: validation before every write.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.injection;
CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE ON ledger.injection
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_injection__prepare();
''',
    # sql/functions/record_injection.sql
    r'''
-- ledger.record_injection(p_session_id text, p_finding_ids bigint[])
--   -> TABLE(recorded integer, already_recorded integer)
--
-- Records that the findings p_finding_ids were injected into session
-- p_session_id's prompt (issue 5, "what each session was shown"). Idempotent
-- per (session, finding) pair: the same as INSERT INTO ledger.injection
-- (session_id, finding_id) ... ON CONFLICT DO NOTHING; the first injection
-- time is kept. Duplicates in the array count once. recorded: pairs new to
-- the ledger; already_recorded: pairs it held before.
-- Raises LD002 (session_id missing, p_finding_ids NULL or holding a NULL),
-- LD003, LD004 (session_id), LD005 (an unknown finding id, named).
-- Nothing is written on error.
CREATE OR REPLACE FUNCTION ledger.record_injection(p_session_id text, p_finding_ids bigint[])
RETURNS TABLE (recorded integer, already_recorded integer)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_session text := ledger._check_text(p_session_id, 'session_id', true, 200);
    v_ids     bigint[];
BEGIN
    IF p_finding_ids IS NULL OR array_position(p_finding_ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'finding_ids is required and may not hold NULL: got %', coalesce(p_finding_ids::text, 'NULL')
            USING ERRCODE = 'LD002';
    END IF;
    SELECT coalesce(array_agg(DISTINCT i ORDER BY i), '{}') INTO v_ids FROM unnest(p_finding_ids) AS i;
    INSERT INTO ledger.injection (session_id, finding_id)
    SELECT v_session, i FROM unnest(v_ids) AS i ORDER BY i
    ON CONFLICT (session_id, finding_id) DO NOTHING;
    GET DIAGNOSTICS recorded = ROW_COUNT;
    already_recorded := cardinality(v_ids) - recorded;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.record_injection(text, bigint[]) IS
'Record which findings were injected into a session''s prompt, idempotent per (session, finding) pair. (session_id, finding_ids bigint[]) -> TABLE(recorded integer, already_recorded integer). Raises LD002-LD005.';
''',
    # sql/functions/read_injections.sql
    r'''
-- ledger.read_injections(p_session_id text DEFAULT NULL, p_finding_id bigint DEFAULT NULL)
--   -> TABLE(session_id text, finding_id bigint, injected_at timestamptz,
--            scope text, kind text, severity text, title text, state text)
--
-- What a session was shown (p_session_id: its findings, in injection order,
-- with each finding's state now) and which sessions saw a finding
-- (p_finding_id: its sessions, in injection order); both filters together
-- give at most one row. Raises LD002 when both are NULL, LD005 for an
-- unknown finding id; an unknown session returns no rows.
CREATE OR REPLACE FUNCTION ledger.read_injections(p_session_id text DEFAULT NULL, p_finding_id bigint DEFAULT NULL)
RETURNS TABLE (session_id text, finding_id bigint, injected_at timestamptz,
               scope text, kind text, severity text, title text, state text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
DECLARE
    v_session text := btrim(p_session_id);
BEGIN
    IF p_session_id IS NULL AND p_finding_id IS NULL THEN
        RAISE EXCEPTION 'session_id or finding_id is required' USING ERRCODE = 'LD002';
    END IF;
    IF p_finding_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.id = p_finding_id) THEN
        RAISE EXCEPTION 'unknown finding: %', p_finding_id USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
        SELECT i.session_id, i.finding_id, i.injected_at, f.scope, f.kind, f.severity, f.title,
               ledger._finding_state(f.superseded_at, f.dismissed_at)
          FROM ledger.injection i
          JOIN ledger.finding f ON f.id = i.finding_id
         WHERE (v_session IS NULL OR i.session_id = v_session)
           AND (p_finding_id IS NULL OR i.finding_id = p_finding_id)
         ORDER BY i.injected_at, i.session_id, i.finding_id;
END
$$;

COMMENT ON FUNCTION ledger.read_injections(text, bigint) IS
'Injections of one session (what it was shown) or of one finding (which sessions saw it), with each finding''s current state. (session_id, finding_id) -> TABLE(session_id, finding_id, injected_at, scope, kind, severity, title, state). Raises LD002 (both NULL), LD005 (unknown finding).';
''',
    # sql/functions/measure_convergence.sql
    r'''
-- ledger.measure_convergence(p_session_id text)
--   -> TABLE(session_id text, shown integer, still_active integer,
--            superseded integer, dismissed integer, active_share numeric)
--
-- The convergence of a session (issue 5): of the findings it was shown
-- (ledger.injection), how many are still active now, how many were
-- superseded and how many dismissed since; active_share = still_active /
-- shown, rounded to 4 decimals (0 means everything it was shown has been
-- resolved, 1 that nothing has). Raises LD002 (session_id missing), LD005
-- (no injection recorded for the session: its share is undefined).
CREATE OR REPLACE FUNCTION ledger.measure_convergence(p_session_id text)
RETURNS TABLE (session_id text, shown integer, still_active integer, superseded integer,
               dismissed integer, active_share numeric)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
DECLARE
    v_session text := ledger._check_text(p_session_id, 'session_id', true, 200);
BEGIN
    SELECT v_session,
           count(*)::integer,
           count(*) FILTER (WHERE f.superseded_at IS NULL)::integer,
           count(*) FILTER (WHERE f.superseded_at IS NOT NULL AND f.dismissed_at IS NULL)::integer,
           count(*) FILTER (WHERE f.dismissed_at IS NOT NULL)::integer
      INTO session_id, shown, still_active, superseded, dismissed
      FROM ledger.injection i
      JOIN ledger.finding f ON f.id = i.finding_id
     WHERE i.session_id = v_session;
    IF shown = 0 THEN
        RAISE EXCEPTION 'unknown session: no injection recorded for session_id %', quote_literal(v_session)
            USING ERRCODE = 'LD005';
    END IF;
    active_share := round(still_active::numeric / shown, 4);
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.measure_convergence(text) IS
'Convergence of a session: of the findings it was shown, how many are still active, superseded, dismissed, and active_share = still_active / shown (4 decimals). (session_id) -> TABLE(session_id, shown, still_active, superseded, dismissed, active_share numeric). Raises LD002, LD005 (no injections).';
''',
    # sql/functions/read_prompt_findings.sql
    r'''
-- ledger.read_prompt_findings(p_scope text, p_kinds text[] DEFAULT NULL,
--     p_max_age interval DEFAULT NULL, p_max_chars integer DEFAULT NULL)
--   -> TABLE(findings jsonb, included_count integer, included_chars integer,
--            omitted_count integer, omitted_chars integer)
--
-- What a prompt builder injects for a scope, in one row:
--   candidates  the active findings of p_scope, of one of p_kinds when
--               given (case-insensitive), and, when p_max_age is given,
--               reported within it: coalesce(last_reported_at, created_at)
--               >= now() - p_max_age (seed 000's "Option C", time-based
--               decay; a re-report refreshes a finding);
--   order       most severe first (critical, high, medium, low, info), then
--               most recently reported, then highest id;
--   budget      each finding costs length(title) + 1 + length(description)
--               characters (length(title) without a description: the text
--               ActiveFinding.prompt_text() builds); findings are taken in
--               order while the running total fits p_max_chars and the cut
--               is a prefix, so a less severe finding never displaces a
--               more severe one; NULL means no budget.
-- findings: JSON array of {id, scope, finding_key, kind, severity, title,
-- description, paths, source, created_at (ISO 8601, UTC, microseconds),
-- chars} in order; included_*: how many and how many characters;
-- omitted_*: the candidates cut by the budget (the kind and age filters do
-- not count as omitted).
-- Raises LD005 (unknown scope), LD003 (p_max_chars or p_max_age negative).
CREATE OR REPLACE FUNCTION ledger.read_prompt_findings(
    p_scope text, p_kinds text[] DEFAULT NULL, p_max_age interval DEFAULT NULL, p_max_chars integer DEFAULT NULL)
RETURNS TABLE (findings jsonb, included_count integer, included_chars integer,
               omitted_count integer, omitted_chars integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
DECLARE
    v_kinds text[];
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_nullable(p_scope) USING ERRCODE = 'LD005';
    END IF;
    IF p_max_chars < 0 THEN
        RAISE EXCEPTION 'invalid max_chars: % (expected 0 or more, or NULL for no budget)', p_max_chars
            USING ERRCODE = 'LD003';
    END IF;
    IF p_max_age < interval '0' THEN
        RAISE EXCEPTION 'invalid max_age: % (expected a positive interval, or NULL)', p_max_age
            USING ERRCODE = 'LD003';
    END IF;
    IF p_kinds IS NOT NULL THEN
        v_kinds := ARRAY(SELECT lower(btrim(k)) FROM unnest(p_kinds) AS k WHERE k IS NOT NULL);
    END IF;

    RETURN QUERY
    WITH candidates AS (
        SELECT f.id, f.scope, f.finding_key, f.kind, f.severity, f.title, f.description, f.paths, f.source,
               f.created_at,
               length(f.title) + coalesce(1 + length(f.description), 0) AS chars,
               coalesce(f.last_reported_at, f.created_at) AS seen_at
          FROM ledger.finding f
         WHERE f.scope = p_scope AND f.superseded_at IS NULL
           AND (v_kinds IS NULL OR f.kind = ANY (v_kinds))
           AND (p_max_age IS NULL OR coalesce(f.last_reported_at, f.created_at) >= now() - p_max_age)
    ), ordered AS (
        SELECT c.*,
               row_number() OVER w AS ord,
               sum(c.chars) OVER (w ROWS UNBOUNDED PRECEDING) AS running
          FROM candidates c
        WINDOW w AS (ORDER BY ledger._severity_rank(c.severity), c.seen_at DESC, c.id DESC)
    ), cut AS (
        SELECT o.*, (p_max_chars IS NULL OR o.running <= p_max_chars) AS included FROM ordered o
    )
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'id', x.id, 'scope', x.scope, 'finding_key', x.finding_key, 'kind', x.kind,
               'severity', x.severity, 'title', x.title, 'description', x.description,
               'paths', to_jsonb(x.paths), 'source', x.source,
               'created_at', to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'),
               'chars', x.chars) ORDER BY x.ord) FILTER (WHERE x.included), '[]'::jsonb),
           (count(*) FILTER (WHERE x.included))::integer,
           coalesce(sum(x.chars) FILTER (WHERE x.included), 0)::integer,
           (count(*) FILTER (WHERE NOT x.included))::integer,
           coalesce(sum(x.chars) FILTER (WHERE NOT x.included), 0)::integer
      FROM cut x;
END
$$;

COMMENT ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer) IS
'The active findings of a scope for a prompt: optional kinds and maximum age (since last reported), most severe then most recent first, cut to a character budget (title + 1 + description per finding, prefix cut). (scope, kinds text[], max_age interval, max_chars integer) -> TABLE(findings jsonb, included_count, included_chars, omitted_count, omitted_chars). Raises LD003, LD005.';
''',
    # sql/functions/read_history.sql
    r'''
-- ledger.read_history(p_finding_id bigint)
--   -> TABLE(at timestamptz, event text, rule text, actor text, reason text,
--            evidence text, merge_id bigint, commit_sha text, detail jsonb,
--            audit_id bigint)
--
-- A finding's timeline (issue 5, CLI `findings-ledger history ID`), oldest
-- first:
--   'reported'   from the finding row: created_at, actor = source,
--                evidence = its paths, detail {kind, severity, finding_key,
--                report_count, last_reported_at, last_review_run};
--   every audit row of the finding (superseded, would_supersede,
--                already_superseded, reopened, not_reopened, dismissed,
--                restored, ...) with its rule, actor, reason and evidence;
--                for a merge's decision, actor is the audit's actor or else
--                the merge's node_id or else 'merge <sha>', and commit_sha the
--                merge's commit;
--   'injected'   each session whose prompt it was injected into (actor =
--                session_id).
-- Ties in time are ordered reported, audit (by id), injected.
-- Raises LD005 (unknown finding).
CREATE OR REPLACE FUNCTION ledger.read_history(p_finding_id bigint)
RETURNS TABLE (at timestamptz, event text, rule text, actor text, reason text, evidence text,
               merge_id bigint, commit_sha text, detail jsonb, audit_id bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.id = p_finding_id) THEN
        RAISE EXCEPTION 'unknown finding: %', coalesce(p_finding_id::text, 'NULL') USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
    SELECT h.at, h.event, h.rule, h.actor, h.reason, h.evidence, h.merge_id, h.commit_sha, h.detail, h.audit_id
      FROM (
        SELECT f.created_at AS at, 'reported'::text AS event, NULL::text AS rule, f.source AS actor,
               NULL::text AS reason, nullif(array_to_string(f.paths, ', '), '') AS evidence,
               NULL::bigint AS merge_id, NULL::text AS commit_sha,
               jsonb_strip_nulls(jsonb_build_object(
                   'kind', f.kind, 'severity', f.severity, 'finding_key', f.finding_key,
                   'report_count', f.report_count, 'last_reported_at', f.last_reported_at,
                   'last_review_run', f.review_run)) AS detail,
               NULL::bigint AS audit_id, 0 AS tie, 0::bigint AS seq
          FROM ledger.finding f WHERE f.id = p_finding_id
        UNION ALL
        SELECT a.created_at, a.action, a.rule,
               coalesce(a.actor, m.node_id, 'merge ' || left(m.commit_sha, 12)),
               a.reason, a.evidence, a.merge_id, m.commit_sha, a.detail, a.id, 1, a.id
          FROM ledger.supersession a
          LEFT JOIN ledger.merge m ON m.id = a.merge_id
         WHERE a.finding_id = p_finding_id
        UNION ALL
        SELECT i.injected_at, 'injected', NULL, i.session_id, NULL, NULL, NULL, NULL, NULL, NULL, 2, 0
          FROM ledger.injection i WHERE i.finding_id = p_finding_id
      ) AS h
     ORDER BY h.at, h.tie, h.seq, h.actor;
END
$$;

COMMENT ON FUNCTION ledger.read_history(bigint) IS
'A finding''s timeline, oldest first: reported (the row), every audit row (superseded, reopened, dismissed, restored, ... with rule, actor, reason, evidence, merge and commit), injected (sessions). (finding_id) -> TABLE(at, event, rule, actor, reason, evidence, merge_id, commit_sha, detail, audit_id). Raises LD005.';
''',
]


# sql/functions/add_finding.sql as revision 0001_foundation froze it (downgrade).
ADD_FINDING_0001 = r'''
-- ledger.add_finding(p_scope, p_title, p_description, p_paths, p_kind,
--                    p_severity, p_finding_key, p_source) -> ledger.finding
--
-- Inserts one finding and returns the stored row (normalised paths, id,
-- created_at). Equivalent to a plain INSERT INTO ledger.finding: the same
-- triggers validate it. Raises LD001-LD004 (see tg_finding__prepare) and
-- 23505 (unique_violation) for a finding_key already used in the scope.
CREATE OR REPLACE FUNCTION ledger.add_finding(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_finding_key text DEFAULT NULL,
    p_source text DEFAULT NULL)
RETURNS ledger.finding
LANGUAGE sql
AS $$
    INSERT INTO ledger.finding (scope, title, description, paths, kind, severity, finding_key, source)
    VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source)
    RETURNING *
$$;

COMMENT ON FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text) IS
'Insert one finding, returning the stored row. (scope, title, description, paths text[], kind, severity, finding_key, source) -> ledger.finding. Raises LD001-LD004, 23505 for a duplicate finding_key in the scope.';
'''

DOWNGRADE = r'''
DROP TRIGGER _100_notify ON ledger.supersession;
DROP TRIGGER _300_revert ON ledger.merge;
DROP TRIGGER _200_lifecycle ON ledger.finding;
DROP TRIGGER _100_forbid_delete ON ledger.finding;
DROP TRIGGER _100_prepare ON ledger.injection;
DROP FUNCTION ledger.read_history(bigint);
DROP FUNCTION ledger.read_prompt_findings(text, text[], interval, integer);
DROP FUNCTION ledger.measure_convergence(text);
DROP FUNCTION ledger.read_injections(text, bigint);
DROP FUNCTION ledger.record_injection(text, bigint[]);
DROP FUNCTION ledger.tg_injection__prepare();
DROP FUNCTION ledger.tg_supersession__notify();
DROP FUNCTION ledger.tg_merge__revert();
DROP FUNCTION ledger.restore_finding(bigint, text, text);
DROP FUNCTION ledger.dismiss_finding(bigint, text, text, text);
DROP FUNCTION ledger.read_finding(bigint);
DROP FUNCTION ledger.replace_findings(text, text, text, jsonb, text);
DROP FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text);
DROP FUNCTION ledger.tg_finding__forbid_delete();
DROP FUNCTION ledger.tg_finding__lifecycle();
DROP FUNCTION ledger._reopen_finding(ledger.finding, text, text, text, text, text, bigint, jsonb);
DROP VIEW ledger.finding_lifecycle;
DROP FUNCTION ledger._finding_state(timestamptz, timestamptz);
DROP TABLE ledger.injection;
ALTER TABLE ledger.finding
    DROP CONSTRAINT finding_dismissal_check,
    DROP CONSTRAINT finding_resolution_check,
    DROP COLUMN review_run,
    DROP COLUMN reopen_count,
    DROP COLUMN last_reported_at,
    DROP COLUMN report_count,
    DROP COLUMN dismissal_reason,
    DROP COLUMN resolution,
    DROP COLUMN dismissed_by,
    DROP COLUMN dismissed_at;
'''


def upgrade() -> None:
    run_sql(TABLES)
    for sql in FROZEN_SQL:
        run_sql(sql)


def downgrade() -> None:
    run_sql(DOWNGRADE)
    run_sql(ADD_FINDING_0001)
