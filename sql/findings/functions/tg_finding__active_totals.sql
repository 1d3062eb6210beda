-- ledger.tg_finding__active_totals() -> trigger (AFTER INSERT and AFTER
-- UPDATE ON ledger.finding FOR EACH STATEMENT, transition tables new_finding
-- and old_finding; triggers _310_active_totals_insert and
-- _310_active_totals_update)
--
-- Keeps ledger.scope_active_total equal to the active findings of every
-- scope: per statement, one row per scope whose totals changed, with the
-- active findings of the new rows counted and those of the old rows
-- subtracted (an INSERT has no old rows). So a supersession or dismissal is
-- -1, a reopen +1, a title or description change of an active finding its
-- difference in characters; a statement that changes neither (a re-report
-- of an active finding) appends nothing.
-- Folding: when an appended row's id is a multiple of 32, the scope's rows
-- are replaced by their sum, unless another transaction is folding that
-- scope (pg_try_advisory_xact_lock: a writer never waits for another here)
-- or the transaction is not READ COMMITTED (a REPEATABLE READ snapshot could
-- not delete rows another fold deleted). A fold deletes only committed rows
-- and its own, and inserts exactly what it deleted, so the sums never change.
-- SECURITY DEFINER (fixed search_path, schema-qualified names): no role may
-- write ledger.scope_active_total. Raises LD403 (role_required) when fired for any table but ledger.finding:
-- its first statement compares TG_RELID with ledger.finding (one comparison
-- per statement), so a role that may EXECUTE it (PUBLIC after a restore
-- without privileges) and attaches it to a table of its own (a TEMP table
-- with the same columns and transition tables) cannot run it as the owner
-- on rows it forged. Only the owner of ledger.finding may attach a trigger
-- to it, so on ledger.finding it fires only for a write of the table, which
-- needs the table's privilege or a definer that checked its own caller's role.
-- Checks no caller role (ledger._require_role): one role here would refuse
-- the others (a writer's merge, an admin's dismissal and an agent's verdict
-- all write findings).
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
