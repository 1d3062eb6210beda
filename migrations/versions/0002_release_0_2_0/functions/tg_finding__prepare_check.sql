CREATE OR REPLACE FUNCTION ledger.tg_finding__prepare_check()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.resolved_when IS NOT NULL
       AND (TG_OP = 'INSERT' OR NEW.resolved_when IS DISTINCT FROM OLD.resolved_when
            OR NEW.paths IS DISTINCT FROM OLD.paths) THEN
        NEW.resolved_when := ledger.validate_check(NEW.resolved_when, 'finding.resolved_when');
        NEW.paths := NEW.paths || ARRAY(SELECT p FROM unnest(ledger._check_paths(NEW.resolved_when)) AS p
                                         WHERE NOT p = ANY (NEW.paths));
    END IF;
    IF NEW.observed_at_precision IS NULL THEN
        NEW.observed_at_precision := 'instant';
    END IF;
    NEW.observed_at_precision := lower(btrim(NEW.observed_at_precision) COLLATE "C");
    IF NEW.observed_at_precision NOT IN ('instant', 'day') THEN
        RAISE EXCEPTION 'invalid finding.observed_at_precision: % (expected instant or day)',
            quote_literal(NEW.observed_at_precision) USING ERRCODE = 'LD003';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__prepare_check() IS
'BEFORE INSERT/UPDATE trigger _120_check on ledger.finding: validates and normalises resolved_when (ledger.validate_check: at most 64 nodes, patterns rewritten to ARE), appends the paths it names to paths when missing, and checks observed_at_precision (instant | day). Raises LD001, LD003, LD004, LD105 naming the part and the value.';
