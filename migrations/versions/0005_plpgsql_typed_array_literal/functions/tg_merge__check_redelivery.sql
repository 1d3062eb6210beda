-- ledger.tg_merge__check_redelivery() -> trigger (BEFORE INSERT ON
-- ledger.merge, trigger _120_redelivery, after _100_prepare and _110_branch)
--
-- A commit is recorded once per scope, and a redelivery must say what the
-- recorded merge says. When the scope already holds the commit (the same
-- sha, or one sha an abbreviation of the other: ledger._recorded_merge),
--   identical  (the same set of paths, the same message but for trailing
--              white space, the same branch): NEW.commit_sha becomes the
--              recorded sha, so the unique key (scope, commit_sha) sees the
--              redelivery: INSERT ... ON CONFLICT DO NOTHING (and
--              ledger.record_merge) skip it silently, a plain INSERT fails
--              with 23505 as for an exact duplicate;
--   different  raises LD007 (merge_conflict), naming the recorded merge and
--              each field that differs (paths: what only one side has;
--              message; branch), and nothing is written.
-- node_id and merged_at are not compared (a redelivery from another node is
-- the same merge). A recorded merge not yet processed (loaded without
-- triggers, waiting for ledger.reconcile) is compared with its paths and
-- branch normalised. Two deliveries of one commit racing each other (neither
-- committed when the other looks) are not compared: the second waits on the
-- unique key and is dropped by DO NOTHING as a redelivery.
-- Raises LD007 (also from ledger._recorded_merge: an ambiguous abbreviation).
CREATE OR REPLACE FUNCTION ledger.tg_merge__check_redelivery()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_id     bigint := ledger._recorded_merge(NEW.scope, NEW.commit_sha);
    v_rec    record;
    v_paths  text[];
    v_branch text;
    v_diff   text[] := '{}'::text[];
    v_only   text[];
    v_new    text[];
BEGIN
    IF v_id IS NULL THEN
        RETURN NEW;
    END IF;
    SELECT m.commit_sha, m.message, m.paths, m.branch, m.processed INTO v_rec FROM ledger.merge m WHERE m.id = v_id;
    v_paths := CASE WHEN v_rec.processed THEN v_rec.paths
                    ELSE ledger.normalize_paths(v_rec.paths, 'merge ' || v_id || ' paths', 100000) END;
    v_branch := CASE WHEN v_rec.processed THEN v_rec.branch
                     ELSE ledger._normalize_branch(v_rec.branch, 'merge ' || v_id || ' branch') END;
    v_only := ARRAY(SELECT p FROM unnest(v_paths) AS p EXCEPT SELECT p FROM unnest(NEW.paths) AS p ORDER BY 1);
    v_new := ARRAY(SELECT p FROM unnest(NEW.paths) AS p EXCEPT SELECT p FROM unnest(v_paths) AS p ORDER BY 1);
    IF cardinality(v_only) > 0 OR cardinality(v_new) > 0 THEN
        v_diff := v_diff || format('paths (only recorded: %s; only delivered: %s)',
                                   coalesce(nullif(left(array_to_string(v_only[1:10], ', '), 300), ''), 'none'),
                                   coalesce(nullif(left(array_to_string(v_new[1:10], ', '), 300), ''), 'none'));
    END IF;
    IF rtrim(v_rec.message, E' \t\r\n') <> rtrim(NEW.message, E' \t\r\n') THEN
        v_diff := v_diff || format('message (recorded %s, delivered %s)',
                                   quote_literal(left(v_rec.message, 80)), quote_literal(left(NEW.message, 80)));
    END IF;
    IF v_branch IS DISTINCT FROM NEW.branch THEN
        v_diff := v_diff || format('branch (recorded %s, delivered %s)',
                                   quote_nullable(v_branch), quote_nullable(NEW.branch));
    END IF;
    IF cardinality(v_diff) > 0 THEN
        RAISE EXCEPTION 'conflicting redelivery of merge.commit_sha % in scope %: merge % (commit %) was recorded with other %',
            quote_literal(NEW.commit_sha), quote_literal(NEW.scope), v_id, v_rec.commit_sha,
            array_to_string(v_diff, '; ')
            USING ERRCODE = 'LD007',
                  HINT = 'A merge is recorded once and never rewritten (ON CONFLICT DO UPDATE is refused too): redeliver with INSERT ... ON CONFLICT (scope, commit_sha) DO NOTHING exactly what was recorded, or record a correction as a new commit.';
    END IF;
    NEW.commit_sha := v_rec.commit_sha;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__check_redelivery() IS
'BEFORE INSERT trigger _120_redelivery on ledger.merge: a commit the scope already recorded (the same sha or an abbreviation either way) must carry the same paths (as a set), message (but trailing white space) and branch: then it becomes the recorded sha, so ON CONFLICT DO NOTHING skips it; otherwise LD007 naming what differs.';
