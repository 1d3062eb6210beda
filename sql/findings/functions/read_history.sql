-- ledger.read_history(p_finding_id bigint)
--   -> TABLE(at timestamptz, event text, rule text, actor text, reason text,
--            evidence text, merge_id bigint, commit_sha text, detail jsonb,
--            audit_id bigint)
--
-- A finding's timeline (CLI `findings-ledger history ID`), oldest
-- first:
--   'reported'   from the finding row: created_at, actor = source,
--                evidence = its paths, detail {kind, severity, finding_key,
--                report_count, last_reported_at, last_review_run,
--                resolved_when, observed_at_precision when day};
--   every audit row of the finding (superseded, would_supersede,
--                already_superseded, reopened, not_reopened, dismissed,
--                restored, ...) with its rule, actor, reason and evidence;
--                an anchor_moved event per merge that moved the finding's
--                anchor (detail.anchor_moves: path, from and to; commit_sha
--                the merge that moved it; read from the merge's anchor
--                record by ledger._anchor_moves, or from the finding's own
--                row after a followed rename, with anchors_after and
--                paths_after); a merge that touched its file without
--                moving the anchor is no event;
--                for a merge's decision, actor is the audit's actor or else
--                the merge's node_id or else 'merge <sha>', and commit_sha the
--                merge's commit;
--   'injected'   each session whose prompt it was injected into (actor =
--                session_id).
-- Ties in time are ordered reported, audit (by id), injected.
-- Raises LD005 (unknown finding).
CREATE OR REPLACE FUNCTION ledger.read_history(p_finding_id bigint)
RETURNS TABLE (at timestamptz, event text, rule text, actor text, reason text, evidence text,
               merge_id bigint, commit_sha text, detail jsonb, audit_id bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.id = p_finding_id) THEN
        RAISE EXCEPTION 'unknown finding: %', coalesce(p_finding_id::text, 'NULL') USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
    SELECT h.at, h.event, h.rule, h.actor, h.reason, h.evidence, h.merge_id, h.commit_sha, h.detail, h.audit_id
      FROM (
        SELECT f.created_at AS at, 'reported'::text AS event, NULL::text AS rule, f.source AS actor,
               NULL::text AS reason, nullif(array_to_string(f.paths, ', '), '') AS evidence,
               NULL::bigint AS merge_id, NULL::text AS commit_sha,
               jsonb_strip_nulls(jsonb_build_object(
                   'kind', f.kind, 'severity', f.severity, 'finding_key', f.finding_key,
                   'report_count', f.report_count, 'last_reported_at', f.last_reported_at,
                   'last_review_run', f.review_run, 'resolved_when', f.resolved_when,
                   'observed_at_precision', nullif(f.observed_at_precision, 'instant'))) AS detail,
               NULL::bigint AS audit_id, 0 AS tie, 0::bigint AS seq
          FROM ledger.finding f WHERE f.id = p_finding_id
        UNION ALL
        SELECT a.created_at, a.action, a.rule,
               coalesce(a.actor, m.node_id, 'merge ' || left(m.commit_sha, 12)),
               a.reason, a.evidence, a.merge_id, m.commit_sha, a.detail, a.id, 1, a.id
          FROM ledger.supersession a
          LEFT JOIN ledger.merge m ON m.id = a.merge_id
         WHERE a.finding_id = p_finding_id
        UNION ALL
        -- the anchor records of the finding's scope that name it (supersession_anchor_moves_idx: a
        -- look at each anchor record of the scope, linear in the merges that moved anchors there)
        SELECT a.created_at, a.action, a.rule,
               coalesce(a.actor, m.node_id, 'merge ' || left(m.commit_sha, 12)),
               e.reason, e.evidence, a.merge_id, m.commit_sha, e.detail, a.id, 1, a.id
          FROM ledger.finding f
          JOIN ledger.supersession a
            ON a.scope = f.scope AND a.finding_id IS NULL AND a.action = 'anchor_moved'
          CROSS JOIN LATERAL ledger._anchor_moves(a.detail, p_finding_id) AS e
          LEFT JOIN ledger.merge m ON m.id = a.merge_id
         WHERE f.id = p_finding_id
        UNION ALL
        SELECT i.injected_at, 'injected', NULL, i.session_id, NULL, NULL, NULL, NULL, NULL, NULL, 2, 0
          FROM ledger.injection i WHERE i.finding_id = p_finding_id
      ) AS h
     ORDER BY h.at, h.tie, h.seq, h.actor;
END
$$;

COMMENT ON FUNCTION ledger.read_history(bigint) IS
'A finding''s timeline, oldest first: reported (the row), every audit row (superseded, reopened, dismissed, restored, ... with rule, actor, reason, evidence, merge and commit; anchor_moved also from the merges'' anchor records that name it, ledger._anchor_moves), injected (sessions). (finding_id) -> TABLE(at, event, rule, actor, reason, evidence, merge_id, commit_sha, detail, audit_id). Raises LD005.';
