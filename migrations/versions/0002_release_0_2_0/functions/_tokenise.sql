CREATE OR REPLACE FUNCTION ledger._tokenise(p_text text, p_gaps boolean,
                                            OUT tokens text[], OUT gaps text[], OUT norms text[], OUT alts text[])
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_text   text := coalesce(p_text, '');
    v_broken boolean := strpos(v_text, E'-\n') > 0 OR strpos(v_text, E'/\n') > 0;
    n        integer;
BEGIN
    tokens := array_remove(regexp_split_to_array(v_text, ledger._token_split_regex()), '');
    n := cardinality(tokens);
    norms := string_to_array(lower(array_to_string(tokens, ' ') COLLATE "C"), ' ');
    IF p_gaps OR v_broken THEN
        gaps := (regexp_split_to_array(v_text, ledger._token_regex(false)))[1:n];
    END IF;
    IF v_broken THEN
        alts := ARRAY(SELECT CASE WHEN lead(u.g) OVER w ~ '^[-/]\n[[:blank:]]*$'
                                  THEN u.x || left(lead(u.g) OVER w, 1) || lead(u.x) OVER w END
                        FROM unnest(norms, gaps) WITH ORDINALITY AS u(x, g, o)
                      WINDOW w AS (ORDER BY u.o)
                       ORDER BY u.o);
    ELSE
        alts := array_fill(NULL::text, ARRAY[n]);
    END IF;
    IF NOT p_gaps THEN
        gaps := NULL;
    END IF;
END
$$;

COMMENT ON FUNCTION ledger._tokenise(text, boolean) IS
'The one tokeniser of message text, used by the pre-filter (whole message) and the matcher (each segment): tokens as written, the separator before each (when asked), ASCII-lower-cased norms, and the joined form of a token broken at a line end after - or / (alts, else NULL), in order. (text, gaps boolean) -> (tokens, gaps, norms, alts text[]). Raises nothing.';
