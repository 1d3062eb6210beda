CREATE OR REPLACE FUNCTION ledger.tg_injection__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_finding_scope text;
BEGIN
    NEW.session_id := ledger._check_text(NEW.session_id, 'injection.session_id', true, 200);
    IF NEW.finding_id IS NULL THEN
        RAISE EXCEPTION 'injection.finding_id is required' USING ERRCODE = 'LD002';
    END IF;
    SELECT f.scope INTO v_finding_scope FROM ledger.finding f WHERE f.id = NEW.finding_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown finding in injection.finding_id: %', NEW.finding_id USING ERRCODE = 'LD005';
    END IF;
    -- scope is the finding's: set when not sent (on UPDATE: not changed), refused when another
    IF NEW.scope IS NULL OR (TG_OP = 'UPDATE' AND NEW.scope IS NOT DISTINCT FROM OLD.scope) THEN
        NEW.scope := v_finding_scope;
    ELSIF NEW.scope IS DISTINCT FROM v_finding_scope THEN
        RAISE EXCEPTION 'invalid injection.scope: % (finding % is in scope %)',
            quote_literal(NEW.scope), NEW.finding_id, quote_literal(v_finding_scope) USING ERRCODE = 'LD003';
    END IF;
    IF TG_OP = 'INSERT' OR NEW.injected_at IS DISTINCT FROM OLD.injected_at THEN
        NEW.injected_at := coalesce(ledger._check_timestamp(NEW.injected_at, 'injection.injected_at'), now());
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_injection__prepare() IS
'BEFORE INSERT/UPDATE trigger on ledger.injection: trims and validates session_id, checks that finding_id is a finding (LD005), sets scope to the finding''s (another scope sent: LD003), defaults injected_at and refuses one in the future. Raises LD002-LD005 naming field and value.';
