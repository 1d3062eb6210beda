-- 0025_no_verb_on_a_non_resolving: no verb on a non-resolving trailer line resolves

\ir functions/_message_tokens.sql
