CREATE OR REPLACE FUNCTION ledger.tg_merge__check_redelivery()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_id     bigint;
    v_rec    record;
    v_keys   text[];
    v_paths  text[];
    v_branch text;
    v_diff   text[] := '{}'::text[];
    v_only   text[];
    v_new    text[];
BEGIN
    IF length(NEW.commit_sha) IN (40, 64) THEN
        PERFORM pg_advisory_xact_lock_shared(hashtext('ledger.merge ' || NEW.scope),
                                             ('x' || left(NEW.commit_sha, 2))::bit(8)::integer);
    ELSE
        PERFORM pg_advisory_xact_lock(hashtext('ledger.merge ' || NEW.scope),
                                      ('x' || left(NEW.commit_sha, 2))::bit(8)::integer);
    END IF;
    v_id := ledger._recorded_merge(NEW.scope, NEW.commit_sha);
    IF v_id IS NULL THEN
        RETURN NEW;
    END IF;
    SELECT m.commit_sha, m.message, m.paths, m.branch, m.processed, m.added, m.deleted, m.hunks, m.merged_at,
           m.recorded_at
      INTO v_rec FROM ledger.merge m WHERE m.id = v_id;
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
    IF ARRAY(SELECT DISTINCT p FROM unnest(v_rec.added) AS p ORDER BY 1) IS DISTINCT FROM
       ARRAY(SELECT DISTINCT p FROM unnest(NEW.added) AS p ORDER BY 1) OR (v_rec.added IS NULL) <> (NEW.added IS NULL) THEN
        v_diff := v_diff || format('added (recorded %s, delivered %s)', coalesce(left(v_rec.added::text, 200), 'NULL (unknown)'),
                                   coalesce(left(NEW.added::text, 200), 'NULL (unknown)'));
    END IF;
    IF ARRAY(SELECT DISTINCT p FROM unnest(v_rec.deleted) AS p ORDER BY 1) IS DISTINCT FROM
       ARRAY(SELECT DISTINCT p FROM unnest(NEW.deleted) AS p ORDER BY 1) OR (v_rec.deleted IS NULL) <> (NEW.deleted IS NULL) THEN
        v_diff := v_diff || format('deleted (recorded %s, delivered %s)', coalesce(left(v_rec.deleted::text, 200), 'NULL (unknown)'),
                                   coalesce(left(NEW.deleted::text, 200), 'NULL (unknown)'));
    END IF;
    IF coalesce(v_rec.hunks, '{}') <> coalesce(NEW.hunks, '{}') THEN
        v_keys := ARRAY(SELECT k FROM (SELECT jsonb_object_keys(coalesce(v_rec.hunks, '{}')) UNION
                                       SELECT jsonb_object_keys(coalesce(NEW.hunks, '{}'))) AS u(k)
                         WHERE coalesce(v_rec.hunks, '{}') -> k IS DISTINCT FROM coalesce(NEW.hunks, '{}') -> k ORDER BY 1);
        v_diff := v_diff || format('hunks (of %s)', left(array_to_string(v_keys[1:10], ', '), 300));
    END IF;
    IF NEW.merged_at <> now() AND v_rec.merged_at <> v_rec.recorded_at AND NEW.merged_at <> v_rec.merged_at THEN
        v_diff := v_diff || format('merged_at (recorded %s, delivered %s)', v_rec.merged_at, NEW.merged_at);
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
'BEFORE INSERT trigger _120_redelivery on ledger.merge: a commit the scope already recorded (the same sha or an abbreviation either way) must carry the same paths (as a set), message (but trailing white space), branch, added and deleted (as sets), hunks, and merged_at when both gave one: then it becomes the recorded sha, so ON CONFLICT DO NOTHING skips it; otherwise LD007 naming what differs. Serialised per (scope, first two hex digits of the sha) with a transaction advisory lock, exclusive for an abbreviation.';
