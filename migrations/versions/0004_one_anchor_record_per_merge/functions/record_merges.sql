CREATE OR REPLACE FUNCTION ledger.record_merges(p_scope text, p_merges jsonb)
RETURNS TABLE (ord integer, merge_id bigint, recorded boolean, decisions jsonb)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_shape constant jsonb := '{"commit_sha": "text!", "paths": "text[]", "message": "text", "node_id": "text",
                                "merged_at": "text", "branch": "text", "added": "text[]", "deleted": "text[]",
                                "hunks": "object"}'::jsonb;
    v_limit constant integer := 10000;
    v_iso   constant text := '^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$';
    v_scope text;
    v_shas  text[];
    v_pre   bigint[];
    v_new   bigint[];
    v_ord   bigint;
    v_at    text;
    v_elem  jsonb;
    v_state text;
    v_msg   text;
    v_hint  text;
BEGIN
    PERFORM ledger._require_role('ledger_writer', 'ledger.record_merges');
    v_scope := ledger._check_scope(p_scope, 'merge.scope');
    IF p_merges IS NULL OR jsonb_typeof(p_merges) <> 'array' THEN
        RAISE EXCEPTION 'invalid merges: expected an array of merge objects, got %',
            coalesce(left(p_merges::text, 200), 'NULL') USING ERRCODE = 'LD003';
    END IF;
    IF jsonb_array_length(p_merges) > v_limit THEN
        RAISE EXCEPTION 'merges too long: % merges, at most % per call', jsonb_array_length(p_merges), v_limit
            USING ERRCODE = 'LD004', HINT = 'record them in batches';
    END IF;
    PERFORM ledger._check_json_shape(e.elem, format('merges[%s]', e.i), v_shape)
       FROM jsonb_array_elements(p_merges) WITH ORDINALITY AS e(elem, i);
    SELECT e.i, e.elem ->> 'merged_at' INTO v_ord, v_at
      FROM jsonb_array_elements(p_merges) WITH ORDINALITY AS e(elem, i)
     WHERE e.elem ->> 'merged_at' !~ v_iso
     ORDER BY e.i LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'invalid merges[%].merged_at: % is not an ISO 8601 time with its offset', v_ord,
            quote_literal(v_at) USING ERRCODE = 'LD003', HINT = 'write it as 2026-06-01T12:00:00+00:00';
    END IF;
    BEGIN  -- one cast of every value (a subtransaction per call); the element looked for only when one fails
        PERFORM (e.elem ->> 'merged_at')::timestamptz FROM jsonb_array_elements(p_merges) AS e(elem);
    EXCEPTION WHEN data_exception THEN
        FOR v_ord, v_at IN SELECT e.i, e.elem ->> 'merged_at'
                             FROM jsonb_array_elements(p_merges) WITH ORDINALITY AS e(elem, i) ORDER BY e.i LOOP
            BEGIN
                PERFORM v_at::timestamptz;
            EXCEPTION WHEN data_exception THEN
                RAISE EXCEPTION 'invalid merges[%].merged_at: % is not a time (%)', v_ord, quote_literal(v_at),
                    SQLERRM USING ERRCODE = 'LD003';
            END;
        END LOOP;
        RAISE;
    END;
    IF jsonb_array_length(p_merges) = 0 THEN
        RETURN;
    END IF;

    BEGIN  -- a row's error is located in its element only when there is one (a subtransaction per call)
        -- each element's normalised sha, and the merge recorded for it before this batch (what a
        -- record_merge of the element would find, unaffected by later elements)
        SELECT array_agg(x.sha ORDER BY x.i), array_agg(ledger._recorded_merge(v_scope, x.sha) ORDER BY x.i)
          INTO v_shas, v_pre
          FROM (SELECT e.i, ledger._check_commit_sha(e.elem ->> 'commit_sha', 'merge.commit_sha') AS sha
                  FROM jsonb_array_elements(p_merges) WITH ORDINALITY AS e(elem, i)) AS x;

        WITH ins AS (
            SELECT n.id, n.commit_sha FROM ledger._insert_merges(p_scope, p_merges) AS n
        )
        -- per element, the merge it inserted: the first element whose sha is an inserted row's
        SELECT array_agg(f.id ORDER BY x.i) INTO v_new
          FROM unnest(v_shas) WITH ORDINALITY AS x(sha, i)
          LEFT JOIN LATERAL (SELECT ins.id FROM ins WHERE ins.commit_sha = x.sha
                                AND NOT (x.sha = ANY (v_shas[1:x.i - 1]))) AS f ON true;
    EXCEPTION WHEN SQLSTATE 'LD001' OR SQLSTATE 'LD002' OR SQLSTATE 'LD003' OR SQLSTATE 'LD004'
                   OR SQLSTATE 'LD007' THEN
        -- which element: the elements again one by one, in order, until one fails the same
        -- way; the error that follows leaves nothing of them written
        GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_msg = MESSAGE_TEXT, v_hint = PG_EXCEPTION_HINT;
        FOR v_ord, v_elem IN SELECT e.i, e.elem FROM jsonb_array_elements(p_merges) WITH ORDINALITY AS e(elem, i)
                              ORDER BY e.i LOOP
            BEGIN
                PERFORM ledger._check_commit_sha(v_elem ->> 'commit_sha', 'merge.commit_sha');
                PERFORM ledger._insert_merges(p_scope, jsonb_build_array(v_elem));
            EXCEPTION WHEN SQLSTATE 'LD001' OR SQLSTATE 'LD002' OR SQLSTATE 'LD003' OR SQLSTATE 'LD004'
                           OR SQLSTATE 'LD007' THEN
                GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_msg = MESSAGE_TEXT, v_hint = PG_EXCEPTION_HINT;
                v_msg := format('merges[%s]: %s', v_ord, v_msg);
                EXIT;
            END;
        END LOOP;
        IF v_hint = '' THEN
            RAISE EXCEPTION USING ERRCODE = v_state, MESSAGE = v_msg;
        END IF;
        RAISE EXCEPTION USING ERRCODE = v_state, MESSAGE = v_msg, HINT = v_hint;
    END;

    RETURN QUERY
    WITH each AS (
        SELECT x.i::integer AS i,
               v_new[x.i] IS NOT NULL AS inserted,
               coalesce(v_new[x.i], v_pre[x.i],
                        -- an earlier element of the batch inserted it (the same sha, or one abbreviating the other)
                        (SELECT v_new[j] FROM generate_series(1, x.i - 1) AS j
                          WHERE v_new[j] IS NOT NULL
                            AND (v_shas[j] = x.sha OR starts_with(v_shas[j], x.sha) OR starts_with(x.sha, v_shas[j]))
                          ORDER BY j LIMIT 1)) AS id
          FROM unnest(v_shas) WITH ORDINALITY AS x(sha, i)
    )
    SELECT each.i,
           each.id,
           each.inserted,
           ledger._merge_audit(each.id)
      FROM each
     ORDER BY each.i;
END
$$;

COMMENT ON FUNCTION ledger.record_merges(text, jsonb) IS
'Record a batch of merges of one scope in one multi-row INSERT ... ON CONFLICT DO NOTHING, in array order, and return per element (ord integer 1-based, merge_id bigint, recorded boolean, decisions jsonb array of {finding_id, action, rule, evidence, reason, detail}), as ledger.record_merge returns for one. p_merges: a JSON array of at most 10,000 {commit_sha (required), paths [text], message, node_id, merged_at (ISO 8601 with offset), branch, added [text], deleted [text], hunks {"<path>": [[old_start, old_count, new_start, new_count], ...]}}. The same decisions as recording them one by one. SECURITY DEFINER (returns audit rows). Raises LD003 (not an array, not an object, unknown field, wrong JSON type, merged_at not ISO 8601 with offset: merges[i].<field>), LD002 (no commit_sha), LD004 (over 10,000), the merge rows'' LD001-LD004 (naming field and value), LD007, LD401; an error leaves nothing of the batch written. The caller must hold ledger_writer, else LD403.';
