-- ledger._snapshot_version() -> integer
--
-- The issue-snapshot version this deployment writes and compares: the value
-- of the setting ledger.snapshot_version, 1 when it is unset or empty. A DBA
-- selects version 2 for a database with
--     ALTER DATABASE <db> SET ledger.snapshot_version = 2;
-- (new sessions pick it up; SET ledger.snapshot_version = 2 works per session).
-- Raises LD003 value_invalid when the setting is anything but 1 or 2.
-- Implements the per-deployment version switch (the snapshot's `v`).
CREATE OR REPLACE FUNCTION ledger._snapshot_version()
RETURNS integer
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_raw text := nullif(btrim(current_setting('ledger.snapshot_version', true)), '');
BEGIN
    IF v_raw IS NULL THEN
        RETURN 1;
    END IF;
    IF v_raw NOT IN ('1', '2') THEN
        RAISE EXCEPTION 'invalid setting ledger.snapshot_version: % (expected 1 or 2)', quote_literal(v_raw)
            USING ERRCODE = 'LD003',
                  HINT = 'ALTER DATABASE <db> SET ledger.snapshot_version = 2, or RESET it for version 1';
    END IF;
    RETURN v_raw::integer;
END
$$;

COMMENT ON FUNCTION ledger._snapshot_version() IS
'The issue-snapshot version of this deployment: setting ledger.snapshot_version (ALTER DATABASE <db> SET ledger.snapshot_version = 2), default 1. () -> integer. Raises LD003 when the setting is not 1 or 2.';
