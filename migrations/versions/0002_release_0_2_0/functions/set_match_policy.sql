CREATE OR REPLACE FUNCTION ledger.set_match_policy(
    p_scope text,
    p_enabled_rules text[] DEFAULT NULL,
    p_path_supersede_kinds text[] DEFAULT NULL,
    p_slug_mention_resolves boolean DEFAULT NULL,
    p_default_branch text DEFAULT NULL,
    p_line_context integer DEFAULT NULL,
    p_create boolean DEFAULT false,
    p_touch text DEFAULT NULL,
    p_touch_kind text DEFAULT NULL)
RETURNS ledger.scope
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_row   ledger.scope;
    v_scope text;
    v_new   boolean;
    v_kind  text := coalesce(lower(ledger._check_text(p_touch_kind, 'touch_kind', false, 100) COLLATE "C"), '*');
    v_touch jsonb;
    v_field text;
    v_named text;
    v_kinds text[];
BEGIN
    IF p_touch_kind IS NOT NULL AND p_touch IS NULL THEN
        RAISE EXCEPTION 'touch is required with touch_kind % (retire, recheck or flag)', quote_literal(p_touch_kind)
            USING ERRCODE = 'LD002';
    END IF;
    IF p_touch IS NOT NULL THEN
        v_touch := CASE WHEN btrim(p_touch) = '' THEN NULL ELSE to_jsonb(lower(btrim(p_touch) COLLATE "C")) END;
    END IF;
    INSERT INTO ledger.scope AS s (scope, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch,
                                   line_context, touch_modes)
    VALUES (p_scope,
            coalesce(p_enabled_rules, '{path,key,slug,keyword,title}'),
            coalesce(p_path_supersede_kinds, '{drift}'),
            coalesce(p_slug_mention_resolves, false),
            NULLIF(p_default_branch, ''),
            coalesce(p_line_context, 0),
            CASE WHEN v_touch IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(v_kind, v_touch) END)
    ON CONFLICT (scope) DO UPDATE
       SET enabled_rules = coalesce(p_enabled_rules, s.enabled_rules),
           path_supersede_kinds = coalesce(p_path_supersede_kinds, s.path_supersede_kinds),
           slug_mention_resolves = coalesce(p_slug_mention_resolves, s.slug_mention_resolves),
           default_branch = CASE WHEN p_default_branch IS NULL THEN s.default_branch
                                 ELSE NULLIF(p_default_branch, '') END,
           line_context = coalesce(p_line_context, s.line_context),
           touch_modes = CASE WHEN p_touch IS NULL THEN s.touch_modes
                              WHEN v_touch IS NULL THEN s.touch_modes - v_kind
                              ELSE s.touch_modes || jsonb_build_object(v_kind, v_touch) END
    RETURNING s.scope, s.xmax = 0 INTO v_scope, v_new;
    IF v_new AND NOT coalesce(p_create, false) THEN
        -- the row passed every check; refusing now undoes the insert
        RAISE EXCEPTION 'unknown scope: %', quote_literal(v_scope)
            USING ERRCODE = 'LD005', HINT = 'pass p_create => true to create it';
    END IF;
    SELECT s.* INTO v_row FROM ledger.scope s WHERE s.scope = v_scope;
    -- kinds are open-ended: a kind named here that neither the shipped writers use nor any
    -- finding of the scope has is stored, with a warning (most likely misspelt)
    FOR v_field, v_named IN
        SELECT 'touch_kind', v_kind WHERE v_touch IS NOT NULL AND v_kind <> '*'
        UNION ALL
        SELECT 'path_supersede_kinds', k FROM unnest(v_row.path_supersede_kinds) WITH ORDINALITY AS u(k, o)
         WHERE p_path_supersede_kinds IS NOT NULL AND k <> '*'
    LOOP
        CONTINUE WHEN v_named IN ('review', 'drift', 'analysis');
        IF v_kinds IS NULL THEN
            SELECT coalesce(array_agg(DISTINCT lower(f.kind COLLATE "C") ORDER BY lower(f.kind COLLATE "C")), '{}')
              INTO v_kinds FROM ledger.finding f WHERE f.scope = v_scope;
        END IF;
        CONTINUE WHEN v_named = ANY (v_kinds);
        RAISE WARNING '% %: no finding of scope % has this kind (its kinds: %); the entry is stored and applies to findings of that kind written later',
            v_field, quote_literal(v_named), quote_literal(v_scope),
            CASE WHEN v_kinds = '{}' THEN 'none yet' ELSE array_to_string(v_kinds, ', ') END;
    END LOOP;
    RETURN v_row;
END
$$;

COMMENT ON FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text, integer, boolean, text, text) IS
'Set a scope''s matching policy; NULL leaves a setting unchanged, an empty default_branch clears it; p_touch (retire, recheck, flag; '''' removes the entry) sets touch_modes for p_touch_kind (NULL: *); an unknown scope is LD005 unless p_create; a kind neither shipped (review, drift, analysis) nor of a finding of the scope is stored with a WARNING. (scope, enabled_rules text[], path_supersede_kinds text[], slug_mention_resolves boolean, default_branch text, line_context integer, create boolean, touch text, touch_kind text) -> ledger.scope. Raises LD002, LD003, LD004 naming field and value, LD005, LD401.';
