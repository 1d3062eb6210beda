CREATE OR REPLACE FUNCTION ledger._merge_decisions(
    p_scope text, p_message text, p_paths text[], p_branch text, p_merged_at timestamptz DEFAULT NULL,
    p_added text[] DEFAULT NULL, p_deleted text[] DEFAULT NULL, p_hunks jsonb DEFAULT NULL,
    p_may_match boolean DEFAULT NULL, p_changes jsonb DEFAULT NULL)
RETURNS TABLE (finding_id bigint, action text, rule text, evidence text, reason text, detail jsonb)
LANGUAGE plpgsql STABLE ROWS 10
SET search_path = pg_catalog, pg_temp
-- one generic plan for the session: a custom plan folds the pre-filter's
-- answer (v_words) into a much cheaper plan, so the plan cache would keep
-- planning this query on every call (1 ms); the generic plan gates the
-- message branch at run time instead
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_policy ledger.scope;
    v_skip   text;
    v_words  boolean;
BEGIN
    -- the pre-filter: false when no active finding of the scope can match the
    -- message (no token at all, or none of its probe keys indexed); the full
    -- tokeniser and matcher are then not run at all; p_may_match is its
    -- answer when the caller (the merge trigger) has it already
    v_words := coalesce(p_may_match, ledger._message_may_match(p_scope, p_message));
    SELECT sc.* INTO v_policy FROM ledger.scope sc WHERE sc.scope = p_scope;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF v_policy.default_branch IS NOT NULL AND p_branch IS NOT NULL AND p_branch <> v_policy.default_branch THEN
        v_skip := format('merge on branch %s, not on the scope''s default_branch %s', p_branch, v_policy.default_branch);
        finding_id := NULL; action := 'skipped'; rule := NULL; evidence := p_branch; reason := v_skip;
        detail := jsonb_build_object('branch', p_branch, 'default_branch', v_policy.default_branch);
        RETURN NEXT;
    END IF;

    RETURN QUERY
    WITH pieces AS (
        SELECT m.finding_id AS fid, m.rule AS r, m.form, m.evidence AS txt, m.seg, m.pos_from, m.pos_to,
               m.line AS ln, m.context AS ctx, m.verdict, m.verb AS vb, m.reason AS why,
               NULL::text AS finding_path, NULL::jsonb AS anchor_from, NULL::jsonb AS anchor_to,
               NULL::text AS to_path
          FROM ledger._match_message(p_scope, p_message) AS m
         WHERE v_words
        UNION ALL
        SELECT p.finding_id, 'path', p.form, p.touched_path, NULL, NULL, NULL, NULL, NULL, p.verdict, NULL, p.reason,
               p.finding_path, p.anchor_from, p.anchor_to, p.to_path
          FROM ledger._match_changes(p_scope, coalesce(p_paths, '{}'), p_added, p_deleted, p_hunks,
                                     v_policy.line_context) AS p
         WHERE cardinality(p_paths) > 0 AND p_changes IS NULL
        UNION ALL
        -- the same rows, from the caller (ledger._apply_merge asked them already)
        SELECT p.finding_id, 'path', p.form, p.touched_path, NULL, NULL, NULL, NULL, NULL, p.verdict, NULL, p.reason,
               p.finding_path, p.anchor_from, p.anchor_to, p.to_path
          FROM jsonb_to_recordset(p_changes) AS p(finding_id bigint, finding_path text, touched_path text,
                                                  verdict text, form text, reason text, anchor_from jsonb,
                                                  anchor_to jsonb, to_path text)
         WHERE cardinality(p_paths) > 0 AND p_changes IS NOT NULL
    ), with_finding AS MATERIALIZED (
        -- a scalar subquery per piece: always a primary-key lookup, never a scan
        SELECT ev.*, (SELECT f FROM ledger.finding f WHERE f.id = ev.fid) AS f,
               bool_and(ev.r = 'path' AND ev.verdict = 'kept') OVER (PARTITION BY ev.fid) AS kept_only
          FROM pieces AS ev
    ), deciding AS (
        -- a finding whose every piece is an anchor that stayed, without a
        -- check, with the path rule enabled and a touch mode that does not
        -- count a touch: its outcome is anchor_kept, which decides nothing
        -- (no row), so nothing more is computed for it
        SELECT ev.*
          FROM with_finding AS ev
         WHERE NOT (ev.kept_only AND (ev.f).resolved_when IS NULL AND 'path' = ANY (v_policy.enabled_rules)
                    AND NOT ledger._touch_counts(v_policy.touch_modes, v_policy.path_supersede_kinds, (ev.f).kind))
    ), facts AS (
        SELECT ev.fid, ev.r, ev.form, ev.txt, ev.seg, ev.pos_from, ev.pos_to, ev.ln, ev.ctx, ev.verdict, ev.vb,
               ev.why, ev.finding_path, ev.anchor_from, ev.anchor_to, ev.to_path, (ev.f).kind, (ev.f).finding_key,
               (ev.f).slug, (ev.f).title, (ev.f).expects, (ev.f).anchors, (ev.f).resolved_when AS checks,
               -- naming evidence of a finding observed only to the day: that day's start
               CASE WHEN (ev.f).observed_at_precision = 'day' AND ev.r IN ('key', 'slug')
                    THEN least(date_trunc('day', (ev.f).observed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                               (ev.f).created_at)
                    ELSE least((ev.f).observed_at, (ev.f).created_at) END AS observed,
               (ev.f).resolved_when IS NOT NULL AND ev.r = 'path'
                   AND ev.finding_path = ANY (ledger._check_paths((ev.f).resolved_when)) AS names_checked,
               -- read only for a resolving path piece and a touch of an anchored
               -- file away from its lines (their verdict, their reason, and
               -- detail.touch_mode of the recheck and flag outcomes they lead to)
               CASE WHEN ev.r = 'path' AND (ev.verdict = 'resolution'
                                            OR ev.form IN ('anchor_moved', 'anchor_kept', 'renamed', 'maybe_renamed'))
                    THEN ledger._touch_mode(v_policy.touch_modes, (ev.f).kind) END AS touch_mode,
               ev.r = ANY (v_policy.enabled_rules) AS enabled,
               (ev.r = 'slug' AND EXISTS (
                    SELECT 1 FROM unnest(coalesce(p_paths, '{}')) AS mp(path)
                     WHERE ledger._file_slug(substring(mp.path FROM '[^/]*$'))
                           = lower(pg_catalog.normalize((ev.f).slug, 'NFC') COLLATE "C"))) AS files_it,
               ((ev.f).kind = ANY (v_policy.path_supersede_kinds) OR '*' = ANY (v_policy.path_supersede_kinds))
                   AS path_supersedes
          FROM deciding AS ev
    ), verdicts AS (
        -- the piece's verdict under the scope's policy: path kinds, touch
        -- modes, slug mentions, and a finding's check (which only the tree decides)
        SELECT pc.*,
               CASE
                   WHEN pc.checks IS NOT NULL AND pc.r = 'path'
                       THEN CASE WHEN pc.names_checked THEN 'check' ELSE 'mention' END
                   WHEN pc.checks IS NOT NULL AND (pc.verdict = 'resolution'
                        OR (pc.verdict = 'bare' AND pc.r = 'slug' AND v_policy.slug_mention_resolves
                            AND NOT pc.files_it)) THEN 'check'
                   -- any touch of an unchecked finding's file counts under recheck and
                   -- flag, wherever its hunks fall (the anchor still moves)
                   WHEN pc.r = 'path' AND pc.form IN ('anchor_moved', 'anchor_kept', 'renamed', 'maybe_renamed')
                        AND pc.path_supersedes AND pc.touch_mode IN ('recheck', 'flag') THEN pc.touch_mode
                   WHEN pc.r = 'path' AND pc.verdict = 'resolution' AND NOT pc.path_supersedes THEN 'candidate'
                   WHEN pc.r = 'path' AND pc.verdict = 'resolution'
                       THEN CASE pc.touch_mode WHEN 'recheck' THEN 'recheck' WHEN 'flag' THEN 'flag'
                                                ELSE 'resolution' END
                   WHEN pc.r = 'path' THEN pc.verdict
                   WHEN pc.verdict = 'bare' AND pc.r = 'slug' AND v_policy.slug_mention_resolves
                        AND NOT pc.files_it THEN 'resolution'
                   ELSE pc.verdict END AS policy_verdict,
               CASE
                   WHEN pc.checks IS NOT NULL AND pc.r = 'path' AND pc.names_checked
                       THEN format('%s; the finding has a check (resolved_when) naming %s: the merge''s tree decides',
                                   pc.why, pc.finding_path)
                   WHEN pc.checks IS NOT NULL AND pc.r = 'path'
                       THEN format('%s; the finding has a check (resolved_when) that does not name %s: a touch of it decides nothing',
                                   pc.why, pc.finding_path)
                   WHEN pc.checks IS NOT NULL AND (pc.verdict = 'resolution'
                        OR (pc.verdict = 'bare' AND pc.r = 'slug' AND v_policy.slug_mention_resolves
                            AND NOT pc.files_it))
                       THEN format('%s; the finding has a check (resolved_when): the merge''s tree decides', pc.why)
                   WHEN pc.r = 'path' AND pc.form IN ('anchor_moved', 'anchor_kept', 'renamed', 'maybe_renamed')
                        AND pc.path_supersedes AND pc.touch_mode IN ('recheck', 'flag')
                       THEN pc.why || format(' (kind %s, touch mode %s: any touch of the file of a finding without a check counts, wherever its hunks fall)',
                                              pc.kind, pc.touch_mode)
                   WHEN pc.r = 'path' AND pc.verdict = 'resolution' AND pc.path_supersedes
                        AND pc.touch_mode IN ('recheck', 'flag')
                       THEN pc.why || format(' (%s rule, kind %s, touch mode %s)',
                                              CASE WHEN pc.form = 'line' THEN 'line' ELSE 'path' END,
                                              pc.kind, pc.touch_mode)
                   WHEN pc.r = 'path' AND pc.verdict = 'resolution' AND pc.path_supersedes
                       THEN pc.why || CASE WHEN pc.form = 'line'
                                            THEN format(' (line rule, context %s, kind %s)', v_policy.line_context, pc.kind)
                                            ELSE format(' (path rule, kind %s)', pc.kind) END
                   WHEN pc.r = 'path' AND pc.verdict = 'resolution'
                       THEN format('%s; the path rule only records a candidate for kind %s (path_supersede_kinds %s)',
                                   pc.why, pc.kind, v_policy.path_supersede_kinds::text)
                   WHEN pc.r = 'path' THEN pc.why
                   WHEN pc.verdict = 'bare' AND pc.r = 'slug' AND v_policy.slug_mention_resolves AND pc.files_it
                       THEN 'a bare mention of the slug, in a merge that touches the finding''s own file'
                   WHEN pc.verdict = 'bare' AND pc.r = 'slug' AND v_policy.slug_mention_resolves
                       THEN 'a bare mention of the slug resolves (slug_mention_resolves)'
                   ELSE pc.why END AS policy_reason
          FROM facts AS pc
    ), shared_text AS (
        -- the other findings the same message text is evidence for
        -- (a path piece shares no text: no scan of the others for it)
        SELECT e.*,
               CASE WHEN e.r = 'path' THEN '{}'::bigint[]
                    ELSE ARRAY(SELECT DISTINCT o.fid FROM verdicts o
                                WHERE o.enabled AND o.r <> 'path' AND o.fid <> e.fid
                                  AND o.seg = e.seg AND o.pos_from <= e.pos_to AND e.pos_from <= o.pos_to
                                ORDER BY o.fid) END AS others
          FROM verdicts e
    ), outcomes AS (
        SELECT e.*,
               CASE
                   WHEN NOT e.enabled THEN 'skipped'
                   WHEN e.policy_verdict IN ('resolution', 'check') AND cardinality(e.others) > 0 THEN 'ambiguous'
                   WHEN e.policy_verdict = 'resolution' THEN 'supersede'
                   WHEN e.policy_verdict IN ('check', 'recheck', 'flag') THEN e.policy_verdict
                   WHEN e.policy_verdict = 'moved' THEN 'anchor_moved'
                   WHEN e.policy_verdict = 'candidate' THEN 'candidate'
                   WHEN e.policy_verdict = 'kept' THEN 'anchor_kept'
                   ELSE 'mention' END AS outcome,
               CASE
                   WHEN NOT e.enabled THEN format('rule %s is not in the scope''s enabled_rules', e.r)
                   WHEN e.policy_verdict IN ('resolution', 'check') AND cardinality(e.others) > 0
                       THEN format('%s, but the same text is also evidence for findings %s', e.policy_reason,
                                   array_to_string(e.others, ', '))
                   ELSE e.policy_reason END AS outcome_reason,
               array_position('{key,slug,keyword,title,path}'::text[], e.r) AS rule_rank
          FROM shared_text e
    ), ranked AS (
        SELECT e.*,
               array_position('{supersede,check,recheck,flag,ambiguous,anchor_moved,candidate,anchor_kept,mention,skipped}'::text[], e.outcome) AS outcome_rank,
               row_number() OVER (PARTITION BY e.fid
                                  ORDER BY array_position('{supersede,check,recheck,flag,ambiguous,anchor_moved,candidate,anchor_kept,mention,skipped}'::text[], e.outcome),
                                           e.rule_rank, e.seg NULLS LAST, e.pos_from NULLS LAST, e.txt,
                                           e.finding_path) AS rn
          FROM outcomes e
    ), anchor_moves AS (
        -- anchors that follow the code: every moved piece of a finding
        SELECT x.fid,
               jsonb_agg(jsonb_strip_nulls(jsonb_build_object('path', x.finding_path, 'to_path', x.to_path,
                                                              'from', x.anchor_from, 'to', x.anchor_to))
                         ORDER BY x.finding_path) AS anchor_moves,
               ((array_agg(x.anchors))[1] - coalesce(array_agg(x.finding_path) FILTER (WHERE x.to_path IS NOT NULL),
                                                   '{}'))
                   || jsonb_object_agg(coalesce(x.to_path, x.finding_path), x.anchor_to) AS anchors_after,
               jsonb_object_agg(x.finding_path, x.to_path) FILTER (WHERE x.to_path IS NOT NULL) AS renames
          FROM outcomes x WHERE x.r = 'path' AND x.verdict = 'moved'
         GROUP BY x.fid
    ), moves AS (
        -- a followed rename: the finding's path becomes the new one (in its place, once)
        SELECT m.*,
               CASE WHEN m.renames IS NOT NULL THEN
                   (SELECT jsonb_agg(q.p ORDER BY q.o)
                      FROM (SELECT DISTINCT ON (coalesce(m.renames ->> u.p, u.p)) coalesce(m.renames ->> u.p, u.p) AS p, u.o
                              FROM unnest((SELECT f.paths FROM ledger.finding f WHERE f.id = m.fid))
                                   WITH ORDINALITY AS u(p, o)
                             ORDER BY coalesce(m.renames ->> u.p, u.p), u.o) AS q)
               END AS paths_after
          FROM anchor_moves m
    )
    SELECT d.fid,
           CASE WHEN v_skip IS NOT NULL THEN 'skipped' WHEN d.before THEN 'not_before_observed' ELSE d.outcome END,
           d.r, d.txt,
           CASE WHEN v_skip IS NOT NULL THEN v_skip
                WHEN d.before
                    THEN format('merged at %s, before the finding was observed at %s: a merge older than the problem never decides it',
                                to_char(p_merged_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                                to_char(d.observed AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
                ELSE d.outcome_reason END,
           CASE WHEN d.outcome = 'anchor_moved' AND d.moving THEN
               -- a moved anchor: where it went, and the pieces that are not anchor bookkeeping
               jsonb_strip_nulls(jsonb_build_object(
                   'anchor_moves', mv.anchor_moves, 'anchors_after', mv.anchors_after,
                   'paths_after', mv.paths_after, 'pieces', pc.others))
           ELSE
           jsonb_strip_nulls(jsonb_build_object(
               'finding_key', d.finding_key, 'slug', d.slug, 'title', d.title, 'kind', d.kind,
               'expects', CASE WHEN d.expects <> 'change' THEN d.expects END,
               'resolved_when', d.checks,
               'touch_mode', CASE WHEN d.outcome IN ('recheck', 'flag') THEN d.touch_mode END,
               'would_be', CASE WHEN v_skip IS NOT NULL OR d.before THEN d.outcome END,
               'merged_at', CASE WHEN d.before THEN p_merged_at END,
               'observed_at', CASE WHEN d.before THEN d.observed END,
               'finding_path', CASE WHEN d.r = 'path' THEN d.finding_path END,
               'touched_path', CASE WHEN d.r = 'path' THEN d.txt END,
               'anchor_moves', CASE WHEN d.moving THEN mv.anchor_moves END,
               'anchors_after', CASE WHEN d.moving THEN mv.anchors_after END,
               'paths_after', CASE WHEN d.moving THEN mv.paths_after END))
           || jsonb_build_object('pieces', pc.pieces) END
      FROM (SELECT r.*, coalesce(p_merged_at < r.observed, false) AS before,
                   v_skip IS NULL AND NOT coalesce(p_merged_at < r.observed, false) AND r.outcome <> 'supersede'
                       AS moving
              -- an anchor that did not move decides nothing: no row
              FROM ranked r WHERE r.rn = 1 AND r.outcome <> 'anchor_kept') AS d
      LEFT JOIN moves mv ON mv.fid = d.fid
      -- every piece of each finding, aggregated once (one pass over ranked)
      LEFT JOIN (SELECT x.fid,
                   jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                       'rule', x.r, 'form', x.form, 'text', x.txt, 'line', x.ln, 'context', x.ctx,
                       'verb', x.vb, 'outcome', x.outcome, 'reason', x.outcome_reason,
                       'also_matches', CASE WHEN cardinality(x.others) > 0 THEN to_jsonb(x.others) END,
                       'finding_path', x.finding_path, 'touched_path', CASE WHEN x.r = 'path' THEN x.txt END,
                       'anchor_from', x.anchor_from, 'anchor_to', x.anchor_to))
                       ORDER BY x.outcome_rank, x.rule_rank, x.seg NULLS LAST, x.pos_from NULLS LAST, x.txt,
                                x.finding_path)
                       FILTER (WHERE x.outcome <> 'anchor_kept') AS pieces,
                   jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                       'rule', x.r, 'form', x.form, 'text', x.txt, 'line', x.ln, 'context', x.ctx,
                       'verb', x.vb, 'outcome', x.outcome, 'reason', x.outcome_reason,
                       'also_matches', CASE WHEN cardinality(x.others) > 0 THEN to_jsonb(x.others) END,
                       'finding_path', x.finding_path, 'touched_path', CASE WHEN x.r = 'path' THEN x.txt END,
                       'anchor_from', x.anchor_from, 'anchor_to', x.anchor_to))
                       ORDER BY x.outcome_rank, x.rule_rank, x.seg NULLS LAST, x.pos_from NULLS LAST, x.txt,
                                x.finding_path)
                       FILTER (WHERE x.outcome NOT IN ('anchor_kept', 'anchor_moved')) AS others
              FROM ranked x WHERE x.fid IN (SELECT r.fid FROM ranked r WHERE r.rn = 1 AND r.outcome <> 'anchor_kept')
             GROUP BY x.fid) AS pc ON pc.fid = d.fid
     ORDER BY d.fid;
END
$$;

COMMENT ON FUNCTION ledger._merge_decisions(text, text, text[], text, timestamptz, text[], text[], jsonb, boolean, jsonb) IS
'Decisions a merge (message, touched paths, branch, merged_at, added, deleted, hunks) takes for the active findings of a scope under its policy: supersede, check (a checked finding: its check decides on the merge''s tree), recheck / flag (the kind''s touch mode), ambiguous, anchor_moved (slim detail: anchor_moves, anchors_after, paths_after), candidate, mention, skipped (rule disabled or merge off the default branch) or not_before_observed (merged before the finding was observed), with the deciding rule, the exact evidence, the reason, the anchor moves and every piece in detail. (scope, message, paths text[], branch, merged_at, added text[], deleted text[], hunks jsonb, may_match boolean: the pre-filter''s answer, NULL to ask it; changes jsonb: ledger._match_changes'' rows as a JSON array, NULL to ask it) -> TABLE(finding_id, action, rule, evidence, reason, detail jsonb). Changes nothing. Raises nothing.';
