CREATE OR REPLACE FUNCTION ledger.read_prompt_text(
    p_scope text, p_max_chars integer DEFAULT NULL, p_kinds text[] DEFAULT NULL, p_max_touches integer DEFAULT 3,
    p_max_age interval DEFAULT NULL, p_current_group text DEFAULT NULL, p_max_groups integer DEFAULT NULL)
RETURNS TABLE (prompt text, included_count integer, included_chars integer,
               omitted_count integer, omitted_chars integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
BEGIN
    RETURN QUERY
    SELECT coalesce((SELECT string_agg(
                         concat_ws(E'\n',
                             format('[%s] %s (finding %s)', e.f ->> 'severity', e.f ->> 'title', e.f ->> 'id'),
                             CASE WHEN jsonb_array_length(e.f -> 'paths') > 0
                                  THEN 'paths: ' || (SELECT string_agg(p, ', ' ORDER BY o)
                                                       FROM jsonb_array_elements_text(e.f -> 'paths')
                                                            WITH ORDINALITY AS x(p, o)) END,
                             e.f ->> 'description',
                             (SELECT string_agg(l, E'\n' ORDER BY o)
                                FROM jsonb_array_elements_text(e.f -> 'touch_lines') WITH ORDINALITY AS y(l, o))),
                         E'\n\n' ORDER BY e.ord)
                       FROM jsonb_array_elements(r.findings) WITH ORDINALITY AS e(f, ord)), ''),
           r.included_count, r.included_chars, r.omitted_count, r.omitted_chars
      FROM ledger.read_prompt_findings(p_scope, p_kinds, p_max_age, p_max_chars, p_current_group, p_max_groups,
                                       p_max_touches) AS r;
END
$$;

COMMENT ON FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer) IS
'The findings block a prompt carries, as text: ledger.read_prompt_findings'' selection (same findings, order, budget and figures), one block per finding ("[severity] title (finding id)", "paths: ...", the description, and for a flagged finding its touch lines "possibly resolved by <sha 12> (<subject>): verify with ledger.verify_finding(<id>, ...)"), blocks separated by an empty line; the budget counts title, description and touch lines, not the label. (scope text, max_chars integer, kinds text[], max_touches integer default 3, max_age interval, current_group text, max_groups integer: as read_prompt_findings) -> TABLE(prompt text, included_count, included_chars, omitted_count, omitted_chars). Raises LD002, LD003, LD005.';
