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
