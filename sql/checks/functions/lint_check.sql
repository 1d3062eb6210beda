-- ledger.lint_check(p_check jsonb, p_states jsonb, p_field text DEFAULT 'resolved_when')
--   -> TABLE (level text, part text, problem text)
--
-- What is wrong with a reviewer's check (resolved_when) on the tree it was
-- written for, before it is imported (`findings-ledger checks lint`).
-- p_states: the state of every path the check names on that tree, as
-- ledger._eval_check takes them ({"<path>": text | null}; the writer reads
-- them from git as it answers file-state requests). One row per problem,
-- in this order, part a JSON path into the check as ledger._eval_check
-- names parts (all[1].file_contains; '' for the whole check):
--   warning  a construct of another regular-expression dialect that the
--            ledger rewrites on write (ledger._pattern_traps, exact rows):
--            '<construct> at character N is stored as <ARE form>';
--   error    the check holds already on this tree: it would retire the
--            finding at the first merge that touches a path it names;
--   warning  a stub would satisfy it: for each file_contains part, the
--            names its pattern mentions (identifiers of 3 or more
--            characters outside escapes and POSIX classes, at most 5,
--            keywords such as def, class, TODO left out), each appended
--            to the file's text (or alone, the file absent) as each stub
--            of ledger._lint_stubs (a Python def with pass or raise
--            NotImplementedError, a class with pass, a TODO comment, a Go
--            panic, a Rust todo!(), a JavaScript throw), and the whole check
--            evaluated again: the first stub that makes it hold is named,
--            as a JSON string (one line), with its kind (one row per part).
--            Not looked for when the check holds already.
-- A check that does not validate raises what ledger.validate_check raises
-- (LD001, LD003, LD004, LD105), naming p_field. Writes nothing.
-- SECURITY DEFINER: it runs ledger._eval_check, which no ledger role may
-- call; it reads no table. STABLE, not IMMUTABLE: whether it answers
-- depends on the caller's role, so no plan may fold its result into a
-- constant.
-- The caller must hold ledger_writer (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
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
