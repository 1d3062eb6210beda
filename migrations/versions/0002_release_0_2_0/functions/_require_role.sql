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
