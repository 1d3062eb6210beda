COMMENT ON COLUMN ledger.scope.slug_mention_resolves IS
'When true, a bare mention of a finding''s slug or file name resolves it (ADR-010''s rule i); default false: only a resolution verb does.';
