-- ledger._message_may_match(p_scope text, p_message text) -> boolean
--
-- The message pre-filter of ledger._merge_decisions: false only when
-- ledger._match_message(p_scope, p_message) is certain to find nothing, so
-- that the full tokeniser (ledger._message_tokens, a PL/pgSQL loop over the
-- characters' tokens) and the matcher run only when some active finding of
-- the scope could match.
--   * A message without a single token (ledger._token_regex, after NFC;
--     a message already in NFC, as ASCII always is, is not normalised
--     again): false; it can name nothing.
--   * A message with a code span or fence made of backticks, an HTML comment
--     ('<!--') or a carriage return: true (not modelled here; the full
--     matcher decides).
--   * Otherwise every segment of ledger._message_segments is a run of whole
--     lines of the NFC message, so its tokens, their line-end joined forms
--     (alt) and its consecutive significant words are those of the message
--     as a whole, read in one regexp_matches pass: the probe keys built
--     from the whole message (the same forms as ledger._match_message's:
--     'i' || token of at least 3 characters, its joined form, its file-name
--     slug and its dated slug; 't' || three and '=' || two consecutive
--     significant words) are a superset of the matcher's, and one probe of
--     finding_active_evidence_idx says whether any active finding of the
--     scope carries one of them. The token forms are built from the
--     message's distinct tokens (a message repeats most of its words), the
--     word runs from all of them in order.
-- So a false is exact and a true may be a finding that does not match in
-- the end (its evidence inside one segment only, a triple across two).
-- tests/test_message_prefilter.py checks false => no match on random
-- messages. Cost: one regular-expression pass and one GIN probe (about
-- 1.7 ms for a 2 KB message, docs/performance.md); PL/pgSQL with a
-- generic plan, so that the query is planned once per session.
-- Raises nothing.
CREATE OR REPLACE FUNCTION ledger._message_may_match(p_scope text, p_message text)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
-- one generic plan for the session (custom plans, re-made on every call,
-- cost 0.5 ms of planning and probe the same index)
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_msg text := coalesce(p_message, '');
BEGIN
    IF v_msg IS NOT NFC NORMALIZED THEN
        v_msg := pg_catalog.normalize(v_msg, 'NFC');
    END IF;
    IF v_msg !~ ledger._token_regex(false) THEN
        RETURN false;
    END IF;
    IF strpos(v_msg, '`') > 0 OR strpos(v_msg, '<!--') > 0 OR strpos(v_msg, E'\r') > 0 THEN
        RETURN true;
    END IF;
    -- count(*), not EXISTS: under EXISTS the planner costs for the first row
    -- and a sequential scan with the && filter looks cheaper than the index
    RETURN (
        WITH t AS MATERIALIZED (
            -- ASCII-only lower case (COLLATE "C"), as ledger._message_tokens; the
            -- keys then go back to the default collation, the evidence index's
            -- (a "C" array would not match the index expression's collation)
            SELECT r.o, lower(r.m[2] COLLATE "C") COLLATE "default" AS norm,
                   CASE WHEN strpos(r.m[1], E'\n') = 2 AND r.m[1] ~ '^[-/]\n[[:blank:]]*$'
                        THEN (lower(lag(r.m[2]) OVER (ORDER BY r.o) COLLATE "C") || left(r.m[1], 1)
                              || lower(r.m[2] COLLATE "C")) COLLATE "default" END AS alt
              FROM regexp_matches(v_msg, ledger._token_regex(true), 'g') WITH ORDINALITY AS r(m, o)
        ), words AS MATERIALIZED (
            SELECT DISTINCT x.w FROM t, LATERAL (VALUES (t.norm), (t.alt)) AS x(w) WHERE x.w IS NOT NULL
        ), sh AS (
            SELECT s.norm || ' ' || lead(s.norm, 1) OVER w || ' ' || lead(s.norm, 2) OVER w AS sh3,
                   s.norm || ' ' || lead(s.norm, 1) OVER w AS sh2
              FROM t AS s WHERE ledger._significant(s.norm) WINDOW w AS (ORDER BY s.o)
        )
        SELECT count(*) FROM ledger.finding f
         WHERE ledger._evidence_keys(f.scope, f.finding_key, f.slug, f.strong_keywords, f.title)
                   OPERATOR(pg_catalog.&&) ARRAY(
                       -- scope-prefixed as the index keys (ledger._scoped_paths, written out:
                       -- a call of that SQL function is planned on every execution)
                       SELECT DISTINCT (p_scope || E'\x1f') || k.x FROM (
                           SELECT 'i' || w.w FROM words AS w WHERE char_length(w.w) >= 3
                           UNION ALL
                           SELECT 'i' || ledger._file_slug(w.w) FROM words AS w
                           UNION ALL
                           SELECT 'i' || substring(w.w, '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)$') FROM words AS w
                           UNION ALL
                           SELECT 't' || sh.sh3 FROM sh
                           UNION ALL
                           SELECT '=' || sh.sh2 FROM sh
                       ) AS k(x) WHERE k.x IS NOT NULL)
           AND f.superseded_at IS NULL) > 0;
END
$$;

COMMENT ON FUNCTION ledger._message_may_match(text, text) IS
'Message pre-filter: false only when ledger._match_message(scope, message) finds nothing for certain (no token at all, or no active finding of the scope carries any probe key built from the whole message in one regexp pass); true for messages with backticks, <!-- or carriage returns, and whenever a finding could match. (scope text, message text) -> boolean. One GIN probe of finding_active_evidence_idx. Raises nothing.';
