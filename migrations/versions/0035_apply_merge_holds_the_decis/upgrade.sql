-- 0035_apply_merge_holds_the_decis: apply_merge holds the decisions in one array

\ir functions/_apply_merge.sql
