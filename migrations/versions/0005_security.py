"""Security and reliability: least-privilege roles, SECURITY DEFINER where a
caller needs more rights than it has, an append-only audit, optional
per-scope row-level security, locks that cannot deadlock, and
ledger.reconcile for merges written while triggers did not fire (issue 7).

Revision ID: 0005_security
Revises: 0004_matching
Create Date: 2026-12-01

What it does, in order (docs/security.md explains each part):

1. ROLES: creates the NOLOGIN group roles ledger_writer, ledger_reader,
   ledger_agent and ledger_admin when they do not exist (no password; a
   DBA grants them to login roles). Roles are cluster-wide: every ledger
   database of the cluster shares them. A migration role without CREATEROLE
   works when a DBA created the four roles first.
2. FROZEN_SQL: new functions (_visible_scopes, _scope_visible,
   _check_scope_access, tg_scoped__check_access,
   tg_supersession__append_only, _revert_targets, _apply_merge,
   _apply_revert, reconcile, enable_scope_rls, disable_scope_rls), their
   triggers (_050_scope_access on finding, merge, scope and issue;
   _010_append_only and _011_append_only_truncate on supersession), and new
   versions of objects of 0001-0004:
   - _check_text, normalize_path (0001), replace_findings (0003),
     import_finding (0004): trimmed the letter v (E'\\v' is not a vertical
     tab in PostgreSQL; E'\\x0b' is); normalize_path now repeats its rules
     to a fixpoint (idempotent; './C:/x' is rejected as absolute);
   - tg_merge__supersede (0004): SECURITY DEFINER, its body moved to
     _apply_merge(merge_id) with FOR UPDATE -> FOR NO KEY UPDATE (the old
     lock blocked the audit rows' foreign key checks: a deadlock) and the
     findings a revert will reopen locked in the same id-ordered pass;
   - tg_merge__revert (0003): SECURITY DEFINER, body moved to
     _apply_revert(merge_id), one id-ordered FOR NO KEY UPDATE pass;
   - record_merge (0004, with p_branch): SECURITY DEFINER; the redelivery
     lookup trims like the trigger;
   - report_finding, replace_findings, dismiss_finding, restore_finding
     (0003), import_finding (0004), claim_task, start_task, complete_task,
     fail_task, cancel_task, requeue_task (0002): SECURITY DEFINER for the
     role that calls them, FOR NO KEY UPDATE instead of FOR UPDATE,
     per-scope checks (the owner is exempt from the policies);
     replace_findings locks everything it may change in one id-ordered pass;
   - _scoped_paths (0001): operators schema-qualified (index expression);
   - read_audit (0001): LD005 for a finding or merge id not in the scope;
   - set_hygiene_mode (0001): LD002 for a NULL mode;
   - views active_finding (0001) and finding_lifecycle (0003): honour
     per-scope row-level security.
3. POLICIES: a policy scope_isolation on scope, finding, merge,
   supersession, issue, agent_task (through its issue) and injection
   (through its finding). Row-level security stays DISABLED: a deployment
   turns it on with SELECT ledger.enable_scope_rls().
4. PRIVILEGES: EXECUTE on every ledger function is revoked from PUBLIC, then
   each role gets exactly what its table in docs/security.md lists. This is
   the one place grants live; a later revision that adds a table or a
   function adds its grants in the same shape (tests/test_security_roles.py
   fails for a function or table nobody classified).

Nothing here rewrites or scans a table: policies, triggers and grants are
catalog changes (short ACCESS EXCLUSIVE locks on the tables).

The SQL below is frozen: it is the text of sql/ when this revision was
written (tools/freeze_sql.py) and must never be edited; a later change to a
function is a new revision.

Downgrade restores the 0001-0004 versions of the replaced objects (frozen
copies of the text of the latest revision that created each, in
RESTORE_SQL), drops the new objects, policies and triggers, revokes every
privilege of the four roles in this database, gives EXECUTE on the ledger
functions back to PUBLIC (the state before this revision) and drops each
role only when nothing else uses it: no member roles, and no privilege or
object in any database of the cluster (DROP ROLE fails then; the role is
kept with a NOTICE). Roles that stay are harmless: NOLOGIN, no password.
"""

from findings_ledger.migration_ops import run_sql

revision = "0005_security"
down_revision = "0004_matching"
branch_labels = None
depends_on = None

ROLES = r'''
DO $roles$
DECLARE
    v_role text;
BEGIN
    FOREACH v_role IN ARRAY ARRAY['ledger_writer', 'ledger_reader', 'ledger_agent', 'ledger_admin'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = v_role) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', v_role);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL;  -- created meanwhile by a concurrent migration of another database
            END;
        END IF;
    END LOOP;
END
$roles$;
COMMENT ON ROLE ledger_writer IS 'findings-ledger: services that insert findings, merges, issues and tasks and report findings (INSERT, no UPDATE of supersession columns, no audit writes, no issue_snapshot).';
COMMENT ON ROLE ledger_reader IS 'findings-ledger: read active findings, history (findings, merges, lifecycle, injections), issues, tasks and the audit.';
COMMENT ON ROLE ledger_agent IS 'findings-ledger: agent runtimes (task claims: claim, start, complete, fail, cancel, requeue).';
COMMENT ON ROLE ledger_admin IS 'findings-ledger: policy (hygiene mode, matching policy, poisoned failure reasons), dismissals and restores, reconcile, reading everything.';
'''


FROZEN_SQL = [
    # sql/functions/_check_text.sql
    r'''
-- ledger._check_text(p_value text, p_field text, p_required boolean, p_max_length integer, p_single_line boolean DEFAULT true) -> text
--
-- Validates one text field of a row written by a service and returns it
-- trimmed of surrounding white space (NULL stays NULL when not required).
-- Raises, naming the field and the value:
--   LD002 value_required  NULL or blank when p_required;
--   LD003 value_invalid   a control character in a single-line field, or a
--                         blank string in an optional field (use NULL);
--   LD004 value_too_long  more than p_max_length characters.
-- White space trimmed: space, tab, CR, LF, form feed and vertical tab. The
-- vertical tab is written E'\x0b': PostgreSQL's escape strings have no \v
-- (E'\v' is the letter v, which the foundation's first version trimmed).
CREATE OR REPLACE FUNCTION ledger._check_text(
    p_value text, p_field text, p_required boolean, p_max_length integer, p_single_line boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v text := btrim(p_value, E' \t\r\n\f\x0b');
BEGIN
    IF p_value IS NULL THEN
        IF p_required THEN
            RAISE EXCEPTION '% is required', p_field USING ERRCODE = 'LD002';
        END IF;
        RETURN NULL;
    END IF;
    IF v = '' THEN
        IF p_required THEN
            RAISE EXCEPTION '% is required: got %', p_field, quote_literal(p_value) USING ERRCODE = 'LD002';
        END IF;
        RAISE EXCEPTION 'invalid %: % is blank; use NULL for no value', p_field, quote_literal(p_value)
            USING ERRCODE = 'LD003';
    END IF;
    IF length(v) > p_max_length THEN
        RAISE EXCEPTION 'invalid %: % characters, at most % are accepted (value starts %)',
            p_field, length(v), p_max_length, quote_literal(left(v, 40))
            USING ERRCODE = 'LD004';
    END IF;
    IF p_single_line AND v ~ '[\x01-\x1f\x7f]' THEN
        RAISE EXCEPTION 'invalid %: % contains a control character', p_field, quote_literal(left(v, 200))
            USING ERRCODE = 'LD003';
    END IF;
    RETURN v;
END
$$;

COMMENT ON FUNCTION ledger._check_text(text, text, boolean, integer, boolean) IS
'Validate and trim one text field. (value, field, required, max_length, single_line) -> text. Raises LD002 (required), LD003 (control character / blank optional), LD004 (too long), naming the field and value.';
''',
    # sql/functions/_visible_scopes.sql
    r'''
-- ledger._visible_scopes() -> text[]
--
-- The scopes this connection may see and write while per-scope row-level
-- security is on (ledger.enable_scope_rls): the session setting
-- ledger.scopes, a comma-separated list ('spec-07, spec-08'), each element
-- trimmed, blanks and duplicates dropped. Unset or empty -> '{}' (no scope:
-- fail closed). Used by the scope_isolation policies, the view
-- ledger.active_finding and ledger._check_scope_access. A scope whose name
-- contains a comma cannot be listed. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._visible_scopes()
RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
    SELECT coalesce(array_agg(DISTINCT s.scope) FILTER (WHERE s.scope <> ''), '{}')
      FROM unnest(string_to_array(current_setting('ledger.scopes', true), ',')) AS u(raw),
           LATERAL (SELECT btrim(u.raw, E' \t\r\n\f\x0b') AS scope) AS s
$$;

COMMENT ON FUNCTION ledger._visible_scopes() IS
'Scopes named by the session setting ledger.scopes (comma-separated, trimmed; unset -> empty: fail closed). () -> text[]. Used by the scope_isolation policies. Raises nothing.';
''',
    # sql/functions/_scope_visible.sql
    r'''
-- ledger._scope_visible(p_scope text) -> boolean
--
-- Whether this connection may see and use scope p_scope: always true while
-- per-scope row-level security is off (ledger.scope has no ROW LEVEL
-- SECURITY, the default); while it is on (ledger.enable_scope_rls), true
-- only for a scope listed in ledger._visible_scopes() (the setting
-- ledger.scopes), for every caller, the table owner included. A NULL scope
-- is not visible then. The SECURITY DEFINER functions run as the owner,
-- whom PostgreSQL exempts from the policies, so they filter and check
-- with this: claim_task claims only tasks of visible scopes, the task
-- functions, dismiss_finding and restore_finding treat a task or finding
-- of another scope as unknown (LD005), and _check_scope_access refuses a
-- write (LD401). Raises nothing.
CREATE OR REPLACE FUNCTION ledger._scope_visible(p_scope text)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
BEGIN
    IF NOT (SELECT c.relrowsecurity FROM pg_catalog.pg_class c WHERE c.oid = 'ledger.scope'::pg_catalog.regclass) THEN
        RETURN true;
    END IF;
    RETURN coalesce(p_scope = ANY (ledger._visible_scopes()), false);
END
$$;

COMMENT ON FUNCTION ledger._scope_visible(text) IS
'Whether the connection may use a scope: true while per-scope row-level security is off, else only for scopes listed in ledger.scopes (every caller, the owner included; NULL -> false). (scope text) -> boolean. Used by the SECURITY DEFINER functions, which the policies do not restrict. Raises nothing.';
''',
    # sql/functions/_check_scope_access.sql
    r'''
-- ledger._check_scope_access(p_scope text, p_field text) -> void
--
-- Refuses a write into a scope this connection may not use. While per-scope
-- row-level security is off (the default: ledger.scope has no ROW LEVEL
-- SECURITY) every scope is allowed and this returns at once. While it is on
-- (ledger.enable_scope_rls), p_scope must be one of ledger._visible_scopes()
-- (the setting ledger.scopes; see ledger._scope_visible), for every caller,
-- the table owner included: the check also runs inside SECURITY DEFINER
-- functions, which cannot know who called them. Called by the
-- _050_scope_access triggers on finding, merge, scope and issue, and by
-- ledger.reconcile, report_finding and replace_findings.
-- Raises LD401 (scope_denied) naming p_field, the scope and the setting.
CREATE OR REPLACE FUNCTION ledger._check_scope_access(p_scope text, p_field text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
BEGIN
    IF ledger._scope_visible(p_scope) THEN
        RETURN;
    END IF;
    RAISE EXCEPTION 'scope denied: % % is not one of this connection''s scopes (ledger.scopes = %)',
        p_field, quote_nullable(p_scope), quote_nullable(current_setting('ledger.scopes', true))
        USING ERRCODE = 'LD401',
              HINT = 'Per-scope row-level security is on: SET ledger.scopes to the comma-separated scopes this connection serves.';
END
$$;

COMMENT ON FUNCTION ledger._check_scope_access(text, text) IS
'Refuse a scope the connection may not use while per-scope row-level security is on (scope must be listed in ledger.scopes). (scope text, field text) -> void. Raises LD401 naming the field, the scope and the setting.';
''',
    # sql/functions/tg_scoped__check_access.sql
    r'''
-- ledger.tg_scoped__check_access() -> trigger (BEFORE INSERT OR UPDATE OF
-- scope ON ledger.finding, ledger.merge, ledger.scope, ledger.issue: triggers
-- _050_scope_access, which fire before _100_prepare)
--
-- Gives a write into a scope the connection may not use a clear error,
-- LD401 naming <table>.scope, while per-scope row-level security is on; the
-- policies' WITH CHECK would only say 42501. The scope is compared trimmed
-- the way _100_prepare will store it; a NULL scope is left to _100_prepare
-- (LD002). Works for any table with a text column "scope".
-- Raises LD401 (scope_denied).
CREATE OR REPLACE FUNCTION ledger.tg_scoped__check_access()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    IF NEW.scope IS NOT NULL THEN
        PERFORM ledger._check_scope_access(btrim(NEW.scope, E' \t\r\n\f\x0b'), TG_TABLE_NAME || '.scope');
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_scoped__check_access() IS
'BEFORE INSERT OR UPDATE OF scope trigger on finding, merge, scope and issue: while per-scope row-level security is on, the row''s scope must be listed in ledger.scopes. Raises LD401 naming <table>.scope.';
''',
    # sql/functions/tg_supersession__append_only.sql
    r'''
-- ledger.tg_supersession__append_only() -> trigger (BEFORE UPDATE OR DELETE
-- FOR EACH ROW, and BEFORE TRUNCATE FOR EACH STATEMENT, ON ledger.supersession)
--
-- The audit is append-only for everyone but the table owner (and
-- superusers, who hold every role's rights). The ledger roles have no
-- UPDATE, DELETE or TRUNCATE privilege on it in the first place (42501);
-- this trigger is the second line, for a deployment that grants one of
-- them by mistake. The owner may still rewrite it (retention, repair):
-- that is a DBA's decision, made as the owner.
-- Raises LD402 (audit_append_only) naming the operation and the role.
CREATE OR REPLACE FUNCTION ledger.tg_supersession__append_only()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    IF pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        IF TG_LEVEL = 'STATEMENT' THEN
            RETURN NULL;
        ELSIF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'ledger.supersession is append-only: % by role % is not allowed', TG_OP, quote_ident(current_user)
        USING ERRCODE = 'LD402',
              HINT = 'Audit rows are never changed or removed; only the table owner may (retention, repair).';
END
$$;

COMMENT ON FUNCTION ledger.tg_supersession__append_only() IS
'BEFORE UPDATE/DELETE (row) and TRUNCATE (statement) trigger on ledger.supersession: the audit is append-only for every role but the table owner. Raises LD402 naming the operation and the role.';
''',
    # sql/functions/normalize_path.sql
    r'''
-- ledger.normalize_path(p_path text, p_field text DEFAULT 'path') -> text
--
-- Normalises one repository-relative path, or rejects it. Rules, applied
-- again until nothing changes (so the result is a fixpoint: normalising it
-- again gives it back, and it is never a path this function would reject):
--   1. surrounding white space is trimmed (space, tab, CR, LF, form feed,
--      vertical tab);
--   2. backslashes become '/';
--   3. trailing ':line' / ':line:col' suffixes are dropped
--      (src/a.py:42:10 -> src/a.py), then white space before them;
--   4. '.' segments and repeated '/' disappear (./a//b/./c -> a/b/c);
--   5. a trailing '/' is kept: it marks a directory reference.
-- Rejected with SQLSTATE LD001 (path_rejected), the message naming p_field and
-- the value: NULL, empty after normalisation, absolute ('/x', '//x', 'C:/x',
-- also when a pass makes it so: './C:/x'), a '..' segment, a control
-- character (U+0001-U+001F, U+007F), or longer than 4096 characters.
-- Implements the path normalisation of the foundation issue (seed 000 paths
-- arrive from reviewers as 'packages/x/', './src/a.py:12', 'src\win.py').
-- Revision 0005_security: the vertical tab is E'\x0b' (E'\v' is the letter v
-- in PostgreSQL, so 'v.py' became '.py'), and rules repeat to a fixpoint
-- ('a.py :3', 'a:1:2:3', './ a' were not normalised in one pass).
CREATE OR REPLACE FUNCTION ledger.normalize_path(p_path text, p_field text DEFAULT 'path')
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_path text;
    v_prev text;
    v_dir  boolean;
BEGIN
    IF p_path IS NULL THEN
        RAISE EXCEPTION 'invalid path in %: NULL is not a path', p_field
            USING ERRCODE = 'LD001', HINT = 'Leave a NULL out of the array instead.';
    END IF;
    IF length(p_path) > 4096 THEN
        RAISE EXCEPTION 'invalid path in %: "%..." is longer than 4096 characters', p_field, left(p_path, 60)
            USING ERRCODE = 'LD001';
    END IF;
    IF btrim(p_path, E' \t\r\n\f\x0b') ~ '[\x01-\x1f\x7f]' THEN
        RAISE EXCEPTION 'invalid path in %: % contains a control character', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    v_path := p_path;
    LOOP
        v_prev := v_path;
        v_path := replace(btrim(v_path, E' \t\r\n\f\x0b'), '\', '/');
        IF v_path ~ '^/' OR v_path ~ '^[A-Za-z]:/' OR v_path ~ '^[A-Za-z]:$' THEN
            RAISE EXCEPTION 'invalid path in %: % is absolute; paths are relative to the repository root',
                p_field, quote_literal(p_path)
                USING ERRCODE = 'LD001';
        END IF;
        v_path := btrim(regexp_replace(v_path, '(:[0-9]+)+$', ''), E' \t\r\n\f\x0b');
        v_dir := v_path ~ '/$';
        -- drop '.' and empty segments, keep the rest in order
        SELECT string_agg(seg, '/' ORDER BY ord) INTO v_path
        FROM unnest(string_to_array(v_path, '/')) WITH ORDINALITY AS t(seg, ord)
        WHERE seg <> '' AND seg <> '.';
        IF v_path IS NULL THEN
            RAISE EXCEPTION 'invalid path in %: % is empty once normalised', p_field, quote_literal(p_path)
                USING ERRCODE = 'LD001';
        END IF;
        IF v_dir THEN
            v_path := v_path || '/';
        END IF;
        -- each changing pass makes the text shorter, or only turned \ into /
        EXIT WHEN v_path = v_prev;
    END LOOP;
    IF '..' = ANY (string_to_array(v_path, '/')) THEN
        RAISE EXCEPTION 'invalid path in %: % contains a ".." segment', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    RETURN v_path;
END
$$;

COMMENT ON FUNCTION ledger.normalize_path(text, text) IS
'Normalise one repository-relative path to a fixpoint (trim, \ to /, drop :line[:col], drop ./ and //, keep a trailing / for directories). (path text, field text) -> text. Raises LD001 naming the field and value for NULL, empty, absolute, .. segments, control characters, >4096 chars.';
''',
    # sql/functions/_scoped_paths.sql
    r'''
-- ledger._scoped_paths(p_scope text, p_paths text[]) -> text[]
--
-- Each path prefixed with its scope and a U+001F separator, so that one GIN
-- index (finding_active_paths_idx) answers "active findings of scope S that
-- reference any of these paths" without touching other scopes. Scopes and
-- paths never contain control characters (the prepare triggers reject them),
-- so the separator cannot collide. Raises nothing.
-- It has no SET search_path (that would stop the planner from inlining it and
-- matching the index expression cheaply), so every operator and function in
-- it is schema-qualified: the index expression is evaluated with the search
-- path of whoever inserts a finding, and a same-named operator of theirs
-- must not change the index keys.
CREATE OR REPLACE FUNCTION ledger._scoped_paths(p_scope text, p_paths text[])
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ARRAY(SELECT (p_scope OPERATOR(pg_catalog.||) E'\x1f') OPERATOR(pg_catalog.||) p
                   FROM pg_catalog.unnest(p_paths) AS p)
$$;

COMMENT ON FUNCTION ledger._scoped_paths(text, text[]) IS
'Index key of a finding''s paths: scope || U+001F || path for each path. (text, text[]) -> text[]. Raises nothing.';
''',
    # sql/functions/_revert_targets.sql
    r'''
-- ledger._revert_targets(p_scope text, p_message text, p_merge_id bigint)
--   -> TABLE(sha text, target_merge_id bigint)
--
-- The commits a merge message reverts, as git writes it: "This reverts
-- commit <sha>." (or, for a reverted merge commit, "This reverts commit
-- <sha>, reversing ..."), each sha once, lower-cased, in the order it is
-- first named, with the id of the merge of p_scope recorded with that sha
-- (target_merge_id NULL when there is none, or when it is the reverting
-- merge p_merge_id itself). No row when the message reverts nothing.
-- The one place the revert rule of issue 5 reads a message: used by
-- ledger._apply_revert (which reopens) and ledger._apply_merge (which locks
-- the findings the revert will reopen together with those it supersedes,
-- in one id-ordered pass). Raises nothing.
CREATE OR REPLACE FUNCTION ledger._revert_targets(p_scope text, p_message text, p_merge_id bigint)
RETURNS TABLE (sha text, target_merge_id bigint)
LANGUAGE sql STABLE
SET search_path = pg_catalog
AS $$
    SELECT s.sha,
           (SELECT mg.id FROM ledger.merge mg
             WHERE mg.scope = p_scope AND mg.commit_sha = s.sha AND mg.id IS DISTINCT FROM p_merge_id)
      FROM (SELECT lower(m[1]) AS sha, min(strpos(p_message, m[1])) AS pos
              FROM regexp_matches(p_message, 'This reverts commit ([0-9A-Fa-f]{4,64})[.,]', 'g') AS m
             GROUP BY 1) AS s
     WHERE strpos(p_message, 'This reverts commit ') > 0
     ORDER BY s.pos, s.sha
$$;

COMMENT ON FUNCTION ledger._revert_targets(text, text, bigint) IS
'The commits a merge message reverts ("This reverts commit <sha>." / ", reversing"), each once in the order first named, with the id of the merge of the scope recorded with that sha (NULL when none or when it is the reverting merge itself). (scope, message, merge_id) -> TABLE(sha text, target_merge_id bigint). Raises nothing.';
''',
    # sql/functions/_apply_merge.sql
    r'''
-- ledger._apply_merge(p_merge_id bigint) -> void
--
-- What a merge decides, for one merge row: the body of the AFTER INSERT
-- trigger ledger.tg_merge__supersede, shared with ledger.reconcile so that a
-- merge applied late (written while triggers did not fire) gets exactly the
-- decisions the trigger would have taken. For every active finding of the
-- merge's scope that the merge carries evidence about
-- (ledger._merge_decisions): the path rule of seed 000 "Option A" (a touched
-- path the finding references) and the commit-message rules of issue 3
-- (key, slug, keyword, title, governed by a resolution verb, unambiguous),
-- under the scope's policy. Per the scope's hygiene_mode:
--   on   one audit row per decision (superseded, ambiguous, candidate,
--        mention, skipped, with rule, exact evidence, reason and detail) is
--        written first, in the same transaction; then every finding decided
--        'supersede' gets superseded_at = now(), superseded_by = the merge's
--        node_id (seed 000's marker; its commit sha when it has none),
--        superseded_by_merge_id and supersede_rule = the deciding rule;
--   dry  the same audit rows with 'would_supersede' instead of
--        'superseded'; no finding changes;
--   off  nothing.
-- Findings are locked in id order before they change, FOR NO KEY UPDATE
-- (revision 0005_security; FOR UPDATE before): the audit rows reference
-- every decided finding and their foreign key check takes FOR KEY SHARE on
-- it, also on findings another merge holds; KEY SHARE waits for FOR UPDATE
-- but not for NO KEY UPDATE, so with FOR UPDATE those checks were lock waits
-- outside the id order and three merges could deadlock. In hygiene_mode
-- 'on', the findings the merge's revert will reopen (ledger._apply_revert,
-- trigger _300_revert, ledger._revert_targets) are locked in the same
-- statement, so a merge takes all its finding locks in one id-ordered
-- pass. A finding that
-- another transaction superseded (or a person dismissed) while this one
-- waited is audited as 'already_superseded' and left alone. Findings
-- already superseded or dismissed are not active and are never looked at.
-- Runs with the rights of its caller: EXECUTE is granted to no ledger role;
-- the SECURITY DEFINER callers run it as the owner. An unknown id does
-- nothing. Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger._apply_merge(p_merge_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_merge    ledger.merge;
    v_mode     text;
    v_ids      bigint[];
    v_actions  text[];
    v_rules    text[];
    v_evidence text[];
    v_reasons  text[];
    v_details  jsonb[];
    v_resolve  bigint[] := '{}';
    v_reopen   bigint[] := '{}';
    v_live     bigint[] := '{}';
    v_marker   text;
BEGIN
    SELECT m.* INTO v_merge FROM ledger.merge m WHERE m.id = p_merge_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_marker := coalesce(v_merge.node_id, v_merge.commit_sha);

    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_merge.scope;
    IF v_mode = 'off' OR (cardinality(v_merge.paths) = 0 AND v_merge.message !~ '\S') THEN
        RETURN;
    END IF;

    SELECT array_agg(d.finding_id ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.action ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.rule ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.evidence ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.reason ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.detail ORDER BY d.finding_id NULLS FIRST)
      INTO v_ids, v_actions, v_rules, v_evidence, v_reasons, v_details
      FROM ledger._merge_decisions(v_merge.scope, v_merge.message, v_merge.paths, v_merge.branch) AS d;

    IF v_mode = 'on' THEN
        IF v_actions IS NOT NULL THEN
            v_resolve := ARRAY(SELECT x.id FROM unnest(v_ids, v_actions) AS x(id, a) WHERE x.a = 'supersede');
        END IF;
        IF strpos(v_merge.message, 'This reverts commit ') > 0 THEN
            -- the findings ledger._apply_revert (trigger _300_revert) reopens next
            v_reopen := ARRAY(SELECT DISTINCT a.finding_id FROM ledger.supersession a
                               WHERE a.action = 'superseded'
                                 AND a.merge_id IN (SELECT t.target_merge_id
                                                      FROM ledger._revert_targets(v_merge.scope, v_merge.message, v_merge.id) AS t));
        END IF;
        IF cardinality(v_resolve) + cardinality(v_reopen) > 0 THEN
            -- Every finding this merge may change, locked in one pass in id order; the
            -- locked row is the latest committed one, so superseded_at is re-checked.
            SELECT coalesce(array_agg(l.id) FILTER (WHERE l.id = ANY (v_resolve) AND l.superseded_at IS NULL), '{}')
              INTO v_live
              FROM (SELECT f.id, f.superseded_at FROM ledger.finding f
                     WHERE f.id = ANY (v_resolve || v_reopen)
                     ORDER BY f.id FOR NO KEY UPDATE) AS l;
        END IF;
    END IF;
    IF v_actions IS NULL THEN
        RETURN;
    END IF;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
    SELECT v_merge.scope, x.id, v_merge.id,
           CASE WHEN x.a <> 'supersede' THEN x.a
                WHEN v_mode = 'dry' THEN 'would_supersede'
                WHEN x.id = ANY (v_live) THEN 'superseded'
                ELSE 'already_superseded' END,
           x.r, x.e, x.why, x.d
      FROM unnest(v_ids, v_actions, v_rules, v_evidence, v_reasons, v_details)
           WITH ORDINALITY AS x(id, a, r, e, why, d, o)
     ORDER BY x.o;

    IF cardinality(v_live) > 0 THEN
        UPDATE ledger.finding f
           SET superseded_at = now(),
               superseded_by = v_marker,
               superseded_by_merge_id = v_merge.id,
               supersede_rule = v_rules[array_position(v_ids, f.id)]
         WHERE f.id = ANY (v_live);
    END IF;
END
$$;

COMMENT ON FUNCTION ledger._apply_merge(bigint) IS
'What one merge decides (shared by the _200_supersede trigger and reconcile): ledger._merge_decisions (path rule of seed 000 Option A, commit-message rules of issue 3, scope policy). hygiene_mode on: audit rows first (superseded, ambiguous, candidate, mention, skipped), then supersedes; dry: audit with would_supersede only; off: nothing. Findings locked in id order FOR NO KEY UPDATE; a lost race is audited already_superseded. (merge_id bigint) -> void. Raises nothing.';
''',
    # sql/functions/tg_merge__supersede.sql
    r'''
-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- When a merge lands, decide for every active finding of its scope that the
-- merge carries evidence about: the path rule of seed 000 "Option A" and the
-- commit-message rules of issue 3, under the scope's policy and
-- hygiene_mode (on: audit, then supersede; dry: audit would_supersede; off:
-- nothing). The rule itself is ledger._apply_merge(merge_id), shared with
-- ledger.reconcile; see there for the decisions, the audit rows and the
-- lock order. Row-level and fired in insertion order, so multi-row INSERT
-- and COPY give the same result as the same rows inserted one by one or
-- through ledger.record_merge. A redelivered merge (ON CONFLICT DO NOTHING)
-- inserts no row and so has no effect.
-- SECURITY DEFINER (revision 0005_security; fixed search_path,
-- schema-qualified names): a writer that may only INSERT merges still gets
-- its findings superseded and audited, although it may not UPDATE the
-- supersession columns of ledger.finding nor write ledger.supersession.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ledger._apply_merge(NEW.id);
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__supersede() IS
'AFTER INSERT row trigger on ledger.merge, through ledger._apply_merge: ledger._merge_decisions (path rule of seed 000 Option A, commit-message rules of issue 3, scope policy); hygiene_mode on: audit rows first, then supersedes; dry: would_supersede only; off: nothing. SECURITY DEFINER so that writers without UPDATE on findings or INSERT on the audit get the same effect. Raises nothing.';
''',
    # sql/functions/_apply_revert.sql
    r'''
-- ledger._apply_revert(p_merge_id bigint) -> void
--
-- Reverts reopen (issue 5), for one merge row: the body of the AFTER INSERT
-- trigger ledger.tg_merge__revert, shared with ledger.reconcile. A merge
-- whose message says git's "This reverts commit <sha>." (or "This reverts
-- commit <sha>, reversing ...") for a merge recorded in the same scope
-- (ledger._revert_targets) reopens exactly the findings that merge
-- superseded and that are still superseded by it: audit row first (action
-- 'reopened', rule 'revert', merge_id the reverting merge, evidence the
-- reverted sha, detail {reverted_merge_id, reverted_commit} plus what is
-- undone), then the finding is active again (reopen_count + 1). Every sha
-- named is handled; the sha must be the full recorded commit id (git writes
-- it in full), in any case.
-- Explained, never silent (audit rows, no finding change):
--   'not_reopened'   a finding that merge superseded is now dismissed (a
--                    human decision stands), active again, or superseded by
--                    something else since (detail.state, detail.superseded_by);
--   'revert_unknown' the reverted sha is not a merge of this scope
--                    (finding_id NULL, evidence the sha).
-- hygiene_mode: 'dry' writes 'would_reopen' instead of reopening, 'off' does
-- nothing. Every finding any named merge superseded is locked first, in id
-- order and in one statement, FOR NO KEY UPDATE (revision 0005_security:
-- FOR UPDATE, one pass per sha, before); in hygiene_mode 'on'
-- ledger._apply_merge has already taken those locks together with its own,
-- so the whole merge takes its finding locks in one id-ordered pass.
-- Runs with the rights of its caller: EXECUTE is granted to no ledger role;
-- the SECURITY DEFINER callers run it as the owner. An unknown id does
-- nothing. Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger._apply_revert(p_merge_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_merge   ledger.merge;
    v_mode    text;
    v_shas    text[];
    v_ids     bigint[];
    v_i       integer;
    v_sha     text;
    v_target  bigint;
    v_row     ledger.finding;
    v_state   text;
    v_detail  jsonb;
BEGIN
    SELECT m.* INTO v_merge FROM ledger.merge m WHERE m.id = p_merge_id;
    IF NOT FOUND OR strpos(v_merge.message, 'This reverts commit ') = 0 THEN
        RETURN;
    END IF;
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_merge.scope;
    IF v_mode = 'off' THEN
        RETURN;
    END IF;

    SELECT array_agg(t.sha ORDER BY t.o), array_agg(t.target_merge_id ORDER BY t.o) INTO v_shas, v_ids
      FROM ledger._revert_targets(v_merge.scope, v_merge.message, v_merge.id) WITH ORDINALITY AS t(sha, target_merge_id, o);
    IF v_shas IS NULL THEN
        RETURN;
    END IF;
    -- one pass, in id order, over every finding the named merges superseded
    PERFORM count(*)
       FROM (SELECT f.id FROM ledger.finding f
              WHERE f.id IN (SELECT a.finding_id FROM ledger.supersession a
                              WHERE a.merge_id = ANY (v_ids) AND a.action = 'superseded')
              ORDER BY f.id
                FOR NO KEY UPDATE) AS l;

    FOR v_i IN 1 .. cardinality(v_shas) LOOP
        v_sha := v_shas[v_i];
        v_target := v_ids[v_i];
        IF v_target IS NULL THEN
            INSERT INTO ledger.supersession (scope, merge_id, action, rule, evidence, detail, reason)
            VALUES (v_merge.scope, v_merge.id, 'revert_unknown', 'revert', v_sha,
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
               FOR NO KEY UPDATE
        LOOP
            v_state := ledger._finding_state(v_row.superseded_at, v_row.dismissed_at);
            IF v_state = 'superseded' AND v_row.superseded_by_merge_id = v_target THEN
                IF v_mode = 'dry' THEN
                    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail, reason)
                    VALUES (v_merge.scope, v_row.id, v_merge.id, 'would_reopen', 'revert', v_sha, v_detail,
                            'dry mode: the reverted commit ' || v_sha || ' superseded this finding');
                ELSE
                    PERFORM ledger._reopen_finding(v_row, 'reopened', 'revert', NULL,
                        'the merge reverts commit ' || v_sha || ', which superseded this finding',
                        v_sha, v_merge.id, v_detail);
                END IF;
            ELSE
                INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
                VALUES (v_merge.scope, v_row.id, v_merge.id, 'not_reopened', 'revert', v_sha,
                        'the reverted commit ' || v_sha || ' superseded this finding, but it was '
                            || CASE WHEN v_state = 'dismissed' THEN 'dismissed' ELSE 'superseded again' END || ' since',
                        v_detail || jsonb_strip_nulls(jsonb_build_object(
                            'state', v_state, 'superseded_by', v_row.superseded_by,
                            'superseded_by_merge_id', v_row.superseded_by_merge_id,
                            'resolution', v_row.resolution)));
            END IF;
        END LOOP;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger._apply_revert(bigint) IS
'Revert rule of issue 5 for one merge (shared by the _300_revert trigger and reconcile): a message "This reverts commit <sha>." naming a merge of the same scope reopens the findings that merge superseded and still stand superseded by it (audit reopened, rule revert); dismissed or since re-superseded ones are audited not_reopened, an unknown sha revert_unknown; dry: would_reopen; off: nothing. Findings locked in one id-ordered pass FOR NO KEY UPDATE. (merge_id bigint) -> void. Raises nothing.';
''',
    # sql/functions/tg_merge__revert.sql
    r'''
-- ledger.tg_merge__revert() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW;
-- fires after _200_supersede)
--
-- Reverts reopen (issue 5): a merge whose message says git's
-- "This reverts commit <sha>." for a merge recorded in the same scope
-- reopens exactly the findings that merge superseded and that are still
-- superseded by it (audited 'reopened', rule 'revert'); dismissed or since
-- re-superseded ones are audited 'not_reopened', an unknown sha
-- 'revert_unknown'; hygiene_mode 'dry' writes 'would_reopen', 'off' does
-- nothing. The rule itself is ledger._apply_revert(merge_id), shared with
-- ledger.reconcile; see there for the audit rows and the lock order.
-- SECURITY DEFINER (revision 0005_security; fixed search_path,
-- schema-qualified names): a writer that may only INSERT merges still gets
-- the findings reopened and audited, although it may not UPDATE findings
-- nor write ledger.supersession.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__revert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ledger._apply_revert(NEW.id);
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__revert() IS
'AFTER INSERT row trigger on ledger.merge, through ledger._apply_revert: a message "This reverts commit <sha>." naming a merge of the same scope reopens the findings that merge superseded and still stand superseded by it (audit reopened, rule revert); dismissed or since re-superseded ones are audited not_reopened, an unknown sha revert_unknown; dry: would_reopen; off: nothing. SECURITY DEFINER so that writers get the same effect. Raises nothing.';
''',
    # sql/functions/record_merge.sql
    r'''
-- ledger.record_merge(p_scope, p_commit_sha, p_paths, p_message, p_node_id,
--                     p_merged_at, p_branch) -> TABLE(merge_id bigint, recorded boolean, decisions jsonb)
--
-- Records one merge exactly like INSERT INTO ledger.merge ... ON CONFLICT
-- (scope, commit_sha) DO NOTHING (the documented redelivery form) and returns:
--   merge_id   the merge's id (the existing one on redelivery);
--   recorded   true when this call inserted it, false on redelivery (no
--              second effect);
--   decisions  the merge's audit rows as a JSON array of
--              {finding_id, action, rule, evidence, reason, detail}, in id
--              order: superseded / would_supersede / already_superseded,
--              ambiguous, candidate, mention, skipped (issue 3; the design
--              record's archived_findings, with the reason for each).
-- p_branch: the branch the merge landed on (NULL: unknown, never skipped).
-- SECURITY DEFINER (fixed search_path, schema-qualified names): it returns
-- the merge's audit rows, which a writer may not read. The insert still goes
-- through every trigger (validation, _050_scope_access: a scope outside
-- ledger.scopes is refused while per-scope row-level security is on). The
-- redelivery lookup trims scope and commit_sha exactly as the prepare
-- trigger stores them (revision 0005_security: btrim() alone missed tabs,
-- new lines and the vertical tab).
-- Raises LD001-LD004 (see tg_merge__prepare, tg_merge__prepare_branch),
-- LD401 (scope not allowed).
CREATE OR REPLACE FUNCTION ledger.record_merge(
    p_scope text,
    p_commit_sha text,
    p_paths text[] DEFAULT '{}',
    p_message text DEFAULT '',
    p_node_id text DEFAULT NULL,
    p_merged_at timestamptz DEFAULT NULL,
    p_branch text DEFAULT NULL)
RETURNS TABLE (merge_id bigint, recorded boolean, decisions jsonb)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_id bigint;
BEGIN
    INSERT INTO ledger.merge (scope, commit_sha, paths, message, node_id, merged_at, branch)
    VALUES (p_scope, p_commit_sha, p_paths, p_message, p_node_id, p_merged_at, p_branch)
    ON CONFLICT (scope, commit_sha) DO NOTHING
    RETURNING id INTO v_id;
    recorded := v_id IS NOT NULL;
    IF v_id IS NULL THEN
        SELECT m.id INTO v_id FROM ledger.merge m
         WHERE m.scope = ledger._check_text(p_scope, 'merge.scope', true, 200)
           AND m.commit_sha = lower(ledger._check_text(p_commit_sha, 'merge.commit_sha', true, 64));
    END IF;
    merge_id := v_id;
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'finding_id', a.finding_id, 'action', a.action, 'rule', a.rule,
               'evidence', a.evidence, 'reason', a.reason, 'detail', a.detail) ORDER BY a.id), '[]'::jsonb)
      INTO decisions
      FROM ledger.supersession a WHERE a.merge_id = v_id;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text) IS
'Record a merge (INSERT ... ON CONFLICT DO NOTHING) and return (merge_id bigint, recorded boolean, decisions jsonb array of {finding_id, action, rule, evidence, reason, detail}). p_branch: the branch it landed on. Redelivery returns recorded=false and the original decisions. SECURITY DEFINER (returns audit rows). Raises LD001-LD004, LD401.';
''',
    # sql/functions/reconcile.sql
    r'''
-- ledger.reconcile(p_scope text) -> TABLE(merge_id bigint, decisions jsonb)
--
-- Applies the merges of p_scope that never went through the ledger's
-- triggers: rows written while triggers did not fire
-- (session_replication_role = replica, as logical replication's apply
-- worker and pg_restore --disable-triggers write them) keep
-- processed = false. In merge id order, each such merge gets its paths
-- normalised (ledger.normalize_paths) and its branch normalised
-- (ledger._normalize_branch), is marked processed and goes through
-- ledger._apply_merge and then ledger._apply_revert, the functions the
-- _200_supersede and _300_revert triggers run, so it takes exactly the
-- decisions the triggers would take now (path and message rules, scope
-- policy, reverts). Before that, the scope's active findings whose paths
-- are not in normal form (written the same way) are normalised, so that
-- merges can match them.
-- Idempotent: a second call finds nothing to do and returns no row;
-- concurrent calls wait for each other (row locks) and apply each merge once.
-- Returns one row per merge applied: its id and its audit rows as a JSON
-- array of {finding_id, action, rule, evidence, reason, detail} (as
-- record_merge).
-- SECURITY DEFINER (fixed search_path): it updates findings and merges and
-- writes the audit, which its caller (ledger_admin) may not do directly.
-- Raises LD002/LD003/LD004 for a bad p_scope (field reconcile.scope),
-- LD005 for a scope with no scope row, merge or finding, LD401 while
-- per-scope row-level security is on and the scope is not in ledger.scopes,
-- LD001 naming the merge or finding id when a stored path cannot be
-- normalised, LD003/LD004 naming the merge when its branch is malformed
-- (nothing is applied then: fix the row and call again).
CREATE OR REPLACE FUNCTION ledger.reconcile(p_scope text)
RETURNS TABLE (merge_id bigint, decisions jsonb)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_scope text := ledger._check_text(p_scope, 'reconcile.scope', true, 200);
    v_id    bigint;
BEGIN
    PERFORM ledger._check_scope_access(v_scope, 'reconcile.scope');
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = v_scope) THEN
        IF NOT EXISTS (SELECT 1 FROM ledger.merge m WHERE m.scope = v_scope)
           AND NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.scope = v_scope) THEN
            RAISE EXCEPTION 'unknown scope: reconcile.scope %', quote_literal(v_scope) USING ERRCODE = 'LD005';
        END IF;
        -- rows applied without triggers skip the foreign key check too
        PERFORM ledger._ensure_scope(v_scope);
    END IF;

    UPDATE ledger.finding f
       SET paths = ledger.normalize_paths(f.paths, 'finding ' || f.id || ' paths', 1000)
     WHERE f.scope = v_scope
       AND f.superseded_at IS NULL
       AND f.paths IS DISTINCT FROM ledger.normalize_paths(f.paths, 'finding ' || f.id || ' paths', 1000);

    FOR v_id IN
        SELECT m.id FROM ledger.merge m
         WHERE m.scope = v_scope AND NOT m.processed
         ORDER BY m.id
           FOR NO KEY UPDATE
    LOOP
        UPDATE ledger.merge m
           SET paths = ledger.normalize_paths(m.paths, 'merge ' || m.id || ' paths', 100000),
               branch = ledger._normalize_branch(m.branch, 'merge ' || m.id || ' branch'),
               processed = true
         WHERE m.id = v_id;
        PERFORM ledger._apply_merge(v_id);
        PERFORM ledger._apply_revert(v_id);
        merge_id := v_id;
        SELECT coalesce(jsonb_agg(jsonb_build_object(
                   'finding_id', a.finding_id, 'action', a.action, 'rule', a.rule,
                   'evidence', a.evidence, 'reason', a.reason, 'detail', a.detail) ORDER BY a.id), '[]'::jsonb)
          INTO decisions
          FROM ledger.supersession a WHERE a.merge_id = v_id;
        RETURN NEXT;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger.reconcile(text) IS
'Apply, in id order and once, the merges of a scope that were written without the ledger triggers (processed = false, e.g. session_replication_role = replica): normalise their paths and branch (and the scope''s active findings'' paths), mark them processed, run ledger._apply_merge and ledger._apply_revert. (scope text) -> TABLE(merge_id bigint, decisions jsonb array of {finding_id, action, rule, evidence, reason, detail}). Idempotent. Raises LD001-LD005, LD401.';
''',
    # sql/functions/enable_scope_rls.sql
    r'''
-- ledger.enable_scope_rls() -> SETOF regclass
--
-- Turns per-scope row-level security on for this database (a deployment
-- that hosts several tenants): ENABLE ROW LEVEL SECURITY on every ledger
-- table that carries a policy named scope_isolation (scope, finding,
-- merge, supersession, issue, agent_task, injection, and any later table
-- given one), and returns them.
-- From then on every role but the table owner (and superusers, BYPASSRLS
-- roles) sees and writes only the scopes named in the session setting
-- ledger.scopes ('spec-07,spec-08'); unset means none. Writes into another
-- scope get LD401 from the _050_scope_access triggers, for every role.
-- Idempotent. Needs ownership of the tables: run it as the role that ran the
-- migrations (EXECUTE is granted to no ledger role). Takes a short ACCESS
-- EXCLUSIVE lock on each table. Undo with ledger.disable_scope_rls().
-- Raises 42501 (insufficient_privilege) when the caller is not the owner.
CREATE OR REPLACE FUNCTION ledger.enable_scope_rls()
RETURNS SETOF regclass
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_table regclass;
BEGIN
    FOR v_table IN
        SELECT DISTINCT p.polrelid::regclass
          FROM pg_catalog.pg_policy p
          JOIN pg_catalog.pg_class c ON c.oid = p.polrelid
         WHERE c.relnamespace = 'ledger'::pg_catalog.regnamespace AND p.polname = 'scope_isolation'
         ORDER BY 1
    LOOP
        EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', v_table);
        RETURN NEXT v_table;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger.enable_scope_rls() IS
'Turn per-scope row-level security on: ENABLE ROW LEVEL SECURITY on every ledger table with a scope_isolation policy; non-owner roles then see and write only the scopes in the setting ledger.scopes. () -> SETOF regclass (the tables). Owner only; raises 42501 otherwise.';
''',
    # sql/functions/disable_scope_rls.sql
    r'''
-- ledger.disable_scope_rls() -> SETOF regclass
--
-- Turns per-scope row-level security off again (the default after the
-- migrations): DISABLE ROW LEVEL SECURITY on every ledger table that carries
-- a policy named scope_isolation, and returns them. The policies stay, inert.
-- Idempotent. Owner only (EXECUTE is granted to no ledger role); takes a
-- short ACCESS EXCLUSIVE lock on each table.
-- Raises 42501 (insufficient_privilege) when the caller is not the owner.
CREATE OR REPLACE FUNCTION ledger.disable_scope_rls()
RETURNS SETOF regclass
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_table regclass;
BEGIN
    FOR v_table IN
        SELECT DISTINCT p.polrelid::regclass
          FROM pg_catalog.pg_policy p
          JOIN pg_catalog.pg_class c ON c.oid = p.polrelid
         WHERE c.relnamespace = 'ledger'::pg_catalog.regnamespace AND p.polname = 'scope_isolation'
         ORDER BY 1
    LOOP
        EXECUTE format('ALTER TABLE %s DISABLE ROW LEVEL SECURITY', v_table);
        RETURN NEXT v_table;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger.disable_scope_rls() IS
'Turn per-scope row-level security off: DISABLE ROW LEVEL SECURITY on every ledger table with a scope_isolation policy (the policies stay). () -> SETOF regclass. Owner only; raises 42501 otherwise.';
''',
    # sql/functions/read_audit.sql
    r'''
-- ledger.read_audit(p_scope text, p_finding_id bigint DEFAULT NULL,
--                   p_merge_id bigint DEFAULT NULL) -> SETOF ledger.supersession
--
-- The audit trail of a scope in the order it was written, optionally only
-- one finding's or one merge's rows. Raises LD005 (not_found) for an
-- unknown scope, and for a finding or merge id that is not one of the scope's
-- (an empty answer would hide a mistyped id). Under per-scope row-level
-- security a scope the connection may not see is unknown.
CREATE OR REPLACE FUNCTION ledger.read_audit(
    p_scope text, p_finding_id bigint DEFAULT NULL, p_merge_id bigint DEFAULT NULL)
RETURNS SETOF ledger.supersession
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_nullable(p_scope) USING ERRCODE = 'LD005';
    END IF;
    IF p_finding_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.id = p_finding_id AND f.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown finding_id: % is not a finding of scope %', p_finding_id, quote_literal(p_scope)
            USING ERRCODE = 'LD005';
    END IF;
    IF p_merge_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ledger.merge m WHERE m.id = p_merge_id AND m.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown merge_id: % is not a merge of scope %', p_merge_id, quote_literal(p_scope)
            USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
        SELECT a.* FROM ledger.supersession a
         WHERE a.scope = p_scope
           AND (p_finding_id IS NULL OR a.finding_id = p_finding_id)
           AND (p_merge_id IS NULL OR a.merge_id = p_merge_id)
         ORDER BY a.id;
END
$$;

COMMENT ON FUNCTION ledger.read_audit(text, bigint, bigint) IS
'Audit rows of a scope in write order, optionally filtered by finding or merge. (scope, finding_id, merge_id) -> SETOF ledger.supersession. Raises LD005 for an unknown scope, or a finding or merge id not in the scope.';
''',
    # sql/functions/set_hygiene_mode.sql
    r'''
-- ledger.set_hygiene_mode(p_scope text, p_mode text) -> ledger.scope
--
-- Sets a scope's hygiene_mode ('on' supersede, 'dry' audit only, 'off'
-- nothing), creating the scope when it does not exist yet; returns the row.
-- The same as INSERT INTO ledger.scope ... ON CONFLICT (scope) DO UPDATE.
-- Raises LD002 (scope or mode missing: a NULL mode is an error here, not
-- the column default), LD003 (mode not on, dry or off), LD004, LD401.
CREATE OR REPLACE FUNCTION ledger.set_hygiene_mode(p_scope text, p_mode text)
RETURNS ledger.scope
LANGUAGE sql
AS $$
    INSERT INTO ledger.scope AS s (scope, hygiene_mode)
    VALUES (p_scope, ledger._check_text(p_mode, 'scope.hygiene_mode', true, 10))
    ON CONFLICT (scope) DO UPDATE SET hygiene_mode = excluded.hygiene_mode
    RETURNING s.*
$$;

COMMENT ON FUNCTION ledger.set_hygiene_mode(text, text) IS
'Set (upsert) a scope''s hygiene_mode: on, dry or off. (scope text, mode text) -> ledger.scope. Raises LD002, LD003, LD004 naming field and value.';
''',
    # sql/views/active_finding.sql
    r'''
-- ledger.active_finding: the findings still to be injected into prompts.
--
-- Exactly the findings with superseded_at IS NULL (the seed 000 filter
-- "superseded_by IS NULL", kept as a view so every reader applies the same
-- rule). Columns: id, scope, finding_key, kind, severity, title, description,
-- paths, source, created_at. Ordered by nothing; use
-- ledger.active_findings(scope) for the prompt order.
-- While per-scope row-level security is on and applies to the reader, only
-- the scopes in ledger.scopes: a view reads its tables with its owner's
-- rights, so the policies on ledger.finding would not apply through it
-- (security_invoker views need PostgreSQL 15); the same predicate is
-- written here. Both conditions are uncorrelated subqueries, evaluated once
-- per query.
CREATE OR REPLACE VIEW ledger.active_finding AS
SELECT f.id, f.scope, f.finding_key, f.kind, f.severity, f.title, f.description,
       f.paths, f.source, f.created_at
  FROM ledger.finding f
 WHERE f.superseded_at IS NULL
   AND (NOT (SELECT pg_catalog.row_security_active('ledger.finding'::pg_catalog.regclass))
        OR f.scope = ANY ((SELECT ledger._visible_scopes())::text[]));

COMMENT ON VIEW ledger.active_finding IS
'Active findings (superseded_at IS NULL): the set a prompt builder injects. Implements the superseded_by IS NULL filter of seed 000. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
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
-- Revision 0005_security: while per-scope row-level security is on and
-- applies to the reader, only the scopes in ledger.scopes: a view reads its
-- tables with its owner's rights, so the policies on ledger.finding would
-- not apply through it (security_invoker views need PostgreSQL 15); the
-- same predicate as ledger.active_finding is written here.
CREATE OR REPLACE VIEW ledger.finding_lifecycle AS
SELECT f.id, f.scope, f.finding_key, f.kind, f.severity, f.title,
       ledger._finding_state(f.superseded_at, f.dismissed_at) AS state,
       f.resolution, f.dismissed_at, f.dismissed_by, f.dismissal_reason,
       f.superseded_at, f.superseded_by, f.superseded_by_merge_id, f.supersede_rule,
       f.report_count, f.last_reported_at, f.reopen_count, f.review_run, f.created_at
  FROM ledger.finding f
 WHERE NOT (SELECT pg_catalog.row_security_active('ledger.finding'::pg_catalog.regclass))
    OR f.scope = ANY ((SELECT ledger._visible_scopes())::text[]);

COMMENT ON VIEW ledger.finding_lifecycle IS
'Every finding with its derived lifecycle state (active, superseded, dismissed), its dismissal (resolution, by, reason), its supersession and its counters (report_count, last_reported_at, reopen_count, review_run). Implements the states of issue 5. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
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
-- counters afterwards. The row is locked (FOR NO KEY UPDATE; revision
-- 0005_security, FOR UPDATE before) while it is decided; two sessions
-- reporting the same new key at once both succeed, one 'new' and one
-- 'duplicate'.
-- SECURITY DEFINER (revision 0005_security; fixed search_path): granted to
-- ledger_writer, who may not update findings nor write the audit directly.
-- The scope must be one the connection may use (ledger._check_scope_access:
-- per-scope row-level security).
-- Raises LD002 (scope, finding_key or title missing), LD001-LD004 for a new
-- finding's fields (see tg_finding__prepare), each naming field and value;
-- LD401 for a scope outside ledger.scopes under row-level security.
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
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_scope text := ledger._check_text(p_scope, 'finding.scope', true, 200);
    v_key   text := ledger._check_text(p_finding_key, 'finding.finding_key', true, 200);
    v_run   text := ledger._check_text(p_review_run, 'finding.review_run', false, 200);
    v_row   ledger.finding;
    v_state text;
BEGIN
    PERFORM ledger._check_scope_access(v_scope, 'finding.scope');
    PERFORM ledger._check_text(p_title, 'finding.title', true, 1000);
    LOOP
        SELECT f.* INTO v_row FROM ledger.finding f
         WHERE f.scope = v_scope AND f.finding_key = v_key
           FOR NO KEY UPDATE;
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
'Report a finding by (scope, finding_key): new (inserted), duplicate (active: re-report counted), reopened (was superseded: active again, audited), still_dismissed (a person dismissed it: unchanged but counted). (scope, finding_key, title, description, paths, kind, severity, source, review_run) -> TABLE(finding_id, outcome, state, report_count, reopen_count). SECURITY DEFINER (ledger_writer). Raises LD001-LD004, LD401.';
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
-- Locks (revision 0005_security): before anything changes, every finding
-- the re-review may change (those of the set's keys, and the scope's active
-- findings of the kind unless hygiene_mode is 'off') is locked in one
-- statement, in id order, FOR NO KEY UPDATE (FOR UPDATE, in set order, and
-- a second pass before), so a re-review never deadlocks with merges,
-- dismissals or re-reports; the absent set is taken from those locked
-- findings, so a finding restored while the re-review runs stays active.
-- SECURITY DEFINER (revision 0005_security; fixed search_path): granted to
-- ledger_writer, who may not update findings nor write the audit directly;
-- the scope must be one the connection may use (per-scope row-level
-- security, LD401).
-- An element's kind must equal p_kind when both are given; with p_kind NULL
-- it defaults to 'review'. The element's source defaults to the review run.
-- Raises LD002 (scope, review_run, an element's finding_key or title
-- missing), LD003 (p_findings not an array, an element not an object, paths
-- not an array of strings, a kind differing from p_kind), LD303 (one
-- finding_key twice in the set), each naming findings[i] and the value;
-- LD001-LD004 from the finding triggers for a new finding's stored fields
-- (naming finding.<field>); LD401 for a scope outside ledger.scopes under
-- row-level security. The scope is created on first use. Nothing is
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
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
    v_keys    text[];
    v_locked  bigint[];
    v_present bigint[] := '{}';
    v_absent  bigint[];
    v_rep     record;
BEGIN
    PERFORM ledger._check_scope_access(v_scope, 'scope');
    IF p_findings IS NULL OR jsonb_typeof(p_findings) <> 'array' THEN
        RAISE EXCEPTION 'invalid findings: expected a JSON array of findings, got %',
            coalesce(jsonb_typeof(p_findings), 'NULL') USING ERRCODE = 'LD003';
    END IF;
    -- one finding_key twice: named at its second occurrence (one sort, not a scan per element)
    SELECT d.ord, d.key INTO v_dup
      FROM (SELECT e.ord, btrim(e.elem ->> 'finding_key', E' \t\r\n\f\x0b') AS key,
                   row_number() OVER (PARTITION BY btrim(e.elem ->> 'finding_key', E' \t\r\n\f\x0b') ORDER BY e.ord) AS nth
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
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_scope;

    -- every finding this re-review may change, locked in one pass in id order
    v_keys := ARRAY(SELECT btrim(e ->> 'finding_key', E' \t\r\n\f\x0b')
                      FROM jsonb_array_elements(p_findings) AS e
                     WHERE jsonb_typeof(e) = 'object' AND e ->> 'finding_key' IS NOT NULL);
    v_locked := ARRAY(SELECT l.id
                        FROM (SELECT f.id FROM ledger.finding f
                               WHERE f.scope = v_scope
                                 AND (f.finding_key = ANY (v_keys)
                                      OR (v_mode <> 'off' AND f.superseded_at IS NULL
                                          AND (v_kind IS NULL OR f.kind = v_kind)))
                               ORDER BY f.id
                                 FOR NO KEY UPDATE) AS l);

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

    IF v_mode = 'off' THEN
        RETURN NEXT;
        RETURN;
    END IF;

    -- absent: the locked findings still active (of the kind) and not in the new set
    -- (a hashed EXCEPT, not a scan of the set per finding); their locks are held
    SELECT array_agg(f.id ORDER BY f.id) INTO v_absent
      FROM ledger.finding f
     WHERE f.id IN (SELECT c.id FROM unnest(v_locked) AS c(id)
                    EXCEPT
                    SELECT p.id FROM unnest(v_present) AS p(id))
       AND f.superseded_at IS NULL
       AND (v_kind IS NULL OR f.kind = v_kind);
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
'A re-review''s complete new set for a scope (and optionally a kind): present findings are added, kept or reopened (dismissed ones stay dismissed), absent active ones are superseded with rule rereview (audited first; dry: would_supersede; off: nothing). Findings locked in one id-ordered pass; SECURITY DEFINER (ledger_writer). (scope, kind, review_run, findings jsonb array of {finding_key, title, description, paths, severity, kind, source}, actor) -> TABLE(added, kept, reopened, still_dismissed, superseded, would_supersede). Raises LD001-LD004, LD303, LD401.';
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
-- Returns the finding afterwards. The finding is locked FOR NO KEY UPDATE
-- (revision 0005_security; FOR UPDATE before: that lock made the audit
-- rows' foreign key checks of concurrent merges wait, out of id order).
-- SECURITY DEFINER (revision 0005_security; fixed search_path): granted to
-- ledger_admin, who may not update findings nor write the audit directly. A
-- finding of a scope the connection may not see under per-scope row-level
-- security (ledger._scope_visible) is unknown.
-- Raises LD005 (unknown id), LD002 (actor or reason missing), LD003
-- (resolution not one of the four), LD004, LD302 (already dismissed:
-- restore it first to change the decision).
CREATE OR REPLACE FUNCTION ledger.dismiss_finding(
    p_finding_id bigint, p_resolution text, p_actor text, p_reason text)
RETURNS ledger.finding_lifecycle
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
    SELECT f.* INTO v_row FROM ledger.finding f
     WHERE f.id = p_finding_id AND ledger._scope_visible(f.scope)
       FOR NO KEY UPDATE;
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
'A person dismisses a finding (accepted, false_positive, wont_fix, duplicate) with actor and reason; audited first; it also leaves the active set (superseded_at, rule dismissal) and no automation changes it again. SECURITY DEFINER (ledger_admin); a finding of a scope outside ledger.scopes under row-level security is unknown. (finding_id, resolution, actor, reason) -> ledger.finding_lifecycle. Raises LD002, LD003, LD004, LD005, LD302 (already dismissed).';
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
-- is incremented. Returns the finding afterwards. The finding is locked
-- FOR NO KEY UPDATE (revision 0005_security; FOR UPDATE before).
-- SECURITY DEFINER (revision 0005_security; fixed search_path): granted to
-- ledger_admin, who may not update findings nor write the audit directly. A
-- finding of a scope the connection may not see under per-scope row-level
-- security (ledger._scope_visible) is unknown.
-- Raises LD005 (unknown id), LD002 (actor or reason missing), LD004, LD302
-- (the finding is already active).
CREATE OR REPLACE FUNCTION ledger.restore_finding(p_finding_id bigint, p_actor text, p_reason text)
RETURNS ledger.finding_lifecycle
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_actor  text := ledger._check_text(p_actor, 'actor', true, 200);
    v_reason text := ledger._check_text(p_reason, 'reason', true, 10000, false);
    v_row    ledger.finding;
    v_out    ledger.finding_lifecycle;
BEGIN
    SELECT f.* INTO v_row FROM ledger.finding f
     WHERE f.id = p_finding_id AND ledger._scope_visible(f.scope)
       FOR NO KEY UPDATE;
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
'Undo a supersession or a dismissal: the finding is active again, audited (restored, manual, actor, reason, what was undone), reopen_count + 1. SECURITY DEFINER (ledger_admin); a finding of a scope outside ledger.scopes under row-level security is unknown. (finding_id, actor, reason) -> ledger.finding_lifecycle. Raises LD002, LD004, LD005, LD302 (already active).';
''',
    # sql/functions/import_finding.sql
    r'''
-- ledger.import_finding(p_scope, p_title, p_description, p_paths, p_kind, p_severity,
--                       p_finding_key, p_source, p_slug, p_strong_keywords, p_tags)
--     -> TABLE(id bigint, finding_key text, slug text, status text)
--
-- Inserts a finding read from a findings file or a drift review (issue 3,
-- "Importers"), or, when the scope already has it, refreshes it, so that
-- re-importing the same files creates no duplicates. The finding is
-- identified by its finding_key when it has one (ON CONFLICT (scope,
-- finding_key)), otherwise by its slug (ON CONFLICT (scope, slug)), and is
-- inserted as new when it has neither. status:
--   inserted    a new finding;
--   updated     an active finding whose title, description, paths, kind,
--               severity, source, slug, strong_keywords or tags changed;
--   unchanged   an active finding with exactly these values;
--   retired     a finding already superseded (or dismissed): left alone,
--               never brought back by a re-import.
-- The row passes the same triggers as any INSERT, with the transaction-local
-- setting ledger.reporting = 'on' that lets an identified re-import reach its
-- ON CONFLICT clause instead of the plain-INSERT duplicate-key error LD301
-- (an import is a sync from files: unlike ledger.report_finding it never
-- reopens a retired finding). Raises LD001-LD004,
-- LD101, LD102 (see tg_finding__prepare, tg_finding__prepare_evidence), and
-- 23505 when the slug belongs to another finding of the scope
-- (finding_scope_slug_key), LD401 (from the _050_scope_access trigger,
-- which fires for the proposed row before ON CONFLICT) for a scope outside
-- ledger.scopes under per-scope row-level security.
-- Revision 0005_security: SECURITY DEFINER (fixed search_path), because the
-- refresh is an UPDATE of a finding, which ledger_writer may not do
-- directly; the lookup of an unchanged or retired finding trims with
-- E'\x0b' (E'\v' is the letter v in PostgreSQL).
CREATE OR REPLACE FUNCTION ledger.import_finding(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_finding_key text DEFAULT NULL,
    p_source text DEFAULT NULL,
    p_slug text DEFAULT NULL,
    p_strong_keywords text[] DEFAULT '{}',
    p_tags text[] DEFAULT '{}')
RETURNS TABLE (id bigint, finding_key text, slug text, status text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_id       bigint;
    v_inserted boolean;
BEGIN
    PERFORM set_config('ledger.reporting', 'on', true);
    IF p_finding_key IS NOT NULL THEN
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags)
        ON CONFLICT (scope, finding_key) DO UPDATE
           SET title = excluded.title, description = excluded.description, paths = excluded.paths,
               kind = excluded.kind, severity = excluded.severity, source = excluded.source,
               slug = excluded.slug, strong_keywords = excluded.strong_keywords, tags = excluded.tags
         WHERE f.superseded_at IS NULL
           AND (f.title, f.description, f.paths, f.kind, f.severity, f.source, f.slug, f.strong_keywords, f.tags)
               IS DISTINCT FROM (excluded.title, excluded.description, excluded.paths, excluded.kind,
                                 excluded.severity, excluded.source, excluded.slug, excluded.strong_keywords,
                                 excluded.tags)
        RETURNING f.id, (f.xmax = 0) INTO v_id, v_inserted;
    ELSIF p_slug IS NOT NULL THEN
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags)
        ON CONFLICT (scope, slug) DO UPDATE
           SET title = excluded.title, description = excluded.description, paths = excluded.paths,
               kind = excluded.kind, severity = excluded.severity, source = excluded.source,
               strong_keywords = excluded.strong_keywords, tags = excluded.tags
         WHERE f.superseded_at IS NULL
           AND (f.title, f.description, f.paths, f.kind, f.severity, f.source, f.strong_keywords, f.tags)
               IS DISTINCT FROM (excluded.title, excluded.description, excluded.paths, excluded.kind,
                                 excluded.severity, excluded.source, excluded.strong_keywords, excluded.tags)
        RETURNING f.id, (f.xmax = 0) INTO v_id, v_inserted;
    ELSE
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags)
        RETURNING f.id, true INTO v_id, v_inserted;
    END IF;
    PERFORM set_config('ledger.reporting', '', true);

    IF v_id IS NOT NULL THEN
        RETURN QUERY SELECT f.id, f.finding_key, f.slug, CASE WHEN v_inserted THEN 'inserted' ELSE 'updated' END
                       FROM ledger.finding f WHERE f.id = v_id;
        RETURN;
    END IF;
    -- the conflict's WHERE was false: the existing finding is unchanged or retired
    RETURN QUERY
        SELECT f.id, f.finding_key, f.slug,
               CASE WHEN f.superseded_at IS NULL THEN 'unchanged' ELSE 'retired' END
          FROM ledger.finding f
         WHERE f.scope = btrim(p_scope, E' \t\r\n\f\x0b')
           AND CASE WHEN p_finding_key IS NOT NULL THEN f.finding_key = btrim(p_finding_key, E' \t\r\n\f\x0b')
                    ELSE f.slug = (SELECT n.slug FROM (SELECT regexp_replace(pg_catalog.normalize(btrim(p_slug), 'NFC'),
                                   '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)\.[mM][dD]$', '\1') AS slug) AS n) END;
END
$$;

COMMENT ON FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[]) IS
'Insert or refresh an imported finding, identified by (scope, finding_key), else (scope, slug): no duplicates on re-import; a superseded or dismissed finding is left alone. (scope, title, description, paths, kind, severity, finding_key, source, slug, strong_keywords, tags) -> TABLE(id, finding_key, slug, status inserted|updated|unchanged|retired). SECURITY DEFINER (ledger_writer). Raises LD001-LD004, LD101, LD102, LD401, 23505 (slug of another finding).';
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
-- agent p_agent_id when given, with FOR NO KEY UPDATE SKIP LOCKED: concurrent
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
-- Revision 0005_security: SECURITY DEFINER (fixed search_path), granted to
-- ledger_agent: the claim writes issue_snapshot and the dispatch columns on
-- behalf of an agent that may not (no UPDATE on ledger.agent_task; the
-- _200_guard_snapshot flag is a guard against mistakes, privileges are the
-- wall). Under per-scope row-level security it claims only tasks whose
-- issue's scope the connection may see (ledger._scope_visible; tasks of
-- other scopes are never locked). The task is locked FOR NO KEY UPDATE SKIP
-- LOCKED (FOR UPDATE before: claimers still skip each other's tasks, and a
-- concurrent enqueue_task of a rerun no longer waits).
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
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
       AND ledger._scope_visible((SELECT i.scope FROM ledger.issue i WHERE i.id = t.issue_id))
     ORDER BY t.id
     LIMIT 1
       FOR NO KEY UPDATE SKIP LOCKED;
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
'Claim the next queued task of a runtime (optionally of one agent; under row-level security only of the connection''s scopes) with FOR NO KEY UPDATE SKIP LOCKED: dispatch it, CAS-write its issue_snapshot, and return (task_id, issue_id, agent_id, runtime_id, dispatch_count, dispatched_at, rerun_of_task_id, force_fresh_session, resume_session_id, resumed_task_id, anchor_task_id, snapshot_written, issue_status, issue_assignee_type, issue_assignee_id, issue_priority, issue_state_delta_known, issue_changed_fields text[] in order title, description or NULL when unknown, delta_basis). No row when the queue is empty. SECURITY DEFINER (ledger_agent). Raises LD002-LD004 for the arguments, LD003 for an invalid ledger.snapshot_version.';
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
-- Revision 0005_security: SECURITY DEFINER (fixed search_path), granted to
-- ledger_agent, which has no UPDATE on ledger.agent_task (a direct UPDATE
-- could dispatch a task outside ledger.claim_task); the task is locked FOR
-- NO KEY UPDATE (FOR UPDATE before: it made a concurrent enqueue_task of a
-- rerun of this task wait for its foreign key check); a task whose issue's
-- scope the connection may not see under per-scope row-level security
-- (ledger._scope_visible) is unknown (LD005).
CREATE OR REPLACE FUNCTION ledger.start_task(p_task_id bigint, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t
     WHERE t.id = p_task_id
       AND ledger._scope_visible((SELECT i.scope FROM ledger.issue i WHERE i.id = t.issue_id))
       FOR NO KEY UPDATE;
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
'Start a dispatched task: status running, started_at set, optionally the provider session_id. (task_id, session_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005 (unknown task), LD201 (not dispatched), LD003/LD004 (session_id).';
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
-- Revision 0005_security: SECURITY DEFINER (fixed search_path), granted to
-- ledger_agent, which has no UPDATE on ledger.agent_task (a direct UPDATE
-- could dispatch a task outside ledger.claim_task); the task is locked FOR
-- NO KEY UPDATE (FOR UPDATE before: it made a concurrent enqueue_task of a
-- rerun of this task wait for its foreign key check); a task whose issue's
-- scope the connection may not see under per-scope row-level security
-- (ledger._scope_visible) is unknown (LD005).
CREATE OR REPLACE FUNCTION ledger.complete_task(p_task_id bigint, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t
     WHERE t.id = p_task_id
       AND ledger._scope_visible((SELECT i.scope FROM ledger.issue i WHERE i.id = t.issue_id))
       FOR NO KEY UPDATE;
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
'Complete a running task: status completed, completed_at set, optionally the final session_id. (task_id, session_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201 (not running), LD003/LD004.';
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
-- Revision 0005_security: SECURITY DEFINER (fixed search_path), granted to
-- ledger_agent, which has no UPDATE on ledger.agent_task (a direct UPDATE
-- could dispatch a task outside ledger.claim_task); the task is locked FOR
-- NO KEY UPDATE (FOR UPDATE before: it made a concurrent enqueue_task of a
-- rerun of this task wait for its foreign key check); a task whose issue's
-- scope the connection may not see under per-scope row-level security
-- (ledger._scope_visible) is unknown (LD005).
CREATE OR REPLACE FUNCTION ledger.fail_task(p_task_id bigint, p_failure_reason text, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t
     WHERE t.id = p_task_id
       AND ledger._scope_visible((SELECT i.scope FROM ledger.issue i WHERE i.id = t.issue_id))
       FOR NO KEY UPDATE;
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
'Fail a dispatched or running task with a failure_reason (poisoned reasons stop its session from being resumed). (task_id, failure_reason, session_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201, LD002 (reason missing), LD003/LD004.';
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
-- Revision 0005_security: SECURITY DEFINER (fixed search_path), granted to
-- ledger_agent, which has no UPDATE on ledger.agent_task (a direct UPDATE
-- could dispatch a task outside ledger.claim_task); the task is locked FOR
-- NO KEY UPDATE (FOR UPDATE before: it made a concurrent enqueue_task of a
-- rerun of this task wait for its foreign key check); a task whose issue's
-- scope the connection may not see under per-scope row-level security
-- (ledger._scope_visible) is unknown (LD005).
CREATE OR REPLACE FUNCTION ledger.cancel_task(p_task_id bigint, p_reason text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t
     WHERE t.id = p_task_id
       AND ledger._scope_visible((SELECT i.scope FROM ledger.issue i WHERE i.id = t.issue_id))
       FOR NO KEY UPDATE;
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
'Cancel a queued, dispatched or running task (optional reason kept in failure_reason). (task_id, reason) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201 (already final), LD003/LD004.';
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
-- Revision 0005_security: SECURITY DEFINER (fixed search_path), granted to
-- ledger_agent, which has no UPDATE on ledger.agent_task (a direct UPDATE
-- could dispatch a task outside ledger.claim_task); the task is locked FOR
-- NO KEY UPDATE (FOR UPDATE before: it made a concurrent enqueue_task of a
-- rerun of this task wait for its foreign key check); a task whose issue's
-- scope the connection may not see under per-scope row-level security
-- (ledger._scope_visible) is unknown (LD005).
CREATE OR REPLACE FUNCTION ledger.requeue_task(p_task_id bigint)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t
     WHERE t.id = p_task_id
       AND ledger._scope_visible((SELECT i.scope FROM ledger.issue i WHERE i.id = t.issue_id))
       FOR NO KEY UPDATE;
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
'Put a dispatched, never-started task back in the queue; the next claim is a new dispatch with a fresh snapshot. (task_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201 (not dispatched).';
''',
    # sql/triggers/finding___050_scope_access.sql
    r'''
-- Trigger _050_scope_access on ledger.finding: while per-scope row-level
-- security is on, the row's scope must be listed in ledger.scopes (LD401).
-- Fires before _100_prepare.
DROP TRIGGER IF EXISTS _050_scope_access ON ledger.finding;
CREATE TRIGGER _050_scope_access
    BEFORE INSERT OR UPDATE OF scope ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scoped__check_access();
''',
    # sql/triggers/merge___050_scope_access.sql
    r'''
-- Trigger _050_scope_access on ledger.merge: while per-scope row-level
-- security is on, the row's scope must be listed in ledger.scopes (LD401).
-- Fires before _100_prepare.
DROP TRIGGER IF EXISTS _050_scope_access ON ledger.merge;
CREATE TRIGGER _050_scope_access
    BEFORE INSERT OR UPDATE OF scope ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scoped__check_access();
''',
    # sql/triggers/scope___050_scope_access.sql
    r'''
-- Trigger _050_scope_access on ledger.scope: while per-scope row-level
-- security is on, the row's scope must be listed in ledger.scopes (LD401).
-- Fires before _100_prepare.
DROP TRIGGER IF EXISTS _050_scope_access ON ledger.scope;
CREATE TRIGGER _050_scope_access
    BEFORE INSERT OR UPDATE OF scope ON ledger.scope
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scoped__check_access();
''',
    # sql/triggers/issue___050_scope_access.sql
    r'''
-- Trigger _050_scope_access on ledger.issue: while per-scope row-level
-- security is on, the row's scope must be listed in ledger.scopes (LD401).
-- Fires before _100_prepare.
DROP TRIGGER IF EXISTS _050_scope_access ON ledger.issue;
CREATE TRIGGER _050_scope_access
    BEFORE INSERT OR UPDATE OF scope ON ledger.issue
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scoped__check_access();
''',
    # sql/triggers/supersession___010_append_only.sql
    r'''
-- Trigger _010_append_only on ledger.supersession: no UPDATE or DELETE of an
-- audit row except by the table owner (LD402).
DROP TRIGGER IF EXISTS _010_append_only ON ledger.supersession;
CREATE TRIGGER _010_append_only
    BEFORE UPDATE OR DELETE ON ledger.supersession
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_supersession__append_only();
''',
    # sql/triggers/supersession___011_append_only_truncate.sql
    r'''
-- Trigger _011_append_only_truncate on ledger.supersession: no TRUNCATE of
-- the audit except by the table owner (LD402).
DROP TRIGGER IF EXISTS _011_append_only_truncate ON ledger.supersession;
CREATE TRIGGER _011_append_only_truncate
    BEFORE TRUNCATE ON ledger.supersession
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_supersession__append_only();
''',
]

# The 0001-0004 texts of every object replaced above (the latest revision
# that created each), frozen from those revisions, restored by downgrade().
RESTORE_SQL = [
    # sql/functions/_check_text.sql as frozen in 0001_foundation
    r'''
-- ledger._check_text(p_value text, p_field text, p_required boolean, p_max_length integer, p_single_line boolean DEFAULT true) -> text
--
-- Validates one text field of a row written by a service and returns it
-- trimmed of surrounding white space (NULL stays NULL when not required).
-- Raises, naming the field and the value:
--   LD002 value_required  NULL or blank when p_required;
--   LD003 value_invalid   a control character in a single-line field, or a
--                         blank string in an optional field (use NULL);
--   LD004 value_too_long  more than p_max_length characters.
CREATE OR REPLACE FUNCTION ledger._check_text(
    p_value text, p_field text, p_required boolean, p_max_length integer, p_single_line boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v text := btrim(p_value, E' \t\r\n\f\v');
BEGIN
    IF p_value IS NULL THEN
        IF p_required THEN
            RAISE EXCEPTION '% is required', p_field USING ERRCODE = 'LD002';
        END IF;
        RETURN NULL;
    END IF;
    IF v = '' THEN
        IF p_required THEN
            RAISE EXCEPTION '% is required: got %', p_field, quote_literal(p_value) USING ERRCODE = 'LD002';
        END IF;
        RAISE EXCEPTION 'invalid %: % is blank; use NULL for no value', p_field, quote_literal(p_value)
            USING ERRCODE = 'LD003';
    END IF;
    IF length(v) > p_max_length THEN
        RAISE EXCEPTION 'invalid %: % characters, at most % are accepted (value starts %)',
            p_field, length(v), p_max_length, quote_literal(left(v, 40))
            USING ERRCODE = 'LD004';
    END IF;
    IF p_single_line AND v ~ '[\x01-\x1f\x7f]' THEN
        RAISE EXCEPTION 'invalid %: % contains a control character', p_field, quote_literal(left(v, 200))
            USING ERRCODE = 'LD003';
    END IF;
    RETURN v;
END
$$;

COMMENT ON FUNCTION ledger._check_text(text, text, boolean, integer, boolean) IS
'Validate and trim one text field. (value, field, required, max_length, single_line) -> text. Raises LD002 (required), LD003 (control character / blank optional), LD004 (too long), naming the field and value.';
''',
    # sql/functions/normalize_path.sql as frozen in 0001_foundation
    r'''
-- ledger.normalize_path(p_path text, p_field text DEFAULT 'path') -> text
--
-- Normalises one repository-relative path, or rejects it. Rules, in order:
--   1. surrounding white space is trimmed;
--   2. backslashes become '/';
--   3. a trailing ':line' or ':line:col' suffix is dropped (src/a.py:42:10 -> src/a.py);
--   4. '.' segments and repeated '/' disappear (./a//b/./c -> a/b/c);
--   5. a trailing '/' is kept: it marks a directory reference.
-- Rejected with SQLSTATE LD001 (path_rejected), the message naming p_field and
-- the value: NULL, empty after normalisation, absolute ('/x', '//x', 'C:/x'),
-- a '..' segment, a control character (U+0000-U+001F, U+007F), or longer than
-- 4096 characters.
-- Implements the path normalisation of the foundation issue (seed 000 paths
-- arrive from reviewers as 'packages/x/', './src/a.py:12', 'src\win.py').
CREATE OR REPLACE FUNCTION ledger.normalize_path(p_path text, p_field text DEFAULT 'path')
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_path text;
    v_dir  boolean;
BEGIN
    IF p_path IS NULL THEN
        RAISE EXCEPTION 'invalid path in %: NULL is not a path', p_field
            USING ERRCODE = 'LD001', HINT = 'Leave a NULL out of the array instead.';
    END IF;
    IF length(p_path) > 4096 THEN
        RAISE EXCEPTION 'invalid path in %: "%..." is longer than 4096 characters', p_field, left(p_path, 60)
            USING ERRCODE = 'LD001';
    END IF;
    v_path := btrim(p_path, E' \t\r\n\f\v');
    IF v_path ~ '[\x01-\x1f\x7f]' THEN
        RAISE EXCEPTION 'invalid path in %: % contains a control character', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    v_path := replace(v_path, '\', '/');
    IF v_path ~ '^/' OR v_path ~ '^[A-Za-z]:/' OR v_path ~ '^[A-Za-z]:$' THEN
        RAISE EXCEPTION 'invalid path in %: % is absolute; paths are relative to the repository root', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    v_path := regexp_replace(v_path, ':[0-9]+(:[0-9]+)?$', '');
    v_dir := v_path ~ '/$';
    -- drop '.' and empty segments, keep the rest in order
    SELECT string_agg(seg, '/' ORDER BY ord) INTO v_path
    FROM unnest(string_to_array(v_path, '/')) WITH ORDINALITY AS t(seg, ord)
    WHERE seg <> '' AND seg <> '.';
    IF v_path IS NULL THEN
        RAISE EXCEPTION 'invalid path in %: % is empty once normalised', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    IF '..' = ANY (string_to_array(v_path, '/')) THEN
        RAISE EXCEPTION 'invalid path in %: % contains a ".." segment', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    IF v_dir THEN
        v_path := v_path || '/';
    END IF;
    RETURN v_path;
END
$$;

COMMENT ON FUNCTION ledger.normalize_path(text, text) IS
'Normalise one repository-relative path (trim, \ to /, drop :line[:col], drop ./ and //, keep a trailing / for directories). (path text, field text) -> text. Raises LD001 naming the field and value for NULL, empty, absolute, .. segments, control characters, >4096 chars.';
''',
    # sql/functions/_scoped_paths.sql as frozen in 0001_foundation
    r'''
-- ledger._scoped_paths(p_scope text, p_paths text[]) -> text[]
--
-- Each path prefixed with its scope and a U+001F separator, so that one GIN
-- index (finding_active_paths_idx) answers "active findings of scope S that
-- reference any of these paths" without touching other scopes. Scopes and
-- paths never contain control characters (the prepare triggers reject them),
-- so the separator cannot collide. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._scoped_paths(p_scope text, p_paths text[])
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ARRAY(SELECT p_scope || E'\x1f' || p FROM pg_catalog.unnest(p_paths) AS p)
$$;

COMMENT ON FUNCTION ledger._scoped_paths(text, text[]) IS
'Index key of a finding''s paths: scope || U+001F || path for each path. (text, text[]) -> text[]. Raises nothing.';
''',
    # sql/functions/tg_merge__supersede.sql as frozen in 0004_matching
    r'''
-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- When a merge lands, decide for every active finding of its scope that the
-- merge carries evidence about (ledger._merge_decisions): the path rule of
-- seed 000 "Option A" (a touched path the finding references) and the
-- commit-message rules of issue 3 (key, slug, keyword, title, governed by a
-- resolution verb, unambiguous), under the scope's policy. Per the scope's
-- hygiene_mode:
--   on   one audit row per decision (superseded, ambiguous, candidate,
--        mention, skipped, with rule, exact evidence, reason and detail) is
--        written first, in the same transaction; then every finding decided
--        'supersede' gets superseded_at = now(), superseded_by = the merge's
--        node_id (seed 000's marker; its commit sha when it has none),
--        superseded_by_merge_id and supersede_rule = the deciding rule;
--   dry  the same audit rows with 'would_supersede' instead of
--        'superseded'; no finding changes;
--   off  nothing.
-- Findings are locked in id order before they change, so concurrent merges
-- never deadlock on them; one that another transaction superseded (or a
-- person dismissed) while this one waited is audited as 'already_superseded'
-- and left alone. Findings already superseded or dismissed are not active
-- and are never looked at. Row-level and fired in insertion order, so
-- multi-row INSERT and COPY give the same result as the same rows inserted
-- one by one or through ledger.record_merge. A redelivered merge (ON
-- CONFLICT DO NOTHING) inserts no row and so has no effect.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_mode     text;
    v_ids      bigint[];
    v_actions  text[];
    v_rules    text[];
    v_evidence text[];
    v_reasons  text[];
    v_details  jsonb[];
    v_resolve  bigint[];
    v_live     bigint[] := '{}';
    v_marker   text := coalesce(NEW.node_id, NEW.commit_sha);
BEGIN
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = NEW.scope;
    IF v_mode = 'off' OR (cardinality(NEW.paths) = 0 AND NEW.message !~ '\S') THEN
        RETURN NULL;
    END IF;

    SELECT array_agg(d.finding_id ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.action ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.rule ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.evidence ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.reason ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.detail ORDER BY d.finding_id NULLS FIRST)
      INTO v_ids, v_actions, v_rules, v_evidence, v_reasons, v_details
      FROM ledger._merge_decisions(NEW.scope, NEW.message, NEW.paths, NEW.branch) AS d;
    IF v_actions IS NULL THEN
        RETURN NULL;
    END IF;

    IF v_mode = 'on' THEN
        v_resolve := ARRAY(SELECT x.id FROM unnest(v_ids, v_actions) AS x(id, a) WHERE x.a = 'supersede');
        IF cardinality(v_resolve) > 0 THEN
            -- Lock in id order; re-checks superseded_at against the latest committed row.
            SELECT coalesce(array_agg(l.id), '{}') INTO v_live
              FROM (SELECT f.id FROM ledger.finding f
                     WHERE f.id = ANY (v_resolve) AND f.superseded_at IS NULL
                     ORDER BY f.id FOR UPDATE) AS l;
        END IF;
    END IF;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
    SELECT NEW.scope, x.id, NEW.id,
           CASE WHEN x.a <> 'supersede' THEN x.a
                WHEN v_mode = 'dry' THEN 'would_supersede'
                WHEN x.id = ANY (v_live) THEN 'superseded'
                ELSE 'already_superseded' END,
           x.r, x.e, x.why, x.d
      FROM unnest(v_ids, v_actions, v_rules, v_evidence, v_reasons, v_details)
           WITH ORDINALITY AS x(id, a, r, e, why, d, o)
     ORDER BY x.o;

    IF cardinality(v_live) > 0 THEN
        UPDATE ledger.finding f
           SET superseded_at = now(),
               superseded_by = v_marker,
               superseded_by_merge_id = NEW.id,
               supersede_rule = v_rules[array_position(v_ids, f.id)]
         WHERE f.id = ANY (v_live);
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__supersede() IS
'AFTER INSERT row trigger on ledger.merge: applies ledger._merge_decisions (path rule of seed 000 Option A, commit-message rules of issue 3, scope policy). hygiene_mode on: audit rows first (superseded, ambiguous, candidate, mention, skipped), then supersedes; dry: audit with would_supersede only; off: nothing. Findings locked in id order; a lost race is audited already_superseded. Raises nothing.';
''',
    # sql/functions/tg_merge__revert.sql as frozen in 0003_lifecycle
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
    # sql/functions/record_merge.sql as frozen in 0004_matching
    r'''
-- ledger.record_merge(p_scope, p_commit_sha, p_paths, p_message, p_node_id,
--                     p_merged_at, p_branch) -> TABLE(merge_id bigint, recorded boolean, decisions jsonb)
--
-- Records one merge exactly like INSERT INTO ledger.merge ... ON CONFLICT
-- (scope, commit_sha) DO NOTHING (the documented redelivery form) and returns:
--   merge_id   the merge's id (the existing one on redelivery);
--   recorded   true when this call inserted it, false on redelivery (no
--              second effect);
--   decisions  the merge's audit rows as a JSON array of
--              {finding_id, action, rule, evidence, reason, detail}, in id
--              order: superseded / would_supersede / already_superseded,
--              ambiguous, candidate, mention, skipped (issue 3; the design
--              record's archived_findings, with the reason for each).
-- p_branch: the branch the merge landed on (NULL: unknown, never skipped).
-- Raises LD001-LD004 (see tg_merge__prepare, tg_merge__prepare_branch).
CREATE OR REPLACE FUNCTION ledger.record_merge(
    p_scope text,
    p_commit_sha text,
    p_paths text[] DEFAULT '{}',
    p_message text DEFAULT '',
    p_node_id text DEFAULT NULL,
    p_merged_at timestamptz DEFAULT NULL,
    p_branch text DEFAULT NULL)
RETURNS TABLE (merge_id bigint, recorded boolean, decisions jsonb)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_id bigint;
BEGIN
    INSERT INTO ledger.merge (scope, commit_sha, paths, message, node_id, merged_at, branch)
    VALUES (p_scope, p_commit_sha, p_paths, p_message, p_node_id, p_merged_at, p_branch)
    ON CONFLICT (scope, commit_sha) DO NOTHING
    RETURNING id INTO v_id;
    recorded := v_id IS NOT NULL;
    IF v_id IS NULL THEN
        SELECT m.id INTO v_id FROM ledger.merge m
         WHERE m.scope = btrim(p_scope) AND m.commit_sha = lower(btrim(p_commit_sha));
    END IF;
    merge_id := v_id;
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'finding_id', a.finding_id, 'action', a.action, 'rule', a.rule,
               'evidence', a.evidence, 'reason', a.reason, 'detail', a.detail) ORDER BY a.id), '[]'::jsonb)
      INTO decisions
      FROM ledger.supersession a WHERE a.merge_id = v_id;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text) IS
'Record a merge (INSERT ... ON CONFLICT DO NOTHING) and return (merge_id bigint, recorded boolean, decisions jsonb array of {finding_id, action, rule, evidence, reason, detail}). p_branch: the branch it landed on. Redelivery returns recorded=false and the original decisions. Raises LD001-LD004.';
''',
    # sql/functions/read_audit.sql as frozen in 0001_foundation
    r'''
-- ledger.read_audit(p_scope text, p_finding_id bigint DEFAULT NULL,
--                   p_merge_id bigint DEFAULT NULL) -> SETOF ledger.supersession
--
-- The audit trail of a scope in the order it was written, optionally only
-- one finding's or one merge's rows. Raises LD005 for an unknown scope.
CREATE OR REPLACE FUNCTION ledger.read_audit(
    p_scope text, p_finding_id bigint DEFAULT NULL, p_merge_id bigint DEFAULT NULL)
RETURNS SETOF ledger.supersession
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_nullable(p_scope) USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
        SELECT a.* FROM ledger.supersession a
         WHERE a.scope = p_scope
           AND (p_finding_id IS NULL OR a.finding_id = p_finding_id)
           AND (p_merge_id IS NULL OR a.merge_id = p_merge_id)
         ORDER BY a.id;
END
$$;

COMMENT ON FUNCTION ledger.read_audit(text, bigint, bigint) IS
'Audit rows of a scope in write order, optionally filtered by finding or merge. (scope, finding_id, merge_id) -> SETOF ledger.supersession. Raises LD005 for an unknown scope.';
''',
    # sql/functions/set_hygiene_mode.sql as frozen in 0001_foundation
    r'''
-- ledger.set_hygiene_mode(p_scope text, p_mode text) -> ledger.scope
--
-- Sets a scope's hygiene_mode ('on' supersede, 'dry' audit only, 'off'
-- nothing), creating the scope when it does not exist yet; returns the row.
-- The same as INSERT INTO ledger.scope ... ON CONFLICT (scope) DO UPDATE.
-- Raises LD002 (scope missing), LD003 (mode not on, dry or off), LD004.
CREATE OR REPLACE FUNCTION ledger.set_hygiene_mode(p_scope text, p_mode text)
RETURNS ledger.scope
LANGUAGE sql
AS $$
    INSERT INTO ledger.scope AS s (scope, hygiene_mode) VALUES (p_scope, p_mode)
    ON CONFLICT (scope) DO UPDATE SET hygiene_mode = excluded.hygiene_mode
    RETURNING s.*
$$;

COMMENT ON FUNCTION ledger.set_hygiene_mode(text, text) IS
'Set (upsert) a scope''s hygiene_mode: on, dry or off. (scope text, mode text) -> ledger.scope. Raises LD002, LD003, LD004 naming field and value.';
''',
    # sql/views/active_finding.sql as frozen in 0001_foundation
    r'''
-- ledger.active_finding: the findings still to be injected into prompts.
--
-- Exactly the findings with superseded_at IS NULL (the seed 000 filter
-- "superseded_by IS NULL", kept as a view so every reader applies the same
-- rule). Columns: id, scope, finding_key, kind, severity, title, description,
-- paths, source, created_at. Ordered by nothing; use
-- ledger.active_findings(scope) for the prompt order.
CREATE OR REPLACE VIEW ledger.active_finding AS
SELECT f.id, f.scope, f.finding_key, f.kind, f.severity, f.title, f.description,
       f.paths, f.source, f.created_at
  FROM ledger.finding f
 WHERE f.superseded_at IS NULL;

COMMENT ON VIEW ledger.active_finding IS
'Active findings (superseded_at IS NULL): the set a prompt builder injects. Implements the superseded_by IS NULL filter of seed 000.';
''',
    # sql/views/finding_lifecycle.sql as frozen in 0003_lifecycle
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
    # sql/functions/report_finding.sql as frozen in 0003_lifecycle
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
    # sql/functions/replace_findings.sql as frozen in 0003_lifecycle
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
    # sql/functions/dismiss_finding.sql as frozen in 0003_lifecycle
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
    # sql/functions/restore_finding.sql as frozen in 0003_lifecycle
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
    # sql/functions/import_finding.sql as frozen in 0004_matching
    r'''
-- ledger.import_finding(p_scope, p_title, p_description, p_paths, p_kind, p_severity,
--                       p_finding_key, p_source, p_slug, p_strong_keywords, p_tags)
--     -> TABLE(id bigint, finding_key text, slug text, status text)
--
-- Inserts a finding read from a findings file or a drift review (issue 3,
-- "Importers"), or, when the scope already has it, refreshes it, so that
-- re-importing the same files creates no duplicates. The finding is
-- identified by its finding_key when it has one (ON CONFLICT (scope,
-- finding_key)), otherwise by its slug (ON CONFLICT (scope, slug)), and is
-- inserted as new when it has neither. status:
--   inserted    a new finding;
--   updated     an active finding whose title, description, paths, kind,
--               severity, source, slug, strong_keywords or tags changed;
--   unchanged   an active finding with exactly these values;
--   retired     a finding already superseded (or dismissed): left alone,
--               never brought back by a re-import.
-- The row passes the same triggers as any INSERT, with the transaction-local
-- setting ledger.reporting = 'on' that lets an identified re-import reach its
-- ON CONFLICT clause instead of the plain-INSERT duplicate-key error LD301
-- (an import is a sync from files: unlike ledger.report_finding it never
-- reopens a retired finding). Raises LD001-LD004,
-- LD101, LD102 (see tg_finding__prepare, tg_finding__prepare_evidence), and
-- 23505 when the slug belongs to another finding of the scope
-- (finding_scope_slug_key).
CREATE OR REPLACE FUNCTION ledger.import_finding(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_finding_key text DEFAULT NULL,
    p_source text DEFAULT NULL,
    p_slug text DEFAULT NULL,
    p_strong_keywords text[] DEFAULT '{}',
    p_tags text[] DEFAULT '{}')
RETURNS TABLE (id bigint, finding_key text, slug text, status text)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
#variable_conflict use_column
DECLARE
    v_id       bigint;
    v_inserted boolean;
BEGIN
    PERFORM set_config('ledger.reporting', 'on', true);
    IF p_finding_key IS NOT NULL THEN
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags)
        ON CONFLICT (scope, finding_key) DO UPDATE
           SET title = excluded.title, description = excluded.description, paths = excluded.paths,
               kind = excluded.kind, severity = excluded.severity, source = excluded.source,
               slug = excluded.slug, strong_keywords = excluded.strong_keywords, tags = excluded.tags
         WHERE f.superseded_at IS NULL
           AND (f.title, f.description, f.paths, f.kind, f.severity, f.source, f.slug, f.strong_keywords, f.tags)
               IS DISTINCT FROM (excluded.title, excluded.description, excluded.paths, excluded.kind,
                                 excluded.severity, excluded.source, excluded.slug, excluded.strong_keywords,
                                 excluded.tags)
        RETURNING f.id, (f.xmax = 0) INTO v_id, v_inserted;
    ELSIF p_slug IS NOT NULL THEN
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags)
        ON CONFLICT (scope, slug) DO UPDATE
           SET title = excluded.title, description = excluded.description, paths = excluded.paths,
               kind = excluded.kind, severity = excluded.severity, source = excluded.source,
               strong_keywords = excluded.strong_keywords, tags = excluded.tags
         WHERE f.superseded_at IS NULL
           AND (f.title, f.description, f.paths, f.kind, f.severity, f.source, f.strong_keywords, f.tags)
               IS DISTINCT FROM (excluded.title, excluded.description, excluded.paths, excluded.kind,
                                 excluded.severity, excluded.source, excluded.strong_keywords, excluded.tags)
        RETURNING f.id, (f.xmax = 0) INTO v_id, v_inserted;
    ELSE
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags)
        RETURNING f.id, true INTO v_id, v_inserted;
    END IF;
    PERFORM set_config('ledger.reporting', '', true);

    IF v_id IS NOT NULL THEN
        RETURN QUERY SELECT f.id, f.finding_key, f.slug, CASE WHEN v_inserted THEN 'inserted' ELSE 'updated' END
                       FROM ledger.finding f WHERE f.id = v_id;
        RETURN;
    END IF;
    -- the conflict's WHERE was false: the existing finding is unchanged or retired
    RETURN QUERY
        SELECT f.id, f.finding_key, f.slug,
               CASE WHEN f.superseded_at IS NULL THEN 'unchanged' ELSE 'retired' END
          FROM ledger.finding f
         WHERE f.scope = btrim(p_scope, E' \t\r\n\f\v')
           AND CASE WHEN p_finding_key IS NOT NULL THEN f.finding_key = btrim(p_finding_key, E' \t\r\n\f\v')
                    ELSE f.slug = (SELECT n.slug FROM (SELECT regexp_replace(pg_catalog.normalize(btrim(p_slug), 'NFC'),
                                   '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)\.[mM][dD]$', '\1') AS slug) AS n) END;
END
$$;

COMMENT ON FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[]) IS
'Insert or refresh an imported finding, identified by (scope, finding_key), else (scope, slug): no duplicates on re-import; a superseded or dismissed finding is left alone. (scope, title, description, paths, kind, severity, finding_key, source, slug, strong_keywords, tags) -> TABLE(id, finding_key, slug, status inserted|updated|unchanged|retired). Raises LD001-LD004, LD101, LD102, 23505 (slug of another finding).';
''',
    # sql/functions/claim_task.sql as frozen in 0002_claims
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
    # sql/functions/start_task.sql as frozen in 0002_claims
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
    # sql/functions/complete_task.sql as frozen in 0002_claims
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
    # sql/functions/fail_task.sql as frozen in 0002_claims
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
    # sql/functions/cancel_task.sql as frozen in 0002_claims
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
    # sql/functions/requeue_task.sql as frozen in 0002_claims
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
]

POLICIES = r'''
-- Per-scope row-level security (inert until ledger.enable_scope_rls()): every
-- role but the owner sees and writes only the scopes named in the session
-- setting ledger.scopes. One policy per table, FOR ALL, TO PUBLIC; the
-- subquery makes the setting an InitPlan, read once per statement. Tables
-- without a scope column are scoped through the row they belong to.
CREATE POLICY scope_isolation ON ledger.scope
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.finding
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.merge
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.supersession
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.issue
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.agent_task
    USING (EXISTS (SELECT 1 FROM ledger.issue i
                    WHERE i.id = agent_task.issue_id
                      AND i.scope = ANY ((SELECT ledger._visible_scopes())::text[])))
    WITH CHECK (EXISTS (SELECT 1 FROM ledger.issue i
                         WHERE i.id = agent_task.issue_id
                           AND i.scope = ANY ((SELECT ledger._visible_scopes())::text[])));
CREATE POLICY scope_isolation ON ledger.injection
    USING (EXISTS (SELECT 1 FROM ledger.finding f
                    WHERE f.id = injection.finding_id
                      AND f.scope = ANY ((SELECT ledger._visible_scopes())::text[])))
    WITH CHECK (EXISTS (SELECT 1 FROM ledger.finding f
                         WHERE f.id = injection.finding_id
                           AND f.scope = ANY ((SELECT ledger._visible_scopes())::text[])));
'''

# ---------------------------------------------------------------------------
# PRIVILEGES: the single place grants live. One block per role; each line is
# one object. Extend by adding lines (a new table or function of a later
# revision belongs to exactly the roles that need it; none is the default).
# ---------------------------------------------------------------------------
PRIVILEGES = r'''
-- Nothing for PUBLIC: functions are created executable by PUBLIC; take it back.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA ledger FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA ledger FROM PUBLIC;
GRANT USAGE ON SCHEMA ledger TO ledger_writer, ledger_reader, ledger_agent, ledger_admin;

-- The policies and the views call it for whoever reads.
GRANT EXECUTE ON FUNCTION ledger._visible_scopes() TO ledger_writer, ledger_reader, ledger_agent, ledger_admin;

-- Helpers the BEFORE triggers call with the rights of the role that writes the
-- row (trigger functions themselves need no EXECUTE): scope rows are written
-- by writers (a scope is created on first use) and by the admin (policy).
GRANT EXECUTE ON FUNCTION
    ledger._check_text(text, text, boolean, integer, boolean),
    ledger._check_scope_access(text, text),
    ledger._scope_visible(text),
    ledger._normalize_branch(text, text)
    TO ledger_writer, ledger_admin;

-- ledger_writer: insert findings, merges, issues, tasks, injections; report and
-- re-review findings, import them. Never the supersession, dismissal or
-- counter columns of a finding, never processed/recorded_at of a merge, never
-- issue_snapshot or the dispatch columns of a task, never the audit, never
-- scope policy, never UPDATE or DELETE but an issue's own fields.
GRANT EXECUTE ON FUNCTION
    ledger._ensure_scope(text),
    ledger.normalize_path(text, text),
    ledger.normalize_paths(text[], text, integer),
    ledger._scoped_paths(text, text[]),
    ledger._evidence_keys(text, text, text, text[], text),
    ledger._evidence_token(text),
    ledger._title_sig(text),
    ledger._words(text),
    ledger._significant(text),
    ledger._token_regex(boolean),
    ledger.add_finding(text, text, text, text[], text, text, text, text),
    ledger.record_merge(text, text, text[], text, text, timestamptz, text),
    ledger.report_finding(text, text, text, text, text[], text, text, text, text),
    ledger.replace_findings(text, text, text, jsonb, text),
    ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[]),
    ledger.workspace_scope(text),
    ledger.record_injection(text, bigint[]),
    ledger.add_issue(text, text, text, text, text, text, text),
    ledger.enqueue_task(bigint, text, text, bigint, boolean),
    ledger.issue_snapshot(text, text, integer),
    ledger._snapshot_version()
    TO ledger_writer;
-- (SELECT on injection: INSERT ... ON CONFLICT needs it for the arbiter columns)
GRANT SELECT ON ledger.scope, ledger.finding, ledger.merge, ledger.issue, ledger.agent_task, ledger.injection
    TO ledger_writer;
GRANT INSERT (scope) ON ledger.scope TO ledger_writer;
GRANT INSERT (scope, finding_key, kind, severity, title, description, paths, source, created_at,
              slug, strong_keywords, tags)
    ON ledger.finding TO ledger_writer;
GRANT INSERT (scope, commit_sha, node_id, message, paths, merged_at, branch) ON ledger.merge TO ledger_writer;
GRANT INSERT (scope, title, description, status, priority, assignee_type, assignee_id),
      UPDATE (title, description, status, priority, assignee_type, assignee_id)
    ON ledger.issue TO ledger_writer;
GRANT INSERT (issue_id, agent_id, runtime_id, rerun_of_task_id, force_fresh_session)
    ON ledger.agent_task TO ledger_writer;
GRANT INSERT (session_id, finding_id, injected_at) ON ledger.injection TO ledger_writer;

-- ledger_reader: active findings, history (findings, lifecycle, merges,
-- injections), the audit, issues and tasks.
GRANT SELECT ON ledger.active_finding, ledger.finding_lifecycle, ledger.finding, ledger.merge, ledger.scope,
                ledger.supersession, ledger.injection, ledger.issue, ledger.agent_task,
                ledger.poisoned_failure_reason, ledger.retired_session
    TO ledger_reader;
GRANT EXECUTE ON FUNCTION
    ledger._severity_rank(text),
    ledger._finding_state(timestamptz, timestamptz),
    ledger._check_text(text, text, boolean, integer, boolean),
    ledger.active_findings(text),
    ledger.read_audit(text, bigint, bigint),
    ledger.read_finding(bigint),
    ledger.read_history(bigint),
    ledger.read_injections(text, bigint),
    ledger.measure_convergence(text),
    ledger.read_prompt_findings(text, text[], interval, integer),
    ledger.normalize_path(text, text),
    ledger.normalize_paths(text[], text, integer),
    ledger.workspace_scope(text),
    ledger.issue_snapshot(text, text, integer),
    ledger._snapshot_version()
    TO ledger_reader;

-- ledger_agent: task claims; reads its issues and tasks; retires provider sessions.
GRANT EXECUTE ON FUNCTION
    ledger.claim_task(text, text),
    ledger.start_task(bigint, text),
    ledger.complete_task(bigint, text),
    ledger.fail_task(bigint, text, text),
    ledger.cancel_task(bigint, text),
    ledger.requeue_task(bigint),
    ledger.issue_snapshot(text, text, integer),
    ledger._snapshot_version()
    TO ledger_agent;
GRANT SELECT ON ledger.issue, ledger.agent_task, ledger.poisoned_failure_reason, ledger.retired_session
    TO ledger_agent;
GRANT INSERT (session_id, reason) ON ledger.retired_session TO ledger_agent;

-- ledger_admin: scope policy (hygiene mode, matching policy), poisoned failure
-- reasons and retired sessions, dismissals and restores, reconcile, and
-- reading everything the reader reads.
GRANT SELECT ON ledger.active_finding, ledger.finding_lifecycle, ledger.finding, ledger.merge, ledger.scope,
                ledger.supersession, ledger.injection, ledger.issue, ledger.agent_task,
                ledger.poisoned_failure_reason, ledger.retired_session
    TO ledger_admin;
GRANT INSERT (scope, hygiene_mode, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch),
      UPDATE (hygiene_mode, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch)
    ON ledger.scope TO ledger_admin;
GRANT INSERT, DELETE, UPDATE (note) ON ledger.poisoned_failure_reason TO ledger_admin;
GRANT INSERT, DELETE ON ledger.retired_session TO ledger_admin;
GRANT EXECUTE ON FUNCTION
    ledger._severity_rank(text),
    ledger._finding_state(timestamptz, timestamptz),
    ledger.active_findings(text),
    ledger.read_audit(text, bigint, bigint),
    ledger.read_finding(bigint),
    ledger.read_history(bigint),
    ledger.read_injections(text, bigint),
    ledger.measure_convergence(text),
    ledger.read_prompt_findings(text, text[], interval, integer),
    ledger.normalize_path(text, text),
    ledger.normalize_paths(text[], text, integer),
    ledger.workspace_scope(text),
    ledger.set_hygiene_mode(text, text),
    ledger.set_match_policy(text, text[], text[], boolean, text),
    ledger.dismiss_finding(bigint, text, text, text),
    ledger.restore_finding(bigint, text, text),
    ledger.reconcile(text)
    TO ledger_admin;

-- Not granted to any ledger role, on purpose: _apply_merge, _apply_revert,
-- _revert_targets, _reopen_finding, the matcher's internals (_match_paths,
-- _merge_decisions, _match_message, _message_tokens, _message_segments,
-- _file_slug) and the claim's (_write_issue_snapshot, _resumed_task,
-- _snapshot_changes, _check_task_transition): only SECURITY DEFINER
-- functions run them, as the owner; the tg_* trigger functions;
-- enable_scope_rls / disable_scope_rls (the owner's switch); alembic_version.
'''

DOWNGRADE = r'''
DROP POLICY scope_isolation ON ledger.scope;
DROP POLICY scope_isolation ON ledger.finding;
DROP POLICY scope_isolation ON ledger.merge;
DROP POLICY scope_isolation ON ledger.supersession;
DROP POLICY scope_isolation ON ledger.issue;
DROP POLICY scope_isolation ON ledger.agent_task;
DROP POLICY scope_isolation ON ledger.injection;
ALTER TABLE ledger.scope DISABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.finding DISABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.merge DISABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.supersession DISABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.issue DISABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.agent_task DISABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.injection DISABLE ROW LEVEL SECURITY;
DROP TRIGGER _050_scope_access ON ledger.finding;
DROP TRIGGER _050_scope_access ON ledger.merge;
DROP TRIGGER _050_scope_access ON ledger.scope;
DROP TRIGGER _050_scope_access ON ledger.issue;
DROP TRIGGER _010_append_only ON ledger.supersession;
DROP TRIGGER _011_append_only_truncate ON ledger.supersession;
DROP FUNCTION ledger.reconcile(text);
DROP FUNCTION ledger._apply_merge(bigint);
DROP FUNCTION ledger._apply_revert(bigint);
DROP FUNCTION ledger._revert_targets(text, text, bigint);
DROP FUNCTION ledger.enable_scope_rls();
DROP FUNCTION ledger.disable_scope_rls();
DROP FUNCTION ledger.tg_scoped__check_access();
DROP FUNCTION ledger.tg_supersession__append_only();
DROP FUNCTION ledger._check_scope_access(text, text);
DROP FUNCTION ledger._scope_visible(text);
DROP FUNCTION ledger._visible_scopes();
'''

REVOKE_AND_DROP_ROLES = r'''
REVOKE ALL ON ALL TABLES IN SCHEMA ledger FROM ledger_writer, ledger_reader, ledger_agent, ledger_admin;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA ledger FROM ledger_writer, ledger_reader, ledger_agent, ledger_admin;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ledger FROM ledger_writer, ledger_reader, ledger_agent, ledger_admin;
REVOKE ALL ON SCHEMA ledger FROM ledger_writer, ledger_reader, ledger_agent, ledger_admin;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ledger TO PUBLIC;
DO $roles$
DECLARE
    v_role text;
BEGIN
    FOREACH v_role IN ARRAY ARRAY['ledger_writer', 'ledger_reader', 'ledger_agent', 'ledger_admin'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = v_role) THEN
            CONTINUE;
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members a JOIN pg_catalog.pg_roles r ON r.oid = a.roleid
                    WHERE r.rolname = v_role) THEN
            RAISE NOTICE 'role % kept: other roles are members of it', v_role;
            CONTINUE;
        END IF;
        BEGIN
            EXECUTE format('DROP ROLE %I', v_role);
        EXCEPTION WHEN dependent_objects_still_exist OR insufficient_privilege THEN
            RAISE NOTICE 'role % kept: %', v_role, SQLERRM;
        END;
    END LOOP;
END
$roles$;
'''


def upgrade() -> None:
    run_sql(ROLES)
    for sql in FROZEN_SQL:
        run_sql(sql)
    run_sql(POLICIES)
    run_sql(PRIVILEGES)


def downgrade() -> None:
    for sql in RESTORE_SQL:
        run_sql(sql)
    run_sql(DOWNGRADE)
    run_sql(REVOKE_AND_DROP_ROLES)
