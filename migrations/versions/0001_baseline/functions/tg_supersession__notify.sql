-- ledger.tg_supersession__notify() -> trigger (AFTER INSERT ON
-- ledger.supersession, FOR EACH STATEMENT, transition table new_rows)
--
-- Every transition is audited, so the audit insert is the one place every
-- transition passes (merge triggers, re-reviews, re-reports, reverts,
-- dismiss, restore, plain INSERTs of audit rows). For each new audit row
-- whose action is 'superseded', 'reopened', 'dismissed' or 'restored' it
-- sends, in audit order,
--   NOTIFY ledger_finding, '{"audit_id": 12, "finding_id": 7, "scope": "spec-07",
--       "action": "superseded", "rule": "path", "merge_id": 3, "actor": null}'
-- (a JSON object; actor cut to 200 characters, so the payload stays far
-- below PostgreSQL's 8000-byte limit). Notifications are delivered when the
-- transaction commits and not at all when it rolls back. Other actions
-- (would_supersede, already_superseded, not_reopened, ...) send nothing.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_supersession__notify()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    PERFORM pg_notify('ledger_finding', json_build_object(
                'audit_id', n.id, 'finding_id', n.finding_id, 'scope', n.scope,
                'action', n.action, 'rule', n.rule, 'merge_id', n.merge_id,
                'actor', left(n.actor, 200))::text)
       FROM (SELECT * FROM new_rows r
              WHERE r.finding_id IS NOT NULL
                AND r.action IN ('superseded', 'reopened', 'dismissed', 'restored')
              ORDER BY r.id) AS n;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_supersession__notify() IS
'AFTER INSERT statement trigger on ledger.supersession: NOTIFY ledger_finding with {"audit_id", "finding_id", "scope", "action", "rule", "merge_id", "actor"} for every audit row whose action is superseded, reopened, dismissed or restored, in audit order, delivered at commit. Raises nothing.';
