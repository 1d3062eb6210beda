-- ledger._require_role(p_role name, p_function text) -> void
--
-- The first statement of every SECURITY DEFINER function a role calls
-- (only argument checks that read no table, such as a PL/pgSQL DECLARE
-- initializer, may run before it): refuses a caller that does not hold p_role, the ledger role that
-- sql/access/privileges.sql grants EXECUTE on that function to (ledger_writer,
-- ledger_agent or ledger_admin). So a lost REVOKE (a restore with
-- pg_restore --no-privileges leaves every function executable by PUBLIC)
-- is not an escalation: the definer still runs only for its role.
--
-- The caller: inside a SECURITY DEFINER function current_user is the
-- function's owner, so the caller is read from the session instead: the
-- role of SET ROLE (the setting role; also what a pooler or PostgREST sets
-- with SET LOCAL ROLE or set_config('role', ...)), and without one
-- (role = 'none') the session user (the login role, or SET SESSION
-- AUTHORIZATION's). A login role that is a member of several roles and has
-- done SET ROLE ledger_reader is therefore refused a writer's function, as
-- PostgreSQL refuses it EXECUTE. A SECURITY DEFINER function of another
-- owner that calls a ledger definer is judged by the session's role, not by
-- its own owner.
--
-- Holding p_role means having its privileges (pg_has_role USAGE: a member
-- through INHERIT, as for the EXECUTE grant itself). A superuser holds
-- every role. A caller with the privileges of the calling function's owner
-- (the role that ran the migrations or the restore) passes too: it owns the
-- tables and could do the same directly. A role p_role that does not exist
-- in the cluster (roles not created before a restore) is held by nobody
-- but a superuser and the owner.
--
-- Cost: one setting read and one role-membership lookup (PostgreSQL's
-- cached membership list, no catalog scan) per call of the definer, never
-- per row.
-- Raises LD403 (role_required) naming p_function, p_role and the caller.
CREATE OR REPLACE FUNCTION ledger._require_role(p_role name, p_function text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_role   text := current_setting('role');
    v_caller name := CASE WHEN v_role = 'none' THEN session_user ELSE v_role::name END;
BEGIN
    IF to_regrole(quote_ident(p_role)) IS NOT NULL AND pg_has_role(v_caller, p_role, 'USAGE') THEN
        RETURN;
    END IF;
    IF pg_has_role(v_caller, current_user, 'USAGE') THEN
        RETURN;  -- the owner (or a superuser): it may do all of it directly
    END IF;
    RAISE EXCEPTION 'role required: % needs role %, which the caller % does not hold',
        p_function, quote_ident(p_role), quote_ident(v_caller)
        USING ERRCODE = 'LD403',
              HINT = format('GRANT %I TO %I (docs/dba.md, "Roles to grant"); after a restore without privileges, '
                            'apply the grants again (docs/dba.md, "Backup and restore").', p_role, v_caller);
END
$$;

COMMENT ON FUNCTION ledger._require_role(name, text) IS
'Refuse a caller of a SECURITY DEFINER function that does not hold the ledger role its EXECUTE is granted to. The caller is the SET ROLE role, else the session user (current_user is the owner inside a definer); a superuser and the owner pass. (role name, function text) -> void. Raises LD403 naming the function, the role and the caller. Not granted: only definers call it.';
