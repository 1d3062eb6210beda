CREATE OR REPLACE FUNCTION ledger._check_timestamp(p_value timestamptz, p_field text)
RETURNS timestamptz
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_value IS NULL THEN
        RETURN NULL;
    END IF;
    IF NOT isfinite(p_value) THEN
        RAISE EXCEPTION 'invalid %: % is not a point in time', p_field, quote_literal(p_value)
            USING ERRCODE = 'LD003';
    END IF;
    IF p_value < '0001-01-02 00:00:00+00'::timestamptz THEN
        RAISE EXCEPTION 'invalid %: % is before year 1 (clients cannot load it)', p_field, quote_literal(p_value)
            USING ERRCODE = 'LD003';
    END IF;
    IF p_value > now() + interval '5 minutes' THEN
        RAISE EXCEPTION 'invalid %: % is in the future (the server''s time is %)', p_field, quote_literal(p_value),
            quote_literal(now())
            USING ERRCODE = 'LD003',
                  HINT = 'Leave the column out to record the time of the write; at most 5 minutes of clock skew are accepted (stored as the time of the write).';
    END IF;
    RETURN least(p_value, now());
END
$$;

COMMENT ON FUNCTION ledger._check_timestamp(timestamptz, text) IS
'Validate a writer-supplied time: NULL -> NULL, at most 5 minutes in the future -> now() (clock skew, clamped), further ahead, infinite or before 0001-01-02 UTC -> LD003 naming the field and value; the past as given. (value timestamptz, field text) -> timestamptz.';
