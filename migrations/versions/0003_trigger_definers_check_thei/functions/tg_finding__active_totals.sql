CREATE OR REPLACE FUNCTION ledger.tg_finding__active_totals()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_fold  text[];
    v_scope text;
BEGIN
    IF TG_RELID <> 'ledger.finding'::regclass THEN
        RAISE EXCEPTION 'ledger.tg_finding__active_totals() runs only as a trigger on ledger.finding, not on %', TG_RELID::regclass
            USING ERRCODE = 'LD403';
    END IF;
    IF TG_OP = 'INSERT' THEN
        WITH ins AS (
            INSERT INTO ledger.scope_active_total (scope, findings, chars)
            SELECT n.scope, count(*), sum(length(n.title) + coalesce(1 + length(n.description), 0))
              FROM new_finding n
             WHERE n.superseded_at IS NULL
             GROUP BY n.scope
            RETURNING scope, id
        )
        SELECT array_agg(ins.scope) FILTER (WHERE ins.id % 32 = 0) INTO v_fold FROM ins;
    ELSE
        WITH ins AS (
            INSERT INTO ledger.scope_active_total (scope, findings, chars)
            SELECT d.scope, sum(d.findings), sum(d.chars)
              FROM (SELECT n.scope, 1 AS findings, length(n.title) + coalesce(1 + length(n.description), 0) AS chars
                      FROM new_finding n
                     WHERE n.superseded_at IS NULL
                    UNION ALL
                    SELECT o.scope, -1, -(length(o.title) + coalesce(1 + length(o.description), 0))
                      FROM old_finding o
                     WHERE o.superseded_at IS NULL) AS d
             GROUP BY d.scope
            HAVING sum(d.findings) <> 0 OR sum(d.chars) <> 0
            RETURNING scope, id
        )
        SELECT array_agg(ins.scope) FILTER (WHERE ins.id % 32 = 0) INTO v_fold FROM ins;
    END IF;
    IF v_fold IS NOT NULL AND current_setting('transaction_isolation') = 'read committed' THEN
        FOREACH v_scope IN ARRAY v_fold LOOP
            CONTINUE WHEN NOT pg_try_advisory_xact_lock(hashtextextended('ledger.scope_active_total ' || v_scope, 0));
            WITH gone AS (
                DELETE FROM ledger.scope_active_total t WHERE t.scope = v_scope
                RETURNING t.findings, t.chars
            )
            INSERT INTO ledger.scope_active_total (scope, findings, chars)
            SELECT v_scope, sum(gone.findings), sum(gone.chars) FROM gone HAVING count(*) > 0;
        END LOOP;
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__active_totals() IS
'AFTER INSERT / AFTER UPDATE statement trigger on ledger.finding (transition tables new_finding, old_finding): appends to ledger.scope_active_total one row per scope whose active count or prompt characters the statement changed, and now and then folds a scope''s rows into one (never waiting for another writer). SECURITY DEFINER: no role writes ledger.scope_active_total. Raises LD403 when fired for a table other than ledger.finding (the only table it is attached to).';
