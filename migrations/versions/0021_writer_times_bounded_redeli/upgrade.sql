-- 0021_writer_times_bounded_redeli: writer times bounded, redelivery compares change kinds and serialises abbreviations, hunks bounded, anchors keys once

\ir functions/_check_timestamp.sql
\ir functions/_check_time_bounds.sql
\ir functions/tg_finding__prepare.sql
\ir functions/tg_merge__prepare.sql
\ir functions/tg_issue__prepare.sql
\ir functions/tg_agent_task__prepare.sql
\ir functions/tg_merge__check_redelivery.sql
\ir functions/tg_merge__prepare_changes.sql
\ir privileges.sql
