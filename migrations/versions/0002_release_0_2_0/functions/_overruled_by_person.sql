CREATE OR REPLACE FUNCTION ledger._overruled_by_person(p_finding_id bigint, p_merge_id bigint)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(
        (SELECT max(h.id) FROM ledger.supersession h
          WHERE h.finding_id = p_finding_id AND h.rule = 'manual' AND h.action IN ('restored', 'dismissed'))
        > (SELECT min(a.id) FROM ledger.supersession a
            WHERE a.finding_id = p_finding_id AND a.merge_id = p_merge_id),
        false)
$$;

COMMENT ON FUNCTION ledger._overruled_by_person(bigint, bigint) IS
'Whether the finding''s latest decision by a person (audit restored or dismissed, rule manual) comes after the merge''s first audit row for it: a machine''s answer about that merge''s tree then never overrides it. (finding_id bigint, merge_id bigint) -> boolean. Raises nothing.';
