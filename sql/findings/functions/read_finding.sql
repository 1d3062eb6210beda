-- ledger.read_finding(p_finding_id bigint) -> ledger.finding_lifecycle
--
-- One finding with its derived lifecycle state and counters (the header of
-- its timeline, see ledger.read_history). Raises LD005 (not_found) for an
-- unknown id.
CREATE OR REPLACE FUNCTION ledger.read_finding(p_finding_id bigint)
RETURNS ledger.finding_lifecycle
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_out ledger.finding_lifecycle;
BEGIN
    SELECT l.* INTO v_out FROM ledger.finding_lifecycle l WHERE l.id = p_finding_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown finding: %', coalesce(p_finding_id::text, 'NULL') USING ERRCODE = 'LD005';
    END IF;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.read_finding(bigint) IS
'One finding with its lifecycle state and counters. bigint -> ledger.finding_lifecycle. Raises LD005 for an unknown id.';
