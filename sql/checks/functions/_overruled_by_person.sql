-- ledger._overruled_by_person(p_finding_id bigint, p_merge_id bigint) -> boolean
--
-- Whether a person decided about the finding after the merge did: true
-- when the finding's latest decision by a person (an audit row restored or
-- dismissed, rule manual) comes after the merge's first audit row for the
-- finding (the row that opened its check or recheck request), in audit
-- order (ledger.supersession.id). A machine's answer about such a merge's
-- tree (a check that holds, a recheck answered resolved) is stale: it
-- never overrides the later human decision (ledger._settle_checks,
-- ledger._settle_rechecks). False when either row is missing. Two probes of
-- supersession_finding_idx. Runs with the rights of its caller (the
-- SECURITY DEFINER settling functions); no role may call it. Raises
-- nothing.
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
