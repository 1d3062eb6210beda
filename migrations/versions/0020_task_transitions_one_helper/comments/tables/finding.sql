COMMENT ON COLUMN ledger.finding.superseded_by IS
'Who retired the finding: the superseding merge''s node_id (the drift-review scenario''s marker), or its commit sha when it has none.';

COMMENT ON COLUMN ledger.finding.task_group IS
'The task group the finding was generated for (the drift-review scenario''s Option C), e.g. 07_nightshift_standalone_cli:0; set explicitly, or taken from source when source is a node id ending in :<number>. NULL: unknown. ledger.read_prompt_findings(p_current_group, p_max_groups) keeps the findings at most p_max_groups groups back (the trailing number orders groups of the same prefix).';
