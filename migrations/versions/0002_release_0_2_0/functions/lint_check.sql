CREATE OR REPLACE FUNCTION ledger.lint_check(p_check jsonb, p_states jsonb, p_field text DEFAULT 'resolved_when')
RETURNS TABLE (level text, part text, problem text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_check  jsonb := ledger.validate_check(p_check, p_field);
    v_states jsonb := coalesce(p_states, '{}'::jsonb);
    v_holds  boolean;
    v_part   text;
    r        record;
    s        record;
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.lint_check');
    FOR r IN SELECT l.part, t.pos, t.construct, t.are_form
               FROM ledger._check_leaves(p_check) AS l, ledger._pattern_traps(l.pattern) AS t
              WHERE t.exact ORDER BY l.ord, t.pos LOOP
        level := 'warning'; part := r.part;
        problem := format('%s at character %s is stored as %s', r.construct, r.pos,
                          CASE WHEN r.are_form = '' THEN 'nothing (removed)' ELSE r.are_form END);
        RETURN NEXT;
    END LOOP;
    SELECT c.holds, c.part INTO v_holds, v_part FROM ledger._eval_check(v_check, v_states) AS c;
    IF v_holds THEN
        level := 'error'; part := '';
        problem := format('holds already on this tree (%s): it would retire the finding at the first merge that '
                          'touches a path it names; write what is false now', v_part);
        RETURN NEXT;
        RETURN;
    END IF;
    FOR r IN SELECT l.part, l.path, l.pattern FROM ledger._check_leaves(v_check) AS l
              WHERE l.key = 'file_contains' ORDER BY l.ord LOOP
        FOR s IN SELECT st.name, st.kind, st.stub FROM ledger._lint_stubs(r.pattern) AS st LOOP
            SELECT c.holds INTO v_holds
              FROM ledger._eval_check(v_check, v_states || jsonb_build_object(
                       r.path, CASE WHEN v_states ->> r.path IS NULL THEN s.stub
                                    ELSE (v_states ->> r.path) || E'\n' || s.stub END)) AS c;
            IF v_holds THEN
                level := 'warning'; part := r.part;
                problem := format('a stub satisfies it: with %s (%s) appended to %s the check holds; add a '
                                  'file_lacks of the stub, or match the behaviour instead',
                                  to_json(rtrim(s.stub, E'\n')), s.kind, r.path);
                RETURN NEXT;
                EXIT;
            END IF;
        END LOOP;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger.lint_check(jsonb, jsonb, text) IS
'What is wrong with a check (resolved_when) on the tree it was written for: (check jsonb, states jsonb {"<path>": text | null} of every path it names, field text) -> rows (level error | warning, part text e.g. all[0].file_contains, problem text): warnings for constructs of another regex dialect the ledger rewrites, an error when the check holds already (ledger._eval_check), warnings for file_contains parts a stub of a name the pattern mentions would satisfy (ledger._lint_stubs appended to the file). Raises what ledger.validate_check raises. Writes nothing; SECURITY DEFINER, reads no table. The caller must hold ledger_writer, else LD403.';
