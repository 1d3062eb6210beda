-- Trigger _200_lifecycle on ledger.finding: identity (a duplicate finding_key
-- is reported with ledger.report_finding, not inserted) and consistency of
-- the lifecycle columns. Fires after _100_prepare has trimmed scope and key.
DROP TRIGGER IF EXISTS _200_lifecycle ON ledger.finding;
CREATE TRIGGER _200_lifecycle
    BEFORE INSERT OR UPDATE OF superseded_at, dismissed_at, dismissed_by, resolution, dismissal_reason
    ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__lifecycle();
