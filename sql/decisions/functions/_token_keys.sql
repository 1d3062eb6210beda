-- ledger._token_keys(p_scope text, p_norms text[], p_alts text[]) -> text[]
--
-- The evidence-index keys (finding_active_evidence_idx, ledger._evidence_keys)
-- under which a run of message tokens can name an active finding of p_scope,
-- from the norms and alts of ledger._tokenise, each prefixed with
-- p_scope || U+001F as the index keys are:
--   'i' || a norm or alt of at least 3 characters, its findings-file slug
--   (ledger._file_slug) and its dated slug ('2026-01-02-<slug>' -> '<slug>');
--   '=' || two and 't' || three consecutive significant norms
--   (ledger._significant), joined by ' '.
-- The 'i' keys first (the norms', then the alts', each followed by its
-- slugs), then the '=' and 't' keys of the runs, a key repeated when its
-- words are ('{}' without a token): the index probe (&&) and
-- ledger._match_message's DISTINCT read a set. The one place the message's
-- keys are written: ledger._message_probe_keys asks it for the whole
-- message (the pre-filter), ledger._match_message for each segment.
-- One pass over the norms and alts (slugs only for a token that starts
-- with a digit) and one over the norms for the runs, appending to an array
-- in place: no query, so nothing is planned or started per call
-- (docs/performance.md). Raises nothing.
CREATE OR REPLACE FUNCTION ledger._token_keys(p_scope text, p_norms text[], p_alts text[])
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_pre  text := p_scope || E'\x1f';
    v_keys text[] := '{}'::text[];
    v_w    text;
    v_x    text;
    v_a    text;  -- the significant norm two back
    v_b    text;  -- the significant norm before
BEGIN
    FOREACH v_w IN ARRAY coalesce(p_norms, '{}') || array_remove(coalesce(p_alts, '{}'), NULL) LOOP
        IF char_length(v_w) >= 3 THEN
            v_keys := v_keys || (v_pre || 'i' || v_w);
        END IF;
        IF ascii(v_w) BETWEEN 48 AND 57 THEN
            v_x := ledger._file_slug(v_w);
            IF v_x IS NOT NULL THEN
                v_keys := v_keys || (v_pre || 'i' || v_x);
            END IF;
            v_x := substring(v_w, '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)$');
            IF v_x IS NOT NULL THEN
                v_keys := v_keys || (v_pre || 'i' || v_x);
            END IF;
        END IF;
    END LOOP;
    FOREACH v_w IN ARRAY coalesce(p_norms, '{}') LOOP
        CONTINUE WHEN NOT coalesce(ledger._significant(v_w), false);
        IF v_b IS NOT NULL THEN
            v_keys := v_keys || (v_pre || '=' || v_b || ' ' || v_w);
            IF v_a IS NOT NULL THEN
                v_keys := v_keys || (v_pre || 't' || v_a || ' ' || v_b || ' ' || v_w);
            END IF;
        END IF;
        v_a := v_b;
        v_b := v_w;
    END LOOP;
    RETURN v_keys;
END
$$;

COMMENT ON FUNCTION ledger._token_keys(text, text[], text[]) IS
'The evidence-index keys of a run of message tokens (norms and alts of ledger._tokenise): scope || U+001F || (''i'' token of 3+ characters, its file-name and dated slugs; ''='' two and ''t'' three consecutive significant words), the i keys first, repeated when the words are. (scope text, norms text[], alts text[]) -> text[], ''{}'' without a token. The one definition the pre-filter and the matcher probe with. Raises nothing.';
