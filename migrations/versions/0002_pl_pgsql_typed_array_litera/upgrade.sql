-- 0002_pl_pgsql_typed_array_litera: PL/pgSQL typed array literals and no unused variable (plpgsql_check)

\ir functions/normalize_paths.sql
\ir functions/_snapshot_changes.sql
\ir functions/replace_findings.sql
\ir functions/_message_tokens.sql
\ir functions/tg_finding__prepare_evidence.sql
\ir functions/_apply_merge.sql
\ir functions/_apply_revert.sql
