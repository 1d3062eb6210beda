-- The four NOLOGIN group roles of findings-ledger (docs/security.md). Roles
-- are cluster-wide: every ledger database of a cluster shares them. Each is
-- created only when it does not exist, and commented only when the
-- migration role may (COMMENT ON ROLE needs superuser, or CREATEROLE and,
-- on PostgreSQL 16+, ADMIN OPTION on the role): a migration role without
-- CREATEROLE works once a DBA has created the four roles, and says with a
-- NOTICE which comments it left.
-- A DBA grants them to login roles (GRANT ledger_writer TO review_bot).
DO $roles$
DECLARE
    v_role text;
    v_comment text;
BEGIN
    FOR v_role, v_comment IN VALUES
        ('ledger_writer', 'findings-ledger: services that insert findings, merges, issues and tasks and report findings (INSERT, no UPDATE of supersession columns, no audit writes, no issue_snapshot).'),
        ('ledger_reader', 'findings-ledger: read active findings, history (findings, merges, lifecycle, injections), issues, tasks and the audit.'),
        ('ledger_agent', 'findings-ledger: agent runtimes (task claims: claim, start, complete, fail, cancel, requeue).'),
        ('ledger_admin', 'findings-ledger: policy (hygiene mode, matching policy, poisoned failure reasons), dismissals and restores, reconcile, reading everything.')
    LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = v_role) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', v_role);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL;  -- created meanwhile by a concurrent migration of another database
            END;
        END IF;
        BEGIN
            EXECUTE format('COMMENT ON ROLE %I IS %L', v_role, v_comment);
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE 'role % left without its comment: % (a DBA may add it)', v_role, SQLERRM;
        END;
    END LOOP;
END
$roles$;
