-- 0030_path_keys_built_once_per_me: path keys built once per merge

\ir functions/_match_changes.sql
\ir functions/tg_merge__supersede.sql
