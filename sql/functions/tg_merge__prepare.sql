-- ledger.tg_merge__prepare() -> trigger (BEFORE INSERT ON ledger.merge)
--
-- Every merge row, however it is written, passes through here:
--   scope       a scope name (ledger._check_scope: required, single line,
--               <= 200 chars, no comma); created on first use;
--   commit_sha  required, 4-64 hexadecimal digits, lower-cased (ASCII);
--   node_id     optional session or node id, single line, <= 200 chars;
--   message     NULL -> '', <= 262144 chars (256 KiB of text);
--   paths       normalised by ledger.normalize_paths (at most 100000), NULL -> {};
--   merged_at   NULL -> now(); not in the future (ledger._check_timestamp:
--               up to 5 minutes ahead is stored as now(), LD003 beyond);
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
    NEW.scope := ledger._check_scope(NEW.scope, 'merge.scope');
    NEW.commit_sha := lower(ledger._check_text(NEW.commit_sha, 'merge.commit_sha', true, 64) COLLATE "C");
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
    NEW.merged_at := coalesce(ledger._check_timestamp(NEW.merged_at, 'merge.merged_at'), now());
    NEW.processed := true;
    PERFORM ledger._ensure_scope(NEW.scope);
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__prepare() IS
'BEFORE INSERT trigger on ledger.merge: validates and normalises scope, commit_sha, node_id, message, paths; creates the scope on first use; marks the row processed. Raises LD001-LD004 naming field and value.';
