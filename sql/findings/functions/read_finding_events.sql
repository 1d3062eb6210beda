-- ledger.read_finding_events(p_audit_ids bigint[])
--   -> TABLE(audit_id bigint, finding_id bigint, scope text, action text,
--            rule text, merge_id bigint, actor text, created_at timestamptz)
--
-- What a listener on channel ledger_finding does with the ids it receives:
-- the audit rows p_audit_ids name whose action is superseded, reopened,
-- dismissed or restored (the rows the notify trigger announces), in id
-- order, each once. Runs with the caller's rights: it needs SELECT on
-- ledger.supersession (ledger_reader, ledger_admin), and under per-scope
-- row-level security it returns only rows of the connection's scopes. An id
-- that names no such row (a forged notification, another action, another
-- tenant's row, NULL) returns nothing; so does an empty or NULL array.
-- A forged notification can therefore only repeat a genuine event the
-- reader may see: handle each audit_id once. Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.read_finding_events(p_audit_ids bigint[])
RETURNS TABLE (audit_id bigint, finding_id bigint, scope text, action text, rule text, merge_id bigint,
               actor text, created_at timestamptz)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT a.id, a.finding_id, a.scope, a.action, a.rule, a.merge_id, a.actor, a.created_at
      FROM ledger.supersession a
     WHERE a.id = ANY (p_audit_ids)
       AND a.finding_id IS NOT NULL
       AND a.action IN ('superseded', 'reopened', 'dismissed', 'restored')
     ORDER BY a.id
$$;

COMMENT ON FUNCTION ledger.read_finding_events(bigint[]) IS
'Re-read the audit ids received on channel ledger_finding: (audit_ids bigint[]) -> TABLE(audit_id, finding_id, scope, action, rule, merge_id, actor, created_at) for the ids that are superseded, reopened, dismissed or restored audit rows the caller may read (its rights, row-level security), in id order. A forged or foreign id returns nothing. Raises nothing.';
