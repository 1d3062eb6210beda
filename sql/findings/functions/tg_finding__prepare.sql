-- ledger.tg_finding__prepare() -> trigger (BEFORE INSERT, trigger
-- _100_prepare, and BEFORE UPDATE OF the written columns, trigger
-- _100_prepare_update, ON ledger.finding)
--
-- Every finding, however it is written (INSERT, multi-row INSERT, COPY, the
-- Python API), passes through here:
--   scope        a scope name (ledger._check_scope: required, single line,
--                <= 200 chars, no comma); the scope row is created with
--                defaults the first time it is named;
--   title        required, single line, <= 1000 chars, trimmed;
--   finding_key  optional stable id, single line, <= 200 chars, trimmed;
--   created_at   on INSERT, finite, not before year 1 and not in the future
--                (ledger._check_timestamp: up to 5 minutes ahead is stored
--                as now(); LD003 otherwise);
--   kind         free text, ASCII lower-cased, <= 100 chars, default 'review';
--   severity     critical | high | medium | low | info (major -> high,
--                minor -> low), ASCII case-insensitive, default 'medium';
--   description  optional, <= 1000000 chars, stored as given ('' -> NULL);
--   source       optional, single line, <= 200 chars;
--   paths        normalised by ledger.normalize_paths (at most 1000), NULL -> {};
--                a line suffix is taken off first and kept as an anchor;
--   anchors      {"<path>": [first_line, last_line]}: the line suffixes of the
--                written paths, src/a.py:42 -> [42, 42], src/a.py:42:7 ->
--                [42, 42], src/a.py:40-48 -> [40, 48] (several suffixes on
--                one file: the range spanning them; the same file also
--                written bare, or a directory: no anchor; line 0: no
--                anchor), over the anchors written with the row (validated:
--                an object whose keys, normalised, are among paths and whose
--                values are [first, last] with 1 <= first <= last); keys no
--                longer among paths are dropped on UPDATE; {} -> NULL;
--   observed_at  NULL -> now(); when the problem was observed, not in the
--                future and not before year 1 (ledger._check_timestamp, as
--                created_at); least(observed_at, created_at) is what merges
--                are compared with;
--   expects      change | present | absent, case-insensitive, default change;
--   task_group   optional, single line, <= 200 chars; on INSERT without one,
--                source when source is a node id ending in :<number>
--                (07_nightshift_standalone_cli:0).
-- Raises LD001 (path), LD002 (required), LD003 (invalid), LD004 (too long),
-- each naming the field and the value; nothing is written on error.
-- Cost (an import runs this once per row): a value that is already what
-- ledger._check_text, _check_scope or _check_timestamp would return is kept
-- without calling them, and ledger._ensure_scope is called only when the
-- scope row is missing; the checks run, with their errors, for every other
-- value. Anchors whose keys are all among the normalised paths (so
-- normalize_path would return each unchanged) and whose values are all
-- valid [first, last] pairs (what an anchor move of a merge writes) are kept
-- as given, checked without a query (ledger._anchors_kept); any other
-- anchors (an empty object included) go through the check of
-- each key, with its errors. An UPDATE that changes nothing but anchors,
-- to anchors of that kind, does not reach this function: the WHEN condition
-- of trigger _100_prepare_update keeps it as given.
-- SET enable_seqscan = off: the scope lookup is an index probe of
-- scope_pkey whatever the statistics say (see ledger._ensure_scope).
CREATE OR REPLACE FUNCTION ledger.tg_finding__prepare()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
AS $$
DECLARE
    v_severity text;
    v_raw      text[];
    v_found    jsonb;
    v_given    jsonb;
    v_key      text;
    v_val      jsonb;
    v_m        text[];
    v_first    bigint;
    v_last     bigint;
    v_dir      boolean;
    v_cut      boolean[];
    v_ws       text;
BEGIN
    -- Fast paths: a value that is already what the check would return (no
    -- white space to trim, no control character, short enough; for scope,
    -- printable ASCII without a comma) is kept without calling the check,
    -- which would return it unchanged; any other value, NULL included, goes
    -- through the check and gets its error.
    NEW.scope := CASE WHEN ledger._scope_kept(NEW.scope) THEN NEW.scope ELSE ledger._check_scope(NEW.scope, 'finding.scope') END;
    NEW.title := CASE WHEN ledger._text_kept(NEW.title, 1000) THEN NEW.title
                      ELSE ledger._check_text(NEW.title, 'finding.title', true, 1000) END;
    IF NOT coalesce(ledger._text_kept(NEW.finding_key, 200), true) THEN
        NEW.finding_key := ledger._check_text(NEW.finding_key, 'finding.finding_key', false, 200);
    END IF;
    -- (a time between 0001-01-02 UTC and now() is what the check returns; the
    -- range also excludes 'infinity' and '-infinity')
    IF TG_OP = 'INSERT' AND NOT coalesce(NEW.created_at BETWEEN '0001-01-02 00:00:00+00' AND now(), true) THEN
        NEW.created_at := ledger._check_timestamp(NEW.created_at, 'finding.created_at');
    END IF;
    NEW.kind := lower(CASE WHEN ledger._text_kept(NEW.kind, 100) THEN NEW.kind
                           ELSE ledger._check_text(coalesce(NEW.kind, 'review'), 'finding.kind', true, 100) END COLLATE "C");
    v_severity := lower(CASE WHEN ledger._text_kept(NEW.severity, 20) THEN NEW.severity
                             ELSE ledger._check_text(coalesce(NEW.severity, 'medium'), 'finding.severity', true, 20) END
                        COLLATE "C");
    NEW.severity := CASE v_severity WHEN 'major' THEN 'high' WHEN 'minor' THEN 'low' ELSE v_severity END;
    IF NEW.severity NOT IN ('critical', 'high', 'medium', 'low', 'info') THEN
        RAISE EXCEPTION 'invalid finding.severity: % (expected critical, high, medium, low or info)',
            quote_literal(v_severity) USING ERRCODE = 'LD003';
    END IF;
    NEW.description := nullif(NEW.description, '');
    IF length(NEW.description) > 1000000 THEN
        RAISE EXCEPTION 'invalid finding.description: % characters, at most 1000000 are accepted',
            length(NEW.description) USING ERRCODE = 'LD004';
    END IF;
    IF NOT coalesce(ledger._text_kept(NEW.source, 200), true) THEN
        NEW.source := ledger._check_text(NEW.source, 'finding.source', false, 200);
    END IF;
    v_raw := NEW.paths;
    -- (the elements joined by U+0001, which no path may contain, so no match spans two)
    IF cardinality(v_raw) <= 1000 AND array_to_string(v_raw, E'\x01') ~ ':[0-9]' THEN
        -- line suffixes become anchors before normalisation takes them off
        v_found := '{}';
        v_ws := ledger._unicode_class('white_space');
        v_cut := array_fill(false, ARRAY[cardinality(v_raw)]);
        FOR i IN 1 .. cardinality(v_raw) LOOP
            -- (the white space ledger.normalize_path trims, no-break space included)
            v_m := regexp_match(v_raw[i], '^[' || v_ws || ']*(.*?)[' || v_ws || ']*:([0-9]+)(?:-([0-9]+)|((?::[0-9]+)*))['
                                          || v_ws || ']*$');
            CONTINUE WHEN v_m IS NULL OR v_m[1] = '';
            -- (leading zeros are accepted: src/a.py:007 is line 7)
            IF length(ltrim(v_m[2], '0')) > 10 OR length(ltrim(coalesce(v_m[3], ''), '0')) > 10 THEN
                v_first := 2147483648;
            ELSE
                v_first := v_m[2]::bigint;
                v_last := coalesce(v_m[3]::bigint, v_first);
            END IF;
            IF greatest(v_first, v_last) > 2147483647 THEN
                RAISE EXCEPTION 'invalid finding.paths[%]: % has a line number out of range (at most 2147483647)',
                    i, quote_literal(v_raw[i]) USING ERRCODE = 'LD003';
            END IF;
            IF v_last < v_first THEN
                RAISE EXCEPTION 'invalid finding.paths[%]: % is a line range that ends before it starts',
                    i, quote_literal(v_raw[i]) USING ERRCODE = 'LD003';
            END IF;
            v_key := ledger.normalize_path(v_m[1], 'finding.paths[' || i || ']');
            v_raw[i] := v_m[1];
            v_cut[i] := true;
            CONTINUE WHEN v_first = 0 OR v_key ~ '/$';
            v_val := v_found -> v_key;
            v_found := v_found || jsonb_build_object(v_key, jsonb_build_array(
                least(v_first, (v_val ->> 0)::bigint), greatest(v_last, (v_val ->> 1)::bigint)));
        END LOOP;
        NEW.paths := ledger.normalize_paths(v_raw, 'finding.paths', 1000);
        IF v_found <> '{}' THEN
            -- a file also written without a suffix is referenced whole: no anchor
            v_found := v_found - ARRAY(
                SELECT ledger.normalize_path(x.p, 'finding.paths') FROM unnest(v_raw, v_cut) AS x(p, cut)
                 WHERE NOT x.cut);
        END IF;
    ELSE
        NEW.paths := ledger.normalize_paths(v_raw, 'finding.paths', 1000);
    END IF;

    v_given := NEW.anchors;
    IF v_given IS NOT NULL AND (TG_OP = 'INSERT' OR v_given IS DISTINCT FROM OLD.anchors)
       AND ledger._anchors_kept(v_given, NEW.paths) THEN
        -- Fast path (an anchor move writes these): every key already one of
        -- the normalised paths (so normalize_path would return it unchanged)
        -- and every value a valid [first, last]: the anchors are kept as given.
        NULL;
    ELSIF v_given IS NOT NULL AND (TG_OP = 'INSERT' OR v_given IS DISTINCT FROM OLD.anchors) THEN
        IF jsonb_typeof(v_given) <> 'object' THEN
            RAISE EXCEPTION 'invalid finding.anchors: % is not an object {"<path>": [first_line, last_line]}',
                left(v_given::text, 200) USING ERRCODE = 'LD003';
        END IF;
        v_val := '{}';
        FOR v_key, v_m IN
            SELECT e.key, ARRAY[jsonb_typeof(e.value), e.value::text,
                                CASE WHEN jsonb_typeof(e.value) = 'array' THEN jsonb_array_length(e.value)::text END]
              FROM jsonb_each(v_given) AS e
        LOOP
            v_dir := false;
            IF v_m[1] = 'array' AND v_m[3] = '2' THEN
                SELECT bool_and(jsonb_typeof(x) = 'number' AND x::text ~ '^[0-9]{1,10}$'
                                AND x::text::bigint BETWEEN 1 AND 2147483647)
                  INTO v_dir FROM jsonb_array_elements(v_m[2]::jsonb) AS x;
                v_dir := v_dir AND (v_m[2]::jsonb ->> 0)::bigint <= (v_m[2]::jsonb ->> 1)::bigint;
            END IF;
            IF NOT v_dir THEN
                RAISE EXCEPTION 'invalid finding.anchors[%]: % is not [first_line, last_line] with 1 <= first_line <= last_line',
                    quote_literal(v_key), left(v_m[2], 200) USING ERRCODE = 'LD003';
            END IF;
            v_m[1] := ledger.normalize_path(v_key, 'finding.anchors');
            IF v_val ? v_m[1] THEN
                RAISE EXCEPTION 'invalid finding.anchors[%]: names %, as key % does (two keys name one path)',
                    quote_literal(v_key), quote_literal(v_m[1]),
                    quote_literal((SELECT e.key FROM jsonb_each(v_given) AS e
                                    WHERE e.key <> v_key AND ledger.normalize_path(e.key, 'finding.anchors') = v_m[1]
                                    LIMIT 1))
                    USING ERRCODE = 'LD003';
            END IF;
            IF NOT v_m[1] = ANY (NEW.paths) OR v_m[1] ~ '/$' THEN
                RAISE EXCEPTION 'invalid finding.anchors[%]: % is not one of the finding''s file paths %',
                    quote_literal(v_key), quote_literal(v_m[1]), NEW.paths::text USING ERRCODE = 'LD003';
            END IF;
            v_val := v_val || jsonb_build_object(v_m[1], v_m[2]::jsonb);
        END LOOP;
        v_given := v_val;
    ELSIF v_given IS NOT NULL AND NEW.paths IS DISTINCT FROM OLD.paths THEN
        v_given := v_given - ARRAY(SELECT k FROM jsonb_object_keys(v_given) AS k WHERE NOT k = ANY (NEW.paths));
    END IF;
    NEW.anchors := nullif(coalesce(v_given, '{}') || coalesce(v_found, '{}'), '{}');

    IF NEW.observed_at IS NULL THEN
        NEW.observed_at := now();
    ELSIF (TG_OP = 'INSERT' OR NEW.observed_at IS DISTINCT FROM OLD.observed_at)
          AND NOT NEW.observed_at BETWEEN '0001-01-02 00:00:00+00' AND now() THEN
        NEW.observed_at := ledger._check_timestamp(NEW.observed_at, 'finding.observed_at');
    END IF;
    v_raw := ARRAY[lower(CASE WHEN ledger._text_kept(NEW.expects, 20) THEN NEW.expects
                              ELSE ledger._check_text(coalesce(NEW.expects, 'change'), 'finding.expects', true, 20) END
                         COLLATE "C")];
    IF v_raw[1] NOT IN ('change', 'present', 'absent') THEN
        RAISE EXCEPTION 'invalid finding.expects: % (expected change, present or absent)',
            quote_literal(NEW.expects) USING ERRCODE = 'LD003';
    END IF;
    NEW.expects := v_raw[1];
    IF NOT coalesce(ledger._text_kept(NEW.task_group, 200), true) THEN
        NEW.task_group := ledger._check_text(NEW.task_group, 'finding.task_group', false, 200);
    END IF;
    IF TG_OP = 'INSERT' AND NEW.task_group IS NULL AND NEW.source ~ '.:[0-9]+$' THEN
        NEW.task_group := NEW.source;
    END IF;
    -- the scope row exists (the common case): no call; the lookup is an index
    -- probe of scope_pkey (SET enable_seqscan = off, see _ensure_scope)
    IF (TG_OP = 'INSERT' OR NEW.scope IS DISTINCT FROM OLD.scope)
       AND NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = NEW.scope) THEN
        PERFORM ledger._ensure_scope(NEW.scope);
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__prepare() IS
'BEFORE INSERT/UPDATE trigger on ledger.finding: validates and normalises scope, title, finding_key, kind, severity, description, source, paths (line suffixes kept as anchors {"<path>": [first, last]}), anchors, observed_at (NULL -> now()), expects (change|present|absent), task_group (default: a source node id ending in :<number>); creates the scope on first use. Raises LD001-LD004 naming field and value.';
