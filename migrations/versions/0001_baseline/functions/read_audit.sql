-- ledger.read_audit(p_scope text, p_finding_id bigint DEFAULT NULL,
--                   p_merge_id bigint DEFAULT NULL) -> SETOF ledger.supersession
--
-- The audit trail of a scope in the order it was written, optionally only
-- one finding's or one merge's rows. Raises LD005 (not_found) for an
-- unknown scope, and for a finding or merge id that is not one of the scope's
-- (an empty answer would hide a mistyped id). Under per-scope row-level
-- security a scope the connection may not see is unknown.
CREATE OR REPLACE FUNCTION ledger.read_audit(
    p_scope text, p_finding_id bigint DEFAULT NULL, p_merge_id bigint DEFAULT NULL)
RETURNS SETOF ledger.supersession
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_nullable(p_scope) USING ERRCODE = 'LD005';
    END IF;
    IF p_finding_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.id = p_finding_id AND f.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown finding_id: % is not a finding of scope %', p_finding_id, quote_literal(p_scope)
            USING ERRCODE = 'LD005';
    END IF;
    IF p_merge_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ledger.merge m WHERE m.id = p_merge_id AND m.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown merge_id: % is not a merge of scope %', p_merge_id, quote_literal(p_scope)
            USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
        SELECT a.* FROM ledger.supersession a
         WHERE a.scope = p_scope
           AND (p_finding_id IS NULL OR a.finding_id = p_finding_id)
           AND (p_merge_id IS NULL OR a.merge_id = p_merge_id)
         ORDER BY a.id;
END
$$;

COMMENT ON FUNCTION ledger.read_audit(text, bigint, bigint) IS
'Audit rows of a scope in write order, optionally filtered by finding or merge. (scope, finding_id, merge_id) -> SETOF ledger.supersession. Raises LD005 for an unknown scope, or a finding or merge id not in the scope.';
