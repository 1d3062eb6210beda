-- 0005_plpgsql_typed_array_literal: plpgsql typed array literals

\ir functions/normalize_paths.sql
\ir functions/claim_task.sql
\ir functions/replace_findings.sql
\ir functions/_message_segments.sql
\ir functions/_message_tokens.sql
\ir functions/tg_finding__prepare_evidence.sql
\ir functions/tg_merge__check_redelivery.sql
\ir functions/_apply_merge.sql
\ir functions/_apply_revert.sql
