"""Security and reliability: least-privilege roles, SECURITY DEFINER where a
caller needs more rights than it has, an append-only audit, optional
per-scope row-level security, and ledger.reconcile for merges written while
triggers did not fire (issue 7).

Revision ID: 0005_security
Revises: 0001_foundation (the lead re-chains it after the other revisions)
Create Date: 2026-12-01

What it does, in order (docs/security.md explains each part):

1. ROLES: creates the NOLOGIN group roles ledger_writer, ledger_reader,
   ledger_agent and ledger_admin when they do not exist (no password; a
   DBA grants them to login roles). Roles are cluster-wide: every ledger
   database of the cluster shares them. A migration role without CREATEROLE
   works when a DBA created the four roles first.
2. FROZEN_SQL: new functions (_visible_scopes, _check_scope_access,
   tg_scoped__check_access, tg_supersession__append_only, _apply_merge,
   reconcile, enable_scope_rls, disable_scope_rls), their triggers, and new
   versions of foundation objects:
   - _check_text, normalize_path: trimmed the letter v (E'\\v' is not a
     vertical tab in PostgreSQL); normalize_path now repeats its rules to a
     fixpoint (idempotent);
   - tg_merge__supersede: SECURITY DEFINER, its body moved unchanged to
     _apply_merge(merge_id) except FOR UPDATE -> FOR NO KEY UPDATE (the old
     lock blocked the audit rows' foreign key checks: a deadlock);
   - record_merge: SECURITY DEFINER; the redelivery lookup trims like the
     trigger;
   - _scoped_paths: operators schema-qualified (index expression);
   - read_audit: LD005 for a finding or merge id not in the scope;
   - set_hygiene_mode: LD002 for a NULL mode;
   - view active_finding: honours per-scope row-level security.
3. POLICIES: a policy scope_isolation on finding, merge, scope and
   supersession. Row-level security stays DISABLED: a deployment turns it
   on with SELECT ledger.enable_scope_rls().
4. PRIVILEGES: EXECUTE on every ledger function is revoked from PUBLIC, then
   each role gets exactly what its table in docs/security.md lists. This is
   the one place grants live; a later revision that adds a table or a
   function adds its grants in the same shape (tests/test_security_roles.py
   fails for a function or table nobody classified).

Nothing here rewrites or scans a table: policies, triggers and grants are
catalog changes (short ACCESS EXCLUSIVE locks on the four tables).

The SQL below is frozen: it is the text of sql/ when this revision was
written (tools/freeze_sql.py) and must never be edited; a later change to a
function is a new revision.

Downgrade restores the foundation's versions of the replaced objects
(frozen copies of 0001's text), drops the new objects, policies and
triggers, revokes every privilege of the four roles in this database, gives
EXECUTE on the ledger functions back to PUBLIC (the state before this
revision) and drops each role only when nothing else uses it: no member
roles, and no privilege or object in any database of the cluster (DROP ROLE
fails then; the role is kept with a NOTICE). Roles that stay are harmless:
NOLOGIN, no password.
"""

from findings_ledger.migration_ops import run_sql

revision = "0005_security"
down_revision = "0001_foundation"
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
COMMENT ON ROLE ledger_writer IS 'findings-ledger: services that insert findings and merges (INSERT, no UPDATE of supersession columns, no audit writes).';
COMMENT ON ROLE ledger_reader IS 'findings-ledger: read active findings, findings and merges (history) and the audit.';
COMMENT ON ROLE ledger_agent IS 'findings-ledger: agent runtimes (task claims: claim, start, complete, fail).';
COMMENT ON ROLE ledger_admin IS 'findings-ledger: policy (hygiene mode), reconcile, and (later) dismissals.';
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
    # sql/functions/_check_scope_access.sql
    r'''
-- ledger._check_scope_access(p_scope text, p_field text) -> void
--
-- Refuses a write into a scope this connection may not use. While per-scope
-- row-level security is off (the default: ledger.scope has no ROW LEVEL
-- SECURITY) every scope is allowed and this returns at once. While it is on
-- (ledger.enable_scope_rls), p_scope must be one of ledger._visible_scopes()
-- (the setting ledger.scopes), for every caller, the table owner included:
-- the check also runs inside SECURITY DEFINER functions, which cannot know
-- who called them. Called by the _050_scope_access triggers on finding,
-- merge and scope and by ledger.reconcile.
-- Raises LD401 (scope_denied) naming p_field, the scope and the setting.
CREATE OR REPLACE FUNCTION ledger._check_scope_access(p_scope text, p_field text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
BEGIN
    IF NOT (SELECT c.relrowsecurity FROM pg_catalog.pg_class c WHERE c.oid = 'ledger.scope'::pg_catalog.regclass) THEN
        RETURN;
    END IF;
    IF p_scope = ANY (ledger._visible_scopes()) THEN
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
-- scope ON ledger.finding, ledger.merge, ledger.scope: triggers
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
'BEFORE INSERT OR UPDATE OF scope trigger on finding, merge and scope: while per-scope row-level security is on, the row''s scope must be listed in ledger.scopes. Raises LD401 naming <table>.scope.';
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
    # sql/functions/_apply_merge.sql
    r'''
-- ledger._apply_merge(p_merge_id bigint) -> void
--
-- The path rule of seed 000 ("Option A") for one merge row, shared by the
-- AFTER INSERT trigger (ledger.tg_merge__supersede) and ledger.reconcile, so
-- that a merge applied late (written while triggers did not fire) gets
-- exactly the decisions the trigger would have taken. Every active finding
-- of the merge's scope that references a path the merge touched is
-- superseded, per the scope's hygiene_mode:
--   on   the finding gets superseded_at = now(), superseded_by = the merge's
--        node_id (the marker seed 000's system filters on; the commit sha when
--        the merge has no node_id), superseded_by_merge_id and
--        supersede_rule = 'path'; one audit row (action 'superseded') is
--        written first, in the same transaction;
--   dry  only audit rows with action 'would_supersede'; no finding changes;
--   off  nothing.
-- Findings are locked in id order (FOR NO KEY UPDATE) before they change, so
-- concurrent merges never deadlock on them; a finding another transaction
-- superseded while this one waited is audited as 'already_superseded' and
-- left alone.
-- Runs with the rights of its caller: EXECUTE is granted to no ledger role;
-- the SECURITY DEFINER callers run it as the owner. An unknown id does
-- nothing. Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger._apply_merge(p_merge_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_merge   ledger.merge;
    v_mode    text;
    v_ids     bigint[];
    v_fpaths  text[];
    v_touched text[];
    v_live    bigint[];
    v_marker  text;
BEGIN
    SELECT m.* INTO v_merge FROM ledger.merge m WHERE m.id = p_merge_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_marker := coalesce(v_merge.node_id, v_merge.commit_sha);

    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_merge.scope;
    IF v_mode = 'off' OR cardinality(v_merge.paths) = 0 THEN
        RETURN;
    END IF;

    SELECT array_agg(m.finding_id ORDER BY m.finding_id),
           array_agg(m.finding_path ORDER BY m.finding_id),
           array_agg(m.touched_path ORDER BY m.finding_id)
      INTO v_ids, v_fpaths, v_touched
      FROM ledger._match_paths(v_merge.scope, v_merge.paths) AS m;
    IF v_ids IS NULL THEN
        RETURN;
    END IF;

    IF v_mode = 'dry' THEN
        INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
        SELECT v_merge.scope, h.id, v_merge.id, 'would_supersede', 'path', h.touched,
               jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
          FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);
        RETURN;
    END IF;

    -- Lock in id order; re-checks superseded_at against the latest committed row.
    -- FOR NO KEY UPDATE, not FOR UPDATE: the audit rows below reference every
    -- matched finding, and their foreign key check takes FOR KEY SHARE on it,
    -- also on findings another merge holds (the already_superseded ones).
    -- KEY SHARE waits for FOR UPDATE but not for NO KEY UPDATE, so with FOR
    -- UPDATE those checks were lock waits outside the id order: three merges
    -- could deadlock (found by tests/test_concurrency.py).
    SELECT array_agg(l.id) INTO v_live
      FROM (SELECT f.id FROM ledger.finding f
             WHERE f.id = ANY (v_ids) AND f.superseded_at IS NULL
             ORDER BY f.id FOR NO KEY UPDATE) AS l;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
    SELECT v_merge.scope, h.id, v_merge.id,
           CASE WHEN h.id = ANY (coalesce(v_live, '{}')) THEN 'superseded' ELSE 'already_superseded' END,
           'path', h.touched,
           jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
      FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);

    UPDATE ledger.finding f
       SET superseded_at = now(),
           superseded_by = v_marker,
           superseded_by_merge_id = v_merge.id,
           supersede_rule = 'path'
     WHERE f.id = ANY (coalesce(v_live, '{}'));
END
$$;

COMMENT ON FUNCTION ledger._apply_merge(bigint) IS
'Apply seed 000 Option A for one merge (shared by the _200_supersede trigger and reconcile): supersede the scope''s active findings whose paths the merge touched (hygiene_mode on), or audit would_supersede (dry), or nothing (off). Audit row first, findings locked in id order. (merge_id bigint) -> void. Raises nothing.';
''',
    # sql/functions/tg_merge__supersede.sql
    r'''
-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- Seed 000, "Option A": when a merge lands, every active finding of the same
-- scope that references a path the merge touched is superseded (hygiene_mode
-- on), audited as would_supersede (dry) or left alone (off). The rule itself
-- is ledger._apply_merge(merge_id), shared with ledger.reconcile; see there
-- for the decisions, the audit rows and the lock order.
-- Row-level and fired in insertion order, so multi-row INSERT and COPY give
-- the same result as the same rows inserted one by one. A redelivered merge
-- (ON CONFLICT DO NOTHING) inserts no row and so has no effect.
-- SECURITY DEFINER (fixed search_path, schema-qualified names): a writer
-- that may only INSERT merges still gets its findings superseded and
-- audited, although it may not UPDATE the supersession columns of
-- ledger.finding nor write ledger.supersession itself.
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
'AFTER INSERT row trigger on ledger.merge implementing seed 000 Option A through ledger._apply_merge: supersedes the active findings of the scope whose paths the merge touched (hygiene_mode on), or audits would_supersede (dry), or nothing (off). SECURITY DEFINER so that writers without UPDATE on findings or INSERT on the audit get the same effect. Raises nothing.';
''',
    # sql/functions/record_merge.sql
    r'''
-- ledger.record_merge(p_scope, p_commit_sha, p_paths, p_message, p_node_id,
--                     p_merged_at) -> TABLE(merge_id bigint, recorded boolean, decisions jsonb)
--
-- Records one merge exactly like INSERT INTO ledger.merge ... ON CONFLICT
-- (scope, commit_sha) DO NOTHING (the documented redelivery form) and returns:
--   merge_id   the merge's id (the existing one on redelivery);
--   recorded   true when this call inserted it, false on redelivery (no
--              second effect);
--   decisions  the merge's audit rows as a JSON array of
--              {finding_id, action, rule, evidence, detail}, in id order.
-- SECURITY DEFINER (fixed search_path, schema-qualified names): it returns
-- the merge's audit rows, which a writer may not read. The insert still goes
-- through every trigger (validation, _050_scope_access: a scope outside
-- ledger.scopes is refused while per-scope row-level security is on).
-- Raises LD001-LD004 (see tg_merge__prepare), LD401 (scope not allowed).
CREATE OR REPLACE FUNCTION ledger.record_merge(
    p_scope text,
    p_commit_sha text,
    p_paths text[] DEFAULT '{}',
    p_message text DEFAULT '',
    p_node_id text DEFAULT NULL,
    p_merged_at timestamptz DEFAULT NULL)
RETURNS TABLE (merge_id bigint, recorded boolean, decisions jsonb)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_id bigint;
BEGIN
    INSERT INTO ledger.merge (scope, commit_sha, paths, message, node_id, merged_at)
    VALUES (p_scope, p_commit_sha, p_paths, p_message, p_node_id, p_merged_at)
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
               'evidence', a.evidence, 'detail', a.detail) ORDER BY a.id), '[]'::jsonb)
      INTO decisions
      FROM ledger.supersession a WHERE a.merge_id = v_id;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz) IS
'Record a merge (INSERT ... ON CONFLICT DO NOTHING) and return (merge_id bigint, recorded boolean, decisions jsonb array of {finding_id, action, rule, evidence, detail}). Redelivery returns recorded=false and the original decisions. SECURITY DEFINER (returns audit rows). Raises LD001-LD004, LD401.';
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
-- normalised (ledger.normalize_paths), is marked processed and goes through
-- ledger._apply_merge, the same function the _200_supersede trigger runs, so
-- it takes exactly the decisions the trigger would take now. Before that,
-- the scope's active findings whose paths are not in normal form (written
-- the same way) are normalised, so that merges can match them.
-- Idempotent: a second call finds nothing to do and returns no row;
-- concurrent calls wait for each other (row locks) and apply each merge once.
-- Returns one row per merge applied: its id and its audit rows as a JSON
-- array of {finding_id, action, rule, evidence, detail} (as record_merge).
-- SECURITY DEFINER (fixed search_path): it updates findings and merges and
-- writes the audit, which its caller (ledger_admin) may not do directly.
-- Raises LD002/LD003/LD004 for a bad p_scope (field reconcile.scope),
-- LD005 for a scope with no scope row, merge or finding, LD401 while
-- per-scope row-level security is on and the scope is not in ledger.scopes,
-- LD001 naming the merge or finding id when a stored path cannot be
-- normalised (nothing is applied then: fix the row and call again).
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
           FOR UPDATE
    LOOP
        UPDATE ledger.merge m
           SET paths = ledger.normalize_paths(m.paths, 'merge ' || m.id || ' paths', 100000),
               processed = true
         WHERE m.id = v_id;
        PERFORM ledger._apply_merge(v_id);
        merge_id := v_id;
        SELECT coalesce(jsonb_agg(jsonb_build_object(
                   'finding_id', a.finding_id, 'action', a.action, 'rule', a.rule,
                   'evidence', a.evidence, 'detail', a.detail) ORDER BY a.id), '[]'::jsonb)
          INTO decisions
          FROM ledger.supersession a WHERE a.merge_id = v_id;
        RETURN NEXT;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger.reconcile(text) IS
'Apply, in id order and once, the merges of a scope that were written without the ledger triggers (processed = false, e.g. session_replication_role = replica): normalise their paths (and the scope''s active findings'' paths), mark them processed, run ledger._apply_merge. (scope text) -> TABLE(merge_id bigint, decisions jsonb). Idempotent. Raises LD001-LD005, LD401.';
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
    # sql/functions/enable_scope_rls.sql
    r'''
-- ledger.enable_scope_rls() -> SETOF regclass
--
-- Turns per-scope row-level security on for this database (a deployment
-- that hosts several tenants): ENABLE ROW LEVEL SECURITY on every ledger
-- table that carries a policy named scope_isolation (finding, merge,
-- scope, supersession, and any later table given one), and returns them.
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

# The foundation's versions of the objects replaced above, frozen from
# migrations/versions/0001_foundation.py, restored by downgrade().
RESTORE_0001_SQL = [
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
    # sql/functions/normalize_path.sql
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
    # sql/functions/_scoped_paths.sql
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
    # sql/functions/tg_merge__supersede.sql
    r'''
-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- Seed 000, "Option A": when a merge lands, every active finding of the same
-- scope that references a path the merge touched is superseded. Per the
-- scope's hygiene_mode:
--   on   the finding gets superseded_at = now(), superseded_by = the merge's
--        node_id (the marker seed 000's system filters on; the commit sha when
--        the merge has no node_id), superseded_by_merge_id and
--        supersede_rule = 'path'; one audit row (action 'superseded') is
--        written first, in the same transaction;
--   dry  only audit rows with action 'would_supersede'; no finding changes;
--   off  nothing.
-- Findings are locked in id order before they change, so concurrent merges
-- never deadlock on them; a finding another transaction superseded while
-- this one waited is audited as 'already_superseded' and left alone.
-- Row-level and fired in insertion order, so multi-row INSERT and COPY give
-- the same result as the same rows inserted one by one. A redelivered merge
-- (ON CONFLICT DO NOTHING) inserts no row and so has no effect.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_mode    text;
    v_ids     bigint[];
    v_fpaths  text[];
    v_touched text[];
    v_live    bigint[];
    v_marker  text := coalesce(NEW.node_id, NEW.commit_sha);
BEGIN
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = NEW.scope;
    IF v_mode = 'off' OR cardinality(NEW.paths) = 0 THEN
        RETURN NULL;
    END IF;

    SELECT array_agg(m.finding_id ORDER BY m.finding_id),
           array_agg(m.finding_path ORDER BY m.finding_id),
           array_agg(m.touched_path ORDER BY m.finding_id)
      INTO v_ids, v_fpaths, v_touched
      FROM ledger._match_paths(NEW.scope, NEW.paths) AS m;
    IF v_ids IS NULL THEN
        RETURN NULL;
    END IF;

    IF v_mode = 'dry' THEN
        INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
        SELECT NEW.scope, h.id, NEW.id, 'would_supersede', 'path', h.touched,
               jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
          FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);
        RETURN NULL;
    END IF;

    -- Lock in id order; re-checks superseded_at against the latest committed row.
    SELECT array_agg(l.id) INTO v_live
      FROM (SELECT f.id FROM ledger.finding f
             WHERE f.id = ANY (v_ids) AND f.superseded_at IS NULL
             ORDER BY f.id FOR UPDATE) AS l;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
    SELECT NEW.scope, h.id, NEW.id,
           CASE WHEN h.id = ANY (coalesce(v_live, '{}')) THEN 'superseded' ELSE 'already_superseded' END,
           'path', h.touched,
           jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
      FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);

    UPDATE ledger.finding f
       SET superseded_at = now(),
           superseded_by = v_marker,
           superseded_by_merge_id = NEW.id,
           supersede_rule = 'path'
     WHERE f.id = ANY (coalesce(v_live, '{}'));
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__supersede() IS
'AFTER INSERT row trigger on ledger.merge implementing seed 000 Option A: supersedes the active findings of the scope whose paths the merge touched (hygiene_mode on), or audits would_supersede (dry), or nothing (off). Audit row first, findings locked in id order. Raises nothing.';
''',
    # sql/functions/record_merge.sql
    r'''
-- ledger.record_merge(p_scope, p_commit_sha, p_paths, p_message, p_node_id,
--                     p_merged_at) -> TABLE(merge_id bigint, recorded boolean, decisions jsonb)
--
-- Records one merge exactly like INSERT INTO ledger.merge ... ON CONFLICT
-- (scope, commit_sha) DO NOTHING (the documented redelivery form) and returns:
--   merge_id   the merge's id (the existing one on redelivery);
--   recorded   true when this call inserted it, false on redelivery (no
--              second effect);
--   decisions  the merge's audit rows as a JSON array of
--              {finding_id, action, rule, evidence, detail}, in id order.
-- Raises LD001-LD004 (see tg_merge__prepare).
CREATE OR REPLACE FUNCTION ledger.record_merge(
    p_scope text,
    p_commit_sha text,
    p_paths text[] DEFAULT '{}',
    p_message text DEFAULT '',
    p_node_id text DEFAULT NULL,
    p_merged_at timestamptz DEFAULT NULL)
RETURNS TABLE (merge_id bigint, recorded boolean, decisions jsonb)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_id bigint;
BEGIN
    INSERT INTO ledger.merge (scope, commit_sha, paths, message, node_id, merged_at)
    VALUES (p_scope, p_commit_sha, p_paths, p_message, p_node_id, p_merged_at)
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
               'evidence', a.evidence, 'detail', a.detail) ORDER BY a.id), '[]'::jsonb)
      INTO decisions
      FROM ledger.supersession a WHERE a.merge_id = v_id;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz) IS
'Record a merge (INSERT ... ON CONFLICT DO NOTHING) and return (merge_id bigint, recorded boolean, decisions jsonb array of {finding_id, action, rule, evidence, detail}). Redelivery returns recorded=false and the original decisions. Raises LD001-LD004.';
''',
    # sql/functions/read_audit.sql
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
    # sql/functions/set_hygiene_mode.sql
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
    # sql/views/active_finding.sql
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
]

POLICIES = r'''
-- Per-scope row-level security (inert until ledger.enable_scope_rls()): every
-- role but the owner sees and writes only the scopes named in the session
-- setting ledger.scopes. One policy per table, FOR ALL, TO PUBLIC; the
-- subquery makes the setting an InitPlan, read once per statement.
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

-- Helpers every role that writes rows needs: the BEFORE triggers run with the
-- writer's rights and call these (trigger functions themselves need no
-- EXECUTE). _scoped_paths is the finding index's expression.
GRANT EXECUTE ON FUNCTION
    ledger._check_text(text, text, boolean, integer, boolean),
    ledger._check_scope_access(text, text),
    ledger._visible_scopes(),
    ledger._scoped_paths(text, text[]),
    ledger.normalize_path(text, text),
    ledger.normalize_paths(text[], text, integer)
    TO ledger_writer, ledger_admin;

-- ledger_writer: insert findings and merges; never the supersession columns,
-- never processed/recorded_at, never the audit, never scope policy.
GRANT SELECT ON ledger.scope, ledger.finding, ledger.merge TO ledger_writer;
GRANT INSERT (scope) ON ledger.scope TO ledger_writer;
GRANT INSERT (scope, finding_key, kind, severity, title, description, paths, source, created_at)
    ON ledger.finding TO ledger_writer;
GRANT INSERT (scope, commit_sha, node_id, message, paths, merged_at) ON ledger.merge TO ledger_writer;
GRANT EXECUTE ON FUNCTION
    ledger._ensure_scope(text),
    ledger.add_finding(text, text, text, text[], text, text, text, text),
    ledger.record_merge(text, text, text[], text, text, timestamptz)
    TO ledger_writer;

-- ledger_reader: active findings, history (findings, merges, scopes), audit.
GRANT SELECT ON ledger.active_finding, ledger.finding, ledger.merge, ledger.scope, ledger.supersession
    TO ledger_reader;
GRANT EXECUTE ON FUNCTION
    ledger._visible_scopes(),
    ledger._severity_rank(text),
    ledger.active_findings(text),
    ledger.read_audit(text, bigint, bigint),
    ledger.normalize_path(text, text),
    ledger.normalize_paths(text[], text, integer)
    TO ledger_reader;

-- ledger_agent: task claims (the claims revision adds claim_task, start_task,
-- complete_task, fail_task here). Nothing else yet.
GRANT EXECUTE ON FUNCTION ledger._visible_scopes() TO ledger_agent;

-- ledger_admin: scope policy (hygiene_mode), reconcile, reading everything
-- (dismissals arrive with the lifecycle revision).
GRANT SELECT ON ledger.active_finding, ledger.finding, ledger.merge, ledger.scope, ledger.supersession
    TO ledger_admin;
GRANT INSERT (scope, hygiene_mode), UPDATE (hygiene_mode) ON ledger.scope TO ledger_admin;
GRANT EXECUTE ON FUNCTION
    ledger._severity_rank(text),
    ledger.active_findings(text),
    ledger.read_audit(text, bigint, bigint),
    ledger.set_hygiene_mode(text, text),
    ledger.reconcile(text)
    TO ledger_admin;

-- Not granted to any ledger role, on purpose: _apply_merge and _match_paths
-- (only the SECURITY DEFINER functions run them), the tg_* trigger functions,
-- enable_scope_rls / disable_scope_rls (the owner's switch), alembic_version.
'''

DOWNGRADE = r'''
DROP POLICY scope_isolation ON ledger.scope;
DROP POLICY scope_isolation ON ledger.finding;
DROP POLICY scope_isolation ON ledger.merge;
DROP POLICY scope_isolation ON ledger.supersession;
ALTER TABLE ledger.scope DISABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.finding DISABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.merge DISABLE ROW LEVEL SECURITY;
ALTER TABLE ledger.supersession DISABLE ROW LEVEL SECURITY;
DROP TRIGGER _050_scope_access ON ledger.finding;
DROP TRIGGER _050_scope_access ON ledger.merge;
DROP TRIGGER _050_scope_access ON ledger.scope;
DROP TRIGGER _010_append_only ON ledger.supersession;
DROP TRIGGER _011_append_only_truncate ON ledger.supersession;
DROP FUNCTION ledger.reconcile(text);
DROP FUNCTION ledger._apply_merge(bigint);
DROP FUNCTION ledger.enable_scope_rls();
DROP FUNCTION ledger.disable_scope_rls();
DROP FUNCTION ledger.tg_scoped__check_access();
DROP FUNCTION ledger.tg_supersession__append_only();
DROP FUNCTION ledger._check_scope_access(text, text);
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
    for sql in RESTORE_0001_SQL:
        run_sql(sql)
    run_sql(DOWNGRADE)
    run_sql(REVOKE_AND_DROP_ROLES)
