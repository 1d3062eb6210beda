-- Schema objects: the tables, columns, keys, indexes, functions, triggers
-- and the view that services and DBAs rely on are present with their shapes,
-- and every function pins its search_path.
BEGIN;
SELECT plan(52);

SELECT has_schema('ledger', 'The ledger schema exists.');

-- tables and the view
SELECT has_table('ledger', 'scope', 'The scope table exists.');
SELECT has_table('ledger', 'finding', 'The finding table exists.');
SELECT has_table('ledger', 'merge', 'The merge table exists.');
SELECT has_table('ledger', 'supersession', 'The supersession (audit) table exists.');
SELECT has_table('ledger', 'alembic_version', 'The migrations keep their version table in the ledger schema.');
SELECT has_view('ledger', 'active_finding', 'The active_finding view exists.');

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

-- indexes
SELECT has_index('ledger', 'finding', 'finding_active_paths_idx',
    'The GIN index that matches touched paths exists.');
SELECT index_is_type('ledger', 'finding', 'finding_active_paths_idx', 'gin', 'The path index is a GIN index.');
SELECT has_index('ledger', 'finding', 'finding_scope_active_idx', 'Active findings of a scope are indexed.');
SELECT has_index('ledger', 'merge', 'merge_unprocessed_idx', 'Unprocessed merges are indexed.');
SELECT has_index('ledger', 'supersession', 'supersession_finding_idx', 'The audit is indexed by finding.');
SELECT has_index('ledger', 'supersession', 'supersession_merge_idx', 'The audit is indexed by merge.');

-- functions
SELECT has_function('ledger', 'normalize_path', ARRAY['text', 'text'], 'normalize_path(text, text) exists.');
SELECT has_function('ledger', 'normalize_paths', ARRAY['text[]', 'text', 'integer'],
    'normalize_paths(text[], text, integer) exists.');
SELECT has_function('ledger', 'add_finding', ARRAY['text', 'text', 'text', 'text[]', 'text', 'text', 'text', 'text'],
    'add_finding exists with its eight parameters.');
SELECT has_function('ledger', 'record_merge', ARRAY['text', 'text', 'text[]', 'text', 'text', 'timestamp with time zone'],
    'record_merge exists with its six parameters.');
SELECT has_function('ledger', 'active_findings', ARRAY['text'], 'active_findings(text) exists.');
SELECT has_function('ledger', 'read_audit', ARRAY['text', 'bigint', 'bigint'], 'read_audit exists.');
SELECT function_returns('ledger', 'active_findings', ARRAY['text'], 'setof ledger.active_finding',
    'active_findings returns rows of the active_finding view.');
SELECT volatility_is('ledger', 'normalize_path', ARRAY['text', 'text'], 'immutable',
    'normalize_path is immutable, so it can back indexes and constraints.');

-- triggers, in the order they fire
SELECT triggers_are('ledger', 'merge', ARRAY['_100_prepare', '_200_supersede'],
    'merge has exactly the prepare and supersede triggers.');
SELECT trigger_is('ledger', 'merge', '_200_supersede', 'ledger', 'tg_merge__supersede',
    'The supersede trigger runs tg_merge__supersede.');
SELECT trigger_is('ledger', 'finding', '_100_prepare', 'ledger', 'tg_finding__prepare',
    'The finding prepare trigger runs tg_finding__prepare.');
SELECT trigger_is('ledger', 'scope', '_100_prepare', 'ledger', 'tg_scope__prepare',
    'The scope prepare trigger runs tg_scope__prepare.');

-- conventions every object follows
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.pronamespace = 'ledger'::regnamespace AND l.lanname = 'plpgsql'
         AND NOT coalesce(p.proconfig @> ARRAY['search_path=pg_catalog'], false)$$,
    'Every PL/pgSQL function in ledger sets search_path = pg_catalog.');
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text FROM pg_proc p
       WHERE p.pronamespace = 'ledger'::regnamespace AND obj_description(p.oid, 'pg_proc') IS NULL$$,
    'Every function in ledger has a COMMENT.');
SELECT is_empty(
    $$SELECT c.relname::text FROM pg_class c
       WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind IN ('r', 'v')
         AND c.relname <> 'alembic_version' AND obj_description(c.oid, 'pg_class') IS NULL$$,
    'Every table and view in ledger has a COMMENT.');

SELECT * FROM finish();
ROLLBACK;
