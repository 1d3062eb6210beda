CREATE OR REPLACE FUNCTION ledger._finding_touches(p_finding_id bigint, p_max_touches integer)
RETURNS TABLE (touched_count integer, touches jsonb, touch_lines text[])
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_after bigint;
BEGIN
    IF NOT EXISTS (SELECT FROM ledger.supersession a WHERE a.finding_id = p_finding_id AND a.action = 'flagged') THEN
        touched_count := 0;
        touches := NULL;
        touch_lines := '{}'::text[];
        RETURN NEXT;
        RETURN;
    END IF;
    SELECT coalesce(max(b.id), 0) INTO v_after
      FROM ledger.supersession b
     WHERE b.finding_id = p_finding_id AND b.action IN ('verified_still_true', 'restored', 'reopened');
    RETURN QUERY
        WITH t AS (
            SELECT a.id, a.merge_id
              FROM ledger.supersession a
             WHERE a.finding_id = p_finding_id AND a.action = 'flagged' AND a.merge_id IS NOT NULL
               AND a.id > v_after
        ), n AS (
            SELECT count(*)::integer AS c FROM t
        ), shown AS (
            SELECT l.id, m.id AS merge_id, m.commit_sha, ledger._commit_subject(m.message) AS subject
              FROM (SELECT t.id, t.merge_id FROM t ORDER BY t.id DESC LIMIT p_max_touches) AS l
              JOIN ledger.merge m ON m.id = l.merge_id
        )
        SELECT n.c,
               (SELECT jsonb_agg(jsonb_build_object('merge_id', s.merge_id, 'sha', s.commit_sha, 'subject', s.subject)
                                 ORDER BY s.id)
                  FROM shown s),
               ARRAY(SELECT format('possibly resolved by %s%s: verify with ledger.verify_finding(%s, ''resolved'' | '
                                   '''still_true'', evidence, verifier)',
                                   left(s.commit_sha, 12), ' (' || s.subject || ')', p_finding_id)
                       FROM shown s ORDER BY s.id)
               || CASE WHEN n.c > p_max_touches
                       THEN ARRAY[format('possibly resolved by %s more merge%s, not listed (ledger.read_audit)',
                                         n.c - p_max_touches, CASE WHEN n.c - p_max_touches = 1 THEN '' ELSE 's' END)]
                       ELSE '{}'::text[] END
          FROM n;
END
$$;

COMMENT ON FUNCTION ledger._finding_touches(bigint, integer) IS
'The touches of a flagged finding a prompt shows: flagged audit rows after its last verified_still_true verdict, restore or reopen. (finding_id bigint, max_touches integer) -> TABLE(touched_count integer: all of them, touches jsonb: the latest max_touches [{merge_id, sha, subject}] oldest first or NULL, touch_lines text[]: one "possibly resolved by <sha 12> (<subject>): verify with ledger.verify_finding(<id>, ...)" line per shown touch, then one counting those not listed). Raises nothing.';
