CREATE OR REPLACE FUNCTION ledger._touch_mode(p_touch_modes jsonb, p_kind text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(p_touch_modes OPERATOR(pg_catalog.->>) p_kind,
                    p_touch_modes OPERATOR(pg_catalog.->>) '*'::text,
                    ledger._default_touch_mode(p_kind))
$$;

COMMENT ON FUNCTION ledger._touch_mode(jsonb, text) IS
'The touch mode (retire, recheck, flag) of a finding kind under a scope''s touch_modes: the kind, else *, else ledger._default_touch_mode(kind) (flag for drift, retire for every other kind). (touch_modes jsonb, kind text) -> text. Raises nothing.';
