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
