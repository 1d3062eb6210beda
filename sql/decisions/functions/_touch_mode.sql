-- ledger._touch_mode(p_touch_modes jsonb, p_kind text) -> text
--
-- What a resolving touch does to a finding of kind p_kind without a check,
-- under a scope's touch_modes: the kind's entry, else "*", else
-- ledger._default_touch_mode(p_kind) (flag for drift, retire for
-- every other kind). retire, recheck or flag. Raises nothing.
-- No SET clause, every name qualified: PostgreSQL inlines it into the
-- caller's query (ledger._merge_decisions asks it for every touch of an
-- anchored file; a call of a function with a SET clause is planned and run
-- on its own each time).
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
