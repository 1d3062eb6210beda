-- ledger._evidence_keys(p_scope, p_finding_key, p_slug, p_strong_keywords, p_title) -> text[]
--
-- The keys under which a finding is found from the tokens and phrases of a
-- merge message (issue 3, "Performance"); indexed by the GIN expression
-- index finding_active_evidence_idx (active findings only). Each key is
-- scope || U+001F || one of:
--   'i' || token   the key, the slug and every strong keyword in their lookup
--                  form (ledger._evidence_token; a slug always, since a
--                  bare-word slug still counts in its file-name form);
--   't' || w1 w2 w3  every 3 consecutive significant words of the title;
--   '=' || w1 w2     a title with exactly two significant words (it counts
--                    only when quoted whole).
-- A message probes the same forms built from its own tokens, so a merge
-- costs one GIN probe per distinct token and word triple of its message,
-- whatever the number of findings. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._evidence_keys(
    p_scope text, p_finding_key text, p_slug text, p_strong_keywords text[], p_title text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ledger._scoped_paths(p_scope, ARRAY(
        SELECT DISTINCT k.x FROM (
            SELECT 'i' || ledger._evidence_token(p_finding_key)
            UNION ALL
            SELECT 'i' || pg_catalog.lower(pg_catalog.normalize(p_slug, 'NFC'))
            UNION ALL
            SELECT 'i' || ledger._evidence_token(kw) FROM pg_catalog.unnest(p_strong_keywords) AS kw
            UNION ALL
            SELECT 't' || t.ws[i] || ' ' || t.ws[i + 1] || ' ' || t.ws[i + 2]
              FROM (SELECT ledger._title_sig(p_title) AS ws) AS t,
                   pg_catalog.generate_series(1, pg_catalog.cardinality(t.ws) - 2) AS i
            UNION ALL
            SELECT '=' || t.ws[1] || ' ' || t.ws[2]
              FROM (SELECT ledger._title_sig(p_title) AS ws) AS t
             WHERE pg_catalog.cardinality(t.ws) = 2
        ) AS k(x)
        WHERE k.x IS NOT NULL))
$$;

COMMENT ON FUNCTION ledger._evidence_keys(text, text, text, text[], text) IS
'Index keys of a finding for message matching: scope || U+001F || (i<token> for key, slug, keywords; t<w1 w2 w3> for title word triples; =<w1 w2> for two-word titles). (scope, finding_key, slug, strong_keywords text[], title) -> text[]. Raises nothing.';
