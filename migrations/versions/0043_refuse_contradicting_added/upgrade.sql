-- 0043_refuse_contradicting_added: refuse contradicting added and deleted

\ir functions/tg_merge__prepare_changes.sql
