-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge,
-- FOR EACH STATEMENT, transition table new_merges)
--
-- When merges land, decide for every active finding of their scope that a
-- merge carries evidence about: the path rule, the commit-message rules,
-- the findings' checks and the scope's touch modes, and reverts, under the
-- scope's policy and hygiene_mode (on: audit, then supersede or reopen;
-- dry: audit would_supersede / would_reopen; off: nothing). The rules are
-- ledger._apply_merge(merge_id) and ledger._apply_revert(merge_id), shared
-- with ledger.reconcile; see there for the decisions, the audit rows and the
-- lock order.
-- The statement's merges are decided one after the other in id order (the
-- order they were written in), each by _apply_merge then _apply_revert,
-- exactly as if each had been inserted by a statement of its own: a
-- multi-row INSERT, a COPY and ledger.record_merges give the same result as
-- the same rows inserted one by one (tests/merges/test_bulk_equivalence.py, which
-- also compares with ledger.reconcile, which decides every merge).
-- A merge that cannot decide anything is not run through them: one query
-- over new_merges keeps the merges whose scope's hygiene_mode is not off
-- and that have paths or a message, and that
--   * touch a path that an active finding of the scope references
--     (ledger.finding_path probed with ledger._path_keys: the keys of
--     ledger._match_changes), or
--   * have a message that may match an active finding
--     (ledger._message_may_match, exact when it says no; evaluated once per
--     merge, and its answer passed to ledger._apply_merge), or
--   * revert a commit ('This reverts commit '), or
--   * are on a branch other than the scope's default_branch (audited
--     skipped).
-- Only a revert (reopening findings) or a merge with hunks (moving an
-- anchored finding's path on a rename) can give a later merge of the
-- statement something it did not have: after one of those reopened a
-- finding or moved one to another path (its audit rows say so: reopened,
-- or a detail with paths_after), the query is run again for the merges
-- after it.
-- A redelivered merge (ON CONFLICT DO NOTHING) inserts no row and so has no
-- effect.
-- SECURITY DEFINER (fixed search_path, schema-qualified names): a writer
-- that may only INSERT merges still gets its findings superseded and
-- audited, although it may not UPDATE the supersession columns of
-- ledger.finding nor write ledger.supersession.
-- Raises LD403 (role_required) when fired for any table but ledger.merge:
-- its first statement compares TG_RELID with ledger.merge (one comparison
-- per statement), so a role that may EXECUTE it (PUBLIC after a restore
-- without privileges) and attaches it to a table of its own (a TEMP table
-- with the same columns and transition tables) cannot run it as the owner
-- on rows it forged. Only the owner of ledger.merge may attach a trigger
-- to it, so on ledger.merge it fires only for an INSERT of merges, which
-- needs the table privilege (ledger_writer's; the owner's alone after a
-- restore without privileges, PostgreSQL granting PUBLIC nothing on a
-- table) or ledger.record_merge / record_merges, which check ledger_writer
-- first. So it checks no caller role (ledger._require_role), and the
-- guard costs one comparison per statement, nothing per merge.
CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
SET max_parallel_workers_per_gather = 0
AS $$
DECLARE
    v_after   bigint := 0::bigint;
    v_ids     bigint[];
    v_changes boolean[];
    v_may     boolean[];
    v_reverts boolean[];
    v_again   boolean;
BEGIN
    IF TG_RELID <> 'ledger.merge'::regclass THEN
        RAISE EXCEPTION 'ledger.tg_merge__supersede() runs only as a trigger on ledger.merge, not on %', TG_RELID::regclass
            USING ERRCODE = 'LD403';
    END IF;
    LOOP
        -- the message pre-filter runs once per merge here; its answer goes to
        -- ledger._apply_merge, which does not ask it again
        SELECT array_agg(c.id ORDER BY c.id), array_agg(c.changes ORDER BY c.id), array_agg(c.may_match ORDER BY c.id),
               array_agg(strpos(c.message, 'This reverts commit ') > 0 ORDER BY c.id)
          INTO v_ids, v_changes, v_may, v_reverts
          FROM (SELECT k.*
                  FROM (SELECT n.id, n.scope, n.paths, n.branch, n.message, sc.default_branch,
                               ledger._path_keys(n.paths) AS keys,  -- once per merge, not per row probed
                               strpos(n.message, 'This reverts commit ') > 0 OR n.hunks IS NOT NULL AS changes,
                               n.message ~ '\S' AND ledger._message_may_match(n.scope, n.message) AS may_match
                          FROM new_merges n
                          JOIN ledger.scope sc ON sc.scope = n.scope
                         WHERE n.id > v_after
                           AND sc.hygiene_mode <> 'off'
                           AND (cardinality(n.paths) > 0 OR n.message ~ '\S')
                        OFFSET 0) AS k  -- one pre-filter call per merge, not one per reference
                 WHERE strpos(k.message, 'This reverts commit ') > 0
                    OR (k.default_branch IS NOT NULL AND k.branch IS NOT NULL AND k.branch <> k.default_branch)
                    OR (cardinality(k.paths) > 0
                        -- the keys joined to the scope's finding paths (a probe per key,
                        -- or the keys hashed): = ANY (k.keys) would compare every path
                        -- of the scope with every key
                        AND EXISTS (SELECT 1 FROM unnest(k.keys) AS t(key)
                                      JOIN ledger.finding_path fp ON fp.scope = k.scope AND fp.path = t.key))
                    OR k.may_match) AS c;
        EXIT WHEN v_ids IS NULL;
        v_again := false;
        FOR i IN 1 .. cardinality(v_ids) LOOP
            PERFORM ledger._apply_merge(v_ids[i], v_may[i]);
            -- (a merge whose message names no reverted commit reverts nothing)
            IF v_reverts[i] THEN
                PERFORM ledger._apply_revert(v_ids[i]);
            END IF;
            v_after := v_ids[i];
            IF v_changes[i] AND EXISTS (SELECT 1 FROM ledger.supersession a
                                         WHERE a.merge_id = v_ids[i]
                                           AND (a.action = 'reopened' OR a.detail ? 'paths_after')) THEN
                -- it reopened findings or moved one to another path: look again at the merges after it
                v_again := true;
                EXIT;
            END IF;
        END LOOP;
        EXIT WHEN NOT v_again;
    END LOOP;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__supersede() IS
'AFTER INSERT statement trigger on ledger.merge (transition table new_merges): each merge the statement inserted, in id order, through ledger._apply_merge (path rule with anchors, change kinds and causality, commit-message rules, checks and touch modes, scope policy; the message pre-filter evaluated once per merge here and passed on) then ledger._apply_revert (reverts reopen); merges that cannot decide anything (no finding path touched, no possible message match, no revert, on the default branch) are skipped by one set-based query. hygiene_mode on: audit rows first, then supersedes or reopens; dry: would_supersede / would_reopen only; off: nothing. Exactly what one statement per merge decides. SECURITY DEFINER so that writers without UPDATE on findings or INSERT on the audit get the same effect. Raises LD403 when fired for a table other than ledger.merge (the only table it is attached to).';
