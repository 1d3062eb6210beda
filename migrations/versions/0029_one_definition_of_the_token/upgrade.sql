-- 0029_one_definition_of_the_token: one definition of the token characters

\ir functions/_token_chars.sql
\ir functions/_token_regex.sql
\ir functions/_token_split_regex.sql
\ir privileges.sql
