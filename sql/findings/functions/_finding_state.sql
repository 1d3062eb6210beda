-- ledger._finding_state(p_superseded_at timestamptz, p_dismissed_at timestamptz) -> text
--
-- The lifecycle state of a finding, derived from its row ("the
-- state is derivable from the row at a glance"):
--   'active'      superseded_at IS NULL (the one rule every reader applies);
--   'dismissed'   dismissed_at is set (a person decided; superseded_at is
--                 then set too, so no reader treats it as active);
--   'superseded'  otherwise (retired by a merge, a re-review or a revert of a
--                 reopen).
-- Derived rather than stored, so every row has it without a backfill and it
-- cannot disagree with superseded_at and dismissed_at. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._finding_state(p_superseded_at timestamptz, p_dismissed_at timestamptz)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN p_superseded_at IS NULL THEN 'active'
                WHEN p_dismissed_at IS NOT NULL THEN 'dismissed'
                ELSE 'superseded' END
$$;

COMMENT ON FUNCTION ledger._finding_state(timestamptz, timestamptz) IS
'Lifecycle state of a finding derived from its row: active (superseded_at IS NULL), dismissed (dismissed_at set), else superseded. (superseded_at, dismissed_at) -> text. Raises nothing.';
