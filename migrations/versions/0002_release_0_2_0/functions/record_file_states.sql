CREATE OR REPLACE FUNCTION ledger.record_file_states(p_merge_id bigint, p_states jsonb)
RETURNS TABLE (finding_id bigint, outcome text, part text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_merge  ledger.merge;
    v_states jsonb := '{}'::jsonb;
    v_keys   jsonb := '{}'::jsonb;
    v_key    text;
    v_val    jsonb;
    v_path   text;
    v_asked  text[];
    v_r      ledger.file_state_request;
    v_fid    bigint;
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.record_file_states');
    IF p_merge_id IS NULL THEN
        RAISE EXCEPTION 'merge_id is required' USING ERRCODE = 'LD002';
    END IF;
    IF p_states IS NULL THEN
        RAISE EXCEPTION 'states is required: {"<path>": "<file text>" | null}' USING ERRCODE = 'LD002';
    END IF;
    SELECT m.* INTO v_merge FROM ledger.merge m WHERE m.id = p_merge_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown merge: merge_id %', p_merge_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_scope_access(v_merge.scope, 'merge.scope');
    IF jsonb_typeof(p_states) <> 'object' THEN
        RAISE EXCEPTION 'invalid states: % is not an object {"<path>": "<file text>" | null}',
            left(p_states::text, 200) USING ERRCODE = 'LD003';
    END IF;
    IF (SELECT count(*) FROM jsonb_object_keys(p_states)) > 10000 THEN
        RAISE EXCEPTION 'invalid states: % paths, at most 10000 are accepted',
            (SELECT count(*) FROM jsonb_object_keys(p_states)) USING ERRCODE = 'LD004';
    END IF;
    v_asked := ARRAY(SELECT DISTINCT p FROM ledger.file_state_request r, unnest(r.paths) AS p
                      WHERE r.merge_id = p_merge_id);
    FOR v_key, v_val IN SELECT e.key, e.value FROM jsonb_each(p_states) AS e ORDER BY e.key LOOP
        v_path := ledger.normalize_path(v_key, format('states[%s]', quote_literal(v_key)));
        IF v_keys ? v_path THEN
            RAISE EXCEPTION 'invalid states[%] and states[%]: both name the path %', v_keys ->> v_path,
                quote_literal(v_key), quote_literal(v_path)
                USING ERRCODE = 'LD003', HINT = 'send each path once';
        END IF;
        v_keys := v_keys || jsonb_build_object(v_path, quote_literal(v_key));
        IF jsonb_typeof(v_val) NOT IN ('string', 'null') THEN
            RAISE EXCEPTION 'invalid states[%]: % is not a file''s text (a string) or null (absent)',
                quote_literal(v_key), left(v_val::text, 200) USING ERRCODE = 'LD003';
        END IF;
        IF octet_length(v_val #>> '{}') > 1048576 THEN
            RAISE EXCEPTION 'invalid states[%]: % bytes, at most 1048576 (1 MiB) per file are accepted',
                quote_literal(v_key), octet_length(v_val #>> '{}') USING ERRCODE = 'LD004';
        END IF;
        IF NOT v_path = ANY (v_asked) THEN
            RAISE EXCEPTION 'invalid states[%]: no file-state request of merge % (%) asked for %; it asked for %',
                quote_literal(v_key), p_merge_id, v_merge.commit_sha, quote_literal(v_path),
                coalesce(array_to_string(v_asked, ', '), 'nothing') USING ERRCODE = 'LD003';
        END IF;
        v_states := v_states || jsonb_build_object(v_path, v_val);
    END LOOP;

    -- the findings first, in id order (the merge trigger's lock order), then the requests
    PERFORM 1 FROM ledger.finding f
     WHERE f.id IN (SELECT r.finding_id FROM ledger.file_state_request r WHERE r.merge_id = p_merge_id)
     ORDER BY f.id FOR NO KEY UPDATE;
    FOR v_r IN
        SELECT r.* FROM ledger.file_state_request r WHERE r.merge_id = p_merge_id ORDER BY r.finding_id FOR UPDATE
    LOOP
        -- a path answered before with another state is a conflict, never overwritten;
        -- a text for a path the merge's own change kinds decided present
        -- (true: exists, text unknown) is that state, told in full
        SELECT s.key INTO v_key FROM jsonb_each(v_states) AS s
         WHERE v_r.states ? s.key AND v_r.states -> s.key IS DISTINCT FROM s.value
           AND NOT (v_r.states -> s.key = 'true'::jsonb AND jsonb_typeof(s.value) = 'string')
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'conflicting states[%] for merge % (%): answered before with another state',
                quote_literal(v_key), p_merge_id, v_merge.commit_sha
                USING ERRCODE = 'LD104', HINT = 'a file''s state at a commit does not change; answer the same text again or leave it out';
        END IF;
        CONTINUE WHEN v_r.answered_at IS NOT NULL;
        v_val := coalesce(v_r.states, '{}'::jsonb)
                 || coalesce((SELECT jsonb_object_agg(s.key, s.value) FROM jsonb_each(v_states) AS s
                               WHERE s.key = ANY (v_r.paths)), '{}'::jsonb);
        CONTINUE WHEN v_val = coalesce(v_r.states, '{}'::jsonb);
        UPDATE ledger.file_state_request r
           SET states = v_val,
               answered_at = CASE WHEN v_val ?& r.paths THEN now() END
         WHERE r.id = v_r.id;
    END LOOP;
    FOR v_fid IN
        SELECT r.finding_id FROM ledger.file_state_request r WHERE r.merge_id = p_merge_id ORDER BY r.finding_id
    LOOP
        PERFORM ledger._settle_checks(v_fid);
    END LOOP;
    RETURN QUERY
    SELECT r.finding_id,
           coalesce(r.outcome, CASE WHEN r.answered_at IS NULL THEN 'pending' ELSE 'waiting' END),
           r.part
      FROM ledger.file_state_request r WHERE r.merge_id = p_merge_id ORDER BY r.finding_id;
END
$$;

COMMENT ON FUNCTION ledger.record_file_states(bigint, jsonb) IS
'Answer a merge''s file-state requests: states {"<path>": "<file text>" | null (absent)} at its commit; a directory key "pkg/" with any string: a file under it. Settles each concerned finding in merge order (it retires at the first merge whose tree makes its check hold, rule check). Idempotent; any order. (merge_id bigint, states jsonb) -> TABLE(finding_id bigint, outcome text: held | failed | moot | overruled | error | waiting | pending, part text). Limits: 1 MiB per file text, 10000 paths. SECURITY DEFINER. Raises LD001, LD002, LD003 (not an object, not a string or null, a path not asked for, two keys naming one path), LD004, LD005 (unknown merge), LD104 (a path answered before with another state; a text for a path the merge decided present is that state), LD401; nothing written on error. The caller must hold ledger_writer, else LD403.';
