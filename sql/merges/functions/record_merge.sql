-- ledger.record_merge(p_scope, p_commit_sha, p_paths, p_message, p_node_id,
--                     p_merged_at, p_branch, p_added, p_deleted, p_hunks)
--     -> TABLE(merge_id bigint, recorded boolean, decisions jsonb)
--
-- Records one merge exactly like INSERT INTO ledger.merge ... ON CONFLICT
-- (scope, commit_sha) DO NOTHING (the documented redelivery form) and returns:
--   merge_id   the merge's id (the existing one on redelivery, also when one
--              sha abbreviates the other: ledger._recorded_merge);
--   recorded   true when this call inserted it, false on redelivery (no
--              second effect);
--   decisions  the merge's audit rows as a JSON array of
--              {finding_id, action, rule, evidence, reason, detail}, in id
--              order: superseded / would_supersede / already_superseded,
--              ambiguous, candidate, mention, skipped, check_requested,
--              recheck_requested, flagged, anchor_moved, reopened,
--              revert_unknown (the design record's archived_findings, with
--              the reason for each); the merge's anchor record is one
--              anchor_moved element per finding (ledger._merge_audit).
--              Read back by merge id after the INSERT: the trigger writes
--              them in two steps (ledger._apply_merge with the checks it
--              settles through ledger._settle_checks, then
--              ledger._apply_revert), so the audit is the one place that
--              holds all of them, and a redelivery returns the same rows.
-- p_branch: the branch the merge landed on (NULL: unknown, never skipped).
-- p_added, p_deleted: the paths it added and deleted (subsets of p_paths;
-- NULL: unknown); p_hunks: its changed lines per path, {"<path>":
-- [[old_start, old_count, new_start, new_count], ...]} (NULL: none); see
-- tg_merge__prepare_changes. p_merged_at: when it landed (NULL: now); a
-- merge from before a finding was observed never supersedes it.
-- SECURITY DEFINER (fixed search_path, schema-qualified names): it returns
-- the merge's audit rows, which a writer may not read. The insert still goes
-- through every trigger (validation, _050_scope_access: a scope outside
-- ledger.scopes is refused while per-scope row-level security is on). The
-- redelivery lookup trims scope and commit_sha exactly as the prepare
-- trigger stores them (btrim() alone would miss tabs, new lines and the
-- vertical tab).
-- Raises LD001-LD004 (see tg_merge__prepare, tg_merge__prepare_branch,
-- tg_merge__prepare_changes), LD007 (a redelivery whose paths, message or
-- branch differ from the recorded merge: tg_merge__check_redelivery), LD401
-- (scope not allowed).
-- The caller must hold ledger_writer (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
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
