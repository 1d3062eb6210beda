-- 0033_drop_the_unused_scoped_evid: drop the unused _scoped_evidence_keys

DROP FUNCTION ledger._scoped_evidence_keys(p_scope text, p_keys text[]);
-- dropped: functions/_scoped_evidence_keys.sql
\ir privileges.sql
