-- 0003_trigger_definers_check_thei undone: the frozen state before it

\ir ../0002_release_0_2_0/functions/tg_merge__supersede.sql
\ir ../0002_release_0_2_0/functions/tg_finding__paths_insert.sql
\ir ../0002_release_0_2_0/functions/tg_finding__paths_update.sql
\ir ../0002_release_0_2_0/functions/tg_finding__active_totals.sql
\ir ../0002_release_0_2_0/functions/tg_finding__settle_rechecks.sql
