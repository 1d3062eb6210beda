-- 0018_prefilter_splits_tokens: prefilter splits tokens

\ir functions/_token_split_regex.sql
\ir functions/_message_probe_keys.sql
\ir functions/_message_may_match.sql
\ir privileges.sql
