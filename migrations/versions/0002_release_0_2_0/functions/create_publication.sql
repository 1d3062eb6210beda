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
