-- 0006_merge_cost_anchor_moves_ski: merge cost: anchor moves skip the finding trigger, leaner probe keys, deleted directories on the fast path

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0005_merge_cost_the_anchor_lane']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0006_merge_cost_anchor_moves_ski expects the database at 0005_merge_cost_the_anchor_lane, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

\ir functions/_anchors_kept.sql
\ir functions/tg_finding__prepare.sql
\ir triggers/finding___100_prepare.sql
\ir triggers/finding___100_prepare_update.sql
\ir functions/_path_keys.sql
\ir functions/_match_changes.sql
\ir functions/_token_keys.sql
\ir functions/_check_merge_changes.sql
\ir functions/tg_merge__prepare_changes.sql
\ir functions/_apply_merge.sql
COMMENT ON FUNCTION ledger._message_probe_keys(text, text) IS
'The pre-filter''s probe keys of a message: ledger._token_keys of the whole NFC message''s tokens (ledger._tokenise): scope || U+001F || (''i'' token of 3+ characters, its file-name and dated slugs, the same of tokens joined across a line end; ''t'' three and ''='' two consecutive significant words), repeated when the words are; a superset of ledger._match_message''s keys. (scope text, message text) -> text[], ''{}'' without a token. Raises nothing.';
REVOKE EXECUTE ON FUNCTION ledger._anchors_kept(jsonb, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger._anchors_kept(jsonb, text[]) TO ledger_admin, ledger_writer;
