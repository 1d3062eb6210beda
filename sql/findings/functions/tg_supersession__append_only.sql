-- ledger.tg_supersession__append_only() -> trigger (BEFORE UPDATE OR DELETE
-- FOR EACH ROW, and BEFORE TRUNCATE FOR EACH STATEMENT, ON ledger.supersession)
--
-- The audit is append-only for everyone but the table owner (and
-- superusers, who hold every role's rights). The ledger roles have no
-- UPDATE, DELETE or TRUNCATE privilege on it in the first place (42501);
-- this trigger is the second line, for a deployment that grants one of
-- them by mistake. The owner may still rewrite it (retention, repair):
-- that is a DBA's decision, made as the owner.
-- Raises LD402 (audit_append_only) naming the operation and the role.
CREATE OR REPLACE FUNCTION ledger.tg_supersession__append_only()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        IF TG_LEVEL = 'STATEMENT' THEN
            RETURN NULL;
        ELSIF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'ledger.supersession is append-only: % by role % is not allowed', TG_OP, quote_ident(current_user)
        USING ERRCODE = 'LD402',
              HINT = 'Audit rows are never changed or removed; only the table owner may (retention, repair).';
END
$$;

COMMENT ON FUNCTION ledger.tg_supersession__append_only() IS
'BEFORE UPDATE/DELETE (row) and TRUNCATE (statement) trigger on ledger.supersession: the audit is append-only for every role but the table owner. Raises LD402 naming the operation and the role.';
