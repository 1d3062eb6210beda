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
