-- Trigger _110_policy on ledger.scope: the matching policy, after _100_prepare.
DROP TRIGGER IF EXISTS _110_policy ON ledger.scope;
CREATE TRIGGER _110_policy
    BEFORE INSERT OR UPDATE ON ledger.scope
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scope__prepare_policy();
