-- ledger.tg_finding__prepare_check() -> trigger (BEFORE INSERT OR UPDATE OF
-- resolved_when, paths, observed_at_precision ON ledger.finding, trigger
-- _120_check, after _100_prepare)
--
-- The finding's check, however the row is written (INSERT, multi-row
-- INSERT, COPY, UPDATE, the API):
--   resolved_when          validated and normalised by
--                          ledger.validate_check (at most 64 nodes; patterns
--                          rewritten to ARE where another dialect's
--                          construct has an exact ARE form);
--                          every path it names that paths does not hold is
--                          appended to paths (in the order the check names
--                          them, sorted), so the path index
--                          (ledger.finding_path) finds the finding when a
--                          merge touches one;
--   observed_at_precision  trimmed, lower-cased; instant or day (observed_at
--                          then stands for its UTC date only; it is kept as
--                          written, an importer writes the day's end).
-- Raises LD001, LD003, LD004, LD105 (see ledger.validate_check; more than 64
-- nodes names finding.resolved_when), LD003 for another precision, naming
-- the field and the value; nothing is written on error.
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
