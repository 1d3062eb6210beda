-- ledger.set_match_policy(p_scope, p_enabled_rules, p_path_supersede_kinds,
--                         p_slug_mention_resolves, p_default_branch) -> ledger.scope
--
-- Sets a scope's message-matching policy (issue 3, "Per-scope policy"),
-- creating the scope with defaults when it does not exist yet; a NULL
-- argument leaves that setting as it is, and p_default_branch => '' clears
-- the default branch. Returns the stored row. The same as INSERT INTO
-- ledger.scope ... ON CONFLICT (scope) DO UPDATE (see tg_scope__prepare_policy
-- for the settings and their defaults).
-- Raises LD002, LD003, LD004 naming the field and the value.
CREATE OR REPLACE FUNCTION ledger.set_match_policy(
    p_scope text,
    p_enabled_rules text[] DEFAULT NULL,
    p_path_supersede_kinds text[] DEFAULT NULL,
    p_slug_mention_resolves boolean DEFAULT NULL,
    p_default_branch text DEFAULT NULL)
RETURNS ledger.scope
LANGUAGE sql
AS $$
    INSERT INTO ledger.scope AS s (scope, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch)
    VALUES (p_scope,
            coalesce(p_enabled_rules, '{path,key,slug,keyword,title}'),
            coalesce(p_path_supersede_kinds, '{drift}'),
            coalesce(p_slug_mention_resolves, false),
            NULLIF(p_default_branch, ''))
    ON CONFLICT (scope) DO UPDATE
       SET enabled_rules = coalesce(p_enabled_rules, s.enabled_rules),
           path_supersede_kinds = coalesce(p_path_supersede_kinds, s.path_supersede_kinds),
           slug_mention_resolves = coalesce(p_slug_mention_resolves, s.slug_mention_resolves),
           default_branch = CASE WHEN p_default_branch IS NULL THEN s.default_branch
                                 ELSE NULLIF(p_default_branch, '') END
    RETURNING s.*
$$;

COMMENT ON FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text) IS
'Set (upsert) a scope''s matching policy; NULL leaves a setting unchanged, an empty default_branch clears it. (scope, enabled_rules text[], path_supersede_kinds text[], slug_mention_resolves boolean, default_branch text) -> ledger.scope. Raises LD002, LD003, LD004 naming field and value.';
