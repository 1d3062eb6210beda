-- Path normalisation, the examples of docs/paths.md; the last statement fails on purpose
-- (run: psql -X -a -f docs/examples/paths.sql, on any database migrated to head).
\set SHOW_CONTEXT never
SELECT p AS written, ledger.normalize_path(p) AS stored
  FROM unnest(ARRAY['src\win\a.py', 'src/foo.py:42:10', './src/./a.py', 'src//a.py',
                    'packages//nightshift//', 'a.py :3', 'naïve/日本.py']) AS p;
SELECT ledger.normalize_paths(ARRAY['b.py', './a.py', 'b.py:3', 'a.py']) AS stored;
SELECT ledger.normalize_path('src/../../up.py');
