-- finding_prompt_order_idx: the active findings of a scope in the prompt
-- order (most severe first, then most recently reported, then highest id),
-- so ledger.read_prompt_findings reads the top of the order and stops where
-- the budget is spent, without sorting the scope. The rank is written out
-- (the ranks of ledger._severity_rank): a function in an index expression
-- would need EXECUTE for every role that writes findings.
CREATE INDEX finding_prompt_order_idx ON ledger.finding
    (scope,
     (CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2
                    WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5 END),
     coalesce(last_reported_at, created_at) DESC, id DESC)
    WHERE superseded_at IS NULL;
