-- ledger.tg_supersession__notify() -> trigger (AFTER INSERT ON
-- ledger.supersession, FOR EACH STATEMENT, transition table new_rows)
--
-- Every transition is audited, so the audit insert is the one place every
-- transition passes (merge triggers, re-reviews, re-reports, reverts,
-- dismiss, restore, plain INSERTs of audit rows). For each new audit row
-- whose action is 'superseded', 'reopened', 'dismissed' or 'restored' it
-- sends, in audit order,
--   NOTIFY ledger_finding, '12'
-- whose payload is only the audit row's id, in decimal. PostgreSQL lets any
-- role that can connect NOTIFY any channel, so a payload proves nothing: a
-- listener re-reads the id with its own rights (ledger.read_finding_events,
-- which honours row-level security and returns nothing for an id that is
-- not such an audit row) and skips what it cannot read or parse.
-- Notifications are delivered when the transaction commits and not at all
-- when it rolls back. Other actions (would_supersede, already_superseded,
-- not_reopened, ...) send nothing.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_supersession__notify()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pg_notify('ledger_finding', n.id::text)
       FROM (SELECT r.id FROM new_rows r
              WHERE r.finding_id IS NOT NULL
                AND r.action IN ('superseded', 'reopened', 'dismissed', 'restored')
              ORDER BY r.id) AS n;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_supersession__notify() IS
'AFTER INSERT statement trigger on ledger.supersession: NOTIFY ledger_finding with the audit id (decimal text, nothing else) of every audit row whose action is superseded, reopened, dismissed or restored, in audit order, delivered at commit. Listeners re-read the id with ledger.read_finding_events (anyone may NOTIFY). Raises nothing.';
