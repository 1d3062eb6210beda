-- Trigger _100_prepare on ledger.finding: validation, path normalisation and
-- line anchors before every insert (updates: _100_prepare_update).
DROP TRIGGER IF EXISTS _100_prepare ON ledger.finding;
CREATE TRIGGER _100_prepare
    BEFORE INSERT ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__prepare();
