CREATE OR REPLACE FUNCTION ledger._recorded_merge(p_scope text, p_commit_sha text)
RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
-- one generic plan per statement for the session: the custom plans of the
-- range probes (cheaper on paper with the sha folded in) were planned again
-- on every call, which cost more than the probes
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_id    bigint;
    v_sha   text;
    v_ids   bigint[] := '{}'::bigint[];
    v_shas  text[] := '{}'::text[];
    v_common integer;
BEGIN
    IF p_scope IS NULL OR p_commit_sha IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT m.id INTO v_id
      FROM ledger.merge m
     WHERE m.scope COLLATE "C" = p_scope COLLATE "C"
       AND m.commit_sha COLLATE "C" = p_commit_sha COLLATE "C";
    IF FOUND THEN
        RETURN v_id;
    END IF;
    -- recorded shas that p_commit_sha starts with (4 digits or more): each is
    -- <= the greatest recorded sha below p_commit_sha sharing its first 4
    -- digits, and a prefix of it; without such a sha (almost always, for
    -- real shas) there is none, else each length is probed
    SELECT m.commit_sha INTO v_sha
      FROM ledger.merge m
     WHERE m.scope COLLATE "C" = p_scope COLLATE "C"
       AND m.commit_sha COLLATE "C" < p_commit_sha COLLATE "C"
       AND m.commit_sha COLLATE "C" >= left(p_commit_sha, 4) COLLATE "C"
     ORDER BY m.commit_sha COLLATE "C" DESC
     LIMIT 1;
    IF FOUND THEN
        -- ... and of p_commit_sha, so no longer than their common prefix (at
        -- least the 4 digits they share)
        v_common := 4;
        WHILE v_common < least(length(p_commit_sha) - 1, length(v_sha))
              AND substr(v_sha, v_common + 1, 1) = substr(p_commit_sha, v_common + 1, 1) LOOP
            v_common := v_common + 1;
        END LOOP;
        FOR v_n IN 4 .. v_common LOOP
            SELECT m.id INTO v_id
              FROM ledger.merge m
             WHERE m.scope COLLATE "C" = p_scope COLLATE "C"
               AND m.commit_sha COLLATE "C" = left(p_commit_sha, v_n) COLLATE "C";
            IF FOUND THEN
                v_ids := v_ids || v_id;
                v_shas := v_shas || left(p_commit_sha, v_n);
            END IF;
        END LOOP;
    END IF;
    -- recorded shas that start with p_commit_sha
    FOR v_id, v_sha IN
        SELECT m.id, m.commit_sha
          FROM ledger.merge m
         WHERE m.scope COLLATE "C" = p_scope COLLATE "C"
           AND m.commit_sha COLLATE "C" > p_commit_sha COLLATE "C"
           AND m.commit_sha COLLATE "C" < (p_commit_sha || 'g') COLLATE "C"
           AND starts_with(m.commit_sha, p_commit_sha)
    LOOP
        v_ids := v_ids || v_id;
        v_shas := v_shas || v_sha;
    END LOOP;
    IF cardinality(v_ids) = 0 THEN
        RETURN NULL;
    END IF;
    IF cardinality(v_ids) = 1 THEN
        RETURN v_ids[1];
    END IF;
    SELECT array_agg(x.s ORDER BY x.i) INTO v_shas FROM unnest(v_ids, v_shas) AS x(i, s);
    RAISE EXCEPTION 'ambiguous merge.commit_sha: % matches % recorded merges of scope % by abbreviation (%)',
        quote_literal(p_commit_sha), cardinality(v_ids), quote_literal(p_scope), array_to_string(v_shas[1:5], ', ')
        USING ERRCODE = 'LD007', HINT = 'Give the full commit sha.';
END
$$;

COMMENT ON FUNCTION ledger._recorded_merge(text, text) IS
'The recorded merge of a scope for a commit sha: the same sha, a recorded sha it abbreviates, or a recorded abbreviation of it (4 digits or more; the exact sha wins). (scope text, commit_sha text, normalised) -> bigint, NULL when none. Btree probes of merge_scope_commit_sha_bytes_idx only, whatever the table''s statistics: cost grows with the matches, not the merges. Raises LD007 when the sha matches several recorded merges by abbreviation.';
