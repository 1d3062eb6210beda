-- 0008_record_merges_in_batches undone: restores the frozen files it replaced

DROP FUNCTION ledger.record_merges(p_scope text, p_merges jsonb);
\ir ../0003_decisions_on_real_histories/functions/set_hygiene_mode.sql
\ir ../0002_harden_hostile_input/functions/_check_json_shape.sql
\ir ../0003_decisions_on_real_histories/functions/set_match_policy.sql
\ir ../0007_merge_trigger_phase_2/privileges.sql
