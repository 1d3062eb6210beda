-- 0015_reconcile_lowercases_shas undone: restores the frozen files it replaced

DROP FUNCTION ledger._other_merge_of_commit(p_scope text, p_commit_sha text, p_except bigint);
DROP FUNCTION ledger._check_commit_sha(p_value text, p_field text);
\ir ../0011_statement_merge_trigger/functions/reconcile.sql
\ir ../0013_claim_reads_the_task_once/privileges.sql
