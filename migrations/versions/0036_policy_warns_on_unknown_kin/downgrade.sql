-- 0036_policy_warns_on_unknown_kin undone: restores the frozen files it replaced

\ir ../0034_pg_temp_last_in_every_pinne/functions/set_match_policy.sql
