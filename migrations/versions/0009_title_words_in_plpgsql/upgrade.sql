-- 0009_title_words_in_plpgsql: Title words in plpgsql

\ir functions/_words.sql
\ir functions/_title_sig.sql
