CREATE OR REPLACE FUNCTION ledger._evidence_keys(
    p_scope text, p_finding_key text, p_slug text, p_strong_keywords text[], p_title text)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_ws   text[] := ledger._title_sig(p_title);
    v_keys text[] := ARRAY['i' || ledger._evidence_token(p_finding_key),
                           'i' || lower(pg_catalog.normalize(p_slug, 'NFC') COLLATE "C")];
    v_kw   text;
BEGIN
    FOREACH v_kw IN ARRAY coalesce(p_strong_keywords, '{}') LOOP
        v_keys := v_keys || ('i' || ledger._evidence_token(v_kw));
    END LOOP;
    FOR i IN 1 .. cardinality(v_ws) - 2 LOOP
        v_keys := v_keys || ('t' || v_ws[i] || ' ' || v_ws[i + 1] || ' ' || v_ws[i + 2]);
    END LOOP;
    IF cardinality(v_ws) = 2 THEN
        v_keys := v_keys || ('=' || v_ws[1] || ' ' || v_ws[2]);
    END IF;
    RETURN ARRAY(SELECT DISTINCT p_scope || E'\x1f' || k FROM unnest(v_keys) AS k WHERE k IS NOT NULL ORDER BY 1);
END
$$;

COMMENT ON FUNCTION ledger._evidence_keys(text, text, text, text[], text) IS
'Index keys of a finding for message matching: scope || U+001F || (i<token> for key, slug, keywords; t<w1 w2 w3> for title word triples; =<w1 w2> for two-word titles). (scope, finding_key, slug, strong_keywords text[], title) -> text[]. Raises nothing.';
