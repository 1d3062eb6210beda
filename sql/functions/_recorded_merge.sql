-- ledger._recorded_merge(p_scope text, p_commit_sha text) -> bigint
--
-- The id of the merge of p_scope already recorded for commit p_commit_sha
-- (normalised: trimmed, lower-case hexadecimal), or NULL. An abbreviated
-- sha and the full one are the same commit: a recorded commit_sha that
-- p_commit_sha abbreviates ('abcdef12' recorded, 'abcdef1234...' given), or
-- that abbreviates p_commit_sha (the reverse), is that merge. An exact match
-- wins over abbreviations (rows recorded before this rule may hold both).
-- Probes merge_scope_commit_sha_key for the exact sha and its prefixes of 4
-- or more digits, and merge_scope_commit_sha_c_idx (byte order) for the
-- longer shas it abbreviates: cost grows with the sha's length, not with the
-- number of merges. Used by the redelivery trigger _120_redelivery and by
-- ledger.record_merge.
-- Raises LD007 (merge_conflict) when p_commit_sha matches two or more
-- recorded merges of the scope by abbreviation (give the full sha), naming
-- them.
CREATE OR REPLACE FUNCTION ledger._recorded_merge(p_scope text, p_commit_sha text)
RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
DECLARE
    v_ids  bigint[];
    v_shas text[];
BEGIN
    IF p_scope IS NULL OR p_commit_sha IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT array_agg(m.id ORDER BY (m.commit_sha = p_commit_sha) DESC, m.id),
           array_agg(m.commit_sha ORDER BY (m.commit_sha = p_commit_sha) DESC, m.id)
      INTO v_ids, v_shas
      FROM ledger.merge m
     WHERE m.scope = p_scope
       AND (m.commit_sha = ANY (ARRAY(SELECT left(p_commit_sha, n) FROM generate_series(4, length(p_commit_sha)) AS n))
            OR (m.commit_sha COLLATE "C" > p_commit_sha COLLATE "C"
                AND m.commit_sha COLLATE "C" < (p_commit_sha || 'g') COLLATE "C"
                AND left(m.commit_sha, length(p_commit_sha)) = p_commit_sha));
    IF v_ids IS NULL THEN
        RETURN NULL;
    END IF;
    IF v_shas[1] = p_commit_sha OR cardinality(v_ids) = 1 THEN
        RETURN v_ids[1];
    END IF;
    RAISE EXCEPTION 'ambiguous merge.commit_sha: % matches % recorded merges of scope % by abbreviation (%)',
        quote_literal(p_commit_sha), cardinality(v_ids), quote_literal(p_scope), array_to_string(v_shas[1:5], ', ')
        USING ERRCODE = 'LD007', HINT = 'Give the full commit sha.';
END
$$;

COMMENT ON FUNCTION ledger._recorded_merge(text, text) IS
'The recorded merge of a scope for a commit sha: the same sha, a recorded sha it abbreviates, or a recorded abbreviation of it (the exact sha wins). (scope text, commit_sha text, normalised) -> bigint, NULL when none. Raises LD007 when the sha matches several recorded merges by abbreviation.';
