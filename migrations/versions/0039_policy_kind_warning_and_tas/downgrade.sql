-- 0039_policy_kind_warning_and_tas undone: the frozen state before it

-- Refuses while a column or table it drops holds data (downgrade_guard.sql:
-- SQLSTATE LD501), unless the setting ledger.allow_data_loss is 'true'.
\ir downgrade_guard.sql

DROP FUNCTION ledger.renew_task_lease(bigint, text, interval);
DROP FUNCTION ledger.claim_task(text, text, interval);
\ir ../0020_task_transitions_one_helper/functions/claim_task.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/set_match_policy.sql
ALTER TABLE ledger.agent_task DROP COLUMN lease_expires_at;

REVOKE EXECUTE ON FUNCTION ledger.claim_task(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger.claim_task(text, text) TO ledger_agent;
