-- 0005_merge_cost_the_anchor_lane undone: the frozen state before it

DROP FUNCTION ledger._merge_decisions(text, text, text[], text, timestamptz, text[], text[], jsonb, boolean, jsonb);
DROP FUNCTION ledger._touch_counts(jsonb, text[], text);
\ir ../0003_trigger_definers_check_thei/functions/tg_merge__supersede.sql
\ir ../0002_release_0_2_0/functions/_match_changes.sql
\ir ../0002_release_0_2_0/functions/_merge_decisions.sql
\ir ../0002_release_0_2_0/functions/_check_merge_changes.sql
\ir ../0004_one_anchor_record_per_merge/functions/_apply_merge.sql
REVOKE EXECUTE ON FUNCTION ledger._merge_decisions(text, text, text[], text, timestamptz, text[], text[], jsonb, boolean) FROM PUBLIC;
