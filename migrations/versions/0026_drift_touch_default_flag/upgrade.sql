-- 0026_drift_touch_default_flag: drift touch default flag

\ir comments/tables/scope.sql
DROP FUNCTION ledger._default_touch_mode();
\ir functions/_default_touch_mode.sql
\ir functions/_touch_mode.sql
\ir ../0024_replace_findings_re_analysi/privileges.sql
