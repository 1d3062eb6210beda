CREATE OR REPLACE FUNCTION ledger._match_message(p_scope text, p_message text)
RETURNS TABLE (finding_id bigint, rule text, form text, evidence text, seg integer, pos_from integer,
               pos_to integer, line integer, context text, verdict text, verb text, reason text)
LANGUAGE plpgsql STABLE ROWS 10
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH t AS MATERIALIZED (
        SELECT * FROM ledger._message_tokens(p_message)
    ), s AS MATERIALIZED (
        SELECT t.seg, t.pos, t.norm,
               pg_catalog.row_number() OVER (PARTITION BY t.seg ORDER BY t.pos)::integer AS k
          FROM t WHERE t.sig
    ), sh AS MATERIALIZED (
        SELECT s.seg, s.k, s.pos,
               s.norm || ' ' || pg_catalog.lead(s.norm, 1) OVER w || ' ' || pg_catalog.lead(s.norm, 2) OVER w AS sh3,
               s.norm || ' ' || pg_catalog.lead(s.norm, 1) OVER w AS sh2
          FROM s WINDOW w AS (PARTITION BY s.seg ORDER BY s.k)
    ), cand AS MATERIALIZED (
        SELECT f.id, ledger._evidence_token(f.finding_key) AS key_tok,
               ledger._evidence_token(f.slug) AS slug_tok,
               pg_catalog.lower(pg_catalog.normalize(f.slug, 'NFC') COLLATE "C") AS slug_low,
               ARRAY(SELECT ledger._evidence_token(kw) FROM pg_catalog.unnest(f.strong_keywords) AS kw) AS kw_toks,
               ledger._title_sig(f.title) AS ws,
               ARRAY(SELECT pg_catalog.lower(x COLLATE "C") FROM pg_catalog.unnest(ledger._words(f.title)) WITH ORDINALITY AS u(x, o)
                      ORDER BY u.o) AS wa
          FROM ledger.finding f
         WHERE ledger._evidence_keys(f.scope, f.finding_key, f.slug, f.strong_keywords, f.title)
                   OPERATOR(pg_catalog.&&) ARRAY(
                       -- each segment's keys, by the pre-filter's own key builder
                       SELECT DISTINCT k.x
                         FROM (SELECT pg_catalog.array_agg(t.norm ORDER BY t.pos) AS norms,
                                      pg_catalog.array_agg(t.alt ORDER BY t.pos) AS alts
                                 FROM t GROUP BY t.seg) AS g,
                              pg_catalog.unnest(ledger._token_keys(p_scope, g.norms, g.alts)) AS k(x))
           AND f.superseded_at IS NULL
    ), tw AS MATERIALIZED (
        -- every token, and every token broken at a line end as its joined form
        -- (which spans it and the next token)
        SELECT t.seg, t.pos, t.pos AS pos_to, t.norm AS w FROM t
        UNION ALL
        SELECT t.seg, t.pos, t.pos + 1, t.alt FROM t WHERE t.alt IS NOT NULL
    ), tok_ev AS (
        SELECT c.id, 'key' AS rule, 'key' AS form, t.seg, t.pos, t.pos_to
          FROM cand c JOIN tw t ON t.w = c.key_tok
        UNION ALL
        SELECT c.id, 'slug', 'slug', t.seg, t.pos, t.pos_to
          FROM cand c JOIN tw t ON t.w = c.slug_tok
        UNION ALL
        SELECT c.id, 'slug', 'file_name', t.seg, t.pos, t.pos_to
          FROM cand c JOIN tw t ON ledger._file_slug(t.w) = c.slug_low
        UNION ALL
        SELECT c.id, 'slug', 'dated_slug', t.seg, t.pos, t.pos_to
          FROM cand c JOIN tw t ON pg_catalog.substring(t.w, '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)$') = c.slug_low
        UNION ALL
        SELECT DISTINCT c.id, 'keyword', 'keyword', t.seg, t.pos, t.pos_to
          FROM cand c CROSS JOIN LATERAL pg_catalog.unnest(c.kw_toks) AS kw(tok)
          JOIN tw t ON t.w = kw.tok
    ), pairs AS (
        SELECT c.id, sh.seg, sh.k AS j, g.i
          FROM cand c
          CROSS JOIN LATERAL pg_catalog.generate_series(1, pg_catalog.cardinality(c.ws) - 2) AS g(i)
          JOIN sh ON sh.sh3 = c.ws[g.i] || ' ' || c.ws[g.i + 1] || ' ' || c.ws[g.i + 2]
    ), runs AS (
        SELECT p.id, p.seg, pg_catalog.min(p.j) AS j1, pg_catalog.max(p.j) + 2 AS j2
          FROM (SELECT pairs.*, pairs.j - pg_catalog.row_number() OVER (
                       PARTITION BY pairs.id, pairs.seg, pairs.i - pairs.j ORDER BY pairs.j) AS grp
                  FROM pairs) AS p
         GROUP BY p.id, p.seg, p.i - p.j, p.grp
    ), title_ev AS (
        SELECT DISTINCT r.id, 'title' AS rule,
               CASE WHEN r.j2 - r.j1 + 1 = pg_catalog.cardinality(c.ws) THEN 'whole_title' ELSE 'title_phrase' END AS form,
               r.seg, a.pos AS pos_from, b.pos AS pos_to
          FROM runs r
          JOIN cand c ON c.id = r.id
          JOIN s a ON a.seg = r.seg AND a.k = r.j1
          JOIN s b ON b.seg = r.seg AND b.k = r.j2
    ), short_ev AS (
        -- a title with exactly two significant words counts only when quoted whole
        SELECT c.id, 'title' AS rule, 'exact_title' AS form, sh.seg,
               sh.pos - (pg_catalog.array_position(c.wa, c.ws[1]) - 1) AS pos_from,
               sh.pos - (pg_catalog.array_position(c.wa, c.ws[1]) - 1) + pg_catalog.cardinality(c.wa) - 1 AS pos_to,
               c.wa
          FROM cand c
          JOIN sh ON pg_catalog.cardinality(c.ws) = 2 AND sh.sh2 = c.ws[1] || ' ' || c.ws[2]
    ), pieces AS (
        SELECT e.id, e.rule, e.form, e.seg, e.pos AS pos_from, e.pos_to FROM tok_ev e
        UNION ALL
        SELECT e.id, e.rule, e.form, e.seg, e.pos_from, e.pos_to FROM title_ev e
        UNION ALL
        SELECT e.id, e.rule, e.form, e.seg, e.pos_from, e.pos_to FROM short_ev e
         WHERE e.wa = ARRAY(SELECT t.norm FROM t WHERE t.seg = e.seg AND t.pos BETWEEN e.pos_from AND e.pos_to
                             ORDER BY t.pos)
    )
    SELECT p.id, p.rule, p.form,
           (SELECT pg_catalog.string_agg(CASE WHEN x.pos = p.pos_from THEN x.token ELSE x.gap || x.token END, ''
                                         ORDER BY x.pos)
              FROM t AS x WHERE x.seg = p.seg AND x.pos BETWEEN p.pos_from AND p.pos_to),
           p.seg, p.pos_from, p.pos_to, t.line, t.context,
           CASE WHEN p.rule = 'title' AND t.verdict = 'resolution' AND NOT ledger._object_ends(nx.gap) THEN 'mention'
                ELSE t.verdict END,
           t.verb,
           CASE WHEN p.rule = 'title' AND t.verdict = 'resolution' AND NOT ledger._object_ends(nx.gap)
                THEN pg_catalog.format('the title phrase is not the whole object of "%s": "%s" goes on after it',
                                       t.verb, nx.token)
                ELSE t.reason END
      FROM pieces p
      JOIN t ON t.seg = p.seg AND t.pos = p.pos_from
      LEFT JOIN t AS nx ON nx.seg = p.seg AND nx.pos = p.pos_to + 1
     ORDER BY p.id, p.seg, p.pos_from, p.rule;
END
$$;

COMMENT ON FUNCTION ledger._match_message(text, text) IS
'Every piece of evidence (rule key, slug, keyword, title) a merge message carries about the active findings of a scope, with the exact text (tokens broken at a line end joined), its place, and the verdict/verb/reason of ledger._message_tokens (a title phrase resolves only as the whole object of its verb). (scope text, message text) -> TABLE(finding_id, rule, form, evidence, seg, pos_from, pos_to, line, context, verdict, verb, reason). One GIN probe (finding_active_evidence_idx), then verification. Raises nothing.';
