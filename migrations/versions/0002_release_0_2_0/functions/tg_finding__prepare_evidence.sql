CREATE OR REPLACE FUNCTION ledger.tg_finding__prepare_evidence()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_raw text;
    v_kw  text;
    v_i   integer;
    v_out text[] := '{}'::text[];
BEGIN
    IF NEW.slug IS NOT NULL THEN
        v_raw := pg_catalog.normalize(ledger._check_text(NEW.slug, 'finding.slug', false, 200), 'NFC');
        IF v_raw ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}-.+\.[mM][dD]$' THEN
            v_raw := substring(v_raw FROM '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)\.[mM][dD]$');
        END IF;
        IF v_raw !~ ('^' || ledger._token_regex(false) || '$') THEN
            RAISE EXCEPTION 'invalid finding.slug: % is not one token (letters, digits, _, and inner - or .)',
                quote_literal(NEW.slug) USING ERRCODE = 'LD102',
                HINT = 'A findings file YYYY-MM-DD-<slug>.md has the slug <slug>.';
        END IF;
    END IF;
    NEW.slug := v_raw;

    IF cardinality(NEW.strong_keywords) > 100 THEN
        RAISE EXCEPTION 'invalid finding.strong_keywords: % keywords, at most 100 are accepted',
            cardinality(NEW.strong_keywords) USING ERRCODE = 'LD004';
    END IF;
    v_i := 0;
    FOREACH v_raw IN ARRAY coalesce(NEW.strong_keywords, '{}') LOOP
        v_i := v_i + 1;
        IF v_raw IS NULL THEN
            RAISE EXCEPTION 'invalid finding.strong_keywords[%]: NULL is not a keyword', v_i USING ERRCODE = 'LD003';
        END IF;
        v_kw := pg_catalog.normalize(ledger._check_text(v_raw, 'finding.strong_keywords[' || v_i || ']', true, 200), 'NFC');
        IF ledger._evidence_token(v_kw) IS NULL THEN
            RAISE EXCEPTION 'invalid finding.strong_keywords[%]: % is not one distinctive token', v_i, quote_literal(v_raw)
                USING ERRCODE = 'LD101',
                HINT = 'A strong keyword is one token of at least 3 characters with a digit, _, -, . or an inner capital (ECONNRESET, parse_config, F-42); a bare topic word is never evidence.';
        END IF;
        IF NOT lower(v_kw COLLATE "C") = ANY (ARRAY(SELECT lower(o COLLATE "C") FROM unnest(v_out) AS o)) THEN
            v_out := v_out || v_kw;
        END IF;
    END LOOP;
    NEW.strong_keywords := v_out;

    IF cardinality(NEW.tags) > 100 THEN
        RAISE EXCEPTION 'invalid finding.tags: % tags, at most 100 are accepted', cardinality(NEW.tags)
            USING ERRCODE = 'LD004';
    END IF;
    v_out := '{}';
    v_i := 0;
    FOREACH v_raw IN ARRAY coalesce(NEW.tags, '{}') LOOP
        v_i := v_i + 1;
        IF v_raw IS NULL THEN
            RAISE EXCEPTION 'invalid finding.tags[%]: NULL is not a tag', v_i USING ERRCODE = 'LD003';
        END IF;
        v_kw := ledger._check_text(v_raw, 'finding.tags[' || v_i || ']', true, 100);
        IF NOT v_kw = ANY (v_out) THEN
            v_out := v_out || v_kw;
        END IF;
    END LOOP;
    NEW.tags := v_out;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__prepare_evidence() IS
'BEFORE INSERT/UPDATE OF slug, strong_keywords, tags trigger on ledger.finding: slug is one token (a YYYY-MM-DD-<slug>.md file name is reduced to <slug>), each strong keyword one distinctive token, tags single-line; duplicates collapse. Raises LD101 (keyword), LD102 (slug), LD003, LD004 naming field and value.';
