-- ledger.create_publication(p_name text) -> SETOF regclass
--
-- Creates the logical-replication publication p_name (CREATE PUBLICATION
-- ... FOR TABLE) of every table of schema ledger except the two that the
-- migrations seed on every database: ledger.alembic_version (the revision
-- row) and ledger.poisoned_failure_reason (its shipped reasons). A
-- subscriber migrated to the same revision already holds their rows, so an
-- initial copy of them fails with a duplicate key (23505) for ever; they are
-- kept in step by migrating both sides (docs/dba.md, "Logical replication").
-- Returns the published tables, in name order. Publishes INSERT, UPDATE,
-- DELETE and TRUNCATE (the defaults; every ledger table has a primary key,
-- its replica identity). A table that a later revision adds is not in an
-- existing publication: ALTER PUBLICATION ... ADD TABLE it (or drop the
-- publication and call this again), then ALTER SUBSCRIPTION ... REFRESH
-- PUBLICATION on the subscriber.
-- SECURITY INVOKER: run it as the role that ran the migrations (the tables'
-- owner), which needs CREATE on the database; EXECUTE is granted to no
-- ledger role. Works on PostgreSQL 13 and later (a table list, not FOR
-- TABLES IN SCHEMA).
-- Raises LD002 (p_name NULL or blank), 42710 (duplicate_object: a
-- publication of that name exists), 42501 (insufficient_privilege: not the
-- tables' owner, or no CREATE on the database).
CREATE OR REPLACE FUNCTION ledger.create_publication(p_name text)
RETURNS SETOF regclass
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_tables regclass[];
BEGIN
    IF p_name IS NULL OR btrim(p_name) = '' THEN
        RAISE EXCEPTION 'create_publication.p_name is required' USING ERRCODE = 'LD002';
    END IF;
    SELECT array_agg(c.oid::regclass ORDER BY c.relname) INTO v_tables
      FROM pg_catalog.pg_class c
     WHERE c.relnamespace = 'ledger'::pg_catalog.regnamespace
       AND c.relkind IN ('r', 'p')
       AND NOT c.relispartition
       AND c.relname NOT IN ('alembic_version', 'poisoned_failure_reason');
    EXECUTE format('CREATE PUBLICATION %I FOR TABLE %s', p_name,
                   (SELECT string_agg(t::text, ', ') FROM unnest(v_tables) AS t));
    RETURN QUERY SELECT t FROM unnest(v_tables) AS t;
END
$$;

COMMENT ON FUNCTION ledger.create_publication(text) IS
'Create the logical-replication publication p_name of every ledger table but the two the migrations seed on both sides (alembic_version, poisoned_failure_reason). (p_name text) -> SETOF regclass (the published tables). Owner only (needs CREATE on the database); raises LD002 (name missing), 42710 (the publication exists), 42501.';
