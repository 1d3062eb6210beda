CREATE OR REPLACE FUNCTION ledger.read_prompt_findings(
    p_scope text, p_kinds text[] DEFAULT NULL, p_max_age interval DEFAULT NULL, p_max_chars integer DEFAULT NULL,
    p_current_group text DEFAULT NULL, p_max_groups integer DEFAULT NULL)
RETURNS TABLE (findings jsonb, included_count integer, included_chars integer,
               omitted_count integer, omitted_chars integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
-- the cursor reads a few rows of a scan costed for the whole scope: past
-- jit_above_cost, JIT would compile it on every call, for more time than
-- the read itself takes
SET jit = off
AS $$
DECLARE
    v_kinds          text[];
    v_number         numeric;
    v_prefix         text;
    v_id             bigint;
    v_chars          integer;
    v_ids            bigint[] := '{}'::bigint[];
    v_included_chars bigint := 0::bigint;
    v_all_count      bigint;
    v_all_chars      bigint;
    v_order          refcursor;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_nullable(p_scope) USING ERRCODE = 'LD005';
    END IF;
    IF p_max_chars < 0 THEN
        RAISE EXCEPTION 'invalid max_chars: % (expected 0 or more, or NULL for no budget)', p_max_chars
            USING ERRCODE = 'LD003';
    END IF;
    IF p_max_age < interval '0' THEN
        RAISE EXCEPTION 'invalid max_age: % (expected a positive interval, or NULL)', p_max_age
            USING ERRCODE = 'LD003';
    END IF;
    IF p_max_groups < 0 THEN
        RAISE EXCEPTION 'invalid max_groups: % (expected 0 or more, or NULL for every group)', p_max_groups
            USING ERRCODE = 'LD003';
    END IF;
    IF p_max_groups IS NOT NULL THEN
        IF p_current_group IS NULL THEN
            RAISE EXCEPTION 'current_group is required with max_groups (the task group the prompt is for, e.g. 07_x:6)'
                USING ERRCODE = 'LD002';
        END IF;
        v_number := substring(p_current_group FROM '[0-9]+$')::numeric;
        IF v_number IS NULL THEN
            RAISE EXCEPTION 'invalid current_group: % does not end in a group number (e.g. 07_x:6)',
                quote_literal(p_current_group) USING ERRCODE = 'LD003';
        END IF;
        v_prefix := left(p_current_group, length(p_current_group) - length(substring(p_current_group FROM '[0-9]+$')));
    END IF;
    IF p_kinds IS NOT NULL THEN
        v_kinds := ARRAY(SELECT lower(btrim(k) COLLATE "C") FROM unnest(p_kinds) AS k WHERE k IS NOT NULL);
    END IF;

    -- the budget's prefix: the candidates in order until the running total
    -- exceeds p_max_chars (a cursor is planned for its first rows:
    -- finding_prompt_order_idx gives them without sorting the scope; the
    -- ranks of ledger._severity_rank, written out as the index has them)
    OPEN v_order FOR
        SELECT f.id, length(f.title) + coalesce(1 + length(f.description), 0)
          FROM ledger.finding f
         WHERE f.scope = p_scope AND f.superseded_at IS NULL
           AND (v_kinds IS NULL OR f.kind = ANY (v_kinds))
           AND (p_max_age IS NULL OR coalesce(f.last_reported_at, f.created_at) >= now() - p_max_age)
           AND (v_number IS NULL OR f.task_group IS NULL OR f.task_group !~ '[0-9]$'
                OR left(f.task_group, length(f.task_group) - length(substring(f.task_group FROM '[0-9]+$')))
                   IS DISTINCT FROM v_prefix
                OR substring(f.task_group FROM '[0-9]+$')::numeric BETWEEN v_number - p_max_groups AND v_number)
         ORDER BY CASE f.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2
                                  WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5 END,
                  coalesce(f.last_reported_at, f.created_at) DESC, f.id DESC;
    LOOP
        FETCH v_order INTO v_id, v_chars;
        EXIT WHEN NOT FOUND OR v_included_chars + v_chars > p_max_chars;
        v_ids := v_ids || v_id;
        v_included_chars := v_included_chars + v_chars::bigint;
    END LOOP;
    CLOSE v_order;

    -- every candidate: without a filter the scope's totals
    -- (ledger.scope_active_total), else a count over the scope (the same
    -- filter as above)
    IF v_kinds IS NULL AND p_max_age IS NULL AND v_number IS NULL THEN
        SELECT coalesce(sum(t.findings), 0)::bigint, coalesce(sum(t.chars), 0)::bigint INTO v_all_count, v_all_chars
          FROM ledger.scope_active_total t
         WHERE t.scope = p_scope;
    ELSE
        SELECT count(*), coalesce(sum(length(f.title) + coalesce(1 + length(f.description), 0)), 0)
          INTO v_all_count, v_all_chars
          FROM ledger.finding f
         WHERE f.scope = p_scope AND f.superseded_at IS NULL
           AND (v_kinds IS NULL OR f.kind = ANY (v_kinds))
           AND (p_max_age IS NULL OR coalesce(f.last_reported_at, f.created_at) >= now() - p_max_age)
           AND (v_number IS NULL OR f.task_group IS NULL OR f.task_group !~ '[0-9]$'
                OR left(f.task_group, length(f.task_group) - length(substring(f.task_group FROM '[0-9]+$')))
                   IS DISTINCT FROM v_prefix
                OR substring(f.task_group FROM '[0-9]+$')::numeric BETWEEN v_number - p_max_groups AND v_number);
    END IF;

    RETURN QUERY
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'id', f.id, 'scope', f.scope, 'finding_key', f.finding_key, 'kind', f.kind,
               'severity', f.severity, 'title', f.title, 'description', f.description,
               'paths', to_jsonb(f.paths), 'source', f.source,
               'created_at', to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'),
               'observed_at', to_char(f.observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'),
               'task_group', f.task_group,
               'chars', length(f.title) + coalesce(1 + length(f.description), 0))
               || coalesce((SELECT jsonb_build_object('touched_by', jsonb_agg(jsonb_build_object(
                                       'sha', m.commit_sha, 'subject', split_part(m.message, E'\n', 1))
                                       ORDER BY m.id))
                              FROM ledger.supersession a JOIN ledger.merge m ON m.id = a.merge_id
                             WHERE a.finding_id = f.id AND a.action = 'flagged'
                            HAVING count(*) > 0), '{}'::jsonb)
               ORDER BY x.ord), '[]'::jsonb),
           cardinality(v_ids),
           v_included_chars::integer,
           (v_all_count - cardinality(v_ids))::integer,
           (v_all_chars - v_included_chars)::integer
      FROM unnest(v_ids) WITH ORDINALITY AS x(id, ord)
      JOIN ledger.finding f ON f.id = x.id;
END
$$;

COMMENT ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer) IS
'The active findings of a scope for a prompt: optional kinds, maximum age (since last reported) and maximum number of task groups back from the current group (Option C, on top of supersession), most severe then most recent first, cut to a character budget (title + 1 + description per finding, prefix cut); a finding a merge flagged (touch mode flag) carries touched_by [{sha, subject: the message''s first line}] in merge order. (scope, kinds text[], max_age interval, max_chars integer, current_group text, max_groups integer) -> TABLE(findings jsonb, included_count, included_chars, omitted_count, omitted_chars). Raises LD002, LD003, LD005.';
