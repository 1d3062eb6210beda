-- ledger._default_touch_mode() -> text
--
-- The touch mode of a finding kind that a scope's touch_modes does not list
-- (neither the kind nor "*"): the one place the shipped default lives.
-- Raises nothing.
CREATE OR REPLACE FUNCTION ledger._default_touch_mode()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
    SELECT 'retire'::text
$$;

COMMENT ON FUNCTION ledger._default_touch_mode() IS
'The shipped touch mode for a kind a scope''s touch_modes does not list: retire (the path rule supersedes on a resolving touch). () -> text. Raises nothing.';
