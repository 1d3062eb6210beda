-- Trigger _110_evidence on ledger.finding: slug, strong_keywords and tags,
-- the columns message matching reads, validated after _100_prepare.
DROP TRIGGER IF EXISTS _110_evidence ON ledger.finding;
CREATE TRIGGER _110_evidence
    BEFORE INSERT OR UPDATE OF slug, strong_keywords, tags
    ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__prepare_evidence();
