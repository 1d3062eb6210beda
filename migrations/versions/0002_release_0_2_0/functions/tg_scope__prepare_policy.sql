CREATE OR REPLACE FUNCTION ledger.tg_scope__prepare_policy()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bad text;
BEGIN
    IF NEW.enabled_rules IS NULL THEN
        RAISE EXCEPTION 'scope.enabled_rules is required (a subset of path, key, slug, keyword, title; ''{}'' for none)'
            USING ERRCODE = 'LD002';
    END IF;
    SELECT r INTO v_bad FROM unnest(NEW.enabled_rules) AS r
     WHERE r IS NULL OR lower(btrim(r) COLLATE "C") NOT IN ('path', 'key', 'slug', 'keyword', 'title') LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'invalid scope.enabled_rules: % is not a rule (expected path, key, slug, keyword or title)',
            quote_nullable(v_bad) USING ERRCODE = 'LD003';
    END IF;
    NEW.enabled_rules := ARRAY(
        SELECT r FROM unnest('{path,key,slug,keyword,title}'::text[]) WITH ORDINALITY AS c(r, o)
         WHERE r = ANY (ARRAY(SELECT lower(btrim(x) COLLATE "C") FROM unnest(NEW.enabled_rules) AS x))
         ORDER BY o);

    IF NEW.path_supersede_kinds IS NULL THEN
        RAISE EXCEPTION 'scope.path_supersede_kinds is required (finding kinds, ''*'' for all, ''{}'' for none)'
            USING ERRCODE = 'LD002';
    END IF;
    IF cardinality(NEW.path_supersede_kinds) > 100 THEN
        RAISE EXCEPTION 'invalid scope.path_supersede_kinds: % kinds, at most 100 are accepted',
            cardinality(NEW.path_supersede_kinds) USING ERRCODE = 'LD004';
    END IF;
    NEW.path_supersede_kinds := ARRAY(
        SELECT k FROM (
            SELECT lower(ledger._check_text(x, 'scope.path_supersede_kinds[' || o || ']', true, 100) COLLATE "C") AS k, min(o) AS o
              FROM unnest(NEW.path_supersede_kinds) WITH ORDINALITY AS u(x, o)
             GROUP BY 1) AS d
         ORDER BY d.o);

    IF NEW.slug_mention_resolves IS NULL THEN
        RAISE EXCEPTION 'scope.slug_mention_resolves is required (true or false)' USING ERRCODE = 'LD002';
    END IF;
    NEW.default_branch := ledger._normalize_branch(NEW.default_branch, 'scope.default_branch');
    IF NEW.line_context IS NULL THEN
        RAISE EXCEPTION 'scope.line_context is required (0 to 1000 lines)' USING ERRCODE = 'LD002';
    END IF;
    IF NEW.line_context NOT BETWEEN 0 AND 1000 THEN
        RAISE EXCEPTION 'invalid scope.line_context: % (expected 0 to 1000 lines)', NEW.line_context
            USING ERRCODE = 'LD003';
    END IF;
    IF NEW.touch_modes IS NULL THEN
        RAISE EXCEPTION 'scope.touch_modes is required ({} for the default, {"<kind>": "retire" | "recheck" | "flag"})'
            USING ERRCODE = 'LD002';
    END IF;
    IF jsonb_typeof(NEW.touch_modes) <> 'object' THEN
        RAISE EXCEPTION 'invalid scope.touch_modes: % is not an object {"<kind>": "retire" | "recheck" | "flag"}',
            left(NEW.touch_modes::text, 200) USING ERRCODE = 'LD003';
    END IF;
    SELECT format('[%s]: %s', quote_literal(e.key), e.value::text) INTO v_bad FROM jsonb_each(NEW.touch_modes) AS e
     WHERE jsonb_typeof(e.value) <> 'string'
        OR lower(btrim(e.value #>> '{}') COLLATE "C") NOT IN ('retire', 'recheck', 'flag')
        OR btrim(e.key) = '' OR length(e.key) > 100
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'invalid scope.touch_modes%: expected a kind (1 to 100 characters) or * mapped to retire, recheck or flag',
            v_bad USING ERRCODE = 'LD003';
    END IF;
    NEW.touch_modes := coalesce((SELECT jsonb_object_agg(lower(btrim(e.key) COLLATE "C"),
                                                         lower(btrim(e.value #>> '{}') COLLATE "C"))
                                   FROM jsonb_each(NEW.touch_modes) AS e), '{}'::jsonb);
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_scope__prepare_policy() IS
'BEFORE INSERT OR UPDATE trigger on ledger.scope: validates and normalises the matching policy (enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch, line_context 0-1000, touch_modes kind -> retire | recheck | flag). Raises LD002, LD003, LD004 naming field and value.';
