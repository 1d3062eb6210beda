-- 0042_touches_count_after_a_resto: touches count after a restore or reopen

\ir functions/_finding_touches.sql
\ir functions/verify_finding.sql
