-- 0032_one_tokeniser_for_pre_filte: one tokeniser for pre-filter and matcher

\ir functions/_tokenise.sql
\ir functions/_token_keys.sql
\ir functions/_message_tokens.sql
\ir functions/_match_message.sql
\ir functions/_message_probe_keys.sql
\ir ../0029_one_definition_of_the_token/privileges.sql
