CREATE OR REPLACE FUNCTION ledger.record_merge(
    p_scope text,
    p_commit_sha text,
    p_paths text[] DEFAULT '{}',
    p_message text DEFAULT '',
    p_node_id text DEFAULT NULL,
    p_merged_at timestamptz DEFAULT NULL,
    p_branch text DEFAULT NULL,
    p_added text[] DEFAULT NULL,
    p_deleted text[] DEFAULT NULL,
    p_hunks jsonb DEFAULT NULL)
RETURNS TABLE (merge_id bigint, recorded boolean, decisions jsonb)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_id bigint;
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.record_merge');
    INSERT INTO ledger.merge (scope, commit_sha, paths, message, node_id, merged_at, branch, added, deleted, hunks)
    VALUES (p_scope, p_commit_sha, p_paths, p_message, p_node_id, p_merged_at, p_branch, p_added, p_deleted, p_hunks)
    ON CONFLICT (scope, commit_sha) DO NOTHING
    RETURNING id INTO v_id;
    recorded := v_id IS NOT NULL;
    IF v_id IS NULL THEN
        v_id := ledger._recorded_merge(ledger._check_text(p_scope, 'merge.scope', true, 200),
                                       lower(ledger._check_text(p_commit_sha, 'merge.commit_sha', true, 64) COLLATE "C"));
    END IF;
    merge_id := v_id;
    decisions := ledger._merge_audit(v_id);
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text, text[], text[], jsonb) IS
'Record a merge (INSERT ... ON CONFLICT DO NOTHING) and return (merge_id bigint, recorded boolean, decisions jsonb array of {finding_id, action, rule, evidence, reason, detail}). p_branch: the branch it landed on; p_added, p_deleted: the paths it added and deleted (NULL: unknown); p_hunks: {"<path>": [[old_start, old_count, new_start, new_count], ...]} (NULL: none). Redelivery (the same sha or an abbreviation, identical paths, message, branch) returns recorded=false and the original decisions. SECURITY DEFINER (returns audit rows). Raises LD001-LD004, LD007 (conflicting redelivery), LD401. The caller must hold ledger_writer, else LD403.';
