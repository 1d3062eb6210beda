CREATE OR REPLACE FUNCTION ledger._lint_stubs(p_pattern text)
RETURNS TABLE (name text, kind text, stub text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH bare AS (
        SELECT regexp_replace(regexp_replace(regexp_replace(p_pattern, '^(\*\*\*:)?\(\?[a-zA-Z]+\)', ''),
                                             '\[\[?[:=.][^]]*[:=.]\]\]?', ' ', 'g'),
                              '\\(\{[^}]*\}|.)', ' ', 'g') AS text
    ), names AS (
        SELECT m[1] AS name, min(o) AS first
          FROM bare, regexp_matches(bare.text, '([A-Za-z_][A-Za-z0-9_]{2,})', 'g') WITH ORDINALITY AS x(m, o)
         WHERE m[1] NOT IN ('def', 'class', 'async', 'func', 'function', 'fn', 'pass', 'raise', 'return', 'self',
                            'TODO', 'None', 'NotImplementedError', 'panic', 'todo', 'throw', 'Error')
         GROUP BY m[1]
         ORDER BY min(o)
         LIMIT 5
    ), templates(ord, kind, template) AS (
        VALUES (1, 'python-pass', E'def %1$s(*args, **kwargs):\n    pass\n'),
               (2, 'python-raise', E'def %1$s(*args, **kwargs):\n    raise NotImplementedError\n'),
               (3, 'python-class', E'class %1$s:\n    pass\n'),
               (4, 'todo-comment', E'# TODO: %1$s\n'),
               (5, 'go-panic', E'func %1$s() {\n\tpanic("not implemented")\n}\n'),
               (6, 'rust-todo', E'fn %1$s() {\n    todo!()\n}\n'),
               (7, 'js-throw', E'function %1$s() {\n  throw new Error("not implemented");\n}\n')
    )
    SELECT n.name, t.kind, format(t.template, n.name)
      FROM names AS n CROSS JOIN templates AS t
     ORDER BY n.first, t.ord
$$;

COMMENT ON FUNCTION ledger._lint_stubs(text) IS
'The stub texts ledger.lint_check tries against a file_contains pattern: (pattern text) -> rows (name text, kind text, stub text) for each of the first 5 names (identifiers of 3+ characters outside escapes, POSIX classes and a leading flag group; stub keywords left out) times the stubs python-pass, python-raise, python-class, todo-comment, go-panic, rust-todo, js-throw. Raises nothing.';
