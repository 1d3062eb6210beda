-- Schema objects: the tables, columns, keys, indexes, functions, triggers
-- and views that services and DBAs rely on are present with their shapes, and every function pins its search_path.
BEGIN;
SELECT plan(147);

SELECT has_schema('ledger', 'The ledger schema exists.');

-- tables and the view
SELECT has_table('ledger', 'scope', 'The scope table exists.');
SELECT has_table('ledger', 'finding', 'The finding table exists.');
SELECT has_table('ledger', 'merge', 'The merge table exists.');
SELECT has_table('ledger', 'supersession', 'The supersession (audit) table exists.');
SELECT has_table('ledger', 'alembic_version', 'The migrations keep their version table in the ledger schema.');
SELECT has_view('ledger', 'active_finding', 'The active_finding view exists.');
SELECT has_table('ledger', 'issue', 'The issue table exists.');
SELECT has_table('ledger', 'agent_task', 'The agent_task table exists.');
SELECT has_table('ledger', 'poisoned_failure_reason', 'The poisoned_failure_reason table exists.');
SELECT has_table('ledger', 'retired_session', 'The retired_session table exists.');
SELECT has_table('ledger', 'injection', 'The injection table exists.');
SELECT has_table('ledger', 'finding_path', 'The finding_path side table (paths of active findings) exists.');
SELECT has_view('ledger', 'finding_lifecycle', 'The finding_lifecycle view exists.');
SELECT tables_are('ledger',
    ARRAY['scope', 'finding', 'merge', 'supersession', 'alembic_version', 'issue', 'agent_task',
          'poisoned_failure_reason', 'retired_session', 'injection', 'finding_path', 'file_state_request',
          'recheck_request', 'scope_active_total'],
    'The ledger schema holds exactly the tables of sql/<topic>/tables/ and alembic''s version table.');
SELECT views_are('ledger', ARRAY['active_finding', 'finding_lifecycle', 'pending_file_state'],
    'The ledger schema holds exactly the views of sql/<topic>/views/.');

-- keys
SELECT col_is_pk('ledger', 'scope', 'scope', 'A scope is identified by its name.');
SELECT col_is_pk('ledger', 'finding', 'id', 'A finding is identified by its id.');
SELECT col_is_pk('ledger', 'merge', 'id', 'A merge is identified by its id.');
SELECT col_is_pk('ledger', 'supersession', 'id', 'An audit row is identified by its id.');
SELECT col_is_unique('ledger', 'merge', ARRAY['scope', 'commit_sha'],
    'A commit is recorded once per scope, so redelivery can use ON CONFLICT.');
SELECT col_is_unique('ledger', 'finding', ARRAY['scope', 'finding_key'],
    'A finding key is unique within its scope.');
SELECT fk_ok('ledger', 'finding', 'scope', 'ledger', 'scope', 'scope', 'Every finding belongs to a known scope.');
SELECT fk_ok('ledger', 'merge', 'scope', 'ledger', 'scope', 'scope', 'Every merge belongs to a known scope.');
SELECT fk_ok('ledger', 'finding', 'superseded_by_merge_id', 'ledger', 'merge', 'id',
    'A superseded finding points at the merge that retired it.');
SELECT fk_ok('ledger', 'supersession', 'finding_id', 'ledger', 'finding', 'id',
    'An audit row points at the finding it decided about.');
SELECT fk_ok('ledger', 'supersession', 'merge_id', 'ledger', 'merge', 'id',
    'An audit row points at the merge that caused it.');
SELECT col_is_pk('ledger', 'issue', 'id', 'An issue is identified by its id.');
SELECT col_is_pk('ledger', 'agent_task', 'id', 'A task is identified by its id.');
SELECT col_is_pk('ledger', 'injection', ARRAY['session_id', 'finding_id'],
    'A finding is recorded once per session it was injected into.');
SELECT col_is_pk('ledger', 'poisoned_failure_reason', 'failure_reason', 'A poisoned failure reason is listed once.');
SELECT col_is_pk('ledger', 'retired_session', 'session_id', 'A retired session is listed once.');
SELECT fk_ok('ledger', 'issue', 'scope', 'ledger', 'scope', 'scope', 'Every issue belongs to a known scope.');
SELECT fk_ok('ledger', 'agent_task', 'issue_id', 'ledger', 'issue', 'id', 'Every task runs on a known issue.');
SELECT fk_ok('ledger', 'agent_task', 'rerun_of_task_id', 'ledger', 'agent_task', 'id',
    'A manual rerun points at the task it reruns.');
SELECT fk_ok('ledger', 'injection', 'finding_id', 'ledger', 'finding', 'id',
    'An injection points at the finding that was injected.');
SELECT fk_ok('ledger', 'agent_task', 'scope', 'ledger', 'scope', 'scope', 'Every task belongs to a known scope.');
SELECT fk_ok('ledger', 'injection', 'scope', 'ledger', 'scope', 'scope', 'Every injection belongs to a known scope.');
SELECT col_not_null('ledger', 'agent_task', 'scope', 'Every task has a scope (its issue''s).');
SELECT col_not_null('ledger', 'injection', 'scope', 'Every injection has a scope (its finding''s).');

-- columns
SELECT col_type_is('ledger', 'finding', 'paths', 'text[]', 'A finding''s paths are a text array.');
SELECT col_not_null('ledger', 'finding', 'paths', 'A finding''s paths are never NULL (no paths is {}).');
SELECT col_type_is('ledger', 'finding', 'superseded_at', 'timestamp with time zone',
    'superseded_at is a timestamp with time zone.');
SELECT col_is_null('ledger', 'finding', 'superseded_at', 'superseded_at may be NULL, which means active.');
SELECT col_not_null('ledger', 'finding', 'title', 'Every finding has a title.');
SELECT col_default_is('ledger', 'finding', 'severity', 'medium', 'A finding''s severity defaults to medium.');
SELECT col_default_is('ledger', 'finding', 'kind', 'review', 'A finding''s kind defaults to review.');
SELECT col_type_is('ledger', 'merge', 'paths', 'text[]', 'A merge''s touched paths are a text array.');
SELECT col_not_null('ledger', 'merge', 'commit_sha', 'Every merge has a commit sha.');
SELECT col_default_is('ledger', 'merge', 'processed', 'false',
    'processed defaults to false, so rows that bypass the triggers are recognisable.');
SELECT col_type_is('ledger', 'supersession', 'detail', 'jsonb', 'The audit''s detail is jsonb.');
SELECT col_default_is('ledger', 'scope', 'hygiene_mode', 'on', 'A new scope supersedes by default.');
SELECT columns_are('ledger', 'active_finding',
    ARRAY['id', 'scope', 'finding_key', 'kind', 'severity', 'title', 'description', 'paths', 'source', 'created_at'],
    'The active_finding view has exactly the columns a prompt builder reads.');
-- claims
SELECT col_type_is('ledger', 'agent_task', 'issue_snapshot', 'jsonb', 'A claim''s issue snapshot is jsonb.');
SELECT col_is_null('ledger', 'agent_task', 'issue_snapshot',
    'issue_snapshot may be NULL, which means not compared (never claimed, or claimed before the column).');
SELECT col_default_is('ledger', 'agent_task', 'status', 'queued', 'A new task is queued.');
SELECT col_default_is('ledger', 'agent_task', 'dispatch_count', '0', 'A new task has never been dispatched.');
SELECT col_default_is('ledger', 'issue', 'status', 'todo', 'A new issue is todo.');
-- lifecycle
SELECT col_default_is('ledger', 'finding', 'report_count', '1', 'A finding counts its first report.');
SELECT col_default_is('ledger', 'finding', 'reopen_count', '0', 'A new finding has never been reopened.');
-- decisions on real histories: causality, change kinds, line anchors, task groups, line context
SELECT col_type_is('ledger', 'finding', 'observed_at', 'timestamp with time zone',
    'observed_at is a timestamp with time zone.');
SELECT col_not_null('ledger', 'finding', 'observed_at', 'Every finding has an observation time.');
SELECT col_default_is('ledger', 'finding', 'expects', 'change', 'A finding expects a change by default.');
SELECT col_type_is('ledger', 'finding', 'anchors', 'jsonb', 'A finding''s line anchors are jsonb.');
SELECT col_is_null('ledger', 'finding', 'task_group', 'A finding''s task group may be unknown.');
SELECT col_type_is('ledger', 'merge', 'added', 'text[]', 'A merge''s added paths are a text array.');
SELECT col_type_is('ledger', 'merge', 'deleted', 'text[]', 'A merge''s deleted paths are a text array.');
SELECT col_type_is('ledger', 'merge', 'hunks', 'jsonb', 'A merge''s hunks are jsonb.');
SELECT col_default_is('ledger', 'scope', 'line_context', '0', 'A hunk must change an anchored line by default.');
SELECT col_is_null('ledger', 'finding', 'dismissed_at', 'dismissed_at may be NULL, which means not dismissed.');
SELECT results_eq(
    $$SELECT conname::text COLLATE "default", convalidated FROM pg_constraint
       WHERE conrelid = 'ledger.finding'::regclass AND conname IN ('finding_resolution_check', 'finding_dismissal_check')
       ORDER BY 1$$,
    $$VALUES ('finding_dismissal_check', true), ('finding_resolution_check', true)$$,
    'The lifecycle CHECK constraints are valid: every row, old or new, satisfies them.');
SELECT columns_are('ledger', 'finding_lifecycle',
    ARRAY['id', 'scope', 'finding_key', 'kind', 'severity', 'title', 'state', 'resolution', 'dismissed_at',
          'dismissed_by', 'dismissal_reason', 'superseded_at', 'superseded_by', 'superseded_by_merge_id',
          'supersede_rule', 'report_count', 'last_reported_at', 'reopen_count', 'review_run', 'created_at'],
    'The finding_lifecycle view has exactly its documented columns.');
-- matching
SELECT col_type_is('ledger', 'finding', 'strong_keywords', 'text[]', 'A finding''s strong keywords are a text array.');
SELECT col_not_null('ledger', 'finding', 'strong_keywords', 'strong_keywords are never NULL (none is {}).');
SELECT col_is_null('ledger', 'finding', 'slug', 'A finding may have no slug.');
SELECT col_default_is('ledger', 'scope', 'path_supersede_kinds', '{drift}',
    'By default the path rule supersedes drift findings only.');
SELECT col_default_is('ledger', 'scope', 'touch_modes', '{}', 'A scope lists no touch mode of its own by default.');
SELECT is(ledger._default_touch_mode('drift'), 'flag',
    'The shipped touch mode of kind drift is flag: a touch of an unchecked drift finding keeps it active.');
SELECT is(ledger._default_touch_mode('review'), 'retire', 'Every other kind keeps retire as its shipped touch mode.');
SELECT col_default_is('ledger', 'scope', 'enabled_rules', '{path,key,slug,keyword,title}',
    'By default every evidence rule is enabled.');
SELECT col_default_is('ledger', 'scope', 'slug_mention_resolves', 'false',
    'By default a bare slug mention does not resolve a finding.');
SELECT col_is_null('ledger', 'merge', 'branch', 'A merge''s branch may be unknown (NULL), which is never skipped.');

-- indexes
SELECT has_pk('ledger', 'finding_path', 'The path side table that matches touched paths has a primary key.');
SELECT index_is_type('ledger', 'finding_path', 'finding_path_pkey', 'btree',
    'The path side table is probed through a btree (scope, path, finding_id).');
SELECT hasnt_index('ledger', 'finding', 'finding_active_paths_idx', 'The GIN path index is gone.');
SELECT has_index('ledger', 'finding', 'finding_scope_active_idx', 'Active findings of a scope are indexed.');
SELECT has_index('ledger', 'merge', 'merge_unprocessed_idx', 'Unprocessed merges are indexed.');
SELECT has_index('ledger', 'merge', 'merge_scope_commit_sha_bytes_idx',
    'Scope and commit sha are indexed in byte order, for the recorded shas an abbreviation stands for.');
SELECT hasnt_index('ledger', 'merge', 'merge_scope_commit_sha_c_idx', 'The C-collation index of scope and commit sha is replaced by the byte-order one.');
SELECT has_index('ledger', 'supersession', 'supersession_finding_idx', 'The audit is indexed by finding.');
SELECT has_index('ledger', 'supersession', 'supersession_merge_idx', 'The audit is indexed by merge.');
SELECT has_index('ledger', 'finding', 'finding_active_evidence_idx',
    'The GIN index that finds active findings by message evidence exists.');
SELECT index_is_type('ledger', 'finding', 'finding_active_evidence_idx', 'gin', 'The evidence index is a GIN index.');
SELECT index_is_unique('ledger', 'finding', 'finding_scope_slug_key', 'A slug is unique within its scope.');
SELECT is_empty($$SELECT indexrelid::regclass::text FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
                   WHERE c.relnamespace = 'ledger'::regnamespace AND NOT (i.indisvalid AND i.indisready)$$,
    'Every index in ledger is valid, the ones built CONCURRENTLY included.');
SELECT has_index('ledger', 'agent_task', 'agent_task_claim_idx', 'Queued tasks of a runtime are indexed for claims, oldest first.');
SELECT has_index('ledger', 'agent_task', 'agent_task_anchor_idx', 'Runs of an agent on an issue are indexed.');
SELECT has_index('ledger', 'injection', 'injection_finding_idx', 'Injections are indexed by finding.');
SELECT has_index('ledger', 'agent_task', 'agent_task_scope_idx', ARRAY['scope', 'id'],
    'A scope''s tasks are indexed, scope first.');
SELECT has_index('ledger', 'injection', 'injection_scope_idx', ARRAY['scope', 'session_id'],
    'A scope''s injections are indexed, scope first.');
SELECT hasnt_index('ledger', 'agent_task', 'agent_task_issue_snapshot_idx',
    'issue_snapshot has no index: it is a comparison key, never a lookup key.');

-- functions
SELECT has_function('ledger', 'normalize_path', ARRAY['text', 'text'], 'normalize_path(text, text) exists.');
SELECT has_function('ledger', 'normalize_paths', ARRAY['text[]', 'text', 'integer'],
    'normalize_paths(text[], text, integer) exists.');
SELECT has_function('ledger', 'add_finding', ARRAY['text', 'text', 'text', 'text[]', 'text', 'text', 'text', 'text',
    'timestamp with time zone', 'text', 'text', 'jsonb', 'text'],
    'add_finding exists with its thirteen parameters (resolved_when, observed_at_precision last).');
SELECT has_function('ledger', 'record_merge',
    ARRAY['text', 'text', 'text[]', 'text', 'text', 'timestamp with time zone', 'text', 'text[]', 'text[]', 'jsonb'],
    'record_merge exists with its ten parameters (p_branch, then p_added, p_deleted, p_hunks).');
SELECT hasnt_function('ledger', 'record_merge', ARRAY['text', 'text', 'text[]', 'text', 'text', 'timestamp with time zone'],
    'There is no six-parameter record_merge, so no call is ambiguous.');
SELECT has_function('ledger', 'active_findings', ARRAY['text'], 'active_findings(text) exists.');
SELECT has_function('ledger', 'read_audit', ARRAY['text', 'bigint', 'bigint'], 'read_audit exists.');
SELECT function_returns('ledger', 'active_findings', ARRAY['text'], 'setof ledger.active_finding',
    'active_findings returns rows of the active_finding view.');
SELECT volatility_is('ledger', 'normalize_path', ARRAY['text', 'text'], 'immutable',
    'normalize_path is immutable, so it can back indexes and constraints.');
SELECT has_function('ledger', 'issue_snapshot', ARRAY['text', 'text', 'integer'], 'issue_snapshot exists.');
SELECT has_function('ledger', 'claim_task', ARRAY['text', 'text', 'interval'], 'claim_task(runtime, agent, lease) exists.');
SELECT has_function('ledger', 'renew_task_lease', ARRAY['bigint', 'text', 'interval'], 'renew_task_lease exists.');
SELECT has_function('ledger', 'start_task', ARRAY['bigint', 'text'], 'start_task exists.');
SELECT has_function('ledger', 'complete_task', ARRAY['bigint', 'text'], 'complete_task exists.');
SELECT has_function('ledger', 'fail_task', ARRAY['bigint', 'text', 'text'], 'fail_task exists.');
SELECT has_function('ledger', 'requeue_task', ARRAY['bigint'], 'requeue_task exists.');
SELECT has_function('ledger', 'cancel_task', ARRAY['bigint', 'text'], 'cancel_task exists.');
SELECT has_function('ledger', 'report_finding', ARRAY['text', 'text', 'text', 'text', 'text[]', 'text', 'text', 'text', 'text',
    'timestamp with time zone', 'text', 'text', 'jsonb', 'text'],
    'report_finding exists with its fourteen parameters (resolved_when, observed_at_precision last).');
SELECT has_function('ledger', 'replace_findings', ARRAY['text', 'text', 'text', 'jsonb', 'text', 'text', 'text'], 'replace_findings exists.');
SELECT function_returns('ledger', 'dismiss_finding', ARRAY['bigint', 'text', 'text', 'text'], 'ledger.finding_lifecycle',
    'dismiss_finding returns the finding''s lifecycle row.');
SELECT function_returns('ledger', 'restore_finding', ARRAY['bigint', 'text', 'text'], 'ledger.finding_lifecycle',
    'restore_finding returns the finding''s lifecycle row.');
SELECT has_function('ledger', 'set_match_policy', ARRAY['text', 'text[]', 'text[]', 'boolean', 'text', 'integer', 'boolean',
                                                        'text', 'text'],
    'set_match_policy exists (create, then touch and touch_kind last).');
SELECT has_function('ledger', 'read_prompt_findings', ARRAY['text', 'text[]', 'interval', 'integer', 'text', 'integer',
                                                            'integer'],
    'read_prompt_findings exists (current_group and max_groups, then max_touches last).');
SELECT has_function('ledger', 'read_prompt_text', ARRAY['text', 'integer', 'text[]', 'integer', 'interval', 'text',
                                                        'integer'],
    'read_prompt_text exists (scope, max_chars, kinds, max_touches, then max_age, current_group, max_groups).');
SELECT function_returns('ledger', 'verify_finding', ARRAY['bigint', 'text', 'text', 'text'], 'ledger.supersession',
    'verify_finding returns the audit row it wrote.');
SELECT volatility_is('ledger', '_evidence_keys', ARRAY['text', 'text', 'text', 'text[]', 'text'], 'immutable',
    '_evidence_keys is immutable, as the evidence index requires.');

-- triggers, in the order they fire
SELECT triggers_are('ledger', 'merge', ARRAY['_010_immutable', '_050_scope_access', '_100_prepare', '_110_branch',
                                             '_120_changes', '_120_redelivery', '_200_supersede'],
    'merge has exactly the immutable, scope-access, prepare, branch, changes, redelivery and supersede triggers.');
SELECT triggers_are('ledger', 'finding', ARRAY['_050_scope_access', '_100_forbid_delete', '_100_prepare', '_100_prepare_update',
                                               '_110_evidence', '_120_check',
                                               '_200_lifecycle', '_300_paths_insert', '_300_paths_update', '_310_active_totals_insert',
                                               '_310_active_totals_update', '_320_settle_rechecks'],
    'finding has exactly the scope-access, forbid-delete, prepare (insert, update), evidence, check, lifecycle, path side table, totals and recheck-settling triggers.');
SELECT triggers_are('ledger', 'scope', ARRAY['_050_scope_access', '_100_prepare', '_110_policy'],
    'scope has exactly the scope-access, prepare and policy triggers.');
SELECT triggers_are('ledger', 'agent_task', ARRAY['_100_prepare', '_200_guard_snapshot'],
    'agent_task has exactly the prepare and snapshot-guard triggers.');
SELECT triggers_are('ledger', 'issue', ARRAY['_050_scope_access', '_100_prepare'],
    'issue has exactly the scope-access and prepare triggers.');
SELECT triggers_are('ledger', 'injection', ARRAY['_100_prepare'], 'injection has exactly the prepare trigger.');
SELECT triggers_are('ledger', 'supersession', ARRAY['_010_append_only', '_011_append_only_truncate', '_100_notify'],
    'The audit has exactly the append-only guards and the notify trigger.');
SELECT trigger_is('ledger', 'agent_task', '_200_guard_snapshot', 'ledger', 'tg_agent_task__guard_snapshot',
    'The snapshot guard runs tg_agent_task__guard_snapshot.');
SELECT trigger_is('ledger', 'finding', '_200_lifecycle', 'ledger', 'tg_finding__lifecycle',
    'The finding lifecycle trigger runs tg_finding__lifecycle.');
SELECT ok((SELECT tgtype & 1 = 0 FROM pg_trigger WHERE tgrelid = 'ledger.merge'::regclass AND tgname = '_200_supersede'),
    'The supersede trigger fires once per statement (it reads the transition table new_merges).');
SELECT trigger_is('ledger', 'merge', '_200_supersede', 'ledger', 'tg_merge__supersede',
    'The supersede trigger runs tg_merge__supersede.');
SELECT trigger_is('ledger', 'finding', '_100_prepare', 'ledger', 'tg_finding__prepare',
    'The finding prepare trigger runs tg_finding__prepare.');
SELECT trigger_is('ledger', 'finding', '_100_prepare_update', 'ledger', 'tg_finding__prepare',
    'The finding prepare trigger for updates runs tg_finding__prepare too.');
SELECT trigger_is('ledger', 'scope', '_100_prepare', 'ledger', 'tg_scope__prepare',
    'The scope prepare trigger runs tg_scope__prepare.');

-- conventions every object follows
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.pronamespace = 'ledger'::regnamespace AND l.lanname = 'plpgsql'
         AND NOT coalesce(p.proconfig && ARRAY['search_path=pg_catalog', 'search_path=pg_catalog, pg_temp'], false)$$,
    'Every PL/pgSQL function in ledger sets search_path to pg_catalog (definers: pg_catalog, pg_temp).');
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text FROM pg_proc p
       WHERE p.pronamespace = 'ledger'::regnamespace AND p.prosecdef
         AND NOT coalesce(p.proconfig @> ARRAY['search_path=pg_catalog, pg_temp'], false)$$,
    'Every SECURITY DEFINER function pins search_path = pg_catalog, pg_temp (temporary objects last).');
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text FROM pg_proc p
       WHERE p.pronamespace = 'ledger'::regnamespace AND obj_description(p.oid, 'pg_proc') IS NULL$$,
    'Every function in ledger has a COMMENT.');
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text FROM pg_proc p
       WHERE p.pronamespace = 'ledger'::regnamespace AND p.prorettype = 'trigger'::regtype
         AND p.proname !~ '^tg_[a-z_]+__[a-z_]+$'$$,
    'Every trigger function is named tg_<table>__<action>.');
SELECT is_empty(
    $$SELECT t.tgrelid::regclass::text || '.' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE c.relnamespace = 'ledger'::regnamespace AND NOT t.tgisinternal AND t.tgname !~ '^_[0-9]{3}_[a-z_]+$'$$,
    'Every trigger is named _NNN_<action>, so the firing order is visible.');
SELECT is_empty(
    $$SELECT c.relname::text FROM pg_class c
       WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind IN ('r', 'v')
         AND c.relname <> 'alembic_version' AND obj_description(c.oid, 'pg_class') IS NULL$$,
    'Every table and view in ledger has a COMMENT.');

SELECT * FROM finish();
ROLLBACK;
