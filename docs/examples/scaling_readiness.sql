-- What distributing the ledger by scope on Citus would change, read from the catalog of a
-- migrated database (docs/scaling.md, "What the plan changes").
-- (run: psql -X -v ON_ERROR_STOP=1 -f docs/examples/scaling_readiness.sql, from the checkout,
-- on a database migrated to head; it only reads the catalog.)
--
-- The plan's inputs are the two lists in `placement`: the reference tables (small, global, copied
-- to every node) and the tables that stay on the coordinator. Every other table of schema ledger
-- is distributed by `scope`, co-located with ledger.scope. The rows, in the order a DBA works:
--   1 add scope    a distributed table without a scope column (filled through the named foreign key)
--   2 key          a primary key, unique constraint or unique index without scope
--   3 foreign key  a foreign key between distributed tables that does not pair scope with scope
--   4 trigger      a statement-level trigger on a distributed table (transition tables named)
--   5 identity     an identity column of a distributed table (the id order the triggers lock in)
-- tests/migrations/test_scaling_readiness.py runs this query and checks docs/scaling.md shows its output.
WITH placement(relname, placement) AS (
    VALUES ('poisoned_failure_reason', 'reference'), ('retired_session', 'reference'),
           ('alembic_version', 'coordinator')
), tbl AS (
    SELECT c.oid, c.relname, coalesce(p.placement, 'distributed') AS placement,
           EXISTS (SELECT 1 FROM information_schema.columns col
                    WHERE col.table_schema = 'ledger' AND col.table_name = c.relname
                      AND col.column_name = 'scope') AS has_scope
      FROM pg_class c
      LEFT JOIN placement p ON p.relname = c.relname
     WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind IN ('r', 'p')
), dist AS (
    SELECT * FROM tbl WHERE placement = 'distributed'
), keys AS (  -- every key of a distributed table: its columns by name, in key order
    SELECT d.oid AS relid, k.kind, k.oid, k.conkey, k.confrelid, k.confkey,
           CASE WHEN k.kind = 'i'  -- an index's columns and expressions as its definition writes them
                THEN (SELECT array_agg(pg_get_indexdef(k.oid, n, true) ORDER BY n)
                        FROM generate_series(1, cardinality(k.conkey)) n)
                ELSE (SELECT array_agg(a.attname::text ORDER BY u.n)
                        FROM unnest(k.conkey) WITH ORDINALITY u(attnum, n)
                        JOIN pg_attribute a ON a.attrelid = d.oid AND a.attnum = u.attnum) END AS names,
           (SELECT array_agg(a.attname::text ORDER BY u.n) FROM unnest(k.confkey) WITH ORDINALITY u(attnum, n)
              JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum) AS ref_names
      FROM dist d
      CROSS JOIN LATERAL (
          SELECT con.contype::text AS kind, con.oid, con.conkey, con.confrelid, con.confkey
            FROM pg_constraint con WHERE con.conrelid = d.oid AND con.contype IN ('p', 'u', 'x', 'f')
          UNION ALL  -- unique indexes that back no constraint
          SELECT 'i', i.indexrelid, string_to_array(i.indkey::text, ' ')::smallint[], NULL, NULL
            FROM pg_index i
           WHERE i.indrelid = d.oid AND i.indisunique
             AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = d.oid)
      ) k
), changes(step, object, now, change) AS (
    SELECT '1 add scope', 'ledger.' || d.relname, 'no scope column',
           'add scope text NOT NULL' || coalesce(
               (SELECT ', filled from ledger.' || t.relname || ' through ' || fk.conname
                  FROM pg_constraint fk JOIN dist t ON t.oid = fk.confrelid AND t.has_scope
                 WHERE fk.conrelid = d.oid AND fk.contype = 'f' ORDER BY fk.conname LIMIT 1),
               ', set by its writers (no foreign key to a table with scope)')
      FROM dist d WHERE NOT d.has_scope
    UNION ALL
    SELECT '2 key', 'ledger.' || d.relname || ' ' || coalesce(con.conname, ic.relname),
           coalesce(pg_get_constraintdef(con.oid), pg_get_indexdef(k.oid)),
           CASE k.kind WHEN 'p' THEN 'PRIMARY KEY' WHEN 'u' THEN 'UNIQUE' WHEN 'x' THEN 'EXCLUDE'
                       ELSE 'a unique index on' END
             || ' (scope, ' || array_to_string(k.names, ', ') || ')'
      FROM keys k
      JOIN dist d ON d.oid = k.relid
      LEFT JOIN pg_constraint con ON con.oid = k.oid AND k.kind <> 'i'
      LEFT JOIN pg_class ic ON ic.oid = k.oid AND k.kind = 'i'
     WHERE k.kind <> 'f' AND NOT 'scope' = ANY (k.names)
    UNION ALL
    SELECT '3 foreign key', 'ledger.' || d.relname || ' ' || fk.conname, pg_get_constraintdef(fk.oid),
           'FOREIGN KEY (scope, ' || array_to_string(k.names, ', ') || ') REFERENCES ledger.'
             || t.relname || ' (scope, ' || array_to_string(k.ref_names, ', ') || ')'
      FROM keys k
      JOIN dist d ON d.oid = k.relid
      JOIN dist t ON t.oid = k.confrelid
      JOIN pg_constraint fk ON fk.oid = k.oid
     WHERE k.kind = 'f'
       AND NOT EXISTS (  -- scope paired with scope: a distributed-to-distributed key Citus accepts
             SELECT 1 FROM unnest(k.names, k.ref_names) AS p(a, b) WHERE p.a = 'scope' AND p.b = 'scope')
    UNION ALL
    SELECT '4 trigger', 'ledger.' || d.relname || ' ' || tg.tgname,
           CASE WHEN tg.tgtype & 2 = 2 THEN 'BEFORE ' ELSE 'AFTER ' END
             || array_to_string(array_remove(ARRAY[
                  CASE WHEN tg.tgtype & 4 = 4 THEN 'INSERT' END, CASE WHEN tg.tgtype & 16 = 16 THEN 'UPDATE' END,
                  CASE WHEN tg.tgtype & 8 = 8 THEN 'DELETE' END, CASE WHEN tg.tgtype & 32 = 32 THEN 'TRUNCATE' END],
                  NULL), ' OR ')
             || ' FOR EACH STATEMENT'
             || CASE WHEN tg.tgoldtable IS NULL AND tg.tgnewtable IS NULL THEN ''
                     ELSE ' REFERENCING ' || concat_ws(' ', 'OLD TABLE ' || tg.tgoldtable,
                                                       'NEW TABLE ' || tg.tgnewtable) END,
           CASE WHEN tg.tgoldtable IS NOT NULL OR tg.tgnewtable IS NOT NULL
                THEN 'rewrite: no transition tables on a distributed table'
                ELSE 'review: fires once per shard a statement reaches' END
      FROM dist d
      JOIN pg_trigger tg ON tg.tgrelid = d.oid AND NOT tg.tgisinternal AND tg.tgtype & 1 = 0
    UNION ALL
    SELECT '5 identity', 'ledger.' || col.table_name || '.' || col.column_name,
           col.data_type || ' GENERATED ' || col.identity_generation || ' AS IDENTITY',
           'one sequence, on the coordinator: the triggers decide and lock in id order'
      FROM information_schema.columns col
      JOIN dist d ON d.relname = col.table_name
     WHERE col.table_schema = 'ledger' AND col.is_identity = 'YES'
)
SELECT step, object, now, change FROM changes ORDER BY step, object COLLATE "C";
