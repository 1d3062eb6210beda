-- 0006_anchors_follow_renames undone: restores the frozen files it replaced

DROP FUNCTION ledger._match_changes(p_scope text, p_paths text[], p_added text[], p_deleted text[], p_hunks jsonb, p_context integer);
\ir ../0003_decisions_on_real_histories/functions/_match_changes.sql
\ir ../0003_decisions_on_real_histories/functions/_merge_decisions.sql
\ir ../0005_plpgsql_typed_array_literal/functions/_apply_merge.sql
COMMENT ON COLUMN ledger.merge.hunks IS
'The changed lines per path, git''s @@ -a,b +c,d @@ of git diff -U0: {"<path>": [[old_start, old_count, new_start, new_count], ...]}, paths among paths, integers >= 0; NULL or a path left out: no line information for it (the file-level rule applies). Anchored findings on a path with hunks are superseded only when a hunk overlaps their lines; otherwise their anchors move.';

\ir ../0003_decisions_on_real_histories/privileges.sql
