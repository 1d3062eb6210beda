"""Conservative commit-message matching (issue 3): findings retired only on
confident evidence, with a per-scope policy, dry runs and a full audit.

Revision ID: 0004_matching
Revises: 0003_lifecycle
Create Date: 2026-11-30

Adds, in schema ``ledger``:

* finding.slug, finding.strong_keywords, finding.tags (evidence a merge
  message can name), validated by trigger _110_evidence;
* scope.enabled_rules, scope.path_supersede_kinds,
  scope.slug_mention_resolves, scope.default_branch (the matching policy,
  with defaults: every rule, the path rule supersedes kind drift only, bare
  slug mentions do not resolve, no default branch), validated by trigger
  _110_policy;
* merge.branch (merges on a branch other than the scope's default_branch
  change nothing), normalised by trigger _110_branch;
* the tokenizer and matcher functions, import_finding, workspace_scope,
  set_match_policy; record_merge gains p_branch and returns reasons;
  tg_merge__supersede is replaced by the combined path + message matcher;
* the GIN expression index finding_active_evidence_idx (message lookups)
  and the unique index finding_scope_slug_key, both built CONCURRENTLY in
  an autocommit block after the rest is committed.

Every column is added as NULL or with a constant default: no table rewrite,
no backfill UPDATE. ADD COLUMN takes a brief ACCESS EXCLUSIVE lock on each
table (catalog only); the indexes are built without blocking writes. If an
index build fails, drop the INVALID index and run the upgrade again.

The SQL below is frozen (tools/freeze_sql.py) and must never be edited; a
later change is a new revision. RESTORE_0001_SQL holds the 0001 text of the
two functions this revision replaces, for the downgrade.
"""

from alembic import op

from findings_ledger.migration_ops import run_sql

revision = "0004_matching"
down_revision = "0003_lifecycle"
branch_labels = None
depends_on = None

COLUMNS = r'''
ALTER TABLE ledger.finding
    ADD COLUMN slug text,
    ADD COLUMN strong_keywords text[] NOT NULL DEFAULT '{}',
    ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
COMMENT ON COLUMN ledger.finding.slug IS
'The findings file slug (YYYY-MM-DD-<slug>.md -> <slug>): one token, unique per scope. A merge message naming it (or the file name) is slug evidence.';
COMMENT ON COLUMN ledger.finding.strong_keywords IS
'Distinctive tokens the finding''s author labelled (error codes, function names): a merge message naming one as a whole token is keyword evidence.';
COMMENT ON COLUMN ledger.finding.tags IS
'Free labels from the findings file; not used for matching.';

ALTER TABLE ledger.scope
    ADD COLUMN enabled_rules text[] NOT NULL DEFAULT '{path,key,slug,keyword,title}',
    ADD COLUMN path_supersede_kinds text[] NOT NULL DEFAULT '{drift}',
    ADD COLUMN slug_mention_resolves boolean NOT NULL DEFAULT false,
    ADD COLUMN default_branch text;
COMMENT ON COLUMN ledger.scope.enabled_rules IS
'Evidence rules in force: a subset of path, key, slug, keyword, title (default all). Evidence of a disabled rule is audited skipped.';
COMMENT ON COLUMN ledger.scope.path_supersede_kinds IS
'Finding kinds the path rule supersedes (default {drift}; * = every kind); for other kinds a path match is only audited as a candidate.';
COMMENT ON COLUMN ledger.scope.slug_mention_resolves IS
'When true, a bare mention of a finding''s slug or file name resolves it (seed 001 rule i); default false: only a resolution verb does.';
COMMENT ON COLUMN ledger.scope.default_branch IS
'When set, merges whose branch is another branch change nothing and are audited skipped; NULL (default) checks no branch.';

ALTER TABLE ledger.merge ADD COLUMN branch text;
COMMENT ON COLUMN ledger.merge.branch IS
'The branch the merge landed on (refs/heads/ dropped); NULL: unknown, never skipped.';

DROP FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz);
'''

FROZEN_SQL = [
    # sql/functions/_token_regex.sql
    r'''
-- ledger._token_regex(p_with_gap boolean) -> text
--
-- The one definition of a message token (issue 3, "as a whole token"): a run
-- of word characters (ASCII letters, digits, '_', and letters outside ASCII:
-- U+00C0-U+1FFF except U+00D7/U+00F7, U+2C00-U+2DFF, U+3040-U+D7FF,
-- U+F900-U+FDFF, U+FE70-U+FEFE, fullwidth letters and digits), optionally
-- joined by single inner '-' or '.' ('F-42', 'auth-0007', 'pyproject.toml',
-- '2026-06-24-drift-frozen.md'). Everything else separates tokens: white
-- space, '/', ',', ':', quotes, brackets, '#', backticks, general
-- punctuation (U+2000-U+206F: dashes, curly quotes), so 'F-42' is a whole
-- token in 'Fixes: F-42,' and 'F-42' is never found inside 'F-421' or
-- 'F-42-fix'.
-- p_with_gap = false: the token alone (one capture group);
-- p_with_gap = true: two capture groups, the separator text before the token
-- and the token, for regexp_matches(..., 'g') over a message.
-- The class is spelled out instead of [[:alnum:]] so that it does not depend
-- on the database's LC_CTYPE. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._token_regex(p_with_gap boolean)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN p_with_gap THEN '([^' || w.c || ']*)([' || w.c || ']+(?:[-.][' || w.c || ']+)*)'
                ELSE '([' || w.c || ']+(?:[-.][' || w.c || ']+)*)' END
      FROM (SELECT 'A-Za-z0-9_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u1FFF\u2C00-\u2DFF\u3040-\uD7FF\uF900-\uFDFF\uFE70-\uFEFE\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A'::text AS c) AS w
$$;

COMMENT ON FUNCTION ledger._token_regex(boolean) IS
'The regular expression of a message token: word characters (ASCII alphanumerics, _, non-ASCII letters) joined by single inner - or . (F-42, pyproject.toml). (with_gap boolean) -> text: one capture group, or two (separator before, token) when with_gap. Independent of LC_CTYPE. Raises nothing.';
''',
    # sql/functions/_words.sql
    r'''
-- ledger._words(p_text text) -> text[]
--
-- The tokens of a short text (a title, a key, a keyword) in order, as
-- written (NFC-normalised, case kept), by the same definition as message
-- tokens (ledger._token_regex). 'Root pyproject.toml is missing' ->
-- {Root, pyproject.toml, is, missing}. NULL -> '{}'. Raises nothing (the
-- database encoding must be UTF8 for the NFC step).
CREATE OR REPLACE FUNCTION ledger._words(p_text text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(array_agg(m[1] ORDER BY o), '{}')
      FROM pg_catalog.regexp_matches(pg_catalog.normalize(coalesce(p_text, ''), 'NFC'),
                                     ledger._token_regex(false), 'g') WITH ORDINALITY AS r(m, o)
$$;

COMMENT ON FUNCTION ledger._words(text) IS
'Tokens of a short text in order, as written (NFC), by the message token definition. text -> text[]. Raises nothing.';
''',
    # sql/functions/_significant.sql
    r'''
-- ledger._significant(p_norm text) -> boolean
--
-- Whether a lower-cased token is a significant word for title matching
-- (issue 3: "at least 3 consecutive significant words" of a title): at least
-- two characters, not an English function word (articles, pronouns,
-- auxiliaries, prepositions, conjunctions, negations; the pieces 'doesn',
-- 't', 's' of contractions), and not a resolution verb (close, closes,
-- closed, fix, fixes, fixed, resolve, resolves, resolved) nor 'supersedes'.
-- Used identically on titles (index side) and messages (lookup side).
-- Raises nothing.
CREATE OR REPLACE FUNCTION ledger._significant(p_norm text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.char_length(p_norm) >= 2
       AND NOT p_norm = ANY ('{a,an,the,and,or,but,nor,if,then,else,of,in,on,at,to,for,from,by,with,without,
            into,onto,about,as,is,are,was,were,be,been,being,am,it,its,this,that,these,those,there,here,
            has,have,had,having,do,does,did,doing,done,not,no,yet,still,so,too,very,can,could,should,
            would,will,shall,may,might,must,when,where,which,who,whom,what,why,how,all,any,some,each,
            every,more,most,other,such,only,own,same,than,just,also,now,up,down,out,over,under,again,
            once,we,you,he,she,they,them,his,her,their,our,your,my,me,us,via,per,etc,don,doesn,didn,
            isn,wasn,aren,won,hasn,haven,can,cannot,
            close,closes,closed,fix,fixes,fixed,resolve,resolves,resolved,supersedes}'::text[])
$$;

COMMENT ON FUNCTION ledger._significant(text) IS
'Whether a lower-cased token counts as a significant word for title matching: >= 2 characters, not a function word, not a resolution verb. text -> boolean. Raises nothing.';
''',
    # sql/functions/_evidence_token.sql
    r'''
-- ledger._evidence_token(p_value text) -> text
--
-- The lookup form of a finding key, slug or strong keyword: its lower-cased
-- NFC text when the value is exactly one message token (ledger._token_regex)
-- AND distinctive; NULL otherwise (such a value is never evidence by itself).
-- Distinctive (issue 3: "a bare topic word is never evidence"): at least 3
-- characters and containing a digit, '_', '-', '.', or an upper-case ASCII
-- letter after the first character ('F-42', 'auth-0007', 'ECONNRESET',
-- 'parseConfig', 'drift-frozen'; not 'dispatcher', 'Cancel', 'ci').
-- Raises nothing.
CREATE OR REPLACE FUNCTION ledger._evidence_token(p_value text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN v IS NULL OR pg_catalog.char_length(v) < 3 THEN NULL
        WHEN v !~ ('^' || ledger._token_regex(false) || '$') THEN NULL
        WHEN v ~ '[0-9_.-]' OR pg_catalog.substr(v, 2) ~ '[A-Z]' THEN pg_catalog.lower(v)
        ELSE NULL END
      FROM (SELECT pg_catalog.normalize(pg_catalog.btrim(p_value), 'NFC') AS v) AS s
$$;

COMMENT ON FUNCTION ledger._evidence_token(text) IS
'Lookup form (lower-case, NFC) of a key, slug or keyword that is one distinctive token (>= 3 chars with a digit, _, -, . or an inner capital); NULL otherwise. text -> text. Raises nothing.';
''',
    # sql/functions/_file_slug.sql
    r'''
-- ledger._file_slug(p_name text) -> text
--
-- The slug of a findings file name in the design record's format
-- 'YYYY-MM-DD-<slug>.md' (seed 001), lower-cased; NULL for any other name.
-- '2026-06-24-drift-frozen.md' -> 'drift-frozen'. Used on message tokens
-- (a file name is one token) and on the base names of a merge's paths.
-- Raises nothing.
CREATE OR REPLACE FUNCTION ledger._file_slug(p_name text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.lower(pg_catalog.substring(p_name, '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)\.[mM][dD]$'))
$$;

COMMENT ON FUNCTION ledger._file_slug(text) IS
'Slug of a YYYY-MM-DD-<slug>.md file name, lower-cased; NULL for other names. text -> text. Raises nothing.';
''',
    # sql/functions/_title_sig.sql
    r'''
-- ledger._title_sig(p_title text) -> text[]
--
-- The significant words of a title in order, lower-cased
-- (ledger._significant over ledger._words): 'Root pyproject.toml is missing
-- nightshift workspace entries' -> {root, pyproject.toml, missing,
-- nightshift, workspace, entries}. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._title_sig(p_title text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(array_agg(w.n ORDER BY w.o), '{}')
      FROM (SELECT pg_catalog.lower(x) AS n, o
              FROM pg_catalog.unnest(ledger._words(p_title)) WITH ORDINALITY AS u(x, o)) AS w
     WHERE ledger._significant(w.n)
$$;

COMMENT ON FUNCTION ledger._title_sig(text) IS
'Significant words of a title, lower-cased, in order. text -> text[]. Raises nothing.';
''',
    # sql/functions/_evidence_keys.sql
    r'''
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
-- whatever the number of findings. PL/pgSQL (not SQL) so that its plan is
-- cached across the rows of an INSERT. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._evidence_keys(
    p_scope text, p_finding_key text, p_slug text, p_strong_keywords text[], p_title text)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_ws   text[] := ledger._title_sig(p_title);
    v_keys text[] := ARRAY['i' || ledger._evidence_token(p_finding_key),
                           'i' || lower(pg_catalog.normalize(p_slug, 'NFC'))];
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
''',
    # sql/functions/_normalize_branch.sql
    r'''
-- ledger._normalize_branch(p_branch text, p_field text) -> text
--
-- A branch name as stored in merge.branch and scope.default_branch:
-- trimmed, single line, at most 255 characters, a leading 'refs/heads/'
-- dropped ('refs/heads/main' -> 'main'). NULL stays NULL. Raises LD003
-- (blank, control character) and LD004 (too long), naming p_field and the
-- value (ledger._check_text).
CREATE OR REPLACE FUNCTION ledger._normalize_branch(p_branch text, p_field text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.regexp_replace(ledger._check_text(p_branch, p_field, false, 255), '^refs/heads/', '')
$$;

COMMENT ON FUNCTION ledger._normalize_branch(text, text) IS
'Normalise a branch name: trimmed, single line, <= 255 chars, refs/heads/ dropped; NULL stays NULL. (branch, field) -> text. Raises LD003, LD004 naming the field and value.';
''',
    # sql/functions/_message_segments.sql
    r'''
-- ledger._message_segments(p_message text) ->
--     TABLE(seg integer, line integer, context text, line_start boolean, body text)
--
-- Splits a merge message into segments, each with the context that decides
-- whether evidence inside it can resolve anything (issue 3: "text inside a
-- code span, a fenced block or an HTML comment, a Revert "..." subject, a
-- kernel-style Fixes: <sha> ("subject") trailer ... is a mention"):
--   text            ordinary prose: the only context where a verb resolves;
--   fenced_block    lines from an opening ``` or ~~~ fence (up to three
--                   spaces of indent) to its closing fence (same character,
--                   at least as long), or to the end of the message;
--   code_span       between a run of N backticks and the next run of exactly
--                   N backticks on the same line (an unmatched run is text);
--   html_comment    from <!-- to the next --> (may span lines);
--   revert_subject  the first non-blank line when it starts with
--                   Revert "  or  Reapply "  (git's revert subjects);
--   commit_trailer  a line  Name: <7-40 hex digits>  optionally followed by
--                   ( ... ): a trailer naming a commit, not a finding;
--   quoted          a line starting with '>' (someone else's words).
-- seg numbers segments in message order, line is the 1-based line number,
-- line_start says the segment starts its line (trailers and
-- conventional-commit headers are recognised only there). Line endings
-- \n and \r\n. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._message_segments(p_message text)
RETURNS TABLE (seg integer, line integer, context text, line_start boolean, body text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 20
SET search_path = pg_catalog
AS $$
DECLARE
    v_lines      text[] := regexp_split_to_array(coalesce(p_message, ''), E'\n');
    v_line       text;
    v_rest       text;
    v_piece      text;
    v_ctx        text;
    v_in_fence   boolean := false;
    v_fence      text;
    v_in_comment boolean := false;
    v_subject    boolean := false;
    v_first      boolean;
    v_k1         integer;
    v_k2         integer;
    v_run        integer;
    v_len        integer;
    v_j          integer;
    v_m          integer;
    v_close      integer;
    v_after      text;
BEGIN
    seg := 0;
    FOR v_i IN 1 .. cardinality(v_lines) LOOP
        v_line := rtrim(v_lines[v_i], E'\r');
        line := v_i;
        IF v_in_fence THEN
            seg := seg + 1; context := 'fenced_block'; line_start := true; body := v_line;
            RETURN NEXT;
            IF v_line ~ ('^ {0,3}' || CASE WHEN left(v_fence, 1) = '`' THEN '`' ELSE '~' END
                         || '{' || length(v_fence) || ',}[ \t]*$') THEN
                v_in_fence := false;
            END IF;
            CONTINUE;
        END IF;
        IF NOT v_in_comment AND v_line ~ '^ {0,3}(`{3,}|~{3,})' THEN
            v_fence := substring(v_line FROM '^ {0,3}(`{3,}|~{3,})');
            v_in_fence := true;
            seg := seg + 1; context := 'fenced_block'; line_start := true; body := v_line;
            RETURN NEXT;
            CONTINUE;
        END IF;

        v_ctx := 'text';
        IF NOT v_subject AND v_line ~ '\S' THEN
            v_subject := true;
            IF v_line ~* '^\s*(revert|reapply)\s+["“]' THEN
                v_ctx := 'revert_subject';
            END IF;
        END IF;
        IF v_ctx = 'text' THEN
            IF v_line ~ '^\s*>' THEN
                v_ctx := 'quoted';
            ELSIF v_line ~ '^\s*[A-Za-z][A-Za-z0-9-]*:\s*[0-9A-Fa-f]{7,40}(\s*\(|\s*$)' THEN
                v_ctx := 'commit_trailer';
            END IF;
        END IF;

        v_rest := v_line;
        v_first := NOT v_in_comment;
        WHILE v_rest <> '' LOOP
            IF v_in_comment THEN
                v_k1 := strpos(v_rest, '-->');
                IF v_k1 = 0 THEN
                    v_piece := v_rest; v_rest := '';
                ELSE
                    v_piece := left(v_rest, v_k1 - 1); v_rest := substr(v_rest, v_k1 + 3);
                    v_in_comment := false;
                END IF;
                IF v_piece <> '' THEN
                    seg := seg + 1; context := 'html_comment'; line_start := false; body := v_piece;
                    RETURN NEXT;
                END IF;
                v_first := false;
                CONTINUE;
            END IF;
            v_k1 := strpos(v_rest, '<!--');
            v_k2 := strpos(v_rest, '`');
            IF v_k1 = 0 AND v_k2 = 0 THEN
                seg := seg + 1; context := v_ctx; line_start := v_first; body := v_rest;
                RETURN NEXT;
                v_rest := '';
                CONTINUE;
            END IF;
            IF v_k1 > 0 AND (v_k2 = 0 OR v_k1 < v_k2) THEN
                IF v_k1 > 1 THEN
                    seg := seg + 1; context := v_ctx; line_start := v_first; body := left(v_rest, v_k1 - 1);
                    RETURN NEXT;
                END IF;
                v_rest := substr(v_rest, v_k1 + 4);
                v_in_comment := true;
                v_first := false;
                CONTINUE;
            END IF;
            -- a run of backticks opens a code span if the same run closes it on this line
            v_run := length(substring(substr(v_rest, v_k2) FROM '^`+'));
            v_after := substr(v_rest, v_k2 + v_run);
            v_close := 0;
            v_j := 1;
            LOOP
                v_m := strpos(substr(v_after, v_j), '`');
                EXIT WHEN v_m = 0;
                v_m := v_j + v_m - 1;
                v_len := length(substring(substr(v_after, v_m) FROM '^`+'));
                IF v_len = v_run THEN
                    v_close := v_m;
                    EXIT;
                END IF;
                v_j := v_m + v_len;
            END LOOP;
            IF v_close = 0 THEN
                seg := seg + 1; context := v_ctx; line_start := v_first; body := left(v_rest, v_k2 + v_run - 1);
                RETURN NEXT;
                v_rest := v_after;
            ELSE
                IF v_k2 > 1 THEN
                    seg := seg + 1; context := v_ctx; line_start := v_first; body := left(v_rest, v_k2 - 1);
                    RETURN NEXT;
                END IF;
                IF v_close > 1 THEN
                    seg := seg + 1; context := 'code_span'; line_start := false; body := left(v_after, v_close - 1);
                    RETURN NEXT;
                END IF;
                v_rest := substr(v_after, v_close + v_run);
            END IF;
            v_first := false;
        END LOOP;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger._message_segments(text) IS
'Split a merge message into segments with a context: text, fenced_block, code_span, html_comment, revert_subject, commit_trailer, quoted. text -> TABLE(seg integer, line integer, context text, line_start boolean, body text). Only text can resolve a finding. Raises nothing.';
''',
    # sql/functions/_message_tokens.sql
    r'''
-- ledger._message_tokens(p_message text) ->
--     TABLE(seg integer, pos integer, line integer, context text, token text, norm text,
--           gap text, sig boolean, verdict text, verb text, reason text)
--
-- Tokenises a merge message once (NFC, ledger._message_segments, then
-- ledger._token_regex within each segment) and decides for every token
-- whether the message asserts resolution of it (issue 3, "Evidence a merge
-- message can carry"). One row per token: seg and pos (1-based within the
-- segment), line, the segment's context, the token as written, norm (lower
-- case), gap (the separator text before it), sig (ledger._significant), and:
--   verdict  'resolution'  a resolution verb governs it;
--            'bare'        plain text that no verb governs (a bare mention);
--            'mention'     anything else that cannot resolve;
--   verb     the governing (or negated) verb as written, with its colon;
--   reason   why, in words.
-- Rules, only in 'text' segments (other contexts are always mentions):
--  * verbs: close, closes, closed, fix, fixes, fixed, resolve, resolves,
--    resolved as whole tokens, any case; resolution trailers at the start of
--    a line: Supersedes: and Closes-Bug: (besides the verbs themselves,
--    e.g. Fixes:, Closes:, Resolves:). Any other 'Name:' at line start is a
--    trailer that does not resolve (Refs:, Partial-Bug:, Related-Bug:).
--  * a verb governs the first token after it, past an optional colon, '!',
--    quotes, '(', '[', '#', '*' and filler words (a, an, the, this, that,
--    these, those, finding(s), issue(s), bug(s), ticket(s), problem(s),
--    drift, item(s)); conventional-commit headers 'fix(scope)!: ...' skip
--    their scope (tokens in it are mentions).
--    When that token starts a '/'-joined path whose last part is a findings
--    file name (findings/2026-06-24-slug.md), the verb governs the path.
--    A verb directly followed by another verb hands over to it
--    ('fix: close F-42').
--  * lists: when that first token is identifier-like (a digit, '_', '-',
--    '.', or an inner capital: 'F-41', 'auth-0007') the verb also governs the
--    identifier-like tokens that follow it separated by ',', '&', '+',
--    'and' or ', and' ('Fixes F-41, F-42 and F-43'). A plain word, any other
--    separator (space, '/', 'or', ';') or the end of the segment ends the
--    list: 'Fixes F-41, see F-42' resolves only F-41.
--  * negations and hedges: a verb preceded within its clause (up to four
--    tokens back, not across , . ; ! ?) by not, no, never, cannot, a
--    contraction (doesn't, don't, didn't, won't, isn't, ...), partially,
--    partly, partial, half, almost, nearly, incompletely, might, may, maybe,
--    could, should, would, will, to, try/tries/tried/trying, attempt(s/ed),
--    help(s/ed), wip, unable, fail(s/ed) governs only mentions; so does a
--    verb used as an adjective after a, an, the ('the fixed F-42 timeout').
--    A later partially, partly, partial, incompletely or 'in part' in the
--    same sentence turns the resolutions of that sentence into mentions.
-- Raises nothing.
CREATE OR REPLACE FUNCTION ledger._message_tokens(p_message text)
RETURNS TABLE (seg integer, pos integer, line integer, context text, token text, norm text,
               gap text, sig boolean, verdict text, verb text, reason text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 100
SET search_path = pg_catalog
AS $$
DECLARE
    c_verbs   CONSTANT text[] := '{close,closes,closed,fix,fixes,fixed,resolve,resolves,resolved}';
    c_trailer CONSTANT text[] := '{supersedes,closes-bug}';
    c_fillers CONSTANT text[] := '{a,an,the,this,that,these,those,finding,findings,issue,issues,bug,bugs,
        ticket,tickets,problem,problems,drift,item,items}';
    c_hedges  CONSTANT text[] := '{not,no,never,cannot,don,doesn,didn,won,isn,wasn,aren,hasn,haven,hadn,
        shouldn,wouldn,couldn,partially,partly,partial,half,almost,nearly,incompletely,might,may,maybe,
        could,should,would,will,to,try,tries,tried,trying,attempt,attempts,attempted,attempting,help,
        helps,helped,wip,unable,fail,fails,failed}';
    c_partial CONSTANT text[] := '{partially,partly,partial,incompletely}';
    c_obj_gap CONSTANT text := '^[[:space:]:"''“”‘’(\[#*!]*$';
    v_s       record;
    v_tok     text[];
    v_gap     text[];
    v_norm    text[];
    v_verdict text[];
    v_verb    text[];
    v_reason  text[];
    v_default text;
    n         integer;
    i         integer;
    k         integer;
    v_state   text;
    v_cur     text;
    v_neg     text;
    v_and     boolean;
    v_clause  integer[];
    v_free    boolean;
BEGIN
    FOR v_s IN
        SELECT s.seg, s.line, s.context, s.line_start, s.body
          FROM ledger._message_segments(pg_catalog.normalize(coalesce(p_message, ''), 'NFC')) AS s
         ORDER BY s.seg
    LOOP
        SELECT array_agg(r.m[1] ORDER BY r.o), array_agg(r.m[2] ORDER BY r.o)
          INTO v_gap, v_tok
          FROM regexp_matches(v_s.body, ledger._token_regex(true), 'g') WITH ORDINALITY AS r(m, o);
        n := coalesce(cardinality(v_tok), 0);
        CONTINUE WHEN n = 0;
        v_norm := ARRAY(SELECT lower(u.x) FROM unnest(v_tok) WITH ORDINALITY AS u(x, o) ORDER BY u.o);

        v_default := CASE v_s.context
            WHEN 'text' THEN 'no resolution verb governs it'
            WHEN 'code_span' THEN 'inside a code span'
            WHEN 'fenced_block' THEN 'inside a fenced code block'
            WHEN 'html_comment' THEN 'inside an HTML comment'
            WHEN 'revert_subject' THEN 'in a Revert "..." subject'
            WHEN 'commit_trailer' THEN 'in a trailer that names a commit (Fixes: <sha> ("subject"))'
            WHEN 'quoted' THEN 'in a quoted line'
            ELSE 'not prose' END;
        IF v_s.context = 'text' AND v_s.line_start AND n >= 2 AND v_gap[1] ~ '^\s*$' AND v_gap[2] ~ '^\s*:'
           AND v_tok[1] ~ '^[A-Za-z][A-Za-z0-9-]*$'
           AND NOT (v_norm[1] = ANY (c_verbs) OR v_norm[1] = ANY (c_trailer)) THEN
            v_default := format('trailer "%s:" does not resolve', v_tok[1]);
        END IF;
        v_verdict := array_fill(CASE WHEN v_default = 'no resolution verb governs it' THEN 'bare' ELSE 'mention' END,
                                ARRAY[n]);
        v_verb := array_fill(NULL::text, ARRAY[n]);
        v_reason := array_fill(v_default, ARRAY[n]);

        IF v_s.context = 'text' THEN
            v_state := 'idle';
            v_clause := '{}';
            v_and := false;
            v_free := false;
            i := 1;
            WHILE i <= n LOOP
                IF v_gap[i] ~ '[.;!?]' AND NOT (v_free AND v_gap[i] ~ '^\)!?:\s*$') THEN
                    v_clause := '{}';
                END IF;

                IF v_state = 'object' THEN
                    IF (v_gap[i] ~ c_obj_gap OR (v_free AND v_gap[i] ~ '^\)!?:[[:space:]"''“”‘’(\[#*]*$'))
                       AND NOT v_norm[i] = ANY (c_verbs) THEN
                        v_free := false;
                        v_verb[i] := v_cur;
                        IF v_neg IS NULL THEN
                            v_verdict[i] := 'resolution';
                            v_reason[i] := format('"%s" governs it', v_cur);
                            v_clause := v_clause || i;
                        ELSE
                            v_verdict[i] := 'mention';
                            v_reason[i] := format('negated: "%s"', v_neg);
                        END IF;
                        IF v_norm[i] = ANY (c_fillers) AND (i = n OR v_gap[i + 1] <> '/') THEN
                            i := i + 1;
                            CONTINUE;
                        END IF;
                        -- a path 'dir/sub/2026-01-02-slug.md': the verb governs its findings file name
                        k := i;
                        WHILE k < n AND v_gap[k + 1] = '/' LOOP
                            k := k + 1;
                        END LOOP;
                        IF k > i AND ledger._file_slug(v_norm[k]) IS NOT NULL THEN
                            FOR x IN i + 1 .. k LOOP
                                v_verb[x] := v_verb[i];
                                v_verdict[x] := v_verdict[i];
                                v_reason[x] := v_reason[i];
                                IF v_neg IS NULL THEN
                                    v_clause := v_clause || x;
                                END IF;
                            END LOOP;
                            i := k;
                        END IF;
                        IF char_length(v_tok[i]) >= 2 AND (v_tok[i] ~ '[0-9_.-]' OR substr(v_tok[i], 2) ~ '[A-Z]') THEN
                            v_state := 'list';
                            v_and := false;
                        ELSE
                            v_state := 'idle';
                        END IF;
                        i := i + 1;
                        CONTINUE;
                    END IF;
                    v_state := 'idle';
                    v_free := false;
                ELSIF v_state = 'list' THEN
                    IF NOT v_and AND v_norm[i] = 'and' AND v_gap[i] ~ '^["''“”‘’)\]]*\s*,?\s*$' THEN
                        v_and := true;
                        i := i + 1;
                        CONTINUE;
                    END IF;
                    IF ((v_and AND v_gap[i] ~ '^\s*["''“‘(\[#]*$')
                        OR (NOT v_and AND v_gap[i] ~ '^["''“”‘’)\]]*\s*[,&+]\s*["''“‘(\[#]*$'))
                       AND char_length(v_tok[i]) >= 2
                       AND (v_tok[i] ~ '[0-9_.-]' OR substr(v_tok[i], 2) ~ '[A-Z]') THEN
                        v_verb[i] := v_cur;
                        IF v_neg IS NULL THEN
                            v_verdict[i] := 'resolution';
                            v_reason[i] := format('"%s" governs it (list)', v_cur);
                            v_clause := v_clause || i;
                        ELSE
                            v_verdict[i] := 'mention';
                            v_reason[i] := format('negated: "%s"', v_neg);
                        END IF;
                        v_and := false;
                        i := i + 1;
                        CONTINUE;
                    END IF;
                    v_state := 'idle';
                    v_and := false;
                END IF;

                -- idle: a partial marker demotes this sentence's resolutions
                IF (v_norm[i] = ANY (c_partial) OR (v_norm[i] = 'in' AND i < n AND v_norm[i + 1] = 'part'))
                   AND cardinality(v_clause) > 0 THEN
                    FOREACH k IN ARRAY v_clause LOOP
                        v_verdict[k] := 'mention';
                        v_reason[k] := format('partial: "%s %s"', v_verb[k],
                                              CASE WHEN v_norm[i] = 'in' THEN 'in part' ELSE v_tok[i] END);
                    END LOOP;
                    v_clause := '{}';
                END IF;

                -- idle: is this token a resolution verb or trailer?
                IF v_norm[i] = ANY (c_verbs)
                   OR (i = 1 AND v_s.line_start AND v_norm[i] = ANY (c_trailer) AND n >= 2 AND v_gap[2] ~ '^\s*:') THEN
                    IF i > 1 AND v_gap[i] !~ '[.;!?,]' AND v_norm[i - 1] IN ('a', 'an', 'the') THEN
                        i := i + 1;          -- an adjective: 'the fixed timeout'
                        CONTINUE;
                    END IF;
                    v_neg := NULL;
                    k := i - 1;
                    WHILE k >= 1 AND k >= i - 4 AND v_gap[k + 1] !~ '[.;!?,]' LOOP
                        IF v_norm[k] = ANY (c_hedges) THEN
                            -- the words from the hedge to the verb, as written ("doesn't fix")
                            v_neg := v_tok[k] || (SELECT string_agg(v_gap[x] || v_tok[x], '' ORDER BY x)
                                                    FROM generate_series(k + 1, i) AS x);
                        END IF;
                        k := k - 1;
                    END LOOP;
                    v_cur := v_tok[i] || CASE WHEN i < n AND v_gap[i + 1] ~ '^\s*:' THEN ':' ELSE '' END;
                    v_state := 'object';
                    -- conventional commit header: fix(scope)!: ...
                    IF i = 1 AND v_s.line_start AND n >= 2 AND v_gap[2] = '(' THEN
                        FOR k IN 2 .. least(n, 7) LOOP
                            IF k = n OR v_gap[k + 1] ~ '\)' THEN
                                IF k < n AND v_gap[k + 1] ~ '^\)!?:' THEN
                                    FOR x IN 2 .. k LOOP
                                        v_reason[x] := 'in a conventional-commit scope';
                                        v_verdict[x] := 'mention';
                                    END LOOP;
                                    v_cur := v_tok[1] || '(' || array_to_string(v_tok[2:k], ' ') || '):';
                                    v_free := true;
                                    i := k;
                                END IF;
                                EXIT;
                            END IF;
                        END LOOP;
                    END IF;
                END IF;
                i := i + 1;
            END LOOP;
        END IF;

        -- unnest, not v_tok[o]: subscripting a flat text array from SQL is O(n)
        RETURN QUERY
            SELECT v_s.seg, u.o::integer, v_s.line, v_s.context, u.tok, u.nrm, u.gp,
                   ledger._significant(u.nrm), u.vd, u.vb, u.why
              FROM unnest(v_tok, v_norm, v_gap, v_verdict, v_verb, v_reason)
                   WITH ORDINALITY AS u(tok, nrm, gp, vd, vb, why, o);
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger._message_tokens(text) IS
'Tokenise a merge message once and decide per token whether a resolution verb governs it (verdict resolution), it is a bare mention (bare) or anything else (mention), with the verb and the reason. text -> TABLE(seg, pos, line, context, token, norm, gap, sig, verdict, verb, reason). Verbs close/fix/resolve (+s/d), trailers Supersedes:/Closes-Bug:, comma/and lists of identifiers, negations and hedges, code spans, fences, HTML comments, reverts, commit-naming trailers, quotes. Raises nothing.';
''',
    # sql/functions/_match_message.sql
    r'''
-- ledger._match_message(p_scope text, p_message text) ->
--     TABLE(finding_id bigint, rule text, form text, evidence text, seg integer, pos_from integer,
--           pos_to integer, line integer, context text, verdict text, verb text, reason text)
--
-- Every piece of evidence a merge message carries about the ACTIVE findings
-- of p_scope (issue 3), one row per (finding, piece):
--   rule 'key'      the finding_key as a whole token (form 'key');
--   rule 'slug'     the slug as a whole token (form 'slug'), or its file name
--                   YYYY-MM-DD-<slug>.md, any date, also inside a path
--                   (form 'file_name');
--   rule 'keyword'  one of the finding's strong_keywords as a whole token;
--   rule 'title'    at least 3 consecutive significant words of the title
--                   (form 'title_phrase', or 'whole_title' when all of them),
--                   or, for a title with exactly two significant words, the
--                   whole title token for token (form 'exact_title').
-- Keys, slugs and keywords count only in their distinctive lookup form
-- (ledger._evidence_token; a bare-word slug only as a file name); all
-- comparisons ignore ASCII case. evidence is the exact message text of the
-- piece; seg/pos_from/pos_to locate it (ledger._message_tokens), and
-- verdict/verb/reason come from the token that starts it.
--
-- Index-driven: the message's distinct tokens, file-name slugs and
-- significant-word pairs and triples probe the GIN index
-- finding_active_evidence_idx (ledger._evidence_keys) once; only the
-- findings found there are verified. Cost grows with the message and the
-- matches, not with the findings of the scope. jit is off (compiling costs
-- more than a merge's matching). Raises nothing.
CREATE OR REPLACE FUNCTION ledger._match_message(p_scope text, p_message text)
RETURNS TABLE (finding_id bigint, rule text, form text, evidence text, seg integer, pos_from integer,
               pos_to integer, line integer, context text, verdict text, verb text, reason text)
LANGUAGE sql STABLE ROWS 10
SET search_path = pg_catalog
SET jit = off
AS $$
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
               pg_catalog.lower(pg_catalog.normalize(f.slug, 'NFC')) AS slug_low,
               ARRAY(SELECT ledger._evidence_token(kw) FROM pg_catalog.unnest(f.strong_keywords) AS kw) AS kw_toks,
               ledger._title_sig(f.title) AS ws,
               ARRAY(SELECT pg_catalog.lower(x) FROM pg_catalog.unnest(ledger._words(f.title)) WITH ORDINALITY AS u(x, o)
                      ORDER BY u.o) AS wa
          FROM ledger.finding f
         WHERE ledger._evidence_keys(f.scope, f.finding_key, f.slug, f.strong_keywords, f.title)
                   OPERATOR(pg_catalog.&&) ledger._scoped_paths(p_scope, ARRAY(
                       SELECT DISTINCT k.x FROM (
                           SELECT 'i' || t.norm FROM t WHERE pg_catalog.char_length(t.norm) >= 3
                           UNION ALL
                           SELECT 'i' || ledger._file_slug(t.norm) FROM t
                           UNION ALL
                           SELECT 't' || sh.sh3 FROM sh
                           UNION ALL
                           SELECT '=' || sh.sh2 FROM sh
                       ) AS k(x) WHERE k.x IS NOT NULL))
           AND f.superseded_at IS NULL
    ), tok_ev AS (
        SELECT c.id, 'key' AS rule, 'key' AS form, t.seg, t.pos
          FROM cand c JOIN t ON t.norm = c.key_tok
        UNION ALL
        SELECT c.id, 'slug', 'slug', t.seg, t.pos
          FROM cand c JOIN t ON t.norm = c.slug_tok
        UNION ALL
        SELECT c.id, 'slug', 'file_name', t.seg, t.pos
          FROM cand c JOIN t ON ledger._file_slug(t.norm) = c.slug_low
        UNION ALL
        SELECT DISTINCT c.id, 'keyword', 'keyword', t.seg, t.pos
          FROM cand c CROSS JOIN LATERAL pg_catalog.unnest(c.kw_toks) AS kw(tok)
          JOIN t ON t.norm = kw.tok
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
        SELECT e.id, e.rule, e.form, e.seg, e.pos AS pos_from, e.pos AS pos_to FROM tok_ev e
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
           p.seg, p.pos_from, p.pos_to, t.line, t.context, t.verdict, t.verb, t.reason
      FROM pieces p
      JOIN t ON t.seg = p.seg AND t.pos = p.pos_from
     ORDER BY p.id, p.seg, p.pos_from, p.rule
$$;

COMMENT ON FUNCTION ledger._match_message(text, text) IS
'Every piece of evidence (rule key, slug, keyword, title) a merge message carries about the active findings of a scope, with the exact text, its place, and the verdict/verb/reason of ledger._message_tokens. (scope text, message text) -> TABLE(finding_id, rule, form, evidence, seg, pos_from, pos_to, line, context, verdict, verb, reason). One GIN probe (finding_active_evidence_idx), then verification. Raises nothing.';
''',
    # sql/functions/_merge_decisions.sql
    r'''
-- ledger._merge_decisions(p_scope text, p_message text, p_paths text[], p_branch text) ->
--     TABLE(finding_id bigint, action text, rule text, evidence text, reason text, detail jsonb)
--
-- What a merge with this message, these (normalised) touched paths and this
-- branch decides for each active finding of p_scope it carries evidence
-- about, under the scope's policy (issue 3). Changes nothing; the trigger
-- tg_merge__supersede turns it into audit rows and supersessions.
-- Pieces of evidence: ledger._match_message (key, slug, keyword, title) and
-- ledger._match_paths (path). Each piece gets an outcome:
--   supersede  it resolves the finding: a message piece whose verdict is
--              'resolution', or a 'bare' slug piece when the scope's
--              slug_mention_resolves is on (unless the merge touches the
--              finding's own file YYYY-MM-DD-<slug>.md: that commit files
--              or edits the finding), or a path piece for a finding whose
--              kind is in path_supersede_kinds ('*': every kind);
--   ambiguous  it would resolve, but the same text (overlapping tokens) is
--              also evidence for another finding: it supersedes none of them;
--   candidate  a path piece for a kind the path rule does not supersede;
--   mention    anything else (see the reason);
--   skipped    its rule is not in the scope's enabled_rules.
-- A finding's action is its best outcome in that order (rules ranked key,
-- slug, keyword, title, path, then by place); rule, evidence and reason are
-- that piece's. When the scope has a default_branch and p_branch is another
-- branch, every action is 'skipped' (detail.would_be keeps the outcome) and
-- one extra row with finding_id NULL records the skipped merge. A NULL
-- branch is never skipped. detail: {finding_key, slug, title, kind,
-- pieces: [{rule, form, text, line, context, verb, outcome, reason,
-- also_matches, finding_path, touched_path}]} plus finding_path and
-- touched_path when the deciding piece is a path. Rows are ordered by
-- finding_id, the merge row first. jit is off: compiling this query costs
-- a hundred times more than running it on one merge. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._merge_decisions(p_scope text, p_message text, p_paths text[], p_branch text)
RETURNS TABLE (finding_id bigint, action text, rule text, evidence text, reason text, detail jsonb)
LANGUAGE plpgsql STABLE ROWS 10
SET search_path = pg_catalog
SET jit = off
AS $$
DECLARE
    v_policy ledger.scope;
    v_skip   text;
BEGIN
    SELECT sc.* INTO v_policy FROM ledger.scope sc WHERE sc.scope = p_scope;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF v_policy.default_branch IS NOT NULL AND p_branch IS NOT NULL AND p_branch <> v_policy.default_branch THEN
        v_skip := format('merge on branch %s, not on the scope''s default_branch %s', p_branch, v_policy.default_branch);
        finding_id := NULL; action := 'skipped'; rule := NULL; evidence := p_branch; reason := v_skip;
        detail := jsonb_build_object('branch', p_branch, 'default_branch', v_policy.default_branch);
        RETURN NEXT;
    END IF;

    RETURN QUERY
    WITH ev AS (
        SELECT m.finding_id AS fid, m.rule AS r, m.form, m.evidence AS txt, m.seg, m.pos_from, m.pos_to,
               m.line AS ln, m.context AS ctx, m.verdict, m.verb AS vb, m.reason AS why,
               NULL::text AS finding_path
          FROM ledger._match_message(p_scope, p_message) AS m
        UNION ALL
        SELECT p.finding_id, 'path', 'path', p.touched_path, NULL, NULL, NULL, NULL, NULL, 'path', NULL, NULL,
               p.finding_path
          FROM ledger._match_paths(p_scope, coalesce(p_paths, '{}')) AS p
         WHERE cardinality(p_paths) > 0
    ), evf AS MATERIALIZED (
        -- a scalar subquery per piece: always a primary-key lookup, never a scan
        SELECT ev.*, (SELECT f FROM ledger.finding f WHERE f.id = ev.fid) AS f
          FROM ev
    ), ev2 AS (
        SELECT ev.fid, ev.r, ev.form, ev.txt, ev.seg, ev.pos_from, ev.pos_to, ev.ln, ev.ctx, ev.verdict, ev.vb,
               ev.why, ev.finding_path, (ev.f).kind, (ev.f).finding_key, (ev.f).slug, (ev.f).title,
               ev.r = ANY (v_policy.enabled_rules) AS enabled,
               (ev.r = 'slug' AND EXISTS (
                    SELECT 1 FROM unnest(coalesce(p_paths, '{}')) AS mp(path)
                     WHERE ledger._file_slug(substring(mp.path FROM '[^/]*$'))
                           = lower(pg_catalog.normalize((ev.f).slug, 'NFC')))) AS files_it,
               ((ev.f).kind = ANY (v_policy.path_supersede_kinds) OR '*' = ANY (v_policy.path_supersede_kinds))
                   AS path_supersedes
          FROM evf AS ev
    ), ev3 AS (
        SELECT ev2.*,
               CASE
                   WHEN ev2.r = 'path' THEN CASE WHEN ev2.path_supersedes THEN 'resolution' ELSE 'candidate' END
                   WHEN ev2.verdict = 'bare' AND ev2.r = 'slug' AND v_policy.slug_mention_resolves
                        AND NOT ev2.files_it THEN 'resolution'
                   ELSE ev2.verdict END AS verdict2,
               CASE
                   WHEN ev2.r = 'path' AND ev2.path_supersedes
                       THEN format('the merge touched %s, which the finding references as %s (path rule, kind %s)',
                                   ev2.txt, ev2.finding_path, ev2.kind)
                   WHEN ev2.r = 'path'
                       THEN format('the merge touched %s, which the finding references as %s; the path rule only records a candidate for kind %s (path_supersede_kinds %s)',
                                   ev2.txt, ev2.finding_path, ev2.kind, v_policy.path_supersede_kinds::text)
                   WHEN ev2.verdict = 'bare' AND ev2.r = 'slug' AND v_policy.slug_mention_resolves AND ev2.files_it
                       THEN 'a bare mention of the slug, in a merge that touches the finding''s own file'
                   WHEN ev2.verdict = 'bare' AND ev2.r = 'slug' AND v_policy.slug_mention_resolves
                       THEN 'a bare mention of the slug resolves (slug_mention_resolves)'
                   ELSE ev2.why END AS why2
          FROM ev2
    ), ev4 AS (
        SELECT e.*,
               ARRAY(SELECT DISTINCT o.fid FROM ev3 o
                      WHERE o.enabled AND o.r <> 'path' AND e.r <> 'path' AND o.fid <> e.fid
                        AND o.seg = e.seg AND o.pos_from <= e.pos_to AND e.pos_from <= o.pos_to
                      ORDER BY o.fid) AS others
          FROM ev3 e
    ), ev5 AS (
        SELECT e.*,
               CASE
                   WHEN NOT e.enabled THEN 'skipped'
                   WHEN e.verdict2 = 'resolution' AND cardinality(e.others) = 0 THEN 'supersede'
                   WHEN e.verdict2 = 'resolution' THEN 'ambiguous'
                   WHEN e.verdict2 = 'candidate' THEN 'candidate'
                   ELSE 'mention' END AS outcome,
               CASE
                   WHEN NOT e.enabled THEN format('rule %s is not in the scope''s enabled_rules', e.r)
                   WHEN e.verdict2 = 'resolution' AND cardinality(e.others) > 0
                       THEN format('%s, but the same text is also evidence for findings %s', e.why2,
                                   array_to_string(e.others, ', '))
                   ELSE e.why2 END AS why3,
               array_position('{key,slug,keyword,title,path}'::text[], e.r) AS rule_rank
          FROM ev4 e
    ), ranked AS (
        SELECT e.*,
               array_position('{supersede,ambiguous,candidate,mention,skipped}'::text[], e.outcome) AS outcome_rank,
               row_number() OVER (PARTITION BY e.fid
                                  ORDER BY array_position('{supersede,ambiguous,candidate,mention,skipped}'::text[], e.outcome),
                                           e.rule_rank, e.seg NULLS LAST, e.pos_from NULLS LAST, e.txt) AS rn
          FROM ev5 e
    )
    SELECT d.fid,
           CASE WHEN v_skip IS NULL THEN d.outcome ELSE 'skipped' END,
           d.r, d.txt,
           CASE WHEN v_skip IS NULL THEN d.why3 ELSE v_skip END,
           jsonb_strip_nulls(jsonb_build_object(
               'finding_key', d.finding_key, 'slug', d.slug, 'title', d.title, 'kind', d.kind,
               'would_be', CASE WHEN v_skip IS NOT NULL THEN d.outcome END,
               'finding_path', CASE WHEN d.r = 'path' THEN d.finding_path END,
               'touched_path', CASE WHEN d.r = 'path' THEN d.txt END))
           || jsonb_build_object('pieces', (
               SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                          'rule', x.r, 'form', x.form, 'text', x.txt, 'line', x.ln, 'context', x.ctx,
                          'verb', x.vb, 'outcome', x.outcome, 'reason', x.why3,
                          'also_matches', CASE WHEN cardinality(x.others) > 0 THEN to_jsonb(x.others) END,
                          'finding_path', x.finding_path, 'touched_path', CASE WHEN x.r = 'path' THEN x.txt END))
                          ORDER BY x.outcome_rank, x.rule_rank, x.seg NULLS LAST, x.pos_from NULLS LAST, x.txt)
                 FROM ranked x WHERE x.fid = d.fid))
      FROM ranked d
     WHERE d.rn = 1
     ORDER BY d.fid;
END
$$;

COMMENT ON FUNCTION ledger._merge_decisions(text, text, text[], text) IS
'Decisions a merge (message, touched paths, branch) takes for the active findings of a scope under its policy: supersede, ambiguous, candidate, mention or skipped, with the deciding rule, the exact evidence, the reason and every piece in detail. (scope, message, paths text[], branch) -> TABLE(finding_id, action, rule, evidence, reason, detail jsonb). Changes nothing. Raises nothing.';
''',
    # sql/functions/tg_finding__prepare_evidence.sql
    r'''
-- ledger.tg_finding__prepare_evidence() -> trigger (BEFORE INSERT OR UPDATE
-- OF slug, strong_keywords, tags ON ledger.finding, after _100_prepare)
--
-- Validates the columns message matching reads (issue 3), however the row is
-- written:
--   slug             optional; trimmed; a file name YYYY-MM-DD-<slug>.md is
--                    reduced to <slug>; must then be one message token
--                    (letters, digits, '_', inner '-' or '.'), <= 200 chars;
--                    unique per scope (finding_scope_slug_key);
--   strong_keywords  NULL -> '{}'; each trimmed, one distinctive token
--                    (ledger._evidence_token: >= 3 chars with a digit, '_',
--                    '-', '.' or an inner capital, so a bare topic word such
--                    as 'dispatcher' is refused), <= 200 chars; at most 100;
--                    duplicates (ignoring case) collapse;
--   tags             NULL -> '{}'; each trimmed, single line, <= 100 chars;
--                    at most 100; duplicates collapse.
-- Raises LD101 (keyword_rejected) for a strong keyword that is not one
-- distinctive token, LD102 (slug_rejected) for a slug that is not one token,
-- LD003 (NULL element), LD004 (too long / too many), naming the field and
-- the value; nothing is written on error.
CREATE OR REPLACE FUNCTION ledger.tg_finding__prepare_evidence()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_raw text;
    v_kw  text;
    v_i   integer;
    v_out text[] := '{}';
BEGIN
    v_raw := ledger._check_text(NEW.slug, 'finding.slug', false, 200);
    IF v_raw IS NOT NULL THEN
        v_raw := pg_catalog.normalize(v_raw, 'NFC');
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
        IF NOT lower(v_kw) = ANY (ARRAY(SELECT lower(o) FROM unnest(v_out) AS o)) THEN
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
''',
    # sql/functions/tg_scope__prepare_policy.sql
    r'''
-- ledger.tg_scope__prepare_policy() -> trigger (BEFORE INSERT OR UPDATE ON ledger.scope, after _100_prepare)
--
-- Validates and normalises a scope's message-matching policy (issue 3,
-- "Per-scope policy"), however it is written:
--   enabled_rules          the evidence rules in force, a subset of path,
--                          key, slug, keyword, title (default: all five);
--                          lower-cased, de-duplicated, in that order;
--   path_supersede_kinds   finding kinds the path rule supersedes; for other
--                          kinds it only records a 'candidate' (default
--                          {drift}, seed 000; '*' means every kind);
--                          trimmed, lower-cased, de-duplicated;
--   slug_mention_resolves  whether a bare mention of a slug or findings file
--                          name resolves, like rule (i) of seed 001
--                          (default false);
--   default_branch         when set, merges whose branch is another branch
--                          change nothing and are audited 'skipped'
--                          (default NULL; 'refs/heads/' dropped).
-- Raises LD002 (NULL enabled_rules / path_supersede_kinds /
-- slug_mention_resolves), LD003 (an unknown rule, a NULL or blank kind, a
-- blank default_branch), LD004 (a kind over 100 characters, more than 100
-- kinds, a branch over 255), naming the field and the value.
CREATE OR REPLACE FUNCTION ledger.tg_scope__prepare_policy()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_bad text;
BEGIN
    IF NEW.enabled_rules IS NULL THEN
        RAISE EXCEPTION 'scope.enabled_rules is required (a subset of path, key, slug, keyword, title; ''{}'' for none)'
            USING ERRCODE = 'LD002';
    END IF;
    SELECT r INTO v_bad FROM unnest(NEW.enabled_rules) AS r
     WHERE r IS NULL OR lower(btrim(r)) NOT IN ('path', 'key', 'slug', 'keyword', 'title') LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'invalid scope.enabled_rules: % is not a rule (expected path, key, slug, keyword or title)',
            quote_nullable(v_bad) USING ERRCODE = 'LD003';
    END IF;
    NEW.enabled_rules := ARRAY(
        SELECT r FROM unnest('{path,key,slug,keyword,title}'::text[]) WITH ORDINALITY AS c(r, o)
         WHERE r = ANY (ARRAY(SELECT lower(btrim(x)) FROM unnest(NEW.enabled_rules) AS x))
         ORDER BY o);

    IF NEW.path_supersede_kinds IS NULL THEN
        RAISE EXCEPTION 'scope.path_supersede_kinds is required (finding kinds, ''*'' for all, ''{}'' for none)'
            USING ERRCODE = 'LD002';
    END IF;
    IF cardinality(NEW.path_supersede_kinds) > 100 THEN
        RAISE EXCEPTION 'invalid scope.path_supersede_kinds: % kinds, at most 100 are accepted',
            cardinality(NEW.path_supersede_kinds) USING ERRCODE = 'LD004';
    END IF;
    NEW.path_supersede_kinds := ARRAY(
        SELECT k FROM (
            SELECT lower(ledger._check_text(x, 'scope.path_supersede_kinds[' || o || ']', true, 100)) AS k, min(o) AS o
              FROM unnest(NEW.path_supersede_kinds) WITH ORDINALITY AS u(x, o)
             GROUP BY 1) AS d
         ORDER BY d.o);

    IF NEW.slug_mention_resolves IS NULL THEN
        RAISE EXCEPTION 'scope.slug_mention_resolves is required (true or false)' USING ERRCODE = 'LD002';
    END IF;
    NEW.default_branch := ledger._normalize_branch(NEW.default_branch, 'scope.default_branch');
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_scope__prepare_policy() IS
'BEFORE INSERT OR UPDATE trigger on ledger.scope: validates and normalises the matching policy (enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch). Raises LD002, LD003, LD004 naming field and value.';
''',
    # sql/functions/tg_merge__prepare_branch.sql
    r'''
-- ledger.tg_merge__prepare_branch() -> trigger (BEFORE INSERT ON ledger.merge, after _100_prepare)
--
-- Normalises merge.branch, the branch the merge landed on (issue 3,
-- "default branch"): optional, trimmed, single line, <= 255 characters,
-- 'refs/heads/' dropped (ledger._normalize_branch). Every writer (INSERT,
-- COPY, ledger.record_merge) passes through here. Raises LD003, LD004
-- naming merge.branch and the value; nothing is written on error.
CREATE OR REPLACE FUNCTION ledger.tg_merge__prepare_branch()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
    NEW.branch := ledger._normalize_branch(NEW.branch, 'merge.branch');
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__prepare_branch() IS
'BEFORE INSERT trigger on ledger.merge: normalises branch (trim, refs/heads/ dropped, <= 255 chars). Raises LD003, LD004 naming merge.branch and the value.';
''',
    # sql/functions/import_finding.sql
    r'''
-- ledger.import_finding(p_scope, p_title, p_description, p_paths, p_kind, p_severity,
--                       p_finding_key, p_source, p_slug, p_strong_keywords, p_tags)
--     -> TABLE(id bigint, finding_key text, slug text, status text)
--
-- Inserts a finding read from a findings file or a drift review (issue 3,
-- "Importers"), or, when the scope already has it, refreshes it, so that
-- re-importing the same files creates no duplicates. The finding is
-- identified by its finding_key when it has one (ON CONFLICT (scope,
-- finding_key)), otherwise by its slug (ON CONFLICT (scope, slug)), and is
-- inserted as new when it has neither. status:
--   inserted    a new finding;
--   updated     an active finding whose title, description, paths, kind,
--               severity, source, slug, strong_keywords or tags changed;
--   unchanged   an active finding with exactly these values;
--   retired     a finding already superseded (or dismissed): left alone,
--               never brought back by a re-import.
-- The row passes the same triggers as any INSERT, with the transaction-local
-- setting ledger.reporting = 'on' that lets an identified re-import reach its
-- ON CONFLICT clause instead of the plain-INSERT duplicate-key error LD301
-- (an import is a sync from files: unlike ledger.report_finding it never
-- reopens a retired finding). Raises LD001-LD004,
-- LD101, LD102 (see tg_finding__prepare, tg_finding__prepare_evidence), and
-- 23505 when the slug belongs to another finding of the scope
-- (finding_scope_slug_key).
CREATE OR REPLACE FUNCTION ledger.import_finding(
    p_scope text,
    p_title text,
    p_description text DEFAULT NULL,
    p_paths text[] DEFAULT '{}',
    p_kind text DEFAULT 'review',
    p_severity text DEFAULT 'medium',
    p_finding_key text DEFAULT NULL,
    p_source text DEFAULT NULL,
    p_slug text DEFAULT NULL,
    p_strong_keywords text[] DEFAULT '{}',
    p_tags text[] DEFAULT '{}')
RETURNS TABLE (id bigint, finding_key text, slug text, status text)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
#variable_conflict use_column
DECLARE
    v_id       bigint;
    v_inserted boolean;
BEGIN
    PERFORM set_config('ledger.reporting', 'on', true);
    IF p_finding_key IS NOT NULL THEN
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags)
        ON CONFLICT (scope, finding_key) DO UPDATE
           SET title = excluded.title, description = excluded.description, paths = excluded.paths,
               kind = excluded.kind, severity = excluded.severity, source = excluded.source,
               slug = excluded.slug, strong_keywords = excluded.strong_keywords, tags = excluded.tags
         WHERE f.superseded_at IS NULL
           AND (f.title, f.description, f.paths, f.kind, f.severity, f.source, f.slug, f.strong_keywords, f.tags)
               IS DISTINCT FROM (excluded.title, excluded.description, excluded.paths, excluded.kind,
                                 excluded.severity, excluded.source, excluded.slug, excluded.strong_keywords,
                                 excluded.tags)
        RETURNING f.id, (f.xmax = 0) INTO v_id, v_inserted;
    ELSIF p_slug IS NOT NULL THEN
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags)
        ON CONFLICT (scope, slug) DO UPDATE
           SET title = excluded.title, description = excluded.description, paths = excluded.paths,
               kind = excluded.kind, severity = excluded.severity, source = excluded.source,
               strong_keywords = excluded.strong_keywords, tags = excluded.tags
         WHERE f.superseded_at IS NULL
           AND (f.title, f.description, f.paths, f.kind, f.severity, f.source, f.strong_keywords, f.tags)
               IS DISTINCT FROM (excluded.title, excluded.description, excluded.paths, excluded.kind,
                                 excluded.severity, excluded.source, excluded.strong_keywords, excluded.tags)
        RETURNING f.id, (f.xmax = 0) INTO v_id, v_inserted;
    ELSE
        INSERT INTO ledger.finding AS f (scope, title, description, paths, kind, severity, finding_key, source,
                                         slug, strong_keywords, tags)
        VALUES (p_scope, p_title, p_description, p_paths, p_kind, p_severity, p_finding_key, p_source,
                p_slug, p_strong_keywords, p_tags)
        RETURNING f.id, true INTO v_id, v_inserted;
    END IF;
    PERFORM set_config('ledger.reporting', '', true);

    IF v_id IS NOT NULL THEN
        RETURN QUERY SELECT f.id, f.finding_key, f.slug, CASE WHEN v_inserted THEN 'inserted' ELSE 'updated' END
                       FROM ledger.finding f WHERE f.id = v_id;
        RETURN;
    END IF;
    -- the conflict's WHERE was false: the existing finding is unchanged or retired
    RETURN QUERY
        SELECT f.id, f.finding_key, f.slug,
               CASE WHEN f.superseded_at IS NULL THEN 'unchanged' ELSE 'retired' END
          FROM ledger.finding f
         WHERE f.scope = btrim(p_scope, E' \t\r\n\f\v')
           AND CASE WHEN p_finding_key IS NOT NULL THEN f.finding_key = btrim(p_finding_key, E' \t\r\n\f\v')
                    ELSE f.slug = (SELECT n.slug FROM (SELECT regexp_replace(pg_catalog.normalize(btrim(p_slug), 'NFC'),
                                   '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)\.[mM][dD]$', '\1') AS slug) AS n) END;
END
$$;

COMMENT ON FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[]) IS
'Insert or refresh an imported finding, identified by (scope, finding_key), else (scope, slug): no duplicates on re-import; a superseded or dismissed finding is left alone. (scope, title, description, paths, kind, severity, finding_key, source, slug, strong_keywords, tags) -> TABLE(id, finding_key, slug, status inserted|updated|unchanged|retired). Raises LD001-LD004, LD101, LD102, 23505 (slug of another finding).';
''',
    # sql/functions/workspace_scope.sql
    r'''
-- ledger.workspace_scope(p_directory text) -> text
--
-- A scope key derived from a workspace directory (issue 3, "Importers").
-- Seed 001 replaces '/', ':' and '\' with '-', so '/a/b-c' and '/a/b/c'
-- both become '-a-b-c'. Here the encoding is injective:
--   1. repeated '/' collapse and a trailing '/' is dropped (spellings of the
--      same directory give the same key);
--   2. '%', '-', '~', ':', '\' and control characters are percent-encoded
--      (%25, %2D, %7E, %3A, %5C, %XX of their UTF-8 bytes);
--   3. then, and only then, '/' becomes '-'.
-- A '-' in the key can therefore only come from a '/', and a '%' only from
-- an escape, so distinct directories give distinct keys: '/a/b-c' ->
-- '-a-b%2Dc', '/a/b/c' -> '-a-b-c'. A key longer than 200 characters (the
-- scope limit) keeps its first 183 characters and appends '~' and the first
-- 16 hex digits of the SHA-256 of the normalised path; '~' never occurs in
-- an unshortened key, so a shortened key cannot equal an unshortened one,
-- and two shortened keys collide only if 64 bits of SHA-256 do.
-- Raises LD002 (NULL or blank), LD004 (longer than 4096 characters).
CREATE OR REPLACE FUNCTION ledger.workspace_scope(p_directory text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog
AS $$
DECLARE
    v_path text;
    v_out  text := '';
    v_c    text;
BEGIN
    IF p_directory IS NULL OR btrim(p_directory) = '' THEN
        RAISE EXCEPTION 'workspace directory is required: got %', quote_nullable(p_directory) USING ERRCODE = 'LD002';
    END IF;
    IF length(p_directory) > 4096 THEN
        RAISE EXCEPTION 'invalid workspace directory: % characters, at most 4096 are accepted', length(p_directory)
            USING ERRCODE = 'LD004';
    END IF;
    v_path := regexp_replace(p_directory, '/{2,}', '/', 'g');
    IF v_path <> '/' THEN
        v_path := regexp_replace(v_path, '/$', '');
    END IF;
    FOREACH v_c IN ARRAY regexp_split_to_array(v_path, '') LOOP
        IF v_c = '/' THEN
            v_out := v_out || '-';
        ELSIF v_c IN ('%', '-', '~', ':', '\') OR v_c ~ '[\x01-\x1f\x7f]' THEN
            v_out := v_out || upper(regexp_replace(encode(convert_to(v_c, 'UTF8'), 'hex'), '(..)', '%\1', 'g'));
        ELSE
            v_out := v_out || v_c;
        END IF;
    END LOOP;
    IF length(v_out) > 200 THEN
        v_out := left(v_out, 183) || '~' || left(encode(sha256(convert_to(v_path, 'UTF8')), 'hex'), 16);
    END IF;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.workspace_scope(text) IS
'Collision-free scope key of a workspace directory: //->/, trailing / dropped, % - ~ : \ and control characters percent-encoded, then / -> -; over 200 chars: 183 chars + ~ + 16 hex of SHA-256. text -> text. Raises LD002 (blank), LD004 (> 4096 chars).';
''',
    # sql/functions/set_match_policy.sql
    r'''
-- ledger.set_match_policy(p_scope, p_enabled_rules, p_path_supersede_kinds,
--                         p_slug_mention_resolves, p_default_branch) -> ledger.scope
--
-- Sets a scope's message-matching policy (issue 3, "Per-scope policy"),
-- creating the scope with defaults when it does not exist yet; a NULL
-- argument leaves that setting as it is, and p_default_branch => '' clears
-- the default branch. Returns the stored row. The same as INSERT INTO
-- ledger.scope ... ON CONFLICT (scope) DO UPDATE (see tg_scope__prepare_policy
-- for the settings and their defaults).
-- Raises LD002, LD003, LD004 naming the field and the value.
CREATE OR REPLACE FUNCTION ledger.set_match_policy(
    p_scope text,
    p_enabled_rules text[] DEFAULT NULL,
    p_path_supersede_kinds text[] DEFAULT NULL,
    p_slug_mention_resolves boolean DEFAULT NULL,
    p_default_branch text DEFAULT NULL)
RETURNS ledger.scope
LANGUAGE sql
AS $$
    INSERT INTO ledger.scope AS s (scope, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch)
    VALUES (p_scope,
            coalesce(p_enabled_rules, '{path,key,slug,keyword,title}'),
            coalesce(p_path_supersede_kinds, '{drift}'),
            coalesce(p_slug_mention_resolves, false),
            NULLIF(p_default_branch, ''))
    ON CONFLICT (scope) DO UPDATE
       SET enabled_rules = coalesce(p_enabled_rules, s.enabled_rules),
           path_supersede_kinds = coalesce(p_path_supersede_kinds, s.path_supersede_kinds),
           slug_mention_resolves = coalesce(p_slug_mention_resolves, s.slug_mention_resolves),
           default_branch = CASE WHEN p_default_branch IS NULL THEN s.default_branch
                                 ELSE NULLIF(p_default_branch, '') END
    RETURNING s.*
$$;

COMMENT ON FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text) IS
'Set (upsert) a scope''s matching policy; NULL leaves a setting unchanged, an empty default_branch clears it. (scope, enabled_rules text[], path_supersede_kinds text[], slug_mention_resolves boolean, default_branch text) -> ledger.scope. Raises LD002, LD003, LD004 naming field and value.';
''',
    # sql/functions/record_merge.sql
    r'''
-- ledger.record_merge(p_scope, p_commit_sha, p_paths, p_message, p_node_id,
--                     p_merged_at, p_branch) -> TABLE(merge_id bigint, recorded boolean, decisions jsonb)
--
-- Records one merge exactly like INSERT INTO ledger.merge ... ON CONFLICT
-- (scope, commit_sha) DO NOTHING (the documented redelivery form) and returns:
--   merge_id   the merge's id (the existing one on redelivery);
--   recorded   true when this call inserted it, false on redelivery (no
--              second effect);
--   decisions  the merge's audit rows as a JSON array of
--              {finding_id, action, rule, evidence, reason, detail}, in id
--              order: superseded / would_supersede / already_superseded,
--              ambiguous, candidate, mention, skipped (issue 3; the design
--              record's archived_findings, with the reason for each).
-- p_branch: the branch the merge landed on (NULL: unknown, never skipped).
-- Raises LD001-LD004 (see tg_merge__prepare, tg_merge__prepare_branch).
CREATE OR REPLACE FUNCTION ledger.record_merge(
    p_scope text,
    p_commit_sha text,
    p_paths text[] DEFAULT '{}',
    p_message text DEFAULT '',
    p_node_id text DEFAULT NULL,
    p_merged_at timestamptz DEFAULT NULL,
    p_branch text DEFAULT NULL)
RETURNS TABLE (merge_id bigint, recorded boolean, decisions jsonb)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_id bigint;
BEGIN
    INSERT INTO ledger.merge (scope, commit_sha, paths, message, node_id, merged_at, branch)
    VALUES (p_scope, p_commit_sha, p_paths, p_message, p_node_id, p_merged_at, p_branch)
    ON CONFLICT (scope, commit_sha) DO NOTHING
    RETURNING id INTO v_id;
    recorded := v_id IS NOT NULL;
    IF v_id IS NULL THEN
        SELECT m.id INTO v_id FROM ledger.merge m
         WHERE m.scope = btrim(p_scope) AND m.commit_sha = lower(btrim(p_commit_sha));
    END IF;
    merge_id := v_id;
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'finding_id', a.finding_id, 'action', a.action, 'rule', a.rule,
               'evidence', a.evidence, 'reason', a.reason, 'detail', a.detail) ORDER BY a.id), '[]'::jsonb)
      INTO decisions
      FROM ledger.supersession a WHERE a.merge_id = v_id;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text) IS
'Record a merge (INSERT ... ON CONFLICT DO NOTHING) and return (merge_id bigint, recorded boolean, decisions jsonb array of {finding_id, action, rule, evidence, reason, detail}). p_branch: the branch it landed on. Redelivery returns recorded=false and the original decisions. Raises LD001-LD004.';
''',
    # sql/functions/tg_merge__supersede.sql
    r'''
-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- When a merge lands, decide for every active finding of its scope that the
-- merge carries evidence about (ledger._merge_decisions): the path rule of
-- seed 000 "Option A" (a touched path the finding references) and the
-- commit-message rules of issue 3 (key, slug, keyword, title, governed by a
-- resolution verb, unambiguous), under the scope's policy. Per the scope's
-- hygiene_mode:
--   on   one audit row per decision (superseded, ambiguous, candidate,
--        mention, skipped, with rule, exact evidence, reason and detail) is
--        written first, in the same transaction; then every finding decided
--        'supersede' gets superseded_at = now(), superseded_by = the merge's
--        node_id (seed 000's marker; its commit sha when it has none),
--        superseded_by_merge_id and supersede_rule = the deciding rule;
--   dry  the same audit rows with 'would_supersede' instead of
--        'superseded'; no finding changes;
--   off  nothing.
-- Findings are locked in id order before they change, so concurrent merges
-- never deadlock on them; one that another transaction superseded (or a
-- person dismissed) while this one waited is audited as 'already_superseded'
-- and left alone. Findings already superseded or dismissed are not active
-- and are never looked at. Row-level and fired in insertion order, so
-- multi-row INSERT and COPY give the same result as the same rows inserted
-- one by one or through ledger.record_merge. A redelivered merge (ON
-- CONFLICT DO NOTHING) inserts no row and so has no effect.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_mode     text;
    v_ids      bigint[];
    v_actions  text[];
    v_rules    text[];
    v_evidence text[];
    v_reasons  text[];
    v_details  jsonb[];
    v_resolve  bigint[];
    v_live     bigint[] := '{}';
    v_marker   text := coalesce(NEW.node_id, NEW.commit_sha);
BEGIN
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = NEW.scope;
    IF v_mode = 'off' OR (cardinality(NEW.paths) = 0 AND NEW.message !~ '\S') THEN
        RETURN NULL;
    END IF;

    SELECT array_agg(d.finding_id ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.action ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.rule ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.evidence ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.reason ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.detail ORDER BY d.finding_id NULLS FIRST)
      INTO v_ids, v_actions, v_rules, v_evidence, v_reasons, v_details
      FROM ledger._merge_decisions(NEW.scope, NEW.message, NEW.paths, NEW.branch) AS d;
    IF v_actions IS NULL THEN
        RETURN NULL;
    END IF;

    IF v_mode = 'on' THEN
        v_resolve := ARRAY(SELECT x.id FROM unnest(v_ids, v_actions) AS x(id, a) WHERE x.a = 'supersede');
        IF cardinality(v_resolve) > 0 THEN
            -- Lock in id order; re-checks superseded_at against the latest committed row.
            SELECT coalesce(array_agg(l.id), '{}') INTO v_live
              FROM (SELECT f.id FROM ledger.finding f
                     WHERE f.id = ANY (v_resolve) AND f.superseded_at IS NULL
                     ORDER BY f.id FOR UPDATE) AS l;
        END IF;
    END IF;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
    SELECT NEW.scope, x.id, NEW.id,
           CASE WHEN x.a <> 'supersede' THEN x.a
                WHEN v_mode = 'dry' THEN 'would_supersede'
                WHEN x.id = ANY (v_live) THEN 'superseded'
                ELSE 'already_superseded' END,
           x.r, x.e, x.why, x.d
      FROM unnest(v_ids, v_actions, v_rules, v_evidence, v_reasons, v_details)
           WITH ORDINALITY AS x(id, a, r, e, why, d, o)
     ORDER BY x.o;

    IF cardinality(v_live) > 0 THEN
        UPDATE ledger.finding f
           SET superseded_at = now(),
               superseded_by = v_marker,
               superseded_by_merge_id = NEW.id,
               supersede_rule = v_rules[array_position(v_ids, f.id)]
         WHERE f.id = ANY (v_live);
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__supersede() IS
'AFTER INSERT row trigger on ledger.merge: applies ledger._merge_decisions (path rule of seed 000 Option A, commit-message rules of issue 3, scope policy). hygiene_mode on: audit rows first (superseded, ambiguous, candidate, mention, skipped), then supersedes; dry: audit with would_supersede only; off: nothing. Findings locked in id order; a lost race is audited already_superseded. Raises nothing.';
''',
    # sql/triggers/finding___110_evidence.sql
    r'''
-- Trigger _110_evidence on ledger.finding: slug, strong_keywords and tags,
-- the columns message matching reads, validated after _100_prepare.
DROP TRIGGER IF EXISTS _110_evidence ON ledger.finding;
CREATE TRIGGER _110_evidence
    BEFORE INSERT OR UPDATE OF slug, strong_keywords, tags
    ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__prepare_evidence();
''',
    # sql/triggers/scope___110_policy.sql
    r'''
-- Trigger _110_policy on ledger.scope: the matching policy, after _100_prepare.
DROP TRIGGER IF EXISTS _110_policy ON ledger.scope;
CREATE TRIGGER _110_policy
    BEFORE INSERT OR UPDATE ON ledger.scope
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scope__prepare_policy();
''',
    # sql/triggers/merge___110_branch.sql
    r'''
-- Trigger _110_branch on ledger.merge: branch normalisation after _100_prepare.
DROP TRIGGER IF EXISTS _110_branch ON ledger.merge;
CREATE TRIGGER _110_branch
    BEFORE INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__prepare_branch();
''',
]


RESTORE_0001_SQL = [
    # sql/functions/record_merge.sql as frozen in 0001_foundation
    r'''
-- ledger.record_merge(p_scope, p_commit_sha, p_paths, p_message, p_node_id,
--                     p_merged_at) -> TABLE(merge_id bigint, recorded boolean, decisions jsonb)
--
-- Records one merge exactly like INSERT INTO ledger.merge ... ON CONFLICT
-- (scope, commit_sha) DO NOTHING (the documented redelivery form) and returns:
--   merge_id   the merge's id (the existing one on redelivery);
--   recorded   true when this call inserted it, false on redelivery (no
--              second effect);
--   decisions  the merge's audit rows as a JSON array of
--              {finding_id, action, rule, evidence, detail}, in id order.
-- Raises LD001-LD004 (see tg_merge__prepare).
CREATE OR REPLACE FUNCTION ledger.record_merge(
    p_scope text,
    p_commit_sha text,
    p_paths text[] DEFAULT '{}',
    p_message text DEFAULT '',
    p_node_id text DEFAULT NULL,
    p_merged_at timestamptz DEFAULT NULL)
RETURNS TABLE (merge_id bigint, recorded boolean, decisions jsonb)
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_id bigint;
BEGIN
    INSERT INTO ledger.merge (scope, commit_sha, paths, message, node_id, merged_at)
    VALUES (p_scope, p_commit_sha, p_paths, p_message, p_node_id, p_merged_at)
    ON CONFLICT (scope, commit_sha) DO NOTHING
    RETURNING id INTO v_id;
    recorded := v_id IS NOT NULL;
    IF v_id IS NULL THEN
        SELECT m.id INTO v_id FROM ledger.merge m
         WHERE m.scope = btrim(p_scope) AND m.commit_sha = lower(btrim(p_commit_sha));
    END IF;
    merge_id := v_id;
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'finding_id', a.finding_id, 'action', a.action, 'rule', a.rule,
               'evidence', a.evidence, 'detail', a.detail) ORDER BY a.id), '[]'::jsonb)
      INTO decisions
      FROM ledger.supersession a WHERE a.merge_id = v_id;
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz) IS
'Record a merge (INSERT ... ON CONFLICT DO NOTHING) and return (merge_id bigint, recorded boolean, decisions jsonb array of {finding_id, action, rule, evidence, detail}). Redelivery returns recorded=false and the original decisions. Raises LD001-LD004.';
''',
    # sql/functions/tg_merge__supersede.sql as frozen in 0001_foundation
    r'''
-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- Seed 000, "Option A": when a merge lands, every active finding of the same
-- scope that references a path the merge touched is superseded. Per the
-- scope's hygiene_mode:
--   on   the finding gets superseded_at = now(), superseded_by = the merge's
--        node_id (the marker seed 000's system filters on; the commit sha when
--        the merge has no node_id), superseded_by_merge_id and
--        supersede_rule = 'path'; one audit row (action 'superseded') is
--        written first, in the same transaction;
--   dry  only audit rows with action 'would_supersede'; no finding changes;
--   off  nothing.
-- Findings are locked in id order before they change, so concurrent merges
-- never deadlock on them; a finding another transaction superseded while
-- this one waited is audited as 'already_superseded' and left alone.
-- Row-level and fired in insertion order, so multi-row INSERT and COPY give
-- the same result as the same rows inserted one by one. A redelivered merge
-- (ON CONFLICT DO NOTHING) inserts no row and so has no effect.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_mode    text;
    v_ids     bigint[];
    v_fpaths  text[];
    v_touched text[];
    v_live    bigint[];
    v_marker  text := coalesce(NEW.node_id, NEW.commit_sha);
BEGIN
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = NEW.scope;
    IF v_mode = 'off' OR cardinality(NEW.paths) = 0 THEN
        RETURN NULL;
    END IF;

    SELECT array_agg(m.finding_id ORDER BY m.finding_id),
           array_agg(m.finding_path ORDER BY m.finding_id),
           array_agg(m.touched_path ORDER BY m.finding_id)
      INTO v_ids, v_fpaths, v_touched
      FROM ledger._match_paths(NEW.scope, NEW.paths) AS m;
    IF v_ids IS NULL THEN
        RETURN NULL;
    END IF;

    IF v_mode = 'dry' THEN
        INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
        SELECT NEW.scope, h.id, NEW.id, 'would_supersede', 'path', h.touched,
               jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
          FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);
        RETURN NULL;
    END IF;

    -- Lock in id order; re-checks superseded_at against the latest committed row.
    SELECT array_agg(l.id) INTO v_live
      FROM (SELECT f.id FROM ledger.finding f
             WHERE f.id = ANY (v_ids) AND f.superseded_at IS NULL
             ORDER BY f.id FOR UPDATE) AS l;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
    SELECT NEW.scope, h.id, NEW.id,
           CASE WHEN h.id = ANY (coalesce(v_live, '{}')) THEN 'superseded' ELSE 'already_superseded' END,
           'path', h.touched,
           jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
      FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);

    UPDATE ledger.finding f
       SET superseded_at = now(),
           superseded_by = v_marker,
           superseded_by_merge_id = NEW.id,
           supersede_rule = 'path'
     WHERE f.id = ANY (coalesce(v_live, '{}'));
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__supersede() IS
'AFTER INSERT row trigger on ledger.merge implementing seed 000 Option A: supersedes the active findings of the scope whose paths the merge touched (hygiene_mode on), or audits would_supersede (dry), or nothing (off). Audit row first, findings locked in id order. Raises nothing.';
''',
]

INDEXES = [
    r'''
CREATE INDEX CONCURRENTLY IF NOT EXISTS finding_active_evidence_idx ON ledger.finding
    USING gin (ledger._evidence_keys(scope, finding_key, slug, strong_keywords, title)) WITH (fastupdate = off)
    WHERE superseded_at IS NULL;
''',
    r'''
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS finding_scope_slug_key ON ledger.finding (scope, slug);
''',
]

DOWNGRADE_DROP = r'''
DROP INDEX ledger.finding_active_evidence_idx;
DROP INDEX ledger.finding_scope_slug_key;
DROP TRIGGER _110_evidence ON ledger.finding;
DROP TRIGGER _110_policy ON ledger.scope;
DROP TRIGGER _110_branch ON ledger.merge;
DROP FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text);
'''

DOWNGRADE_FINISH = r'''
DROP FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text);
DROP FUNCTION ledger.workspace_scope(text);
DROP FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[]);
DROP FUNCTION ledger.tg_merge__prepare_branch();
DROP FUNCTION ledger.tg_scope__prepare_policy();
DROP FUNCTION ledger.tg_finding__prepare_evidence();
DROP FUNCTION ledger._merge_decisions(text, text, text[], text);
DROP FUNCTION ledger._match_message(text, text);
DROP FUNCTION ledger._message_tokens(text);
DROP FUNCTION ledger._message_segments(text);
DROP FUNCTION ledger._normalize_branch(text, text);
DROP FUNCTION ledger._evidence_keys(text, text, text, text[], text);
DROP FUNCTION ledger._title_sig(text);
DROP FUNCTION ledger._file_slug(text);
DROP FUNCTION ledger._evidence_token(text);
DROP FUNCTION ledger._significant(text);
DROP FUNCTION ledger._words(text);
DROP FUNCTION ledger._token_regex(boolean);
ALTER TABLE ledger.merge DROP COLUMN branch;
ALTER TABLE ledger.scope DROP COLUMN enabled_rules, DROP COLUMN path_supersede_kinds,
    DROP COLUMN slug_mention_resolves, DROP COLUMN default_branch;
ALTER TABLE ledger.finding DROP COLUMN slug, DROP COLUMN strong_keywords, DROP COLUMN tags;
'''


def upgrade() -> None:
    run_sql(COLUMNS)
    for sql in FROZEN_SQL:
        run_sql(sql)
    # CREATE INDEX CONCURRENTLY cannot run inside a transaction: the rest of
    # this revision is committed first (env.py runs one transaction per
    # revision), then the indexes are built without blocking writes.
    with op.get_context().autocommit_block():
        for sql in INDEXES:
            run_sql(sql)


def downgrade() -> None:
    run_sql(DOWNGRADE_DROP)
    for sql in RESTORE_0001_SQL:
        run_sql(sql)
    run_sql(DOWNGRADE_FINISH)
