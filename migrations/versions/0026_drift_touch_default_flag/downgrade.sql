-- 0026_drift_touch_default_flag undone: restores the frozen files it replaced

DROP FUNCTION ledger._default_touch_mode(p_kind text);
\ir ../0023_finding_checks_file_state_r/functions/_default_touch_mode.sql
\ir ../0023_finding_checks_file_state_r/functions/_touch_mode.sql
COMMENT ON COLUMN ledger.scope.touch_modes IS
'What a touch that the path rule would take as resolving does to a finding without a check, per kind: {"<kind>": "retire" | "recheck" | "flag", "*": ...}. retire: the path rule supersedes it; recheck: a recheck request (ledger.recheck_request) is opened instead and a verifier decides; flag: the finding stays and the audit records flagged (read_prompt_findings lists the merges as touched_by). A kind not listed takes "*", else ledger._default_touch_mode() (retire). Set with ledger.set_match_policy(p_touch, p_touch_kind).';
\ir ../0024_replace_findings_re_analysi/privileges.sql
