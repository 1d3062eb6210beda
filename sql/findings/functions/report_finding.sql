-- ledger.report_finding(p_scope, p_finding_key, p_title, p_description,
--     p_paths, p_kind, p_severity, p_source, p_review_run, p_observed_at,
--     p_expects, p_task_group, p_resolved_when, p_observed_at_precision)
--   -> TABLE(finding_id bigint, outcome text, state text,
--            report_count integer, reopen_count integer)
--
-- Reports a finding identified by (scope, finding_key); the same finding is
-- never a second row ("identity and re-reports"). outcome:
--   'new'              no finding has this key in the scope: inserted (the
--                      same triggers as a plain INSERT validate it);
--   'duplicate'        it is active: the same finding; report_count + 1,
--                      last_reported_at = now();
--   'reopened'         it was superseded (by a merge, a re-review, ...): it
--                      is active again, audit row 'reopened' (rule
--                      'rereport', evidence the review run or source),
--                      reopen_count + 1, and the re-report is counted;
--   'still_dismissed'  a person dismissed it: it stays dismissed (automation
--                      never overrides a human decision); the re-report is
--                      counted.
-- A re-report keeps the stored text (title, description, paths, kind,
-- severity, source, observed_at, expects, task_group of the first report),
-- so of its fields only scope, finding_key and title are checked;
-- review_run is updated when given. A new finding's p_observed_at (NULL:
-- now), p_expects (NULL: change) and p_task_group (NULL: from a p_source
-- node id ending in :<number>) are as in tg_finding__prepare.
-- state is the finding's state afterwards; report_count and reopen_count its
-- counters afterwards. The row is locked FOR NO KEY UPDATE while it is
-- decided (FOR UPDATE would make the foreign key checks of concurrent
-- merges' audit rows wait, out of id order); two sessions reporting the same
-- new key at once both succeed, one 'new' and one 'duplicate'.
-- SECURITY DEFINER (fixed search_path): granted to ledger_writer, who may
-- not update findings nor write the audit directly. The scope must be one
-- the connection may use (ledger._check_scope_access: per-scope row-level
-- security).
-- The work is ledger._report_finding's (not granted), which
-- ledger.replace_findings calls once per element after checking its own
-- caller once.
-- Plans (ledger._report_finding's): the lookup of (scope, finding_key)
-- keeps one cached generic plan for the session, and that plan is always
-- an index scan of finding_scope_finding_key_key, whatever the table's size
-- or statistics
-- (as tg_finding__lifecycle's): SET enable_seqscan = off and
-- enable_bitmapscan = off (no scan of the table, nor a bitmap of the
-- scope's rows, cheapest while the table is small), and the redundant
-- row comparison (f.scope, f.finding_key) >= (v_scope, v_key), an index
-- condition only the unique index takes in full, which breaks its tie
-- with finding_scope_slug_key while the table looks empty. A plan walking
-- finding_scope_slug_key by scope made N reports into a never analysed
-- table O(N^2) (tests/sql/test_import_plan.py).
-- Raises LD002 (scope, finding_key or title missing), LD001-LD004 for a new
-- finding's fields (see tg_finding__prepare), each naming field and value;
-- LD401 for a scope outside ledger.scopes under row-level security.
-- The caller must hold ledger_writer (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
CREATE OR REPLACE FUNCTION ledger.report_finding(
    p_scope text,
    p_finding_key text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_source text DEFAULT NULL,
    p_review_run text DEFAULT NULL,
    p_observed_at timestamptz DEFAULT NULL,
    p_expects text DEFAULT NULL,
    p_task_group text DEFAULT NULL,
    p_resolved_when jsonb DEFAULT NULL,
    p_observed_at_precision text DEFAULT NULL)
RETURNS TABLE (finding_id bigint, outcome text, state text, report_count integer, reopen_count integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.report_finding');
    RETURN QUERY
        SELECT r.finding_id, r.outcome, r.state, r.report_count, r.reopen_count
          FROM ledger._report_finding(p_scope, p_finding_key, p_title, p_description, p_paths, p_kind,
                                      p_severity, p_source, p_review_run, p_observed_at, p_expects,
                                      p_task_group, p_resolved_when, p_observed_at_precision) AS r;
END
$$;

COMMENT ON FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) IS
'Report a finding by (scope, finding_key): new (inserted), duplicate (active: re-report counted), reopened (was superseded: active again, audited), still_dismissed (a person dismissed it: unchanged but counted). (scope, finding_key, title, description, paths, kind, severity, source, review_run, observed_at, expects, task_group, resolved_when jsonb, observed_at_precision; the last two as the other fields of a new finding) -> TABLE(finding_id, outcome, state, report_count, reopen_count). SECURITY DEFINER (ledger_writer). Raises LD001-LD004, LD401. The caller must hold ledger_writer, else LD403.';
