-- 0021_writer_times_bounded_redeli undone: restores the frozen files it replaced

DROP FUNCTION ledger._check_time_bounds(p_value timestamptz, p_field text);
\ir ../0002_harden_hostile_input/functions/_check_timestamp.sql
\ir ../0016_cheaper_row_triggers/functions/tg_finding__prepare.sql
\ir ../0016_cheaper_row_triggers/functions/tg_merge__prepare.sql
\ir ../0002_harden_hostile_input/functions/tg_issue__prepare.sql
\ir ../0013_claim_reads_the_task_once/functions/tg_agent_task__prepare.sql
\ir ../0005_plpgsql_typed_array_literal/functions/tg_merge__check_redelivery.sql
\ir ../0003_decisions_on_real_histories/functions/tg_merge__prepare_changes.sql
\ir ../0020_task_transitions_one_helper/privileges.sql
