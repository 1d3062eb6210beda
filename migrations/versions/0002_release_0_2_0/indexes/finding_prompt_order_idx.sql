CREATE INDEX finding_prompt_order_idx ON ledger.finding
    (scope,
     (CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2
                    WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5 END),
     coalesce(last_reported_at, created_at) DESC, id DESC)
    WHERE superseded_at IS NULL;
