-- 0017_record_merges_row_index: record_merges row index

\ir functions/_insert_merges.sql
\ir functions/record_merges.sql
\ir privileges.sql
