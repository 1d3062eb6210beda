-- ledger.read_prompt_text(p_scope text, p_max_chars integer DEFAULT NULL,
--     p_kinds text[] DEFAULT NULL, p_max_touches integer DEFAULT 3,
--     p_max_age interval DEFAULT NULL, p_current_group text DEFAULT NULL,
--     p_max_groups integer DEFAULT NULL)
--   -> TABLE(prompt text, included_count integer, included_chars integer,
--            omitted_count integer, omitted_chars integer)
--
-- The findings block an orchestrator injects into an agent's prompt, as
-- text, in one row. It prints ledger.read_prompt_findings with the same
-- arguments (p_kinds, p_max_age, p_max_chars, p_current_group,
-- p_max_groups, p_max_touches: see there): the same findings in the same
-- order under the same budget, and the same four figures, so the text and
-- the JSON never disagree. Per finding, a block
--   [<severity>] <title> (finding <id>)
--   paths: <path>, <path>, ...          (when it has paths)
--   <description>                       (when it has one)
--   <touch line>                        (a flagged finding: one per listed
--                                        touch, then one counting the rest)
-- blocks separated by one empty line; the touch lines are
-- ledger._finding_touches' ('possibly resolved by <sha, 12 digits>
-- (<subject>): verify with ledger.verify_finding(<id>, ''resolved'' |
-- ''still_true'', evidence, verifier)'), so the agent that reads the prompt
-- can give its verdict on the spot. An empty selection is the empty text.
-- The budget counts what read_prompt_findings counts: the title, the
-- description and the touch lines (1 + length each); the label around them
-- (severity, finding id, the paths line, line breaks between blocks) is not
-- counted, so length(prompt) is included_chars plus that label.
-- Raises what read_prompt_findings raises: LD005 (unknown scope), LD003
-- (p_max_chars, p_max_age or p_max_groups negative, p_max_touches outside
-- 0-1000, a p_current_group without a trailing group number), LD002
-- (p_max_touches NULL, p_max_groups without p_current_group).
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
