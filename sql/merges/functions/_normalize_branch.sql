-- ledger._normalize_branch(p_branch text, p_field text) -> text
--
-- A branch name as stored in merge.branch and scope.default_branch:
-- trimmed, single line, at most 255 characters, a leading 'refs/heads/'
-- dropped ('refs/heads/main' -> 'main'). NULL stays NULL. Raises LD003
-- (blank, control character) and LD004 (too long), naming p_field and the
-- value (ledger._check_text).
CREATE OR REPLACE FUNCTION ledger._normalize_branch(p_branch text, p_field text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.regexp_replace(ledger._check_text(p_branch, p_field, false, 255), '^refs/heads/', '')
$$;

COMMENT ON FUNCTION ledger._normalize_branch(text, text) IS
'Normalise a branch name: trimmed, single line, <= 255 chars, refs/heads/ dropped; NULL stays NULL. (branch, field) -> text. Raises LD003, LD004 naming the field and value.';
