-- 0025_no_verb_on_a_non_resolving undone: restores the frozen files it replaced

\ir ../0005_plpgsql_typed_array_literal/functions/_message_tokens.sql
