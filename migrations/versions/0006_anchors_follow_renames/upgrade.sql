-- 0006_anchors_follow_renames: anchors follow renames

COMMENT ON COLUMN ledger.merge.hunks IS
'The changed lines per path, git''s @@ -a,b +c,d @@ of git diff -U0: {"<path>": [[old_start, old_count, new_start, new_count], ...]}, paths among paths, integers >= 0; a rename''s hunks under its old path; NULL or a path left out: no line information for it (the file-level rule applies). Anchored findings on a path with hunks are superseded only when a hunk overlaps their lines; otherwise their anchors move (with a rename that keeps their lines, to the new path).';

DROP FUNCTION ledger._match_changes(p_scope text, p_paths text[], p_added text[], p_deleted text[], p_hunks jsonb, p_context integer);
\ir functions/_match_changes.sql
\ir functions/_merge_decisions.sql
\ir functions/_apply_merge.sql
\ir ../0003_decisions_on_real_histories/privileges.sql
