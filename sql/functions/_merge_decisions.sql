-- ledger._merge_decisions(p_scope text, p_message text, p_paths text[], p_branch text) ->
--     TABLE(finding_id bigint, action text, rule text, evidence text, reason text, detail jsonb)
--
-- What a merge with this message, these (normalised) touched paths and this
-- branch decides for each active finding of p_scope it carries evidence
-- about, under the scope's policy (issue 3). Changes nothing; the trigger
-- tg_merge__supersede turns it into audit rows and supersessions.
-- Pieces of evidence: ledger._match_message (key, slug, keyword, title) and
-- ledger._match_paths (path). Each piece gets an outcome:
--   supersede  it resolves the finding: a message piece whose verdict is
--              'resolution', or a 'bare' slug piece when the scope's
--              slug_mention_resolves is on (unless the merge touches the
--              finding's own file YYYY-MM-DD-<slug>.md: that commit files
--              or edits the finding), or a path piece for a finding whose
--              kind is in path_supersede_kinds ('*': every kind);
--   ambiguous  it would resolve, but the same text (overlapping tokens) is
--              also evidence for another finding: it supersedes none of them;
--   candidate  a path piece for a kind the path rule does not supersede;
--   mention    anything else (see the reason);
--   skipped    its rule is not in the scope's enabled_rules.
-- A finding's action is its best outcome in that order (rules ranked key,
-- slug, keyword, title, path, then by place); rule, evidence and reason are
-- that piece's. When the scope has a default_branch and p_branch is another
-- branch, every action is 'skipped' (detail.would_be keeps the outcome) and
-- one extra row with finding_id NULL records the skipped merge. A NULL
-- branch is never skipped. detail: {finding_key, slug, title, kind,
-- pieces: [{rule, form, text, line, context, verb, outcome, reason,
-- also_matches, finding_path, touched_path}]} plus finding_path and
-- touched_path when the deciding piece is a path. Rows are ordered by
-- finding_id, the merge row first. jit is off: compiling this query costs
-- a hundred times more than running it on one merge. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._merge_decisions(p_scope text, p_message text, p_paths text[], p_branch text)
RETURNS TABLE (finding_id bigint, action text, rule text, evidence text, reason text, detail jsonb)
LANGUAGE plpgsql STABLE ROWS 10
SET search_path = pg_catalog
SET jit = off
AS $$
DECLARE
    v_policy ledger.scope;
    v_skip   text;
BEGIN
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
               NULL::text AS finding_path
          FROM ledger._match_message(p_scope, p_message) AS m
        UNION ALL
        SELECT p.finding_id, 'path', 'path', p.touched_path, NULL, NULL, NULL, NULL, NULL, 'path', NULL, NULL,
               p.finding_path
          FROM ledger._match_paths(p_scope, coalesce(p_paths, '{}')) AS p
         WHERE cardinality(p_paths) > 0
    ), evf AS MATERIALIZED (
        -- a scalar subquery per piece: always a primary-key lookup, never a scan
        SELECT ev.*, (SELECT f FROM ledger.finding f WHERE f.id = ev.fid) AS f
          FROM ev
    ), ev2 AS (
        SELECT ev.fid, ev.r, ev.form, ev.txt, ev.seg, ev.pos_from, ev.pos_to, ev.ln, ev.ctx, ev.verdict, ev.vb,
               ev.why, ev.finding_path, (ev.f).kind, (ev.f).finding_key, (ev.f).slug, (ev.f).title,
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
                   WHEN ev2.r = 'path' THEN CASE WHEN ev2.path_supersedes THEN 'resolution' ELSE 'candidate' END
                   WHEN ev2.verdict = 'bare' AND ev2.r = 'slug' AND v_policy.slug_mention_resolves
                        AND NOT ev2.files_it THEN 'resolution'
                   ELSE ev2.verdict END AS verdict2,
               CASE
                   WHEN ev2.r = 'path' AND ev2.path_supersedes
                       THEN format('the merge touched %s, which the finding references as %s (path rule, kind %s)',
                                   ev2.txt, ev2.finding_path, ev2.kind)
                   WHEN ev2.r = 'path'
                       THEN format('the merge touched %s, which the finding references as %s; the path rule only records a candidate for kind %s (path_supersede_kinds %s)',
                                   ev2.txt, ev2.finding_path, ev2.kind, v_policy.path_supersede_kinds::text)
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
                   WHEN e.verdict2 = 'candidate' THEN 'candidate'
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
               array_position('{supersede,ambiguous,candidate,mention,skipped}'::text[], e.outcome) AS outcome_rank,
               row_number() OVER (PARTITION BY e.fid
                                  ORDER BY array_position('{supersede,ambiguous,candidate,mention,skipped}'::text[], e.outcome),
                                           e.rule_rank, e.seg NULLS LAST, e.pos_from NULLS LAST, e.txt) AS rn
          FROM ev5 e
    )
    SELECT d.fid,
           CASE WHEN v_skip IS NULL THEN d.outcome ELSE 'skipped' END,
           d.r, d.txt,
           CASE WHEN v_skip IS NULL THEN d.why3 ELSE v_skip END,
           jsonb_strip_nulls(jsonb_build_object(
               'finding_key', d.finding_key, 'slug', d.slug, 'title', d.title, 'kind', d.kind,
               'would_be', CASE WHEN v_skip IS NOT NULL THEN d.outcome END,
               'finding_path', CASE WHEN d.r = 'path' THEN d.finding_path END,
               'touched_path', CASE WHEN d.r = 'path' THEN d.txt END))
           || jsonb_build_object('pieces', (
               SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                          'rule', x.r, 'form', x.form, 'text', x.txt, 'line', x.ln, 'context', x.ctx,
                          'verb', x.vb, 'outcome', x.outcome, 'reason', x.why3,
                          'also_matches', CASE WHEN cardinality(x.others) > 0 THEN to_jsonb(x.others) END,
                          'finding_path', x.finding_path, 'touched_path', CASE WHEN x.r = 'path' THEN x.txt END))
                          ORDER BY x.outcome_rank, x.rule_rank, x.seg NULLS LAST, x.pos_from NULLS LAST, x.txt)
                 FROM ranked x WHERE x.fid = d.fid))
      FROM ranked d
     WHERE d.rn = 1
     ORDER BY d.fid;
END
$$;

COMMENT ON FUNCTION ledger._merge_decisions(text, text, text[], text) IS
'Decisions a merge (message, touched paths, branch) takes for the active findings of a scope under its policy: supersede, ambiguous, candidate, mention or skipped, with the deciding rule, the exact evidence, the reason and every piece in detail. (scope, message, paths text[], branch) -> TABLE(finding_id, action, rule, evidence, reason, detail jsonb). Changes nothing. Raises nothing.';
