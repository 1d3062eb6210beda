-- ledger._message_probe_keys(p_scope text, p_message text) -> text[]
--
-- The keys under which the message pre-filter (ledger._message_may_match)
-- probes finding_active_evidence_idx: every form under which
-- ledger._match_message can find an active finding of p_scope named by
-- p_message, built from the whole message (NFC, as the matcher reads it),
-- each prefixed with p_scope || U+001F as the index keys are:
--   'i' || token (at least 3 characters), its file-name slug
--   (ledger._file_slug) and its dated slug ('2026-01-02-<slug>'), for each
--   distinct token of ledger._token_regex, lower-cased in ASCII only
--   (COLLATE "C", as ledger._message_tokens), and for each token broken at a
--   line end ('heart-' / 'beat', joined: 'heart-beat', the alt form);
--   't' || three and '=' || two consecutive significant words
--   (ledger._significant) of the message.
-- Distinct, in no particular order; '{}' for a message without a token.
-- A superset of the matcher's keys: a segment of ledger._message_segments is
-- a run of whole lines, so its tokens and word runs are the message's.
-- Two ways to the same set (tests/decisions/test_message_prefilter.py compares them
-- with a reference tokeniser):
--   * a message with a line end after '-' or '/' (where an alt form can
--     be): one regexp_matches pass with the separator before each token
--     (ledger._token_regex(true)), then window functions for the alt forms
--     and the word runs;
--   * any other message (almost every one): the ASCII-lower-cased message
--     split at ledger._token_split_regex (no capture groups, about half the
--     cost of the pass above), and the word runs from array slices.
-- About 0.6 ms for a 2 KB message (1.1 ms before revision 0018;
-- docs/performance.md). PL/pgSQL with a generic plan, planned once per
-- session. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._message_probe_keys(p_scope text, p_message text)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
-- one generic plan for the session (custom plans are re-made on every call)
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_msg text := coalesce(p_message, '');
    v_tok text[];
    v_sig text[];
    v_n   integer;
BEGIN
    IF v_msg IS NOT NFC NORMALIZED THEN
        v_msg := pg_catalog.normalize(v_msg, 'NFC');
    END IF;
    IF strpos(v_msg, E'-\n') > 0 OR strpos(v_msg, E'/\n') > 0 THEN
        RETURN ARRAY(
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
            ) AS k(x) WHERE k.x IS NOT NULL);
    END IF;
    v_tok := array_remove(regexp_split_to_array(lower(v_msg COLLATE "C") COLLATE "default",
                                                ledger._token_split_regex()), '');
    v_sig := ARRAY(SELECT u.w FROM unnest(v_tok) WITH ORDINALITY AS u(w, o)
                    WHERE ledger._significant(u.w) ORDER BY u.o);
    v_n := cardinality(v_sig);
    RETURN ARRAY(
        SELECT DISTINCT (p_scope || E'\x1f') || k.x FROM (
            SELECT 'i' || f.x
              FROM (SELECT DISTINCT u.w FROM unnest(v_tok) AS u(w)) AS w,
                   LATERAL (VALUES (CASE WHEN char_length(w.w) >= 3 THEN w.w END),
                                   (ledger._file_slug(w.w)),
                                   (substring(w.w, '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)$'))) AS f(x)
            UNION ALL
            SELECT '=' || u.a || ' ' || u.b FROM unnest(v_sig[1:v_n - 1], v_sig[2:v_n]) AS u(a, b)
            UNION ALL
            SELECT 't' || u.a || ' ' || u.b || ' ' || u.c
              FROM unnest(v_sig[1:v_n - 2], v_sig[2:v_n - 1], v_sig[3:v_n]) AS u(a, b, c)
        ) AS k(x) WHERE k.x IS NOT NULL);
END
$$;

COMMENT ON FUNCTION ledger._message_probe_keys(text, text) IS
'The pre-filter''s probe keys of a message: scope || U+001F || (''i'' token of 3+ characters, its file-name and dated slugs, the same of tokens joined across a line end; ''t'' three and ''='' two consecutive significant words), distinct, from the whole NFC message; a superset of ledger._match_message''s keys. (scope text, message text) -> text[], ''{}'' without a token. Split at ledger._token_split_regex, or one regexp_matches pass when a line ends after - or /. Raises nothing.';
