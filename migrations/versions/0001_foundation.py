"""Foundation: scopes, findings, merges, the audit, path normalisation and
supersession when merges land (seed 000, "Option A").

Revision ID: 0001_foundation
Revises:
Create Date: 2026-11-30

Creates, in schema ``ledger``: tables scope, merge, finding, supersession
(the audit); the path normalisation and validation triggers; the AFTER
INSERT trigger that supersedes findings whose paths a merge touched; the view
active_finding; the functions active_findings, add_finding, record_merge,
read_audit, normalize_path(s). Every table is new, so nothing is rewritten
or locked beyond the new objects.

The SQL below is frozen: it is the text of sql/ when this revision was
written (tools/freeze_sql.py) and must never be edited; a later change to a
function is a new revision.
"""

from findings_ledger.migration_ops import run_sql

revision = "0001_foundation"
down_revision = None
branch_labels = None
depends_on = None

TABLES = r'''
CREATE TABLE ledger.scope (
    scope        text PRIMARY KEY,
    hygiene_mode text NOT NULL DEFAULT 'on',
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT scope_hygiene_mode_check CHECK (hygiene_mode IN ('on', 'dry', 'off'))
);
COMMENT ON TABLE ledger.scope IS
'A namespace of findings and merges (a spec, project or repository). Created with defaults the first time a finding or merge names it. hygiene_mode: on (supersede), dry (audit would_supersede only), off (nothing).';

CREATE TABLE ledger.merge (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope       text NOT NULL REFERENCES ledger.scope (scope),
    commit_sha  text NOT NULL,
    node_id     text,
    message     text NOT NULL DEFAULT '',
    paths       text[] NOT NULL DEFAULT '{}',
    merged_at   timestamptz NOT NULL DEFAULT now(),
    recorded_at timestamptz NOT NULL DEFAULT now(),
    processed   boolean NOT NULL DEFAULT false,
    CONSTRAINT merge_scope_commit_sha_key UNIQUE (scope, commit_sha)
);
COMMENT ON TABLE ledger.merge IS
'One row per merge that landed. paths: the files it touched (both sides of a rename). node_id: the session or node that produced it. (scope, commit_sha) is unique: redeliver with INSERT ... ON CONFLICT DO NOTHING. Inserting a row supersedes findings (trigger _200_supersede).';
COMMENT ON COLUMN ledger.merge.processed IS
'true once the row went through the ledger triggers; false for rows applied with session_replication_role = replica.';

CREATE TABLE ledger.finding (
    id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope                  text NOT NULL REFERENCES ledger.scope (scope),
    finding_key            text,
    kind                   text NOT NULL DEFAULT 'review',
    severity               text NOT NULL DEFAULT 'medium',
    title                  text NOT NULL,
    description            text,
    paths                  text[] NOT NULL DEFAULT '{}',
    source                 text,
    created_at             timestamptz NOT NULL DEFAULT now(),
    superseded_at          timestamptz,
    superseded_by          text,
    superseded_by_merge_id bigint REFERENCES ledger.merge (id),
    supersede_rule         text,
    CONSTRAINT finding_scope_finding_key_key UNIQUE (scope, finding_key),
    CONSTRAINT finding_severity_check CHECK (severity IN ('critical', 'high', 'medium', 'low', 'info'))
);
COMMENT ON TABLE ledger.finding IS
'A review or drift note injected into later agents'' prompts. superseded_at IS NULL means active; a superseded finding keeps all its text and is never deleted. paths: repository-relative files, directories end with /.';
COMMENT ON COLUMN ledger.finding.superseded_by IS
'Who retired the finding: the superseding merge''s node_id (seed 000''s marker), or its commit sha when it has none.';

CREATE TABLE ledger.supersession (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope      text NOT NULL REFERENCES ledger.scope (scope),
    finding_id bigint REFERENCES ledger.finding (id),
    merge_id   bigint REFERENCES ledger.merge (id),
    action     text NOT NULL,
    rule       text,
    evidence   text,
    detail     jsonb,
    actor      text,
    reason     text,
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE ledger.supersession IS
'The audit trail: one row per decision, written in the same transaction as the change it records, before the finding changes. action: superseded, would_supersede (dry mode), already_superseded (a concurrent merge won), ... rule: path, ... evidence: the touched path (or text) that matched.';

CREATE INDEX supersession_finding_idx ON ledger.supersession (finding_id, id);
CREATE INDEX supersession_merge_idx ON ledger.supersession (merge_id, id);
CREATE INDEX supersession_scope_idx ON ledger.supersession (scope, id);
CREATE INDEX finding_scope_active_idx ON ledger.finding (scope, id) WHERE superseded_at IS NULL;
CREATE INDEX merge_unprocessed_idx ON ledger.merge (id) WHERE NOT processed;
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
    # sql/functions/_ensure_scope.sql
    r'''
-- ledger._ensure_scope(p_scope text) -> void
--
-- Creates the scope row with its defaults (hygiene_mode 'on') the first time
-- a finding or merge names it. Safe under concurrency: two writers naming a
-- new scope at once both succeed (ON CONFLICT DO NOTHING). The caller has
-- validated p_scope. Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger._ensure_scope(p_scope text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        INSERT INTO ledger.scope (scope) VALUES (p_scope) ON CONFLICT DO NOTHING;
    END IF;
END
$$;

COMMENT ON FUNCTION ledger._ensure_scope(text) IS
'Create a scope with default policy the first time it is named. text -> void. Raises nothing.';
''',
    # sql/functions/_severity_rank.sql
    r'''
-- ledger._severity_rank(p_severity text) -> integer
--
-- Sort rank of a severity: critical 0, high 1, medium 2, low 3, info 4,
-- anything else 5. Used to order findings for a prompt (most severe first).
CREATE OR REPLACE FUNCTION ledger._severity_rank(p_severity text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE p_severity
        WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2
        WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5 END
$$;

COMMENT ON FUNCTION ledger._severity_rank(text) IS
'Sort rank of a severity, most severe first: critical 0 .. info 4, other 5. text -> integer.';
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
    # sql/functions/normalize_paths.sql
    r'''
-- ledger.normalize_paths(p_paths text[], p_field text DEFAULT 'paths', p_max integer DEFAULT 100000) -> text[]
--
-- Normalises every element with ledger.normalize_path and collapses
-- duplicates, keeping the first occurrence's position. NULL array -> '{}'
-- (no paths). At most p_max elements. Raises LD001 (path_rejected) naming
-- p_field[index] and the value; LD004 (value_too_long) past p_max elements.
CREATE OR REPLACE FUNCTION ledger.normalize_paths(p_paths text[], p_field text DEFAULT 'paths', p_max integer DEFAULT 100000)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_out text[];
BEGIN
    IF p_paths IS NULL OR cardinality(p_paths) = 0 THEN
        RETURN '{}';
    END IF;
    IF cardinality(p_paths) > p_max THEN
        RAISE EXCEPTION 'invalid %: % paths, at most % are accepted', p_field, cardinality(p_paths), p_max
            USING ERRCODE = 'LD004';
    END IF;
    -- Fast path: every element already normal and distinct (the common case
    -- for generated paths) -> return the array unchanged. The pattern is the
    -- negation of every rewrite and rejection rule of normalize_path.
    IF (SELECT bool_and(length(p) <= 4096
                        AND p ~ '^[^/\s\\]'
                        AND p !~ '[\\\x01-\x1f\x7f]|//|(^|/)\.\.?(/|$)|:[0-9]+(:[0-9]+)?$|^[A-Za-z]:(/|$)|\s$')
               AND count(DISTINCT p) = count(*)
          FROM unnest(p_paths) AS p) THEN
        RETURN p_paths;
    END IF;
    SELECT coalesce(array_agg(p ORDER BY first_ord), '{}') INTO v_out
    FROM (
        SELECT ledger.normalize_path(raw, p_field || '[' || ord || ']') AS p, min(ord) AS first_ord
        FROM unnest(p_paths) WITH ORDINALITY AS t(raw, ord)
        GROUP BY 1
    ) s;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.normalize_paths(text[], text, integer) IS
'Normalise a path array: each element through normalize_path, duplicates collapsed (first position kept), NULL -> {}. (text[], field text, max integer) -> text[]. Raises LD001 naming field[index] and value; LD004 above max elements.';
''',
    # sql/functions/_match_paths.sql
    r'''
-- ledger._match_paths(p_scope text, p_paths text[]) ->
--     TABLE(finding_id bigint, finding_path text, touched_path text)
--
-- The active findings of p_scope that reference any of the touched paths
-- p_paths (already normalised), one row per finding with the first matching
-- pair (smallest touched path, then finding path) as evidence. A finding path
-- matches a touched path when it is equal to it (file) or is a directory
-- reference ('.../') that is a prefix of it at a '/' boundary. Findings with
-- no paths never match.
--
-- Cost: one GIN probe (finding_active_paths_idx) per key, i.e. per touched
-- path and ancestor directory; it grows with the touched paths and the
-- matches, not with the number of findings. The keys carry the scope, so no
-- separate scope condition is needed (and none tempts the planner onto the
-- scope's btree index). Raises nothing.
CREATE OR REPLACE FUNCTION ledger._match_paths(p_scope text, p_paths text[])
RETURNS TABLE (finding_id bigint, finding_path text, touched_path text)
LANGUAGE sql STABLE
SET search_path = pg_catalog
-- A handful of index probes: parallel workers only add start-up cost (the
-- planner's default 1% estimate for && would otherwise launch them).
SET max_parallel_workers_per_gather = 0
AS $$
    WITH keys AS (
        -- each touched path and each of its ancestor directories ('a/b/c.py'
        -- -> 'a/', 'a/b/', 'a/b/c.py'), set-based rather than per-path calls
        SELECT DISTINCT
               array_to_string(a.parts[1:n], '/')
                   || CASE WHEN n < cardinality(a.parts) THEN '/' ELSE '' END AS key,
               t.path AS touched
        FROM unnest(p_paths) AS t(path),
             LATERAL (SELECT string_to_array(t.path, '/') AS parts) AS a,
             generate_series(1, cardinality(a.parts)) AS n
        WHERE a.parts[n] <> ''
    ), candidates AS (
        SELECT f.id, f.paths
        FROM ledger.finding f
        WHERE ledger._scoped_paths(f.scope, f.paths)
                  OPERATOR(pg_catalog.&&) ledger._scoped_paths(p_scope, ARRAY(SELECT DISTINCT key FROM keys))
          AND f.superseded_at IS NULL
    )
    SELECT DISTINCT ON (c.id) c.id, fp.path, keys.touched
    FROM candidates c
    CROSS JOIN LATERAL pg_catalog.unnest(c.paths) AS fp(path)
    JOIN keys ON keys.key = fp.path
    ORDER BY c.id, keys.touched, fp.path
$$;

COMMENT ON FUNCTION ledger._match_paths(text, text[]) IS
'Active findings of a scope referencing any touched path (exact file, or directory prefix at a / boundary), with the first matching (finding_path, touched_path) pair as evidence. (scope text, paths text[]) -> TABLE(finding_id bigint, finding_path text, touched_path text). Index-driven (GIN finding_active_paths_idx). Raises nothing.';
''',
    # sql/functions/tg_scope__prepare.sql
    r'''
-- ledger.tg_scope__prepare() -> trigger (BEFORE INSERT OR UPDATE ON ledger.scope)
--
-- Validates a scope row written directly by a service or by _ensure_scope.
-- Raises LD002 (scope missing), LD003 (hygiene_mode not one of on, dry, off;
-- control character in scope), LD004 (scope longer than 200 characters),
-- each naming the field and the value.
CREATE OR REPLACE FUNCTION ledger.tg_scope__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    NEW.scope := ledger._check_text(NEW.scope, 'scope.scope', true, 200);
    NEW.hygiene_mode := lower(ledger._check_text(coalesce(NEW.hygiene_mode, 'on'), 'scope.hygiene_mode', true, 10));
    IF NEW.hygiene_mode NOT IN ('on', 'dry', 'off') THEN
        RAISE EXCEPTION 'invalid scope.hygiene_mode: % (expected on, dry or off)', quote_literal(NEW.hygiene_mode)
            USING ERRCODE = 'LD003';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_scope__prepare() IS
'BEFORE INSERT OR UPDATE trigger on ledger.scope: trims and validates scope and hygiene_mode. Raises LD002, LD003, LD004 naming field and value.';
''',
    # sql/functions/tg_finding__prepare.sql
    r'''
-- ledger.tg_finding__prepare() -> trigger (BEFORE INSERT OR UPDATE OF the
-- written columns ON ledger.finding)
--
-- Every finding, however it is written (INSERT, multi-row INSERT, COPY, the
-- Python API), passes through here:
--   scope        required, single line, <= 200 chars; the scope row is created
--                with defaults the first time it is named;
--   title        required, single line, <= 1000 chars, trimmed;
--   finding_key  optional stable id, single line, <= 200 chars, trimmed;
--   kind         free text, lower-cased, <= 100 chars, default 'review';
--   severity     critical | high | medium | low | info (major -> high,
--                minor -> low), case-insensitive, default 'medium';
--   description  optional, <= 1000000 chars, stored as given ('' -> NULL);
--   source       optional, single line, <= 200 chars;
--   paths        normalised by ledger.normalize_paths (at most 1000), NULL -> {}.
-- Raises LD001 (path), LD002 (required), LD003 (invalid), LD004 (too long),
-- each naming the field and the value; nothing is written on error.
CREATE OR REPLACE FUNCTION ledger.tg_finding__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_severity text;
BEGIN
    NEW.scope := ledger._check_text(NEW.scope, 'finding.scope', true, 200);
    NEW.title := ledger._check_text(NEW.title, 'finding.title', true, 1000);
    NEW.finding_key := ledger._check_text(NEW.finding_key, 'finding.finding_key', false, 200);
    NEW.kind := lower(ledger._check_text(coalesce(NEW.kind, 'review'), 'finding.kind', true, 100));
    v_severity := lower(ledger._check_text(coalesce(NEW.severity, 'medium'), 'finding.severity', true, 20));
    NEW.severity := CASE v_severity WHEN 'major' THEN 'high' WHEN 'minor' THEN 'low' ELSE v_severity END;
    IF NEW.severity NOT IN ('critical', 'high', 'medium', 'low', 'info') THEN
        RAISE EXCEPTION 'invalid finding.severity: % (expected critical, high, medium, low or info)',
            quote_literal(v_severity) USING ERRCODE = 'LD003';
    END IF;
    NEW.description := nullif(NEW.description, '');
    IF length(NEW.description) > 1000000 THEN
        RAISE EXCEPTION 'invalid finding.description: % characters, at most 1000000 are accepted',
            length(NEW.description) USING ERRCODE = 'LD004';
    END IF;
    NEW.source := ledger._check_text(NEW.source, 'finding.source', false, 200);
    NEW.paths := ledger.normalize_paths(NEW.paths, 'finding.paths', 1000);
    IF TG_OP = 'INSERT' OR NEW.scope IS DISTINCT FROM OLD.scope THEN
        PERFORM ledger._ensure_scope(NEW.scope);
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__prepare() IS
'BEFORE INSERT/UPDATE trigger on ledger.finding: validates and normalises scope, title, finding_key, kind, severity, description, source, paths; creates the scope on first use. Raises LD001-LD004 naming field and value.';
''',
    # sql/functions/tg_merge__prepare.sql
    r'''
-- ledger.tg_merge__prepare() -> trigger (BEFORE INSERT ON ledger.merge)
--
-- Every merge row, however it is written, passes through here:
--   scope       required, single line, <= 200 chars; created on first use;
--   commit_sha  required, 4-64 hexadecimal digits, lower-cased;
--   node_id     optional session or node id, single line, <= 200 chars;
--   message     NULL -> '', <= 262144 chars (256 KiB of text);
--   paths       normalised by ledger.normalize_paths (at most 100000), NULL -> {};
--   merged_at   NULL -> now();
--   processed   set true: the row went through the ledger's triggers (rows
--               applied with session_replication_role = replica keep false,
--               and ledger.reconcile picks them up).
-- Raises LD001-LD004 naming the field and value; nothing is written on error.
CREATE OR REPLACE FUNCTION ledger.tg_merge__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    NEW.scope := ledger._check_text(NEW.scope, 'merge.scope', true, 200);
    NEW.commit_sha := lower(ledger._check_text(NEW.commit_sha, 'merge.commit_sha', true, 64));
    IF NEW.commit_sha !~ '^[0-9a-f]{4,64}$' THEN
        RAISE EXCEPTION 'invalid merge.commit_sha: % is not a hexadecimal commit id (4 to 64 digits)',
            quote_literal(NEW.commit_sha) USING ERRCODE = 'LD003';
    END IF;
    NEW.node_id := ledger._check_text(NEW.node_id, 'merge.node_id', false, 200);
    NEW.message := coalesce(NEW.message, '');
    IF length(NEW.message) > 262144 THEN
        RAISE EXCEPTION 'invalid merge.message: % characters, at most 262144 are accepted',
            length(NEW.message) USING ERRCODE = 'LD004';
    END IF;
    NEW.paths := ledger.normalize_paths(NEW.paths, 'merge.paths', 100000);
    NEW.merged_at := coalesce(NEW.merged_at, now());
    NEW.processed := true;
    PERFORM ledger._ensure_scope(NEW.scope);
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__prepare() IS
'BEFORE INSERT trigger on ledger.merge: validates and normalises scope, commit_sha, node_id, message, paths; creates the scope on first use; marks the row processed. Raises LD001-LD004 naming field and value.';
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
    # sql/functions/add_finding.sql
    r'''
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
    # sql/functions/active_findings.sql
    r'''
-- ledger.active_findings(p_scope text) -> SETOF ledger.active_finding
--
-- The active findings of one scope in prompt order: most severe first
-- (critical, high, medium, low, info), then newest first, then id.
-- Raises LD005 (not_found) when the scope does not exist, so a mistyped scope
-- is an error rather than an empty prompt.
CREATE OR REPLACE FUNCTION ledger.active_findings(p_scope text)
RETURNS SETOF ledger.active_finding
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_nullable(p_scope) USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
        SELECT a.* FROM ledger.active_finding a
         WHERE a.scope = p_scope
         ORDER BY ledger._severity_rank(a.severity), a.created_at DESC, a.id DESC;
END
$$;

COMMENT ON FUNCTION ledger.active_findings(text) IS
'Active findings of one scope in prompt order (severity, then newest). text -> SETOF ledger.active_finding. Raises LD005 for an unknown scope.';
''',
    # sql/triggers/scope___100_prepare.sql
    r'''
-- Trigger _100_prepare on ledger.scope: validation before every write.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.scope;
CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE ON ledger.scope
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scope__prepare();
''',
    # sql/triggers/finding___100_prepare.sql
    r'''
-- Trigger _100_prepare on ledger.finding: validation and path normalisation
-- before every insert and every update of a written column.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.finding;
CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE OF scope, finding_key, kind, severity, title, description, paths, source
    ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__prepare();
''',
    # sql/triggers/merge___100_prepare.sql
    r'''
-- Trigger _100_prepare on ledger.merge: validation and path normalisation.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.merge;
CREATE TRIGGER _100_prepare
    BEFORE INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__prepare();
''',
    # sql/triggers/merge___200_supersede.sql
    r'''
-- Trigger _200_supersede on ledger.merge: the path rule, after the row is in.
DROP TRIGGER IF EXISTS _200_supersede ON ledger.merge;
CREATE TRIGGER _200_supersede
    AFTER INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__supersede();
''',
]

INDEXES = r'''
CREATE INDEX finding_active_paths_idx ON ledger.finding
    USING gin (ledger._scoped_paths(scope, paths)) WITH (fastupdate = off)
    WHERE superseded_at IS NULL;
'''

DOWNGRADE = r'''
DROP FUNCTION ledger.active_findings(text);
DROP FUNCTION ledger.read_audit(text, bigint, bigint);
DROP FUNCTION ledger.set_hygiene_mode(text, text);
DROP FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz);
DROP FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text);
DROP VIEW ledger.active_finding;
DROP TABLE ledger.supersession, ledger.finding, ledger.merge, ledger.scope;
DROP FUNCTION ledger.tg_merge__supersede();
DROP FUNCTION ledger.tg_merge__prepare();
DROP FUNCTION ledger.tg_finding__prepare();
DROP FUNCTION ledger.tg_scope__prepare();
DROP FUNCTION ledger._match_paths(text, text[]);
DROP FUNCTION ledger.normalize_paths(text[], text, integer);
DROP FUNCTION ledger.normalize_path(text, text);
DROP FUNCTION ledger._scoped_paths(text, text[]);
DROP FUNCTION ledger._severity_rank(text);
DROP FUNCTION ledger._ensure_scope(text);
DROP FUNCTION ledger._check_text(text, text, boolean, integer, boolean);
'''


def upgrade() -> None:
    run_sql(TABLES)
    for sql in FROZEN_SQL:
        run_sql(sql)
    run_sql(INDEXES)


def downgrade() -> None:
    run_sql(DOWNGRADE)
