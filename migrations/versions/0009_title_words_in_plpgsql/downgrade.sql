-- 0009_title_words_in_plpgsql undone: restores the frozen files it replaced

\ir ../0001_baseline/functions/_words.sql
\ir ../0002_harden_hostile_input/functions/_title_sig.sql
