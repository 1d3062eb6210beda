-- ledger._significant(p_norm text) -> boolean
--
-- Whether a lower-cased token is a significant word for title matching
-- ("at least 3 consecutive significant words" of a title): at least
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
