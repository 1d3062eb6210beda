-- ledger.tg_finding__prepare() -> trigger (BEFORE INSERT OR UPDATE OF the
-- written columns ON ledger.finding)
--
-- Every finding, however it is written (INSERT, multi-row INSERT, COPY, the
-- Python API), passes through here:
--   scope        a scope name (ledger._check_scope: required, single line,
--                <= 200 chars, no comma); the scope row is created with
--                defaults the first time it is named;
--   title        required, single line, <= 1000 chars, trimmed;
--   finding_key  optional stable id, single line, <= 200 chars, trimmed;
--   created_at   on INSERT, not in the future (ledger._check_timestamp: up
--                to 5 minutes ahead is stored as now());
--   kind         free text, ASCII lower-cased, <= 100 chars, default 'review';
--   severity     critical | high | medium | low | info (major -> high,
--                minor -> low), ASCII case-insensitive, default 'medium';
--   description  optional, <= 1000000 chars, stored as given ('' -> NULL);
--   source       optional, single line, <= 200 chars;
--   paths        normalised by ledger.normalize_paths (at most 1000), NULL -> {}.
-- Raises LD001 (path), LD002 (required), LD003 (invalid), LD004 (too long),
-- each naming the field and the value; nothing is written on error.
CREATE OR REPLACE FUNCTION ledger.tg_finding__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_severity text;
BEGIN
    NEW.scope := ledger._check_scope(NEW.scope, 'finding.scope');
    NEW.title := ledger._check_text(NEW.title, 'finding.title', true, 1000);
    NEW.finding_key := ledger._check_text(NEW.finding_key, 'finding.finding_key', false, 200);
    IF TG_OP = 'INSERT' THEN
        NEW.created_at := ledger._check_timestamp(NEW.created_at, 'finding.created_at');
    END IF;
    NEW.kind := lower(ledger._check_text(coalesce(NEW.kind, 'review'), 'finding.kind', true, 100) COLLATE "C");
    v_severity := lower(ledger._check_text(coalesce(NEW.severity, 'medium'), 'finding.severity', true, 20) COLLATE "C");
    NEW.severity := CASE v_severity WHEN 'major' THEN 'high' WHEN 'minor' THEN 'low' ELSE v_severity END;
    IF NEW.severity NOT IN ('critical', 'high', 'medium', 'low', 'info') THEN
        RAISE EXCEPTION 'invalid finding.severity: % (expected critical, high, medium, low or info)',
            quote_literal(v_severity) USING ERRCODE = 'LD003';
    END IF;
    NEW.description := nullif(NEW.description, '');
    IF length(NEW.description) > 1000000 THEN
        RAISE EXCEPTION 'invalid finding.description: % characters, at most 1000000 are accepted',
            length(NEW.description) USING ERRCODE = 'LD004';
    END IF;
    NEW.source := ledger._check_text(NEW.source, 'finding.source', false, 200);
    NEW.paths := ledger.normalize_paths(NEW.paths, 'finding.paths', 1000);
    IF TG_OP = 'INSERT' OR NEW.scope IS DISTINCT FROM OLD.scope THEN
        PERFORM ledger._ensure_scope(NEW.scope);
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__prepare() IS
'BEFORE INSERT/UPDATE trigger on ledger.finding: validates and normalises scope, title, finding_key, kind, severity, description, source, paths; creates the scope on first use. Raises LD001-LD004 naming field and value.';
