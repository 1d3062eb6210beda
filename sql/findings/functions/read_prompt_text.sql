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
-- p_max_groups, p_max_touches: see there), in the same order. Per finding,
-- a block
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
-- The budget holds for the text itself: length(prompt) <= p_max_chars,
-- the label lines and the empty lines between blocks counted. Of
-- read_prompt_findings' selection (which counts titles, descriptions and
-- touch lines only, so it is never smaller), the longest prefix of blocks
-- whose text fits is printed; the findings after it are counted as omitted.
-- The figures are read_prompt_findings' units: included_chars the title,
-- description and touch-line characters of the printed findings,
-- omitted_chars the title and description characters of the omitted ones.
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
DECLARE
    v_read   record;
    v_blocks text[];
    v_chars  integer[];
    v_own    integer[];
    v_n      integer;
    v_length bigint := 0::bigint;
BEGIN
    SELECT r.findings, r.included_count, r.included_chars, r.omitted_count, r.omitted_chars INTO v_read
      FROM ledger.read_prompt_findings(p_scope, p_kinds, p_max_age, p_max_chars, p_current_group, p_max_groups,
                                       p_max_touches) AS r;
    SELECT coalesce(array_agg(b.block ORDER BY b.ord), '{}'), coalesce(array_agg(b.chars ORDER BY b.ord), '{}'),
           coalesce(array_agg(b.own ORDER BY b.ord), '{}')
      INTO v_blocks, v_chars, v_own
      FROM (SELECT e.ord, (e.f ->> 'chars')::integer AS chars,
                   length(e.f ->> 'title') + coalesce(1 + length(e.f ->> 'description'), 0) AS own,
                   concat_ws(E'\n',
                       format('[%s] %s (finding %s)', e.f ->> 'severity', e.f ->> 'title', e.f ->> 'id'),
                       CASE WHEN jsonb_array_length(e.f -> 'paths') > 0
                            THEN 'paths: ' || (SELECT string_agg(p, ', ' ORDER BY o)
                                                 FROM jsonb_array_elements_text(e.f -> 'paths')
                                                      WITH ORDINALITY AS x(p, o)) END,
                       e.f ->> 'description',
                       (SELECT string_agg(l, E'\n' ORDER BY o)
                          FROM jsonb_array_elements_text(e.f -> 'touch_lines') WITH ORDINALITY AS y(l, o))) AS block
              FROM jsonb_array_elements(v_read.findings) WITH ORDINALITY AS e(f, ord)) AS b;
    -- the longest prefix whose text fits: each block, and 2 for the empty line before every block but the first
    v_n := 0;
    WHILE v_n < cardinality(v_blocks) LOOP
        EXIT WHEN p_max_chars IS NOT NULL
              AND v_length + length(v_blocks[v_n + 1]) + CASE WHEN v_n > 0 THEN 2 ELSE 0 END > p_max_chars;
        v_length := v_length + length(v_blocks[v_n + 1]) + CASE WHEN v_n > 0 THEN 2 ELSE 0 END;
        v_n := v_n + 1;
    END LOOP;
    prompt := coalesce(array_to_string(v_blocks[1:v_n], E'\n\n'), '');
    included_count := v_n;
    included_chars := v_read.included_chars
                      - coalesce((SELECT sum(c) FROM unnest(v_chars[v_n + 1:]) AS c), 0)::integer;
    omitted_count := v_read.omitted_count + cardinality(v_blocks) - v_n;
    omitted_chars := v_read.omitted_chars
                     + coalesce((SELECT sum(c) FROM unnest(v_own[v_n + 1:]) AS c), 0)::integer;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer) IS
'The findings block a prompt carries, as text: ledger.read_prompt_findings'' selection in its order, one block per finding ("[severity] title (finding id)", "paths: ...", the description, and for a flagged finding its touch lines "possibly resolved by <sha 12> (<subject>): verify with ledger.verify_finding(<id>, ...)"), blocks separated by an empty line; length(prompt) <= max_chars (labels and empty lines counted: the longest prefix of blocks that fits, the rest counted as omitted). (scope text, max_chars integer, kinds text[], max_touches integer default 3, max_age interval, current_group text, max_groups integer: as read_prompt_findings) -> TABLE(prompt text, included_count, included_chars: title, description and touch-line characters of the printed findings, omitted_count, omitted_chars: title and description characters of the omitted). Raises LD002, LD003, LD005.';
