CREATE OR REPLACE FUNCTION ledger._check_time_bounds(p_value timestamptz, p_field text)
RETURNS timestamptz
LANGUAGE plpgsql VOLATILE PARALLEL SAFE
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
    IF p_value > clock_timestamp() + interval '5 minutes' THEN
        RAISE EXCEPTION 'invalid %: % is in the future (the server''s time is %)', p_field, quote_literal(p_value),
            quote_literal(clock_timestamp())
            USING ERRCODE = 'LD003',
                  HINT = 'Leave the column out to let the ledger set it; at most 5 minutes of clock skew are accepted.';
    END IF;
    RETURN p_value;
END
$$;

COMMENT ON FUNCTION ledger._check_time_bounds(timestamptz, text) IS
'Validate a time every client must load: NULL -> NULL; finite, from 0001-01-02 UTC to 5 minutes after clock_timestamp() -> unchanged; otherwise LD003 naming the field and value. (value timestamptz, field text) -> timestamptz.';
