CREATE OR REPLACE FUNCTION ledger._message_may_match(p_scope text, p_message text)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
-- one generic plan for the session (custom plans, re-made on every call,
-- cost 0.5 ms of planning and probe the same index)
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_msg  text := coalesce(p_message, '');
    v_keys text[];
BEGIN
    IF v_msg IS NOT NFC NORMALIZED THEN
        v_msg := pg_catalog.normalize(v_msg, 'NFC');
    END IF;
    IF strpos(v_msg, '`') > 0 OR strpos(v_msg, '<!--') > 0 OR strpos(v_msg, E'\r') > 0 THEN
        RETURN v_msg ~ ledger._token_regex(false);
    END IF;
    -- the keys in a variable: a parameter of the query, computed once (a
    -- call in the query would run for every row of a sequential scan);
    -- count(*), not EXISTS: under EXISTS the planner costs for the first row
    -- and a sequential scan with the && filter looks cheaper than the index
    v_keys := ledger._message_probe_keys(p_scope, v_msg);
    IF cardinality(v_keys) = 0 THEN
        RETURN false;
    END IF;
    RETURN (SELECT count(*) FROM ledger.finding f
             WHERE ledger._evidence_keys(f.scope, f.finding_key, f.slug, f.strong_keywords, f.title)
                       OPERATOR(pg_catalog.&&) v_keys
               AND f.superseded_at IS NULL) > 0;
END
$$;

COMMENT ON FUNCTION ledger._message_may_match(text, text) IS
'Message pre-filter: false only when ledger._match_message(scope, message) finds nothing for certain (no token at all, or no active finding of the scope carries any of the message''s ledger._message_probe_keys); true for messages with backticks, <!-- or carriage returns, and whenever a finding could match. (scope text, message text) -> boolean. One GIN probe of finding_active_evidence_idx. Raises nothing.';
