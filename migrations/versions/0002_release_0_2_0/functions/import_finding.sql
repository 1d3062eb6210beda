CREATE OR REPLACE FUNCTION ledger.import_finding(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_finding_key text DEFAULT NULL,
    p_source text DEFAULT NULL,
    p_slug text DEFAULT NULL,
    p_strong_keywords text[] DEFAULT '{}',
    p_tags text[] DEFAULT '{}',
    p_observed_at timestamptz DEFAULT NULL,
    p_expects text DEFAULT NULL,
    p_task_group text DEFAULT NULL,
    p_resolved_when jsonb DEFAULT NULL,
    p_observed_at_precision text DEFAULT NULL)
RETURNS TABLE (id bigint, finding_key text, slug text, status text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_id       bigint;
    v_inserted boolean;
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.import_finding');
    PERFORM set_config('ledger.reporting', 'on', true);
    IF p_finding_key IS NOT NULL THEN
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags, observed_at, expects, task_group,
                                         resolved_when, observed_at_precision)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags, p_observed_at, p_expects, p_task_group,
                p_resolved_when, p_observed_at_precision)
        ON CONFLICT (scope, finding_key) DO UPDATE
           SET title = excluded.title, description = excluded.description, paths = excluded.paths,
               kind = excluded.kind, severity = excluded.severity, source = excluded.source,
               slug = excluded.slug, strong_keywords = excluded.strong_keywords, tags = excluded.tags,
               observed_at = CASE WHEN p_observed_at IS NULL THEN f.observed_at ELSE excluded.observed_at END,
               expects = CASE WHEN p_expects IS NULL THEN f.expects ELSE excluded.expects END,
               task_group = CASE WHEN p_task_group IS NULL THEN f.task_group ELSE excluded.task_group END,
               resolved_when = CASE WHEN p_resolved_when IS NULL THEN f.resolved_when ELSE excluded.resolved_when END,
               observed_at_precision = CASE WHEN p_observed_at_precision IS NULL THEN f.observed_at_precision
                                            ELSE excluded.observed_at_precision END
         WHERE f.superseded_at IS NULL
           AND (f.title, f.description, f.paths, f.kind, f.severity, f.source, f.slug, f.strong_keywords, f.tags,
                f.observed_at, f.expects, f.task_group, f.resolved_when, f.observed_at_precision)
               IS DISTINCT FROM (excluded.title, excluded.description, excluded.paths, excluded.kind,
                                 excluded.severity, excluded.source, excluded.slug, excluded.strong_keywords,
                                 excluded.tags,
                                 CASE WHEN p_observed_at IS NULL THEN f.observed_at ELSE excluded.observed_at END,
                                 CASE WHEN p_expects IS NULL THEN f.expects ELSE excluded.expects END,
                                 CASE WHEN p_task_group IS NULL THEN f.task_group ELSE excluded.task_group END,
                                 CASE WHEN p_resolved_when IS NULL THEN f.resolved_when ELSE excluded.resolved_when END,
                                 CASE WHEN p_observed_at_precision IS NULL THEN f.observed_at_precision
                                      ELSE excluded.observed_at_precision END)
        RETURNING f.id, (f.xmax = 0) INTO v_id, v_inserted;
    ELSIF p_slug IS NOT NULL THEN
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags, observed_at, expects, task_group,
                                         resolved_when, observed_at_precision)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags, p_observed_at, p_expects, p_task_group,
                p_resolved_when, p_observed_at_precision)
        ON CONFLICT (scope, slug) DO UPDATE
           SET title = excluded.title, description = excluded.description, paths = excluded.paths,
               kind = excluded.kind, severity = excluded.severity, source = excluded.source,
               strong_keywords = excluded.strong_keywords, tags = excluded.tags,
               observed_at = CASE WHEN p_observed_at IS NULL THEN f.observed_at ELSE excluded.observed_at END,
               expects = CASE WHEN p_expects IS NULL THEN f.expects ELSE excluded.expects END,
               task_group = CASE WHEN p_task_group IS NULL THEN f.task_group ELSE excluded.task_group END,
               resolved_when = CASE WHEN p_resolved_when IS NULL THEN f.resolved_when ELSE excluded.resolved_when END,
               observed_at_precision = CASE WHEN p_observed_at_precision IS NULL THEN f.observed_at_precision
                                            ELSE excluded.observed_at_precision END
         WHERE f.superseded_at IS NULL
           AND (f.title, f.description, f.paths, f.kind, f.severity, f.source, f.strong_keywords, f.tags,
                f.observed_at, f.expects, f.task_group, f.resolved_when, f.observed_at_precision)
               IS DISTINCT FROM (excluded.title, excluded.description, excluded.paths, excluded.kind,
                                 excluded.severity, excluded.source, excluded.strong_keywords, excluded.tags,
                                 CASE WHEN p_observed_at IS NULL THEN f.observed_at ELSE excluded.observed_at END,
                                 CASE WHEN p_expects IS NULL THEN f.expects ELSE excluded.expects END,
                                 CASE WHEN p_task_group IS NULL THEN f.task_group ELSE excluded.task_group END,
                                 CASE WHEN p_resolved_when IS NULL THEN f.resolved_when ELSE excluded.resolved_when END,
                                 CASE WHEN p_observed_at_precision IS NULL THEN f.observed_at_precision
                                      ELSE excluded.observed_at_precision END)
        RETURNING f.id, (f.xmax = 0) INTO v_id, v_inserted;
    ELSE
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags, observed_at, expects, task_group,
                                         resolved_when, observed_at_precision)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags, p_observed_at, p_expects, p_task_group,
                p_resolved_when, p_observed_at_precision)
        RETURNING f.id, true INTO v_id, v_inserted;
    END IF;
    PERFORM set_config('ledger.reporting', '', true);

    IF v_id IS NOT NULL THEN
        RETURN QUERY SELECT f.id, f.finding_key, f.slug, CASE WHEN v_inserted THEN 'inserted' ELSE 'updated' END
                       FROM ledger.finding f WHERE f.id = v_id;
        RETURN;
    END IF;
    -- the conflict's WHERE was false: the existing finding is unchanged or retired
    RETURN QUERY
        SELECT f.id, f.finding_key, f.slug,
               CASE WHEN f.superseded_at IS NULL THEN 'unchanged' ELSE 'retired' END
          FROM ledger.finding f
         WHERE f.scope = btrim(p_scope, E' \t\r\n\f\x0b')
           AND CASE WHEN p_finding_key IS NOT NULL THEN f.finding_key = btrim(p_finding_key, E' \t\r\n\f\x0b')
                    ELSE f.slug = (SELECT n.slug FROM (SELECT regexp_replace(pg_catalog.normalize(btrim(p_slug), 'NFC'),
                                   '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)\.[mM][dD]$', '\1') AS slug) AS n) END;
END
$$;

COMMENT ON FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[], timestamptz, text, text, jsonb, text) IS
'Insert or refresh an imported finding, identified by (scope, finding_key), else (scope, slug): no duplicates on re-import; a superseded or dismissed finding is left alone. (scope, title, description, paths, kind, severity, finding_key, source, slug, strong_keywords, tags, observed_at, expects, task_group, resolved_when jsonb, observed_at_precision; NULL keeps a stored value) -> TABLE(id, finding_key, slug, status inserted|updated|unchanged|retired). SECURITY DEFINER (ledger_writer). Raises LD001-LD004, LD101, LD102, LD401, 23505 (slug of another finding). The caller must hold ledger_writer, else LD403.';
