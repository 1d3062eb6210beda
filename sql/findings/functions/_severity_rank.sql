-- ledger._severity_rank(p_severity text) -> integer
--
-- Sort rank of a severity: critical 0, high 1, medium 2, low 3, info 4,
-- anything else 5. Used to order findings for a prompt (most severe first).
CREATE OR REPLACE FUNCTION ledger._severity_rank(p_severity text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE p_severity
        WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2
        WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5 END
$$;

COMMENT ON FUNCTION ledger._severity_rank(text) IS
'Sort rank of a severity, most severe first: critical 0 .. info 4, other 5. text -> integer.';
