-- 0035_apply_merge_holds_the_decis undone: restores the frozen files it replaced

\ir ../0034_pg_temp_last_in_every_pinne/functions/_apply_merge.sql
