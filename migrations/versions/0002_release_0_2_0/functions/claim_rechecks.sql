CREATE OR REPLACE FUNCTION ledger.claim_rechecks(
    p_scope text, p_verifier text, p_max integer, p_lease interval DEFAULT '10 minutes')
RETURNS TABLE (id bigint, scope text, finding_id bigint, merge_id bigint, requested_at timestamptz,
               verifier text, lease_until timestamptz, title text, description text, paths text[], kind text,
               severity text, commit_sha text, subject text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_scope    text := ledger._check_text(p_scope, 'scope', true, 200);
    v_verifier text := ledger._check_text(p_verifier, 'verifier', true, 200);
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.claim_rechecks');
    IF p_max IS NULL OR p_lease IS NULL THEN
        RAISE EXCEPTION '% is required', CASE WHEN p_max IS NULL THEN 'max' ELSE 'lease' END USING ERRCODE = 'LD002';
    END IF;
    IF p_max NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION 'invalid max: % (expected 1 to 1000 requests)', p_max USING ERRCODE = 'LD003';
    END IF;
    IF p_lease <= interval '0' OR p_lease > interval '1 day' THEN
        RAISE EXCEPTION 'invalid lease: % (expected more than 0 and at most 1 day)', p_lease USING ERRCODE = 'LD003';
    END IF;
    PERFORM ledger._check_scope_access(v_scope, 'scope');
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = v_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_literal(v_scope) USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
    WITH claimed AS (
        UPDATE ledger.recheck_request r
           SET verifier = v_verifier, lease_until = clock_timestamp() + p_lease
         WHERE r.id IN (SELECT q.id FROM ledger.recheck_request q
                         WHERE q.scope = v_scope AND q.answered_at IS NULL AND q.outcome IS NULL
                           AND (q.lease_until IS NULL OR q.lease_until <= clock_timestamp())
                           AND EXISTS (SELECT 1 FROM ledger.finding f
                                        WHERE f.id = q.finding_id AND f.superseded_at IS NULL)
                         ORDER BY q.id
                         LIMIT p_max
                         FOR UPDATE SKIP LOCKED)
        RETURNING r.*
    )
    SELECT c.id, c.scope, c.finding_id, c.merge_id, c.requested_at, c.verifier, c.lease_until,
           f.title, f.description, f.paths, f.kind, f.severity, m.commit_sha, ledger._commit_subject(m.message)
      FROM claimed c
      JOIN ledger.finding f ON f.id = c.finding_id
      JOIN ledger.merge m ON m.id = c.merge_id
     ORDER BY c.id;
END
$$;

COMMENT ON FUNCTION ledger.claim_rechecks(text, text, integer, interval) IS
'Claim up to max open recheck requests of a scope (not answered or settled, never claimed or lease expired, finding active), oldest first, with a lease of p_lease (default 10 minutes) from clock_timestamp(), and what a verifier needs: the finding''s title, description, paths, kind, severity, the merge''s commit_sha and subject (ledger._commit_subject). FOR UPDATE SKIP LOCKED: exactly once per lease. Answer with ledger.answer_recheck(id, resolved, evidence, verifier). (scope text, verifier text, max integer 1-1000, lease interval) -> TABLE(id, scope, finding_id, merge_id, requested_at, verifier, lease_until, title, description, paths, kind, severity, commit_sha, subject). SECURITY DEFINER. Raises LD002, LD003, LD004, LD005 (unknown scope), LD401. The caller must hold ledger_writer, else LD403.';
