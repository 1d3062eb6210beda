-- ledger.read_prompt_findings(p_scope text, p_kinds text[] DEFAULT NULL,
--     p_max_age interval DEFAULT NULL, p_max_chars integer DEFAULT NULL)
--   -> TABLE(findings jsonb, included_count integer, included_chars integer,
--            omitted_count integer, omitted_chars integer)
--
-- What a prompt builder injects for a scope, in one row:
--   candidates  the active findings of p_scope, of one of p_kinds when
--               given (case-insensitive), and, when p_max_age is given,
--               reported within it: coalesce(last_reported_at, created_at)
--               >= now() - p_max_age (seed 000's "Option C", time-based
--               decay; a re-report refreshes a finding);
--   order       most severe first (critical, high, medium, low, info), then
--               most recently reported, then highest id;
--   budget      each finding costs length(title) + 1 + length(description)
--               characters (length(title) without a description: the text
--               ActiveFinding.prompt_text() builds); findings are taken in
--               order while the running total fits p_max_chars and the cut
--               is a prefix, so a less severe finding never displaces a
--               more severe one; NULL means no budget.
-- findings: JSON array of {id, scope, finding_key, kind, severity, title,
-- description, paths, source, created_at (ISO 8601, UTC, microseconds),
-- chars} in order; included_*: how many and how many characters;
-- omitted_*: the candidates cut by the budget (the kind and age filters do
-- not count as omitted).
-- Raises LD005 (unknown scope), LD003 (p_max_chars or p_max_age negative).
CREATE OR REPLACE FUNCTION ledger.read_prompt_findings(
    p_scope text, p_kinds text[] DEFAULT NULL, p_max_age interval DEFAULT NULL, p_max_chars integer DEFAULT NULL)
RETURNS TABLE (findings jsonb, included_count integer, included_chars integer,
               omitted_count integer, omitted_chars integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
DECLARE
    v_kinds text[];
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
    IF p_kinds IS NOT NULL THEN
        v_kinds := ARRAY(SELECT lower(btrim(k) COLLATE "C") FROM unnest(p_kinds) AS k WHERE k IS NOT NULL);
    END IF;

    RETURN QUERY
    WITH candidates AS (
        SELECT f.id, f.scope, f.finding_key, f.kind, f.severity, f.title, f.description, f.paths, f.source,
               f.created_at,
               length(f.title) + coalesce(1 + length(f.description), 0) AS chars,
               coalesce(f.last_reported_at, f.created_at) AS seen_at
          FROM ledger.finding f
         WHERE f.scope = p_scope AND f.superseded_at IS NULL
           AND (v_kinds IS NULL OR f.kind = ANY (v_kinds))
           AND (p_max_age IS NULL OR coalesce(f.last_reported_at, f.created_at) >= now() - p_max_age)
    ), ordered AS (
        SELECT c.*,
               row_number() OVER w AS ord,
               sum(c.chars) OVER (w ROWS UNBOUNDED PRECEDING) AS running
          FROM candidates c
        WINDOW w AS (ORDER BY ledger._severity_rank(c.severity), c.seen_at DESC, c.id DESC)
    ), cut AS (
        SELECT o.*, (p_max_chars IS NULL OR o.running <= p_max_chars) AS included FROM ordered o
    )
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'id', x.id, 'scope', x.scope, 'finding_key', x.finding_key, 'kind', x.kind,
               'severity', x.severity, 'title', x.title, 'description', x.description,
               'paths', to_jsonb(x.paths), 'source', x.source,
               'created_at', to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'),
               'chars', x.chars) ORDER BY x.ord) FILTER (WHERE x.included), '[]'::jsonb),
           (count(*) FILTER (WHERE x.included))::integer,
           coalesce(sum(x.chars) FILTER (WHERE x.included), 0)::integer,
           (count(*) FILTER (WHERE NOT x.included))::integer,
           coalesce(sum(x.chars) FILTER (WHERE NOT x.included), 0)::integer
      FROM cut x;
END
$$;

COMMENT ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer) IS
'The active findings of a scope for a prompt: optional kinds and maximum age (since last reported), most severe then most recent first, cut to a character budget (title + 1 + description per finding, prefix cut). (scope, kinds text[], max_age interval, max_chars integer) -> TABLE(findings jsonb, included_count, included_chars, omitted_count, omitted_chars). Raises LD003, LD005.';
