CREATE OR REPLACE FUNCTION ledger.read_prompt_findings(
    p_scope text, p_kinds text[] DEFAULT NULL, p_max_age interval DEFAULT NULL, p_max_chars integer DEFAULT NULL,
    p_current_group text DEFAULT NULL, p_max_groups integer DEFAULT NULL, p_max_touches integer DEFAULT 3)
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
    v_costs          integer[] := '{}'::integer[];
    v_counts         integer[] := '{}'::integer[];
    v_touches        jsonb[] := '{}'::jsonb[];
    v_lines          jsonb[] := '{}'::jsonb[];
    v_count          integer;
    v_touch          jsonb;
    v_line           text[];
    v_included_chars bigint := 0::bigint;
    v_included_base  bigint := 0::bigint;
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
    IF p_max_touches IS NULL THEN
        RAISE EXCEPTION 'max_touches is required (0 to 1000: how many of a flagged finding''s latest touches to list)'
            USING ERRCODE = 'LD002';
    END IF;
    IF p_max_touches NOT BETWEEN 0 AND 1000 THEN
        RAISE EXCEPTION 'invalid max_touches: % (expected 0 to 1000)', p_max_touches USING ERRCODE = 'LD003';
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
        EXIT WHEN NOT FOUND;
        SELECT t.touched_count, t.touches, t.touch_lines INTO v_count, v_touch, v_line
          FROM ledger._finding_touches(v_id, p_max_touches) AS t;
        EXIT WHEN v_included_chars + v_chars
                  + coalesce((SELECT sum(1 + length(l)) FROM unnest(v_line) AS l), 0) > p_max_chars;
        v_ids := v_ids || v_id;
        v_included_base := v_included_base + v_chars::bigint;
        v_chars := v_chars + coalesce((SELECT sum(1 + length(l)) FROM unnest(v_line) AS l), 0)::integer;
        v_included_chars := v_included_chars + v_chars::bigint;
        v_costs := v_costs || v_chars;
        v_counts := v_counts || v_count;
        v_touches := v_touches || v_touch;
        v_lines := v_lines || to_jsonb(v_line);
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
               'chars', x.cost)
               || CASE WHEN x.touched > 0
                       THEN jsonb_build_object('touched_count', x.touched, 'touched_by', coalesce(x.touches, '[]'),
                                               'touch_lines', x.lines)
                       ELSE '{}'::jsonb END
               ORDER BY x.ord), '[]'::jsonb),
           cardinality(v_ids),
           v_included_chars::integer,
           (v_all_count - cardinality(v_ids))::integer,
           (v_all_chars - v_included_base)::integer
      FROM unnest(v_ids, v_costs, v_counts, v_touches, v_lines) WITH ORDINALITY AS x(id, cost, touched, touches, lines, ord)
      JOIN ledger.finding f ON f.id = x.id;
END
$$;

COMMENT ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer) IS
'The active findings of a scope for a prompt: optional kinds, maximum age (since last reported) and maximum number of task groups back from the current group (Option C, on top of supersession), most severe then most recent first, cut to a character budget (title + 1 + description per finding, plus 1 + length of each touch line; prefix cut); a flagged finding (touch mode flag) carries touched_count (touches after its last still_true verdict), touched_by (the latest max_touches: [{merge_id, sha, subject}] oldest first) and touch_lines (the "possibly resolved by <sha> (<subject>): verify with ledger.verify_finding(<id>, ...)" lines counted in chars). (scope, kinds text[], max_age interval, max_chars integer, current_group text, max_groups integer, max_touches integer default 3) -> TABLE(findings jsonb, included_count, included_chars, omitted_count, omitted_chars: title and description characters of the findings cut). Raises LD002, LD003, LD005.';
