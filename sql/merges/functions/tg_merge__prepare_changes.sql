-- ledger.tg_merge__prepare_changes() -> trigger (BEFORE INSERT OR UPDATE OF
-- paths, added, deleted, hunks ON ledger.merge, after _110_branch)
--
-- Validates and normalises what a merge says about the kind of each change,
-- however the row is written: added, deleted and hunks as
-- ledger._check_merge_changes checks and stores them (docs/matching.md,
-- "Change kinds", "Line anchors"; NULL added/deleted: unknown, NULL hunks:
-- none).
-- Fast path, one query, for an INSERT whose values are already normal (the
-- common case: a writer that sends git's paths): added and deleted
-- one-dimensional from index 1, without NULLs or duplicates, each element
-- one of paths (which ledger.tg_merge__prepare, _100_prepare, has
-- normalised: an element equal to one of them is normal) or, for a deleted
-- directory (ending in /), one of the directories above them
-- (ledger._path_keys: a directory of a normal path, with its /, is normal
-- too), no path both added and deleted nor added under a deleted
-- directory; hunks an object whose keys are each one of paths (not a
-- directory), each value an array of at most 10000 hunks [a, b, c, d] of
-- integers from 0 to 2147483647, at most 100000 hunks in all. Such a row is stored as written, which is what
-- the full checks return for it (tests/sql/test_merge_changes_fast_path.py
-- feeds every malformed merge of the hardening tests through both); any
-- other row, and every UPDATE (paths not normalised by this statement), goes
-- through ledger._check_merge_changes, which raises the errors.
-- A merge needs none of them: without added/deleted, findings that expect a
-- path present or absent are only audited as candidates; without hunks for a
-- path, the file-level path rule applies to it.
-- Cost: one query on the fast path (set operations against paths, hashed
-- or sorted: O(n log n) at worst in the paths, the added/deleted paths and
-- the hunk keys; each file's hunks matched by one regular expression over
-- their text, not hunk by hunk); the directory keys of paths and of added
-- are built only for a merge that deletes a directory.
-- Raises (through ledger._check_merge_changes) LD001 (a path that is not a
-- path), LD003 (not a subset of paths, added and deleted contradicting each
-- other, a malformed hunk), LD004 (more than 100000 paths, more than 10000
-- hunks of one path or 100000 of one merge), each naming the field
-- (merge.added[2], merge.hunks["src/a.py"][1]) and the value; nothing is
-- written on error.
CREATE OR REPLACE FUNCTION ledger.tg_merge__prepare_changes()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_normal boolean;
BEGIN
    IF NEW.added IS NULL AND NEW.deleted IS NULL AND NEW.hunks IS NULL THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'INSERT' THEN
        -- (every test of an element against a list is a set operation,
        -- hashed or sorted: this statement keeps one generic plan, which
        -- reckons with 10 elements per array, and an IN (list) it planned
        -- for that size would compare each element with each path)
        SELECT (NEW.added IS NULL OR cardinality(NEW.added) = 0
                OR (array_ndims(NEW.added) = 1 AND array_lower(NEW.added, 1) = 1
                    AND NOT EXISTS (SELECT a.p FROM unnest(NEW.added) AS a(p)
                                    EXCEPT SELECT q FROM unnest(NEW.paths) AS q)
                    AND (SELECT count(DISTINCT a.p) FROM unnest(NEW.added) AS a(p)) = cardinality(NEW.added)))
           AND (NEW.deleted IS NULL OR cardinality(NEW.deleted) = 0
                OR (array_ndims(NEW.deleted) = 1 AND array_lower(NEW.deleted, 1) = 1
                    -- a file (or a NULL) among paths, a directory among their keys
                    AND NOT EXISTS (SELECT d.p FROM unnest(NEW.deleted) AS d(p)
                                     WHERE d.p IS NULL OR right(d.p, 1) <> '/'
                                    EXCEPT SELECT q FROM unnest(NEW.paths) AS q)
                    AND (NOT EXISTS (SELECT 1 FROM unnest(NEW.deleted) AS d(p) WHERE right(d.p, 1) = '/')
                         OR NOT EXISTS (SELECT d.p FROM unnest(NEW.deleted) AS d(p) WHERE right(d.p, 1) = '/'
                                        EXCEPT SELECT k FROM unnest(ledger._path_keys(NEW.paths)) AS k))
                    AND (SELECT count(DISTINCT d.p) FROM unnest(NEW.deleted) AS d(p)) = cardinality(NEW.deleted)))
           AND (NEW.added IS NULL OR NEW.deleted IS NULL
                OR CASE WHEN EXISTS (SELECT 1 FROM unnest(NEW.deleted) AS d(p) WHERE right(d.p, 1) = '/')
                        THEN NOT EXISTS (SELECT k FROM unnest(ledger._path_keys(NEW.added)) AS k
                                         INTERSECT SELECT d FROM unnest(NEW.deleted) AS d)
                        ELSE NOT EXISTS (SELECT a FROM unnest(NEW.added) AS a
                                         INTERSECT SELECT d FROM unnest(NEW.deleted) AS d) END)
           AND (NEW.hunks IS NULL
                OR (jsonb_typeof(NEW.hunks) = 'object'
                    AND NOT EXISTS (SELECT k FROM jsonb_object_keys(CASE WHEN jsonb_typeof(NEW.hunks) = 'object'
                                                                         THEN NEW.hunks ELSE '{}' END) AS k
                                    EXCEPT SELECT q FROM unnest(NEW.paths) AS q)
                    AND (SELECT coalesce(bool_and(
                                    CASE WHEN jsonb_typeof(e.value) <> 'array' OR right(e.key, 1) = '/' THEN false
                                         WHEN jsonb_array_length(e.value) > 10000 THEN false
                                         -- the file's hunks as jsonb prints them, one match for all of
                                         -- them: [] or [[a, b, c, d], ...] of 1-10 digit integers;
                                         -- only a 10-digit number may exceed 2147483647, and then each
                                         -- hunk is compared
                                         WHEN e.value::text !~ '^\[(?:\[[0-9]{1,10}, [0-9]{1,10}, [0-9]{1,10}, [0-9]{1,10}\](?:, \[[0-9]{1,10}, [0-9]{1,10}, [0-9]{1,10}, [0-9]{1,10}\])*)?\]$'
                                              THEN false
                                         WHEN e.value::text !~ '[0-9]{10}' THEN true
                                         ELSE NOT EXISTS (
                                             SELECT 1 FROM jsonb_array_elements(e.value) AS h(x)
                                              WHERE greatest((h.x ->> 0)::bigint, (h.x ->> 1)::bigint,
                                                             (h.x ->> 2)::bigint, (h.x ->> 3)::bigint) > 2147483647)
                                    END), true)
                                AND coalesce(sum(CASE WHEN jsonb_typeof(e.value) = 'array'
                                                      THEN jsonb_array_length(e.value) END), 0) <= 100000
                           FROM jsonb_each(NEW.hunks) AS e)))
          INTO v_normal;
        IF v_normal THEN
            RETURN NEW;
        END IF;
    END IF;
    SELECT c.o_added, c.o_deleted, c.o_hunks INTO NEW.added, NEW.deleted, NEW.hunks
      FROM ledger._check_merge_changes(NEW.paths, NEW.added, NEW.deleted, NEW.hunks) AS c;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__prepare_changes() IS
'BEFORE INSERT/UPDATE OF paths, added, deleted, hunks trigger on ledger.merge: added and deleted (NULL: unknown) normalised and subsets of paths (deleted may name a directory, ending in /, that no longer exists), not contradicting each other (no path both added and deleted, no added path under a deleted directory), hunks (NULL: none) an object {"<path>": [[old_start, old_count, new_start, new_count], ...]} of integers >= 0 keyed by file paths among paths (normalised), at most 10000 hunks per path and 100000 per merge (LD004). One query for an INSERT whose values are already normal (stored as written); every other row through ledger._check_merge_changes. Raises LD001, LD003, LD004 naming the field and the value.';
