-- ledger.reconcile(p_scope text) -> TABLE(merge_id bigint, decisions jsonb)
--
-- Applies the merges of p_scope that never went through the ledger's
-- triggers: rows written while triggers did not fire
-- (session_replication_role = replica, as logical replication's apply
-- worker and pg_restore --disable-triggers write them) keep
-- processed = false. In merge id order, each such merge gets its
-- commit_sha checked and lower-cased as the _100_prepare trigger does it
-- (LD002 blank, LD004 over 64 characters, LD003 not a hexadecimal commit
-- id of 4 to 64 digits); a commit another merge of the scope already
-- records (the same sha, or one abbreviating the other, as _120_redelivery
-- counts them) is LD007 naming both merges; its paths
-- normalised (ledger.normalize_paths), its branch normalised
-- (ledger._normalize_branch), its added, deleted and hunks validated and
-- normalised (trigger _120_changes), is marked processed and goes through
-- ledger._apply_merge and then ledger._apply_revert, the functions the
-- _200_supersede trigger runs for each merge, so it takes exactly the
-- decisions the triggers would take now (path and message rules, scope
-- policy, causality, change kinds, line anchors, reverts). Before that, the
-- scope's active findings whose paths are not in normal form (written the
-- same way) go through the finding's _100_prepare_update trigger (paths
-- normalised, line suffixes kept as anchors, observed_at, expects), and
-- the scope's rows of ledger.finding_path are made exactly the paths of
-- its active findings, so that merges can match them, and its totals in
-- ledger.scope_active_total are corrected to its active findings.
-- Idempotent: a second call finds nothing to do and returns no row;
-- concurrent calls wait for each other (row locks) and apply each merge once.
-- Returns one row per merge applied: its id and its audit rows as a JSON
-- array of {finding_id, action, rule, evidence, reason, detail} (as
-- record_merge).
-- SECURITY DEFINER (fixed search_path): it updates findings and merges and
-- writes the audit, which its caller (ledger_admin) may not do directly.
-- Raises LD002/LD003/LD004 for a bad p_scope (field reconcile.scope),
-- LD005 for a scope with no scope row, merge or finding, LD401 while
-- per-scope row-level security is on and the scope is not in ledger.scopes,
-- LD001 naming the merge or finding id when a stored path cannot be
-- normalised, LD002/LD003/LD004 naming the merge when its branch or
-- commit_sha is malformed, LD007 naming both merges when its commit is
-- another merge's of the scope (nothing is applied then: fix or delete the
-- row and call again).
-- The caller must hold ledger_admin (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
CREATE OR REPLACE FUNCTION ledger.reconcile(p_scope text)
RETURNS TABLE (merge_id bigint, decisions jsonb)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_scope text := ledger._check_text(p_scope, 'reconcile.scope', true, 200);
    v_id    bigint;
    v_sha   text;
    v_other bigint;
BEGIN
    PERFORM ledger._require_role('ledger_admin', 'ledger.reconcile');
    PERFORM ledger._check_scope_access(v_scope, 'reconcile.scope');
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = v_scope) THEN
        IF NOT EXISTS (SELECT 1 FROM ledger.merge m WHERE m.scope = v_scope)
           AND NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.scope = v_scope) THEN
            RAISE EXCEPTION 'unknown scope: reconcile.scope %', quote_literal(v_scope) USING ERRCODE = 'LD005';
        END IF;
        -- rows applied without triggers skip the foreign key check too
        PERFORM ledger._ensure_scope(v_scope);
    END IF;

    -- paths = paths: the _100_prepare trigger normalises them and keeps their line suffixes as anchors
    UPDATE ledger.finding f
       SET paths = f.paths
     WHERE f.scope = v_scope
       AND f.superseded_at IS NULL
       AND (f.paths IS DISTINCT FROM ledger.normalize_paths(f.paths, 'finding ' || f.id || ' paths', 1000)
            OR EXISTS (SELECT 1 FROM unnest(f.paths) AS p WHERE p ~ ':[0-9]+-[0-9]+$'));

    -- the path rule's side table (findings written the same way are not in
    -- it, or still are after a supersession): the scope's rows are made
    -- exactly the paths of its active findings
    DELETE FROM ledger.finding_path fp
     WHERE fp.scope = v_scope
       AND NOT EXISTS (SELECT 1 FROM ledger.finding f
                        WHERE f.id = fp.finding_id AND f.scope = v_scope AND f.superseded_at IS NULL
                          AND fp.path = ANY (f.paths));
    INSERT INTO ledger.finding_path (scope, path, finding_id)
    SELECT DISTINCT f.scope, p.path, f.id
      FROM ledger.finding f CROSS JOIN LATERAL unnest(f.paths) AS p(path)
     WHERE f.scope = v_scope AND f.superseded_at IS NULL
    ON CONFLICT DO NOTHING;

    -- the scope's active totals (ledger.scope_active_total), which the same
    -- writes skipped: one row corrects their sum to the scope's active
    -- findings, counted in the same statement (one snapshot), so a fold or a
    -- writer running meanwhile changes nothing
    INSERT INTO ledger.scope_active_total (scope, findings, chars)
    SELECT v_scope, a.findings - coalesce(t.findings, 0), a.chars - coalesce(t.chars, 0)
      FROM (SELECT count(*) AS findings,
                   coalesce(sum(length(f.title) + coalesce(1 + length(f.description), 0)), 0) AS chars
              FROM ledger.finding f
             WHERE f.scope = v_scope AND f.superseded_at IS NULL) AS a,
           (SELECT sum(x.findings) AS findings, sum(x.chars) AS chars
              FROM ledger.scope_active_total x
             WHERE x.scope = v_scope) AS t
     WHERE a.findings IS DISTINCT FROM coalesce(t.findings, 0) OR a.chars IS DISTINCT FROM coalesce(t.chars, 0);

    FOR v_id IN
        SELECT m.id FROM ledger.merge m
         WHERE m.scope = v_scope AND NOT m.processed
         ORDER BY m.id
           FOR NO KEY UPDATE
    LOOP
        -- the trigger checks and lower-cases a commit_sha (_100_prepare): a row
        -- written without it may be neither
        SELECT ledger._check_commit_sha(m.commit_sha, 'merge ' || m.id || ' commit_sha')
          INTO v_sha FROM ledger.merge m WHERE m.id = v_id;
        -- the same commit recorded already, the sha in full or abbreviated either
        -- way round (what _120_redelivery calls the same commit)
        v_other := ledger._other_merge_of_commit(v_scope, v_sha, v_id);
        IF v_other IS NOT NULL THEN
            RAISE EXCEPTION 'conflicting redelivery of merge.commit_sha % in scope %: merge % (written without triggers) is merge % again',
                quote_literal(v_sha), quote_literal(v_scope), v_id, v_other
                USING ERRCODE = 'LD007',
                      HINT = format('A commit is recorded once: delete the unprocessed row (DELETE FROM ledger.merge WHERE id = %s) and call reconcile again.', v_id);
        END IF;
        UPDATE ledger.merge m
           SET commit_sha = v_sha,
               paths = ledger.normalize_paths(m.paths, 'merge ' || m.id || ' paths', 100000),
               branch = ledger._normalize_branch(m.branch, 'merge ' || m.id || ' branch'),
               added = m.added, deleted = m.deleted, hunks = m.hunks,  -- through _120_changes
               processed = true
         WHERE m.id = v_id;
        PERFORM ledger._apply_merge(v_id);
        PERFORM ledger._apply_revert(v_id);
        merge_id := v_id;
        decisions := ledger._merge_audit(v_id);
        RETURN NEXT;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger.reconcile(text) IS
'Apply, in id order and once, the merges of a scope that were written without the ledger triggers (processed = false, e.g. session_replication_role = replica): lower-case and check their commit_sha, normalise their paths and branch (and the scope''s active findings'' paths), mark them processed, run ledger._apply_merge and ledger._apply_revert. (scope text) -> TABLE(merge_id bigint, decisions jsonb array of {finding_id, action, rule, evidence, reason, detail}). Idempotent. Raises LD001-LD005, LD007 (its commit, in full or abbreviated, is another merge''s of the scope), LD401. The caller must hold ledger_admin, else LD403.';
