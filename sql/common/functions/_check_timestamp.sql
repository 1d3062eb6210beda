-- ledger._check_timestamp(p_value timestamptz, p_field text) -> timestamptz
--
-- A point in time a writer supplies (finding.created_at, merge.merged_at,
-- injection.injected_at) may not lie in the future: the prompt read's
-- max_age, the timeline and every "since" comparison trust it. Returns
--   NULL            for NULL (the caller applies its default);
--   now()           for a value after now() by at most 5 minutes (clock
--                   skew between the writer and the server: clamped, so no
--                   stored time is later than the transaction that wrote it);
--   the value       otherwise (the past is accepted as given).
-- Raises LD003 (value_invalid) naming p_field and the value for a value
-- more than 5 minutes after now(), for 'infinity' and '-infinity', and for
-- one before 0001-01-02 00:00 UTC (year 1 in every time zone: a client
-- such as psycopg or JavaScript cannot load a time before year 1 or after
-- 9999, and the future bound keeps the upper end).
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
