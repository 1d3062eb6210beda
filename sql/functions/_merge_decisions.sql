-- ledger._merge_decisions(p_scope text, p_message text, p_paths text[], p_branch text,
--                         p_merged_at timestamptz DEFAULT NULL, p_added text[] DEFAULT NULL,
--                         p_deleted text[] DEFAULT NULL, p_hunks jsonb DEFAULT NULL) ->
--     TABLE(finding_id bigint, action text, rule text, evidence text, reason text, detail jsonb)
--
-- What a merge with this message, these (normalised) touched paths, this
-- branch, time and change kinds decides for each active finding of p_scope
-- it carries evidence about, under the scope's policy (issues 3 and 15).
-- Changes nothing; the trigger tg_merge__supersede (ledger._apply_merge)
-- turns it into audit rows, supersessions and anchor moves.
-- Pieces of evidence: ledger._match_message (key, slug, keyword, title;
-- run only when the pre-filter ledger._message_may_match says some active
-- finding of the scope could match) and
-- ledger._match_changes (rule path: the file-level rule, the line rule of
-- anchored findings, the added/deleted rule of findings that expect a path
-- present or absent). Each piece gets an outcome:
--   supersede     it resolves the finding: a message piece whose verdict is
--                 'resolution', or a 'bare' slug piece when the scope's
--                 slug_mention_resolves is on (unless the merge touches the
--                 finding's own file YYYY-MM-DD-<slug>.md: that commit files
--                 or edits the finding), or a path piece whose verdict is
--                 'resolution' for a finding whose kind is in
--                 path_supersede_kinds ('*': every kind);
--   ambiguous     it would resolve, but the same text (overlapping tokens)
--                 is also evidence for another finding: it supersedes none
--                 of them;
--   anchor_moved  the merge changed an anchored file of the finding away
--                 from its lines, and lines above them: the anchor moves;
--   candidate     a resolving path piece for a kind the path rule does not
--                 supersede, or a present/absent finding the merge's change
--                 kinds cannot decide;
--   anchor_kept   the merge changed an anchored file only below its lines;
--   mention       anything else (see the reason);
--   skipped       its rule is not in the scope's enabled_rules.
-- A finding's action is its best outcome in that order (rules ranked key,
-- slug, keyword, title, path, then by place); rule, evidence and reason are
-- that piece's. Then, for the whole merge or one finding:
--   skipped              the scope has a default_branch and p_branch is
--                        another branch: every action is 'skipped'
--                        (detail.would_be keeps the outcome) and one extra
--                        row with finding_id NULL records the skipped
--                        merge; a NULL branch is never skipped;
--   not_before_observed  p_merged_at is before least(observed_at,
--                        created_at) of the finding: a merge older than the
--                        problem never decides it (detail.would_be, and
--                        merged_at and observed_at in the reason and in
--                        detail); NULL p_merged_at checks nothing.
-- Anchors move (detail.anchor_moves [{path, to_path, from, to}] and
-- detail.anchors_after, with detail.paths_after when an anchored file was
-- renamed; applied by ledger._apply_merge) unless the finding is
-- superseded, the merge skipped or older than the finding.
-- detail: {finding_key, slug, title, kind, expects, pieces: [{rule, form,
-- text, line, context, verb, outcome, reason, also_matches, finding_path,
-- touched_path, anchor_from, anchor_to}]} plus finding_path and
-- touched_path when the deciding piece is a path. Rows are ordered by
-- finding_id, the merge row first. Its caller ledger._apply_merge runs it
-- with jit off (compiling this query costs a hundred times more than
-- running it on one merge) and without parallel workers. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._merge_decisions(
    p_scope text, p_message text, p_paths text[], p_branch text, p_merged_at timestamptz DEFAULT NULL,
    p_added text[] DEFAULT NULL, p_deleted text[] DEFAULT NULL, p_hunks jsonb DEFAULT NULL)
RETURNS TABLE (finding_id bigint, action text, rule text, evidence text, reason text, detail jsonb)
LANGUAGE plpgsql STABLE ROWS 10
SET search_path = pg_catalog
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
    -- tokeniser and matcher are then not run at all
    v_words := ledger._message_may_match(p_scope, p_message);
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
    WITH ev AS (
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
         WHERE cardinality(p_paths) > 0
    ), evf AS MATERIALIZED (
        -- a scalar subquery per piece: always a primary-key lookup, never a scan
        SELECT ev.*, (SELECT f FROM ledger.finding f WHERE f.id = ev.fid) AS f
          FROM ev
    ), ev2 AS (
        SELECT ev.fid, ev.r, ev.form, ev.txt, ev.seg, ev.pos_from, ev.pos_to, ev.ln, ev.ctx, ev.verdict, ev.vb,
               ev.why, ev.finding_path, ev.anchor_from, ev.anchor_to, ev.to_path, (ev.f).kind, (ev.f).finding_key,
               (ev.f).slug, (ev.f).title, (ev.f).expects, (ev.f).anchors,
               least((ev.f).observed_at, (ev.f).created_at) AS observed,
               ev.r = ANY (v_policy.enabled_rules) AS enabled,
               (ev.r = 'slug' AND EXISTS (
                    SELECT 1 FROM unnest(coalesce(p_paths, '{}')) AS mp(path)
                     WHERE ledger._file_slug(substring(mp.path FROM '[^/]*$'))
                           = lower(pg_catalog.normalize((ev.f).slug, 'NFC') COLLATE "C"))) AS files_it,
               ((ev.f).kind = ANY (v_policy.path_supersede_kinds) OR '*' = ANY (v_policy.path_supersede_kinds))
                   AS path_supersedes
          FROM evf AS ev
    ), ev3 AS (
        SELECT ev2.*,
               CASE
                   WHEN ev2.r = 'path' AND ev2.verdict = 'resolution'
                       THEN CASE WHEN ev2.path_supersedes THEN 'resolution' ELSE 'candidate' END
                   WHEN ev2.r = 'path' THEN ev2.verdict
                   WHEN ev2.verdict = 'bare' AND ev2.r = 'slug' AND v_policy.slug_mention_resolves
                        AND NOT ev2.files_it THEN 'resolution'
                   ELSE ev2.verdict END AS verdict2,
               CASE
                   WHEN ev2.r = 'path' AND ev2.verdict = 'resolution' AND ev2.path_supersedes
                       THEN ev2.why || CASE WHEN ev2.form = 'line'
                                            THEN format(' (line rule, context %s, kind %s)', v_policy.line_context, ev2.kind)
                                            ELSE format(' (path rule, kind %s)', ev2.kind) END
                   WHEN ev2.r = 'path' AND ev2.verdict = 'resolution'
                       THEN format('%s; the path rule only records a candidate for kind %s (path_supersede_kinds %s)',
                                   ev2.why, ev2.kind, v_policy.path_supersede_kinds::text)
                   WHEN ev2.r = 'path' THEN ev2.why
                   WHEN ev2.verdict = 'bare' AND ev2.r = 'slug' AND v_policy.slug_mention_resolves AND ev2.files_it
                       THEN 'a bare mention of the slug, in a merge that touches the finding''s own file'
                   WHEN ev2.verdict = 'bare' AND ev2.r = 'slug' AND v_policy.slug_mention_resolves
                       THEN 'a bare mention of the slug resolves (slug_mention_resolves)'
                   ELSE ev2.why END AS why2
          FROM ev2
    ), ev4 AS (
        SELECT e.*,
               ARRAY(SELECT DISTINCT o.fid FROM ev3 o
                      WHERE o.enabled AND o.r <> 'path' AND e.r <> 'path' AND o.fid <> e.fid
                        AND o.seg = e.seg AND o.pos_from <= e.pos_to AND e.pos_from <= o.pos_to
                      ORDER BY o.fid) AS others
          FROM ev3 e
    ), ev5 AS (
        SELECT e.*,
               CASE
                   WHEN NOT e.enabled THEN 'skipped'
                   WHEN e.verdict2 = 'resolution' AND cardinality(e.others) = 0 THEN 'supersede'
                   WHEN e.verdict2 = 'resolution' THEN 'ambiguous'
                   WHEN e.verdict2 = 'moved' THEN 'anchor_moved'
                   WHEN e.verdict2 = 'candidate' THEN 'candidate'
                   WHEN e.verdict2 = 'kept' THEN 'anchor_kept'
                   ELSE 'mention' END AS outcome,
               CASE
                   WHEN NOT e.enabled THEN format('rule %s is not in the scope''s enabled_rules', e.r)
                   WHEN e.verdict2 = 'resolution' AND cardinality(e.others) > 0
                       THEN format('%s, but the same text is also evidence for findings %s', e.why2,
                                   array_to_string(e.others, ', '))
                   ELSE e.why2 END AS why3,
               array_position('{key,slug,keyword,title,path}'::text[], e.r) AS rule_rank
          FROM ev4 e
    ), ranked AS (
        SELECT e.*,
               array_position('{supersede,ambiguous,anchor_moved,candidate,anchor_kept,mention,skipped}'::text[], e.outcome) AS outcome_rank,
               row_number() OVER (PARTITION BY e.fid
                                  ORDER BY array_position('{supersede,ambiguous,anchor_moved,candidate,anchor_kept,mention,skipped}'::text[], e.outcome),
                                           e.rule_rank, e.seg NULLS LAST, e.pos_from NULLS LAST, e.txt,
                                           e.finding_path) AS rn
          FROM ev5 e
    ), moves0 AS (
        -- anchors that follow the code: every moved piece of a finding
        SELECT x.fid,
               jsonb_agg(jsonb_strip_nulls(jsonb_build_object('path', x.finding_path, 'to_path', x.to_path,
                                                              'from', x.anchor_from, 'to', x.anchor_to))
                         ORDER BY x.finding_path) AS anchor_moves,
               ((array_agg(x.anchors))[1] - coalesce(array_agg(x.finding_path) FILTER (WHERE x.to_path IS NOT NULL),
                                                   '{}'))
                   || jsonb_object_agg(coalesce(x.to_path, x.finding_path), x.anchor_to) AS anchors_after,
               jsonb_object_agg(x.finding_path, x.to_path) FILTER (WHERE x.to_path IS NOT NULL) AS renames
          FROM ev5 x WHERE x.r = 'path' AND x.verdict2 = 'moved'
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
          FROM moves0 m
    )
    SELECT d.fid,
           CASE WHEN v_skip IS NOT NULL THEN 'skipped' WHEN d.before THEN 'not_before_observed' ELSE d.outcome END,
           d.r, d.txt,
           CASE WHEN v_skip IS NOT NULL THEN v_skip
                WHEN d.before
                    THEN format('merged at %s, before the finding was observed at %s: a merge older than the problem never decides it',
                                to_char(p_merged_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                                to_char(d.observed AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
                ELSE d.why3 END,
           jsonb_strip_nulls(jsonb_build_object(
               'finding_key', d.finding_key, 'slug', d.slug, 'title', d.title, 'kind', d.kind,
               'expects', CASE WHEN d.expects <> 'change' THEN d.expects END,
               'would_be', CASE WHEN v_skip IS NOT NULL OR d.before THEN d.outcome END,
               'merged_at', CASE WHEN d.before THEN p_merged_at END,
               'observed_at', CASE WHEN d.before THEN d.observed END,
               'finding_path', CASE WHEN d.r = 'path' THEN d.finding_path END,
               'touched_path', CASE WHEN d.r = 'path' THEN d.txt END,
               'anchor_moves', CASE WHEN d.moving THEN mv.anchor_moves END,
               'anchors_after', CASE WHEN d.moving THEN mv.anchors_after END,
               'paths_after', CASE WHEN d.moving THEN mv.paths_after END))
           || jsonb_build_object('pieces', (
               SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                          'rule', x.r, 'form', x.form, 'text', x.txt, 'line', x.ln, 'context', x.ctx,
                          'verb', x.vb, 'outcome', x.outcome, 'reason', x.why3,
                          'also_matches', CASE WHEN cardinality(x.others) > 0 THEN to_jsonb(x.others) END,
                          'finding_path', x.finding_path, 'touched_path', CASE WHEN x.r = 'path' THEN x.txt END,
                          'anchor_from', x.anchor_from, 'anchor_to', x.anchor_to))
                          ORDER BY x.outcome_rank, x.rule_rank, x.seg NULLS LAST, x.pos_from NULLS LAST, x.txt,
                                   x.finding_path)
                 FROM ranked x WHERE x.fid = d.fid))
      FROM (SELECT r.*, coalesce(p_merged_at < r.observed, false) AS before,
                   v_skip IS NULL AND NOT coalesce(p_merged_at < r.observed, false) AND r.outcome <> 'supersede'
                       AS moving
              FROM ranked r WHERE r.rn = 1) AS d
      LEFT JOIN moves mv ON mv.fid = d.fid
     ORDER BY d.fid;
END
$$;

COMMENT ON FUNCTION ledger._merge_decisions(text, text, text[], text, timestamptz, text[], text[], jsonb) IS
'Decisions a merge (message, touched paths, branch, merged_at, added, deleted, hunks) takes for the active findings of a scope under its policy: supersede, ambiguous, anchor_moved, candidate, anchor_kept, mention, skipped (rule disabled or merge off the default branch) or not_before_observed (merged before the finding was observed), with the deciding rule, the exact evidence, the reason, the anchor moves and every piece in detail. (scope, message, paths text[], branch, merged_at, added text[], deleted text[], hunks jsonb) -> TABLE(finding_id, action, rule, evidence, reason, detail jsonb). Changes nothing. Raises nothing.';
