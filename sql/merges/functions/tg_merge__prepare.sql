-- ledger.tg_merge__prepare() -> trigger (BEFORE INSERT ON ledger.merge)
--
-- Every merge row, however it is written, passes through here:
--   scope       a scope name (ledger._check_scope: required, single line,
--               <= 200 chars, no comma); created on first use;
--   commit_sha  required, 4-64 hexadecimal digits, lower-cased (ASCII:
--               ledger._check_commit_sha);
--   node_id     optional session or node id, single line, <= 200 chars;
--   message     NULL -> '', <= 262144 chars (256 KiB of text);
--   paths       normalised by ledger.normalize_paths (at most 100000), NULL -> {};
--   merged_at   NULL -> now(); finite, not before year 1 and not in the
--               future (ledger._check_timestamp: up to 5 minutes ahead is
--               stored as now(), LD003 beyond);
--   processed   set true: the row went through the ledger's triggers (rows
--               applied with session_replication_role = replica keep false,
--               and ledger.reconcile picks them up).
-- Raises LD001-LD004 naming the field and value; nothing is written on error.
-- Cost (every merge row, a COPY's included, runs this): a value that is
-- already what ledger._check_scope, _check_text or _check_timestamp would
-- return (for a scope, printable ASCII without a comma or white space at
-- either end; a commit_sha of 4-64 lower-case hexadecimal digits; a node_id
-- of one line with nothing to trim; a merged_at not after now()) is kept
-- without calling them, and ledger._ensure_scope is called only when the
-- scope row is missing (SET enable_seqscan = off: that lookup is an index
-- probe of scope_pkey whatever the statistics say); every other value goes
-- through the checks and gets their errors, as tg_finding__prepare does.
CREATE OR REPLACE FUNCTION ledger.tg_merge__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
AS $$
BEGIN
    NEW.scope := CASE WHEN ledger._scope_kept(NEW.scope) THEN NEW.scope ELSE ledger._check_scope(NEW.scope, 'merge.scope') END;
    IF NEW.commit_sha IS NULL OR NEW.commit_sha !~ '^[0-9a-f]{4,64}$' THEN
        NEW.commit_sha := ledger._check_commit_sha(NEW.commit_sha, 'merge.commit_sha');
    END IF;
    IF NOT coalesce(ledger._text_kept(NEW.node_id, 200), true) THEN
        NEW.node_id := ledger._check_text(NEW.node_id, 'merge.node_id', false, 200);
    END IF;
    NEW.message := coalesce(NEW.message, '');
    IF length(NEW.message) > 262144 THEN
        RAISE EXCEPTION 'invalid merge.message: % characters, at most 262144 are accepted',
            length(NEW.message) USING ERRCODE = 'LD004';
    END IF;
    NEW.paths := ledger.normalize_paths(NEW.paths, 'merge.paths', 100000);
    IF NEW.merged_at IS NULL THEN
        NEW.merged_at := now();
    ELSIF NOT NEW.merged_at BETWEEN '0001-01-02 00:00:00+00' AND now() THEN
        NEW.merged_at := ledger._check_timestamp(NEW.merged_at, 'merge.merged_at');
    END IF;
    NEW.processed := true;
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = NEW.scope) THEN
        PERFORM ledger._ensure_scope(NEW.scope);
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__prepare() IS
'BEFORE INSERT trigger on ledger.merge: validates and normalises scope, commit_sha, node_id, message, paths; creates the scope on first use; marks the row processed. Raises LD001-LD004 naming field and value.';
