CREATE OR REPLACE FUNCTION ledger.tg_scope__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.scope := ledger._check_scope(NEW.scope, 'scope.scope');
    NEW.hygiene_mode := lower(ledger._check_text(coalesce(NEW.hygiene_mode, 'on'), 'scope.hygiene_mode', true, 10) COLLATE "C");
    IF NEW.hygiene_mode NOT IN ('on', 'dry', 'off') THEN
        RAISE EXCEPTION 'invalid scope.hygiene_mode: % (expected on, dry or off)', quote_literal(NEW.hygiene_mode)
            USING ERRCODE = 'LD003';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_scope__prepare() IS
'BEFORE INSERT OR UPDATE trigger on ledger.scope: trims and validates scope (ledger._check_scope: no comma, control or format character) and hygiene_mode. Raises LD002, LD003, LD004 naming field and value.';
