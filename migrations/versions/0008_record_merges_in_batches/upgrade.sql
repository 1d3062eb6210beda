-- 0008_record_merges_in_batches: record merges in batches

\ir functions/record_merges.sql
\ir functions/set_hygiene_mode.sql
\ir functions/_check_json_shape.sql
\ir functions/set_match_policy.sql
\ir privileges.sql
