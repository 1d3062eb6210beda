-- The guard of 0036_rechecks_settle_and_file_st's downgrade: refuses (SQLSTATE LD501) while a
-- column or table the downgrade drops holds data an upgrade cannot give back
-- (a non-NULL value, a value other than the column's default, a row of a
-- dropped table), naming the revision, each column or table and its count,
-- unless the setting ledger.allow_data_loss is 'true'. downgrade.sql includes
-- it first; migrations/env.py also runs it before a downgrade past this
-- revision starts, so a refused downgrade changes nothing.
--   alembic downgrade <revision> -x allow_data_loss=true
--   PGOPTIONS='-c ledger.allow_data_loss=true' psql -f downgrade.sql
DO $guard$
DECLARE
    v_counts text;
BEGIN
    IF coalesce(current_setting('ledger.allow_data_loss', true), '') = 'true' THEN
        RETURN;
    END IF;
    WITH c(what, n) AS (
        SELECT 'ledger.recheck_request.outcome', (SELECT count(*) FROM ledger.recheck_request WHERE outcome IS NOT NULL)
    )
    SELECT string_agg(format('%s: %s', what, n), ', ' ORDER BY what) FILTER (WHERE n > 0)
      INTO v_counts
      FROM c;
    IF v_counts IS NOT NULL THEN
        RAISE EXCEPTION 'downgrade of 0036_rechecks_settle_and_file_st would drop data (%)', v_counts
            USING ERRCODE = 'LD501',
                  HINT = 'Back the database up, then pass -x allow_data_loss=true to alembic '
                         '(or set ledger.allow_data_loss = true for psql) to drop it.';
    END IF;
END
$guard$;
