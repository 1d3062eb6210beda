-- 0014_prefilter_on_distinct_words: prefilter on distinct words

\ir functions/_path_keys.sql
\ir functions/_message_may_match.sql
