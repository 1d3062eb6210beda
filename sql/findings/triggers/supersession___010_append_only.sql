-- Trigger _010_append_only on ledger.supersession: no UPDATE or DELETE of an
-- audit row except by the table owner (LD402).
DROP TRIGGER IF EXISTS _010_append_only ON ledger.supersession;
CREATE TRIGGER _010_append_only
    BEFORE UPDATE OR DELETE ON ledger.supersession
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_supersession__append_only();
