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
