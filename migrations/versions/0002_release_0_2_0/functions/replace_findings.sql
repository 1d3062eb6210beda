CREATE OR REPLACE FUNCTION ledger.replace_findings(
    p_scope text,
    p_kind text,
    p_review_run text,
    p_findings jsonb,
    p_actor text DEFAULT NULL,
    p_tool text DEFAULT NULL,
    p_category text DEFAULT NULL)
RETURNS TABLE (added integer, kept integer, reopened integer, still_dismissed integer,
               superseded integer, would_supersede integer, anchors_moved integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_scope   text := ledger._check_text(p_scope, 'scope', true, 200);
    v_run     text := ledger._check_text(p_review_run, 'review_run', true, 200);
    v_kind    text := lower(ledger._check_text(p_kind, 'kind', false, 100) COLLATE "C");
    v_actor   text := coalesce(ledger._check_text(p_actor, 'actor', false, 200), v_run);
    v_tool    text := ledger._check_text(p_tool, 'tool', false, 100);
    v_cat     text := ledger._check_text(p_category, 'category', false, 100);
    v_source  text;
    v_rule    text := 'rereview';
    v_detail  jsonb;
    v_state   text;
    v_states  jsonb := '{}'::jsonb;
    v_supp    jsonb;
    v_supps   jsonb := '{}'::jsonb;
    v_befores jsonb;
    v_before  jsonb;
    v_after   jsonb;
    v_mode    text;
    v_elem    jsonb;
    v_i       integer := 0;
    v_key     text;
    v_ekind   text;
    v_paths   text[];
    v_dup     record;
    v_keys    text[];
    v_locked  bigint[];
    v_present bigint[] := '{}'::bigint[];
    v_absent  bigint[];
    v_rep     record;
    v_shape   constant jsonb := '{"finding_key": "text!", "title": "text!", "description": "text", "paths": "text[]",
                                  "severity": "text", "kind": "text", "source": "text",
                                  "baseline_state": "text", "suppression": "object"}'::jsonb;
    v_supp_shape constant jsonb := '{"kind": "text!", "status": "text", "justification": "text"}'::jsonb;
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.replace_findings');
    PERFORM ledger._check_scope_access(v_scope, 'scope');
    IF v_cat IS NOT NULL AND v_tool IS NULL THEN
        RAISE EXCEPTION 'invalid category: % is given without a tool', quote_literal(v_cat) USING ERRCODE = 'LD003';
    END IF;
    IF v_tool LIKE '%/%' THEN
        RAISE EXCEPTION 'invalid tool: % contains ''/'' (the analysis source is tool/category)', quote_literal(v_tool)
            USING ERRCODE = 'LD003';
    END IF;
    IF v_tool IS NOT NULL THEN
        v_source := v_tool || coalesce('/' || v_cat, '');
        v_rule := 'reanalysis';
    END IF;
    v_detail := jsonb_strip_nulls(jsonb_build_object('review_run', v_run, 'kind', v_kind, 'tool', v_tool,
                                                     'category', v_cat));
    IF p_findings IS NULL OR jsonb_typeof(p_findings) <> 'array' THEN
        RAISE EXCEPTION 'invalid findings: expected a JSON array of findings, got %',
            coalesce(jsonb_typeof(p_findings), 'NULL') USING ERRCODE = 'LD003';
    END IF;
    PERFORM ledger._check_json_shape(e.elem, format('findings[%s]', e.ord), v_shape)
       FROM jsonb_array_elements(p_findings) WITH ORDINALITY AS e(elem, ord)
      ORDER BY e.ord;
    -- one finding_key twice: named at its second occurrence (one sort, not a scan per element)
    SELECT d.ord, d.key INTO v_dup
      FROM (SELECT e.ord, btrim(e.elem ->> 'finding_key', E' \t\r\n\f\x0b') AS key,
                   row_number() OVER (PARTITION BY btrim(e.elem ->> 'finding_key', E' \t\r\n\f\x0b') ORDER BY e.ord) AS nth
              FROM jsonb_array_elements(p_findings) WITH ORDINALITY AS e(elem, ord)
             WHERE jsonb_typeof(e.elem) = 'object' AND e.elem ->> 'finding_key' IS NOT NULL) AS d
     WHERE d.nth = 2
     ORDER BY d.ord
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'duplicate findings[%].finding_key: % appears more than once in the set', v_dup.ord,
            quote_literal(v_dup.key) USING ERRCODE = 'LD303', HINT = 'A review set names each finding once.';
    END IF;
    PERFORM ledger._ensure_scope(v_scope);
    -- a re-analysis: every element of the analysis source, with a known baseline_state
    SELECT e.ord, e.elem ->> 'source' AS source, e.elem ->> 'baseline_state' AS state INTO v_dup
      FROM jsonb_array_elements(p_findings) WITH ORDINALITY AS e(elem, ord)
     WHERE (e.elem ->> 'source' IS NOT NULL AND v_source IS NOT NULL AND e.elem ->> 'source' <> v_source)
        OR (e.elem ->> 'baseline_state' IS NOT NULL
            AND (v_source IS NULL OR NOT e.elem ->> 'baseline_state' IN ('new', 'unchanged', 'updated', 'absent')))
     ORDER BY e.ord
     LIMIT 1;
    IF FOUND AND v_dup.source IS NOT NULL AND v_dup.source <> v_source THEN
        RAISE EXCEPTION 'invalid findings[%].source: % differs from the analysis source %', v_dup.ord,
            quote_literal(v_dup.source), quote_literal(v_source) USING ERRCODE = 'LD003';
    ELSIF FOUND AND v_source IS NULL THEN
        RAISE EXCEPTION 'invalid findings[%].baseline_state: % is only read in a re-analysis (give the tool)',
            v_dup.ord, quote_literal(v_dup.state) USING ERRCODE = 'LD003';
    ELSIF FOUND THEN
        RAISE EXCEPTION 'invalid findings[%].baseline_state: % is not one of new, unchanged, updated, absent',
            v_dup.ord, quote_literal(v_dup.state) USING ERRCODE = 'LD003';
    END IF;
    added := 0; kept := 0; reopened := 0; still_dismissed := 0; superseded := 0; would_supersede := 0;
    anchors_moved := 0;
    -- one re-review of the scope at a time: the scope's own row, not a guessable advisory key
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_scope FOR NO KEY UPDATE;

    -- every finding this re-review may change, locked in one pass in id order
    v_keys := ARRAY(SELECT btrim(e ->> 'finding_key', E' \t\r\n\f\x0b')
                      FROM jsonb_array_elements(p_findings) AS e
                     WHERE jsonb_typeof(e) = 'object' AND e ->> 'finding_key' IS NOT NULL);
    v_locked := ARRAY(SELECT l.id
                        FROM (SELECT f.id FROM ledger.finding f
                               WHERE f.scope = v_scope
                                 AND (f.finding_key = ANY (v_keys)
                                      OR (v_mode <> 'off' AND f.superseded_at IS NULL
                                          AND (v_kind IS NULL OR f.kind = v_kind)
                                          AND (v_source IS NULL OR f.source = v_source)))
                               ORDER BY f.id
                                 FOR NO KEY UPDATE) AS l);

    -- the anchors of the set's findings before the re-analysis, by key (read once, not per element)
    IF v_source IS NOT NULL THEN
        SELECT coalesce(jsonb_object_agg(f.finding_key, f.anchors), '{}') INTO v_befores
          FROM ledger.finding f
         WHERE f.id = ANY (v_locked) AND f.finding_key = ANY (v_keys);
    END IF;

    FOR v_elem IN SELECT e FROM jsonb_array_elements(p_findings) AS e LOOP
        v_i := v_i + 1;
        v_key := ledger._check_text(v_elem ->> 'finding_key', format('findings[%s].finding_key', v_i), true, 200);
        v_ekind := lower(ledger._check_text(v_elem ->> 'kind', format('findings[%s].kind', v_i), false, 100) COLLATE "C");
        IF v_kind IS NOT NULL AND v_ekind IS NOT NULL AND v_ekind <> v_kind THEN
            RAISE EXCEPTION 'invalid findings[%].kind: % differs from the re-reviewed kind %', v_i,
                quote_literal(v_ekind), quote_literal(v_kind) USING ERRCODE = 'LD003';
        END IF;
        -- the shape is checked: paths is an array of strings, or null
        v_paths := ARRAY(SELECT jsonb_array_elements_text(coalesce(nullif(v_elem -> 'paths', 'null'), '[]')));
        v_state := v_elem ->> 'baseline_state';
        v_supp := nullif(v_elem -> 'suppression', 'null');
        IF v_supp IS NOT NULL THEN
            PERFORM ledger._check_json_shape(v_supp, format('findings[%s].suppression', v_i), v_supp_shape);
            IF NOT v_supp ->> 'kind' IN ('inSource', 'external') THEN
                RAISE EXCEPTION 'invalid findings[%].suppression.kind: % is not one of inSource, external', v_i,
                    quote_literal(v_supp ->> 'kind') USING ERRCODE = 'LD003';
            END IF;
            IF NOT coalesce(v_supp ->> 'status', 'accepted') IN ('accepted', 'underReview', 'rejected') THEN
                RAISE EXCEPTION 'invalid findings[%].suppression.status: % is not one of accepted, underReview, rejected',
                    v_i, quote_literal(v_supp ->> 'status') USING ERRCODE = 'LD003';
            END IF;
            -- an accepted suppression: not an active finding, so not present
            CONTINUE WHEN coalesce(v_supp ->> 'status', 'accepted') = 'accepted';
        END IF;
        -- the tool says it no longer reports this one: not present
        CONTINUE WHEN v_state = 'absent';
        v_before := nullif(v_befores -> v_key, 'null');
        SELECT r.* INTO v_rep FROM ledger._report_finding(
            p_scope => v_scope, p_finding_key => v_key,
            p_title => ledger._check_text(v_elem ->> 'title', format('findings[%s].title', v_i), true, 1000),
            p_description => v_elem ->> 'description', p_paths => v_paths,
            p_kind => coalesce(v_ekind, v_kind, 'review'),
            p_severity => coalesce(v_elem ->> 'severity', 'medium'),
            p_source => coalesce(v_elem ->> 'source', v_source, v_run),
            p_review_run => v_run) AS r;
        v_present := v_present || v_rep.finding_id;
        -- a re-analysis moves a re-reported finding to where the tool reports it now
        IF v_source IS NOT NULL AND v_rep.outcome IN ('duplicate', 'reopened') THEN
            UPDATE ledger.finding f
               SET paths = v_paths, anchors = NULL
             WHERE f.id = v_rep.finding_id
            RETURNING f.anchors INTO v_after;
            IF v_after IS DISTINCT FROM v_before THEN
                INSERT INTO ledger.supersession (scope, finding_id, action, rule, evidence, detail, actor)
                VALUES (v_scope, v_rep.finding_id, 'anchor_moved', v_rule, v_run,
                        v_detail || jsonb_strip_nulls(jsonb_build_object('from', v_before, 'to', v_after,
                                                                         'baseline_state', v_state)),
                        v_actor);
                anchors_moved := anchors_moved + 1;
            END IF;
        END IF;
        CASE v_rep.outcome
            WHEN 'new' THEN added := added + 1;
            WHEN 'duplicate' THEN kept := kept + 1;
            WHEN 'reopened' THEN reopened := reopened + 1;
            ELSE still_dismissed := still_dismissed + 1;
        END CASE;
    END LOOP;

    IF v_mode = 'off' THEN
        RETURN NEXT;
        RETURN;
    END IF;

    -- absent: the locked findings still active (of the kind) and not in the new set
    -- (a hashed EXCEPT, not a scan of the set per finding); their locks are held. The ids
    -- drive the join (hashed, or a probe of finding_pkey each): a join filter walking the ids
    -- once per active finding, planned while the table looked empty, was O(N^2)
    SELECT array_agg(f.id ORDER BY f.id) INTO v_absent
      FROM (SELECT c.id FROM unnest(v_locked) AS c(id)
            EXCEPT
            SELECT p.id FROM unnest(v_present) AS p(id)) AS a
      JOIN ledger.finding f ON f.id = a.id
     WHERE f.superseded_at IS NULL
       AND (v_kind IS NULL OR f.kind = v_kind);
    IF v_absent IS NULL THEN
        RETURN NEXT;
        RETURN;
    END IF;
    -- the baseline states and accepted suppressions of the set, by key, for the audit's detail
    SELECT coalesce(jsonb_object_agg(s.key, s.state) FILTER (WHERE s.state IS NOT NULL), '{}'),
           coalesce(jsonb_object_agg(s.key, jsonb_build_object('status', 'accepted') || s.supp)
                        FILTER (WHERE s.supp IS NOT NULL AND coalesce(s.supp ->> 'status', 'accepted') = 'accepted'),
                    '{}')
      INTO v_states, v_supps
      FROM (SELECT btrim(e ->> 'finding_key', E' \t\r\n\f\x0b') AS key, e ->> 'baseline_state' AS state,
                   nullif(e -> 'suppression', 'null') AS supp
              FROM jsonb_array_elements(p_findings) AS e) AS s
     WHERE s.state IS NOT NULL OR s.supp IS NOT NULL;

    INSERT INTO ledger.supersession (scope, finding_id, action, rule, evidence, detail, actor)
    SELECT v_scope, a.id, CASE v_mode WHEN 'dry' THEN 'would_supersede' ELSE 'superseded' END,
           v_rule, v_run,
           v_detail || jsonb_strip_nulls(jsonb_build_object('set_size', v_i,
                                                            'baseline_state', v_states ->> f.finding_key,
                                                            'suppression', v_supps -> f.finding_key)),
           v_actor
      FROM unnest(v_absent) AS a(id)
      JOIN ledger.finding f ON f.id = a.id
     ORDER BY a.id;

    IF v_mode = 'dry' THEN
        would_supersede := cardinality(v_absent);
    ELSE
        UPDATE ledger.finding f
           SET superseded_at = now(),
               superseded_by = v_run,
               superseded_by_merge_id = NULL,
               supersede_rule = v_rule
         WHERE f.id = ANY (v_absent);
        superseded := cardinality(v_absent);
    END IF;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.replace_findings(text, text, text, jsonb, text, text, text) IS
'A re-review''s complete new set for a scope (and optionally a kind): present findings are added, kept or reopened (dismissed ones stay dismissed), absent active ones are superseded with rule rereview (audited first; dry: would_supersede; off: nothing). With tool (and category): a re-analysis replacing only the findings whose source is tool or tool/category, rule reanalysis, re-reported findings take the new paths and anchors (audited anchor_moved), baseline_state absent counts as not present. An element with an accepted suppression (suppression {kind inSource|external, status accepted (default)|underReview|rejected, justification}) counts as not present, the suppression in the audit detail. Findings locked in one id-ordered pass; SECURITY DEFINER (ledger_writer). (scope, kind, review_run, findings jsonb array of {finding_key, title, description, paths, severity, kind, source, baseline_state, suppression}: other fields and other JSON types are LD003, actor, tool, category) -> TABLE(added, kept, reopened, still_dismissed, superseded, would_supersede, anchors_moved). Re-reviews of a scope serialise on its scope row. Raises LD001-LD004, LD303, LD401. The caller must hold ledger_writer, else LD403.';
