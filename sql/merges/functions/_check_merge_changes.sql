-- ledger._check_merge_changes(p_paths text[], p_added text[], p_deleted text[], p_hunks jsonb,
--                             OUT o_added text[], OUT o_deleted text[], OUT o_hunks jsonb)
--
-- The full checks of what a merge says about the kind of each change (the
-- trigger ledger.tg_merge__prepare_changes runs them for every row its
-- one-query fast path does not take): p_paths are the merge's normalised
-- paths; returns added, deleted and hunks as they are stored
-- (docs/matching.md, "Change kinds", "Line anchors"):
--   added    NULL (unknown) or the paths it added: normalised like paths
--            (ledger.normalize_paths), each one of paths;
--   deleted  NULL (unknown) or the paths it deleted, each one of paths, or a
--            directory (ending in /) that holds one of paths: the directory
--            no longer exists after the merge (the writer knows the tree;
--            deleting files under a directory does not say the directory
--            is gone). A rename is its old path deleted and its new path
--            added;
--   added and deleted do not contradict each other (once normalised): no
--            path is in both (a file cannot be both new and gone after one
--            merge) and no added path is under a deleted directory (the
--            directory exists after the merge);
--   hunks    NULL (none) or an object {"<path>": [[old_start, old_count,
--            new_start, new_count], ...]} as git diff -U0 prints them
--            (@@ -a,b +c,d @@; a count of 0 is a pure insertion after line
--            a, or a pure deletion): each key a file path that, normalised,
--            is one of paths (stored normalised, each path once), each value
--            an array of 4-element arrays of integers from 0 to 2147483647;
--            at most 10000 hunks per path and 100000 per merge (LD004, as
--            paths are bounded); a directory (ending in /) is no key.
-- A merge needs none of them: without added/deleted, findings that expect a
-- path present or absent are only audited as candidates; without hunks for a
-- path, the file-level path rule applies to it.
-- Cost: one pass over each array and one over the hunks (added and
-- deleted against paths and each other, with the added paths'
-- directories, by set operations, hashed or sorted; pair by pair only to
-- name the first offending pair); up to eight queries, and two
-- ledger.normalize_path per hunk key that is not already one of paths
-- (none for a key that is).
-- Raises LD001 (a path that is not a path), LD003 (not a subset of paths,
-- added and deleted contradicting each other, a malformed hunk), LD004 (more than 100000 paths, more than 10000 hunks of
-- one path or 100000 of one merge), each naming the field
-- (merge.added[2], merge.hunks["src/a.py"][1]) and the value; nothing is
-- written on error.
CREATE OR REPLACE FUNCTION ledger._check_merge_changes(
    p_paths text[], p_added text[], p_deleted text[], p_hunks jsonb,
    OUT o_added text[], OUT o_deleted text[], OUT o_hunks jsonb)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_path text;
    v_ord  bigint;
    v_at   bigint;
    v_text text;
    v_out  jsonb;
BEGIN
    o_added := p_added;
    o_deleted := p_deleted;
    o_hunks := p_hunks;
    IF o_added IS NOT NULL THEN
        o_added := ledger.normalize_paths(o_added, 'merge.added', 100000);
        -- (the paths not among paths by a set difference, hashed or sorted: no
        -- comparison of every added path with every path)
        SELECT x.p, x.o INTO v_path, v_ord
          FROM unnest(o_added) WITH ORDINALITY AS x(p, o)
         WHERE x.p IN (SELECT q FROM unnest(o_added) AS q EXCEPT SELECT q FROM unnest(p_paths) AS q)
           AND array_position(p_paths, NULL) IS NULL  -- as NOT IN (paths): a NULL in paths is never unequal
         ORDER BY x.o LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'invalid merge.added[%]: % is not one of merge.paths', v_ord, quote_literal(v_path)
                USING ERRCODE = 'LD003', HINT = 'added and deleted are subsets of paths: list every changed path in paths.';
        END IF;
    END IF;

    IF o_deleted IS NOT NULL THEN
        o_deleted := ledger.normalize_paths(o_deleted, 'merge.deleted', 100000);
        -- (by a set difference, hashed or sorted: a deleted path must be one of
        -- paths, a deleted directory (ending in /) one of them or a directory
        -- above one, i.e. one of their ledger._path_keys)
        SELECT x.p, x.o INTO v_path, v_ord
          FROM unnest(o_deleted) WITH ORDINALITY AS x(p, o)
         WHERE x.p IN (SELECT q FROM unnest(o_deleted) AS q EXCEPT SELECT q FROM unnest(ledger._path_keys(p_paths)) AS q)
           AND array_position(p_paths, NULL) IS NULL
         ORDER BY x.o LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'invalid merge.deleted[%]: % is not one of merge.paths (nor a directory holding one of them)',
                v_ord, quote_literal(v_path)
                USING ERRCODE = 'LD003', HINT = 'added and deleted are subsets of paths: list every changed path in paths.';
        END IF;
    END IF;

    -- an added path that is also deleted or under a deleted directory: an
    -- added path or one of its directories (ledger._path_keys) among the
    -- deleted paths, by a set operation, hashed or sorted (no comparison of
    -- every added path with every deleted one); then the first such pair,
    -- for the message
    IF o_added IS NOT NULL AND o_deleted IS NOT NULL
       AND EXISTS (SELECT k FROM unnest(ledger._path_keys(o_added)) AS k
                   INTERSECT SELECT d FROM unnest(o_deleted) AS d) THEN
        SELECT a.p, a.o, d.p, d.o INTO v_path, v_ord, v_text, v_at
          FROM unnest(o_added) WITH ORDINALITY AS a(p, o)
          JOIN unnest(o_deleted) WITH ORDINALITY AS d(p, o)
            ON a.p = d.p OR (d.p ~ '/$' AND left(a.p, length(d.p)) = d.p)
         ORDER BY a.o, d.o LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'invalid merge.added[%] and merge.deleted[%]: % is added but %',
                v_ord, v_at, quote_literal(v_path),
                CASE WHEN v_text = v_path THEN 'also deleted' ELSE 'its directory ' || quote_literal(v_text) || ' is deleted' END
                USING ERRCODE = 'LD003',
                      HINT = 'A path is either added or deleted by one merge, and a deleted directory holds no added path: a file replaced by another of the same path is changed, neither added nor deleted.';
        END IF;
    END IF;

    IF o_hunks IS NOT NULL THEN
        IF jsonb_typeof(o_hunks) <> 'object' THEN
            RAISE EXCEPTION 'invalid merge.hunks: % is not an object {"<path>": [[old_start, old_count, new_start, new_count], ...]}',
                left(o_hunks::text, 200) USING ERRCODE = 'LD003';
        END IF;
        SELECT e.key, e.value::text INTO v_path, v_text
          FROM jsonb_each(o_hunks) AS e WHERE jsonb_typeof(e.value) <> 'array' LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'invalid merge.hunks[%]: % is not an array of hunks', quote_literal(v_path), left(v_text, 200)
                USING ERRCODE = 'LD003';
        END IF;
        SELECT e.key, jsonb_array_length(e.value)::bigint INTO v_path, v_ord
          FROM jsonb_each(o_hunks) AS e WHERE jsonb_array_length(e.value) > 10000 LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'invalid merge.hunks[%]: % hunks, at most 10000 per path are accepted', quote_literal(v_path), v_ord
                USING ERRCODE = 'LD004', HINT = 'Leave the path''s hunks out: the file-level path rule then applies to it.';
        END IF;
        SELECT sum(jsonb_array_length(e.value)) INTO v_ord FROM jsonb_each(o_hunks) AS e;
        IF v_ord > 100000 THEN
            RAISE EXCEPTION 'invalid merge.hunks: % hunks, at most 100000 per merge are accepted', v_ord
                USING ERRCODE = 'LD004', HINT = 'Leave the hunks of the largest files out: the file-level path rule then applies to them.';
        END IF;
        SELECT e.key, h.o, h.x::text INTO v_path, v_ord, v_text
          FROM jsonb_each(o_hunks) AS e, jsonb_array_elements(e.value) WITH ORDINALITY AS h(x, o)
         WHERE jsonb_typeof(h.x) <> 'array' OR jsonb_array_length(h.x) <> 4
            OR h.x::text !~ '^\[[0-9]{1,10}, [0-9]{1,10}, [0-9]{1,10}, [0-9]{1,10}\]$'
            OR greatest((h.x ->> 0)::bigint, (h.x ->> 1)::bigint, (h.x ->> 2)::bigint, (h.x ->> 3)::bigint) > 2147483647
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'invalid merge.hunks[%][%]: % is not [old_start, old_count, new_start, new_count] (integers from 0 to 2147483647)',
                quote_literal(v_path), v_ord, left(v_text, 200) USING ERRCODE = 'LD003';
        END IF;
        -- (a key equal to one of paths, which are normal, is its own normal
        -- form: ledger.normalize_path runs only for the other keys)
        SELECT n.key, n.path INTO v_text, v_path
          FROM (SELECT e.key,
                       CASE WHEN e.key IN (SELECT q FROM unnest(p_paths) AS q) THEN e.key
                            ELSE ledger.normalize_path(e.key, 'merge.hunks') END AS path
                  FROM jsonb_each(o_hunks) AS e) AS n
         WHERE n.path NOT IN (SELECT q FROM unnest(p_paths) AS q) OR n.path ~ '/$'
         LIMIT 1;
        IF FOUND AND v_path ~ '/$' THEN
            RAISE EXCEPTION 'invalid merge.hunks[%]: % is a directory (hunks are keyed by a changed file)',
                quote_literal(v_text), quote_literal(v_path)
                USING ERRCODE = 'LD003', HINT = 'Key each file''s hunks by its path, one of merge.paths, without a trailing /.';
        ELSIF FOUND THEN
            RAISE EXCEPTION 'invalid merge.hunks[%]: % is not one of merge.paths', quote_literal(v_text), quote_literal(v_path)
                USING ERRCODE = 'LD003', HINT = 'hunks are keyed by the changed file, one of paths.';
        END IF;
        SELECT jsonb_object_agg(n.path, n.value), count(*) - count(DISTINCT n.path), min(n.path) FILTER (WHERE n.dup)
          INTO v_out, v_ord, v_path
          FROM (SELECT k.path, k.value, count(*) OVER (PARTITION BY k.path) > 1 AS dup
                  FROM (SELECT CASE WHEN e.key IN (SELECT q FROM unnest(p_paths) AS q) THEN e.key
                                    ELSE ledger.normalize_path(e.key, 'merge.hunks') END AS path,
                               e.value
                          FROM jsonb_each(o_hunks) AS e) AS k) AS n;
        IF v_ord > 0 THEN
            RAISE EXCEPTION 'invalid merge.hunks: % is named more than once (once normalised)', quote_literal(v_path)
                USING ERRCODE = 'LD003';
        END IF;
        o_hunks := coalesce(v_out, '{}');
    END IF;
END
$$;

COMMENT ON FUNCTION ledger._check_merge_changes(text[], text[], text[], jsonb) IS
'The full checks of a merge''s change kinds (run by tg_merge__prepare_changes when its fast path does not apply): added and deleted (NULL: unknown) normalised and subsets of paths (deleted may name a directory, ending in /, that no longer exists), not contradicting each other, hunks (NULL: none) an object {"<path>": [[old_start, old_count, new_start, new_count], ...]} of integers >= 0 keyed by file paths among paths (normalised), at most 10000 hunks per path and 100000 per merge (LD004). (paths text[] normalised, added text[], deleted text[], hunks jsonb) -> (added text[], deleted text[], hunks jsonb) as stored. Raises LD001, LD003, LD004 naming the field and the value.';
