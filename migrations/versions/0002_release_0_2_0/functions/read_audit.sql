CREATE OR REPLACE FUNCTION ledger.read_audit(
    p_scope text, p_finding_id bigint DEFAULT NULL, p_merge_id bigint DEFAULT NULL)
RETURNS TABLE (id bigint, scope text, finding_id bigint, merge_id bigint, action text, rule text, evidence text,
               detail jsonb, actor text, reason text, created_at timestamptz, commit_sha text, subject text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
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
        SELECT a.id, a.scope, a.finding_id, a.merge_id, a.action, a.rule, a.evidence, a.detail, a.actor, a.reason,
               a.created_at, m.commit_sha,
               ledger._commit_subject(m.message)
          FROM ledger.supersession a
          LEFT JOIN ledger.merge m ON m.id = a.merge_id
         WHERE a.scope = p_scope
           AND (p_finding_id IS NULL OR a.finding_id = p_finding_id)
           AND (p_merge_id IS NULL OR a.merge_id = p_merge_id)
         ORDER BY a.id;
END
$$;

COMMENT ON FUNCTION ledger.read_audit(text, bigint, bigint) IS
'Audit rows of a scope in write order, optionally filtered by finding or merge, with the merge''s commit_sha and subject (ledger._commit_subject: first visible line, control and format characters dropped, at most 120 characters). (scope, finding_id, merge_id) -> TABLE(id, scope, finding_id, merge_id, action, rule, evidence, detail, actor, reason, created_at, commit_sha, subject). Raises LD005 for an unknown scope, or a finding or merge id not in the scope.';
