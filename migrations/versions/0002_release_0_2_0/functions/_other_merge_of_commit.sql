CREATE OR REPLACE FUNCTION ledger._other_merge_of_commit(p_scope text, p_commit_sha text, p_except bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
AS $$
DECLARE
    v_id bigint;
BEGIN
    SELECT o.id INTO v_id
      FROM ledger.merge o
     WHERE o.scope COLLATE "C" = p_scope COLLATE "C"
       AND o.id IS DISTINCT FROM p_except
       AND o.processed
       AND (o.commit_sha COLLATE "C" = ANY (ARRAY(SELECT left(p_commit_sha, n)
                                                    FROM generate_series(4, length(p_commit_sha)) AS n))
            OR (o.commit_sha COLLATE "C" > p_commit_sha COLLATE "C"
                AND o.commit_sha COLLATE "C" < (p_commit_sha || 'g') COLLATE "C"))
     ORDER BY o.id
     LIMIT 1;
    RETURN v_id;
END
$$;

COMMENT ON FUNCTION ledger._other_merge_of_commit(text, text, bigint) IS
'The lowest id of another processed merge of the scope recording the same commit as a normalised sha (equal, abbreviating it, or abbreviated by it; 4 digits or more), or NULL. (scope, commit_sha, except_id) -> bigint. Probes merge_scope_commit_sha_bytes_idx only. Raises nothing.';
