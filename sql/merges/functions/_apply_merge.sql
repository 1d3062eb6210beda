-- ledger._apply_merge(p_merge_id bigint, p_may_match boolean DEFAULT NULL) -> void
--
-- What a merge decides, for one merge row: the body of the AFTER INSERT
-- trigger ledger.tg_merge__supersede, shared with ledger.reconcile so that a
-- merge applied late (written while triggers did not fire) gets exactly the
-- decisions the trigger would have taken. For every active finding of the
-- merge's scope that the merge carries evidence about
-- (ledger._merge_decisions; p_may_match: the message pre-filter's answer
-- when the caller has it): the path rule (a touched path the finding
-- references; refined by line anchors, change kinds and causality), the
-- commit-message rules (key, slug, keyword, title, governed by a
-- resolution verb, unambiguous), the scope's touch modes and the findings'
-- checks, under the scope's policy. Per the scope's hygiene_mode:
--   on   one audit row per decision (superseded, ambiguous, candidate,
--        mention, skipped, anchor_moved, with rule, exact evidence, reason
--        and detail; none for an anchor the merge did not move) is
--        written first, in the same transaction, except for anchors the
--        merge only moved within their files (no rename, no other piece
--        of evidence about the finding): those are one row of the merge,
--        its anchor record (finding_id NULL, action anchor_moved, rule
--        path, detail {"moves": {"<path>": {"<finding_id>": [from_first,
--        from_last, to_first, to_last]}}}), which ledger._anchor_moves
--        reads back as a row per finding; then every finding decided
--        'supersede' gets superseded_at = now(), superseded_by = the merge's
--        node_id (its commit sha when it has none),
--        superseded_by_merge_id and supersede_rule = the deciding rule;
--        'check' decisions are audited check_requested and open a
--        file-state request (ledger.file_state_request) for the paths the
--        check needs, already answered when the merge's paths, added and
--        deleted decide the whole check (ledger._merge_file_states); the
--        finding's requests are then settled in merge order
--        (ledger._settle_checks); 'recheck' decisions are audited
--        recheck_requested and queue a ledger.recheck_request; 'flag'
--        decisions are audited flagged and change nothing else;
--   dry  the same audit rows with 'would_supersede' instead of
--        'superseded', would_recheck and would_flag (no recheck request);
--        file-state requests are opened, and a check that holds is audited
--        would_supersede; no finding is superseded;
--   off  nothing.
-- The anchor lane: a merge whose message can match no finding (the
-- pre-filter, p_may_match or ledger._message_may_match), on the scope's
-- default branch (or naming none), reverting nothing, with the path rule
-- enabled, whose changes touch only findings without a check, of a kind
-- whose touch does not count (touch mode retire, or a kind the path rule
-- does not supersede), on files whose hunks keep their anchors or move
-- them (then for findings observed before the merge), decides nothing but
-- anchor moves: they are taken from ledger._match_changes' rows directly
-- (no _merge_decisions), with the same anchor record, locks and anchors as
-- the full path below (tests/decisions/test_anchor_lane.py compares the two).
-- Under the same conditions for the merge, the findings whose every piece is
-- such an anchor are the lane's and only the others' rows go to
-- _merge_decisions (p_changes); the lane's moves join the anchor record, its
-- findings the one locking pass and its anchors the one UPDATE of anchors.
-- In 'on' and 'dry', the anchors of findings the merge did not supersede
-- follow the code: detail.anchors_after of an anchor_moved (or other) row
-- becomes the finding's anchors, and detail.paths_after its paths when the
-- merge renamed an anchored file, after the audit row is written (an UPDATE
-- of ledger.finding through the finding's triggers, as the owner), so the
-- next merge's hunks are compared with where the lines are now.
-- The decisions are held once, in finding-id order (a row without a finding
-- first), as one array of the audit table's row type, ledger.supersession[]:
-- _merge_decisions' columns (finding_id, action, rule, evidence, reason,
-- detail) are audit columns of the same types, so each decision is the
-- audit row it becomes, with the merge's scope and merge_id (id, actor and
-- created_at NULL: the INSERT leaves them to their defaults), and needs
-- neither a type of its own nor another return type of _merge_decisions. Its
-- action stays the decision's (supersede, check, ...) until the audit
-- INSERT writes the audit action. The row is built with ROW(...) in the
-- table's column order (one cast, no JSON round trip by column name); a
-- table with other columns makes the cast fail when it is parsed. Every
-- later statement reads that one array: the findings to lock, the audit
-- INSERT (in the array's order), the supersede rule, the anchor moves, the
-- recheck requests.
-- Findings are locked in id order before they change, FOR NO KEY UPDATE: the
-- audit rows reference every decided finding and their foreign key check
-- takes FOR KEY SHARE on it, also on findings another merge holds; KEY SHARE
-- waits for FOR UPDATE but not for NO KEY UPDATE, so with FOR UPDATE those
-- checks would be lock waits outside the id order and three merges could
-- deadlock. In hygiene_mode 'on', the findings the merge's revert will
-- reopen (ledger._apply_revert, run next by trigger _200_supersede,
-- ledger._revert_targets)
-- are locked in the same statement, so a merge takes all its finding locks
-- in one id-ordered pass, together with the findings whose anchors move.
-- A finding that another transaction superseded (or
-- a person dismissed) while this one waited is audited as
-- 'already_superseded' and left alone. Findings already superseded or
-- dismissed are not active and are never looked at.
-- jit and parallel workers are off for the merge's statements (SET clauses
-- here, not on the matcher's functions, which are PL/pgSQL so that their
-- queries are planned once per session), and plan_cache_mode is
-- force_generic_plan: the supersede UPDATE, the audit INSERT and the lock
-- are planned once per session, not on every call.
-- Runs with the rights of its caller: EXECUTE is granted to no ledger role;
-- the SECURITY DEFINER callers run it as the owner. An unknown id does
-- nothing. Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger._apply_merge(p_merge_id bigint, p_may_match boolean DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- for every statement the decisions run (ledger._merge_decisions,
-- ledger._match_message, ledger._match_changes: a handful of index probes),
-- set once here: jit compiling costs a hundred times more than a merge's
-- matching, and parallel workers only add start-up cost (the planner's
-- default 1% estimate for && on a GIN index would otherwise launch them)
SET jit = off
SET max_parallel_workers_per_gather = 0
-- one generic plan per statement for the session: with the arrays of ids
-- folded in, a custom plan of the supersede UPDATE looks cheaper than the
-- generic one (which estimates unnest and = ANY at their defaults), so the
-- plan cache kept planning it again on every call; every statement here is
-- a primary-key lookup by an array of ids, whatever the arrays hold
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_merge    ledger.merge;
    v_mode     text;
    v_decided  ledger.supersession[];
    v_resolve  bigint[] := '{}'::bigint[];
    v_reopen   bigint[] := '{}'::bigint[];
    v_move     bigint[] := '{}'::bigint[];
    v_live     bigint[] := '{}'::bigint[];
    v_moving   bigint[] := '{}'::bigint[];
    v_check    bigint[] := '{}'::bigint[];
    v_checking bigint[] := '{}'::bigint[];
    v_marker   text;
    v_moves    jsonb;
    v_compact  bigint[] := '{}'::bigint[];
    v_policy   ledger.scope;
    v_may      boolean;
    v_changes  jsonb;
    v_lane_ids bigint[] := '{}'::bigint[];
    v_lane_after jsonb[];
    v_lane_moves jsonb;
    v_all_lane boolean := false;
BEGIN
    SELECT m.* INTO v_merge FROM ledger.merge m WHERE m.id = p_merge_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_marker := coalesce(v_merge.node_id, v_merge.commit_sha);

    SELECT s.* INTO v_policy FROM ledger.scope s WHERE s.scope = v_merge.scope;
    v_mode := v_policy.hygiene_mode;
    IF v_mode = 'off' OR (cardinality(v_merge.paths) = 0 AND v_merge.message !~ '\S') THEN
        RETURN;
    END IF;
    v_may := coalesce(p_may_match, ledger._message_may_match(v_merge.scope, v_merge.message));

    -- The anchor lane (see the header): the findings whose every piece is an
    -- anchor the hunks kept or moved within its file, and whose policy makes
    -- that decide nothing but the move; the others take the full path.
    IF NOT v_may AND cardinality(v_merge.paths) > 0 AND 'path' = ANY (v_policy.enabled_rules)
       AND strpos(v_merge.message, 'This reverts commit ') = 0
       AND NOT coalesce(v_policy.default_branch IS NOT NULL AND v_merge.branch <> v_policy.default_branch, false) THEN
        WITH pieces AS MATERIALIZED (
            SELECT p.finding_id AS fid, p.finding_path AS path, p.form = 'anchor_moved' AS moved, p AS piece,
                   p.anchor_from, p.anchor_to, f.anchors,
                   p.verdict IN ('kept', 'moved') AND p.form IN ('anchor_kept', 'anchor_moved')
                       AND f.resolved_when IS NULL
                       -- a move older than the finding is not_before_observed (a kept anchor decides nothing)
                       AND NOT (p.form = 'anchor_moved'
                                AND coalesce(v_merge.merged_at < least(f.observed_at, f.created_at), false))
                       AND NOT ledger._touch_counts(v_policy.touch_modes, v_policy.path_supersede_kinds, f.kind) AS ok
              FROM ledger._match_changes(v_merge.scope, v_merge.paths, v_merge.added, v_merge.deleted,
                                         v_merge.hunks, v_policy.line_context) AS p
              -- each finding by its primary key (OFFSET 0: the generic plan
              -- would rather scan the table and hash it)
              CROSS JOIN LATERAL (SELECT f.kind, f.resolved_when, f.anchors, f.observed_at, f.created_at
                                    FROM ledger.finding f WHERE f.id = p.finding_id OFFSET 0) AS f
        ), per_finding AS (
            -- the lane takes a finding whose every piece it may take
            SELECT x.fid, bool_and(x.ok) AS ok, bool_or(x.moved) AS moved,
                   jsonb_strip_nulls((array_agg(x.anchors))[1]
                                     || coalesce(jsonb_object_agg(x.path, x.anchor_to) FILTER (WHERE x.moved), '{}'))
                       AS after
              FROM pieces x
             GROUP BY x.fid
        )
               -- the other findings' rows, for _merge_decisions (NULL: there are none)
        SELECT (SELECT jsonb_agg(to_jsonb(x.piece)) FROM pieces x JOIN per_finding y ON y.fid = x.fid WHERE NOT y.ok),
               (SELECT coalesce(array_agg(y.fid ORDER BY y.fid), '{}') FROM per_finding y WHERE y.ok AND y.moved),
               (SELECT array_agg(y.after ORDER BY y.fid) FROM per_finding y WHERE y.ok AND y.moved),
               (SELECT jsonb_object_agg(m.path, m.moves)
                  FROM (SELECT x.path, jsonb_object_agg(x.fid::text, x.anchor_from || x.anchor_to) AS moves
                          FROM pieces x JOIN per_finding y ON y.fid = x.fid
                         WHERE y.ok AND x.moved GROUP BY x.path) AS m)
          INTO v_changes, v_lane_ids, v_lane_after, v_lane_moves;
        -- every finding the lane's (v_changes NULL): no _merge_decisions below;
        -- else the others go through it, and the lane's moves join the merge's
        -- anchor record there
        v_all_lane := v_changes IS NULL;
    END IF;

    -- the decisions, once, as the audit rows they become (action still the
    -- decision's), in finding order, the merge row first; ROW in the column
    -- order of ledger.supersession: id, scope, finding_id, merge_id, action,
    -- rule, evidence, detail, actor, reason, created_at
    IF NOT v_all_lane THEN
        SELECT array_agg(ROW(NULL, v_merge.scope, d.finding_id, v_merge.id, d.action, d.rule, d.evidence,
                             d.detail, NULL, d.reason, NULL)::ledger.supersession
                         ORDER BY d.finding_id NULLS FIRST)
          INTO v_decided
          FROM ledger._merge_decisions(v_merge.scope, v_merge.message, v_merge.paths, v_merge.branch,
                                       v_merge.merged_at, v_merge.added, v_merge.deleted, v_merge.hunks,
                                       v_may, v_changes) AS d;
    END IF;

    IF v_decided IS NOT NULL THEN
        v_move := ARRAY(SELECT x.finding_id FROM unnest(v_decided) AS x WHERE x.detail ? 'anchors_after');
        v_check := ARRAY(SELECT x.finding_id FROM unnest(v_decided) AS x WHERE x.action = 'check');
    END IF;
    v_move := v_move || v_lane_ids;  -- the lane's findings are locked in the same pass
    IF v_mode = 'on' THEN
        IF v_decided IS NOT NULL THEN
            v_resolve := ARRAY(SELECT x.finding_id FROM unnest(v_decided) AS x WHERE x.action = 'supersede');
        END IF;
        IF strpos(v_merge.message, 'This reverts commit ') > 0 THEN
            -- the findings ledger._apply_revert (run next by _200_supersede) reopens
            v_reopen := ARRAY(SELECT DISTINCT a.finding_id FROM ledger.supersession a
                               WHERE a.action = 'superseded'
                                 AND a.merge_id IN (SELECT t.target_merge_id
                                                      FROM ledger._revert_targets(v_merge.scope, v_merge.message, v_merge.id) AS t));
        END IF;
    END IF;
    IF cardinality(v_resolve) + cardinality(v_reopen) + cardinality(v_move) + cardinality(v_check) > 0 THEN
        -- Every finding this merge may change, locked in one pass in id order; the
        -- locked row is the latest committed one, so superseded_at is re-checked.
        SELECT coalesce(array_agg(l.id) FILTER (WHERE l.id = ANY (v_resolve) AND l.superseded_at IS NULL), '{}'),
               coalesce(array_agg(l.id) FILTER (WHERE l.id = ANY (v_move) AND l.superseded_at IS NULL), '{}'),
               coalesce(array_agg(l.id) FILTER (WHERE l.id = ANY (v_check) AND l.superseded_at IS NULL), '{}')
          INTO v_live, v_moving, v_checking
          FROM (SELECT f.id, f.superseded_at FROM ledger.finding f
                 WHERE f.id = ANY (v_resolve || v_reopen || v_move || v_check)
                 ORDER BY f.id FOR NO KEY UPDATE) AS l;
    END IF;
    IF v_decided IS NULL AND cardinality(v_lane_ids) = 0 THEN
        RETURN;
    END IF;

    -- an anchor that only moved within its file (no rename, no other piece of
    -- evidence): no row of its own, one entry in the merge's anchor record
    -- {path: {finding_id: [from_first, from_last, to_first, to_last]}},
    -- with the lane's moves
    IF v_decided IS NULL THEN
        v_moves := v_lane_moves;  -- (the statements below that read v_decided are skipped)
    ELSIF cardinality(v_move) > 0 THEN
        v_compact := ARRAY(SELECT x.finding_id FROM unnest(v_decided) AS x
                            WHERE x.action = 'anchor_moved' AND x.detail ? 'anchors_after'
                              AND NOT x.detail ? 'paths_after' AND NOT x.detail ? 'pieces');
        SELECT jsonb_object_agg(p.path, p.moves)
          INTO v_moves
          FROM (SELECT t.path, jsonb_object_agg(t.fid, t.lines) AS moves
                  FROM (SELECT m.value ->> 'path' AS path, x.finding_id::text AS fid,
                               (m.value -> 'from') || (m.value -> 'to') AS lines
                          FROM unnest(v_decided) AS x, jsonb_array_elements(x.detail -> 'anchor_moves') AS m
                         WHERE x.finding_id = ANY (v_compact)
                        UNION ALL
                        SELECT lp.key, lf.key, lf.value
                          FROM jsonb_each(v_lane_moves) AS lp, jsonb_each(lp.value) AS lf) AS t
                 GROUP BY t.path) AS p;
    END IF;

    IF v_decided IS NOT NULL THEN
        INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
        SELECT x.scope, x.finding_id, x.merge_id,
               CASE WHEN x.action = 'check' THEN 'check_requested'
                    WHEN x.action = 'recheck' THEN CASE WHEN v_mode = 'dry' THEN 'would_recheck' ELSE 'recheck_requested' END
                    WHEN x.action = 'flag' THEN CASE WHEN v_mode = 'dry' THEN 'would_flag' ELSE 'flagged' END
                    WHEN x.action <> 'supersede' THEN x.action
                    WHEN v_mode = 'dry' THEN 'would_supersede'
                    WHEN x.finding_id = ANY (v_live) THEN 'superseded'
                    ELSE 'already_superseded' END,
               x.rule, x.evidence, x.reason, x.detail
          FROM unnest(v_decided) WITH ORDINALITY AS x
         WHERE x.finding_id IS NULL OR NOT x.finding_id = ANY (v_compact)
         ORDER BY x.ordinality;
    END IF;
    IF v_moves IS NOT NULL THEN
        INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
        VALUES (v_merge.scope, NULL, v_merge.id, 'anchor_moved', 'path', NULL,
                format('the merge''s hunks moved the line anchors of %s finding(s) (detail.moves)',
                       cardinality(v_compact) + cardinality(v_lane_ids)),
                jsonb_build_object('moves', v_moves));
    END IF;

    IF cardinality(v_live) > 0 THEN
        UPDATE ledger.finding f
           SET superseded_at = now(),
               superseded_by = v_marker,
               superseded_by_merge_id = v_merge.id,
               supersede_rule = x.rule
          FROM unnest(v_decided) AS x
         WHERE f.id = x.finding_id AND f.id = ANY (v_live);
    END IF;
    IF cardinality(v_moving) > 0 THEN
        -- an anchor that moved within its file: anchors alone are written (the
        -- triggers on paths do not run), the lane's and the decisions' in one
        -- statement; a followed rename writes both
        IF cardinality(v_lane_ids) > 0
           OR EXISTS (SELECT FROM unnest(v_decided) AS x
                       WHERE x.finding_id = ANY (v_moving) AND NOT x.detail ? 'paths_after') THEN
            UPDATE ledger.finding f
               SET anchors = a.after
              FROM (SELECT l.id, l.after FROM unnest(v_lane_ids, v_lane_after) AS l(id, after)
                    UNION ALL
                    SELECT x.finding_id, x.detail -> 'anchors_after' FROM unnest(v_decided) AS x
                     WHERE x.detail ? 'anchors_after' AND NOT x.detail ? 'paths_after') AS a(id, after)
             WHERE f.id = a.id AND f.id = ANY (v_moving);
        END IF;
        IF EXISTS (SELECT FROM unnest(v_decided) AS x
                    WHERE x.finding_id = ANY (v_moving) AND x.detail ? 'paths_after') THEN
            UPDATE ledger.finding f
               SET anchors = x.detail -> 'anchors_after',
                   paths = ARRAY(SELECT jsonb_array_elements_text(x.detail -> 'paths_after'))
              FROM unnest(v_decided) AS x
             WHERE f.id = x.finding_id AND f.id = ANY (v_moving) AND x.detail ? 'paths_after';
        END IF;
    END IF;
    IF v_mode = 'on' AND v_decided IS NOT NULL THEN
        IF EXISTS (SELECT FROM unnest(v_decided) AS x WHERE x.action = 'recheck') THEN
            INSERT INTO ledger.recheck_request (scope, finding_id, merge_id)
            SELECT v_merge.scope, x.finding_id, v_merge.id
              FROM unnest(v_decided) AS x
             WHERE x.action = 'recheck'
             ORDER BY x.finding_id
            ON CONFLICT (finding_id, merge_id) DO NOTHING;
        END IF;
    END IF;
    IF cardinality(v_checking) > 0 THEN
        -- one file-state request per checked finding; answered here when the
        -- merge's own change kinds decide the whole check
        INSERT INTO ledger.file_state_request (scope, merge_id, finding_id, paths, states, answered_at)
        SELECT v_merge.scope, v_merge.id, c.id, c.paths,
               CASE WHEN c.decided THEN c.states END, CASE WHEN c.decided THEN now() END
          FROM (SELECT q.id, q.paths, q.states,
                       (ledger._eval_check(q.resolved_when, q.states)).holds IS NOT NULL AS decided
                  FROM (SELECT f.id, f.resolved_when, ledger._check_paths(f.resolved_when) AS paths,
                               ledger._merge_file_states(ledger._check_paths(f.resolved_when), v_merge.paths,
                                                         v_merge.added, v_merge.deleted) AS states
                          FROM ledger.finding f WHERE f.id = ANY (v_checking)) AS q) AS c
         ORDER BY c.id
        ON CONFLICT (merge_id, finding_id) DO NOTHING;
        FOR i IN 1 .. cardinality(v_checking) LOOP
            PERFORM ledger._settle_checks(v_checking[i]);
        END LOOP;
    END IF;
END
$$;

COMMENT ON FUNCTION ledger._apply_merge(bigint, boolean) IS
'What one merge decides (shared by the _200_supersede trigger and reconcile): ledger._merge_decisions (path rule with line anchors, change kinds and causality, commit-message rules, touch modes, checks, scope policy), except for the findings whose only evidence is an anchor the hunks kept or moved within its file, under a policy for which that decides nothing but the move, when the message cannot match (the anchor lane: their moves are taken from ledger._match_changes directly, with the same result). hygiene_mode on: audit rows first (superseded, check_requested, recheck_requested, flagged, ambiguous, anchor_moved, candidate, mention, skipped, not_before_observed; none for an anchor that did not move; the anchors moved within their files, without a rename or other evidence, as one row of the merge: finding_id NULL, action anchor_moved, detail {"moves": {"<path>": {"<finding_id>": [from_first, from_last, to_first, to_last]}}}, read per finding by ledger._anchor_moves), then supersedes, moves anchors, queues recheck requests, opens file-state requests (answered at once when added/deleted decide the check) and settles them in merge order; dry: would_supersede, would_recheck, would_flag, anchors move; off: nothing. Findings locked in id order FOR NO KEY UPDATE; a lost race is audited already_superseded. (merge_id bigint, may_match boolean: the message pre-filter''s answer or NULL) -> void. Raises nothing.';
