CREATE TABLE ledger.scope (
    scope                 text NOT NULL,
    hygiene_mode          text NOT NULL DEFAULT 'on',
    created_at            timestamptz NOT NULL DEFAULT now(),
    enabled_rules         text[] NOT NULL DEFAULT '{path,key,slug,keyword,title}',
    path_supersede_kinds  text[] NOT NULL DEFAULT '{drift}',
    slug_mention_resolves boolean NOT NULL DEFAULT false,
    default_branch        text,
    line_context          integer NOT NULL DEFAULT 0,
    touch_modes           jsonb NOT NULL DEFAULT '{}',
    CONSTRAINT scope_pkey PRIMARY KEY (scope),
    CONSTRAINT scope_hygiene_mode_check CHECK (hygiene_mode IN ('on', 'dry', 'off')),
    CONSTRAINT scope_line_context_check CHECK (line_context BETWEEN 0 AND 1000),
    CONSTRAINT scope_touch_modes_check CHECK (jsonb_typeof(touch_modes) = 'object')
);

COMMENT ON TABLE ledger.scope IS
'A namespace of findings and merges (a spec, project or repository). Created with defaults the first time a finding or merge names it. hygiene_mode: on (supersede), dry (audit would_supersede only), off (nothing).';

COMMENT ON COLUMN ledger.scope.enabled_rules IS
'Evidence rules in force: a subset of path, key, slug, keyword, title (default all). Evidence of a disabled rule is audited skipped.';

COMMENT ON COLUMN ledger.scope.path_supersede_kinds IS
'Finding kinds the path rule supersedes (default {drift}; * = every kind); for other kinds a path match is only audited as a candidate.';

COMMENT ON COLUMN ledger.scope.slug_mention_resolves IS
'When true, a bare mention of a finding''s slug or file name resolves it (ADR-010''s rule i); default false: only a resolution verb does.';

COMMENT ON COLUMN ledger.scope.default_branch IS
'When set, merges whose branch is another branch change nothing and are audited skipped; NULL (default) checks no branch.';

COMMENT ON COLUMN ledger.scope.line_context IS
'Lines of context around a finding''s anchor within which a merge''s hunk counts as changing it (default 0: the hunk must change one of the anchored lines; on the 48 TODO lines of the real histories in docs/matching.md, a context of 3 lines retires 24 of them too early). 0 to 1000.';

COMMENT ON COLUMN ledger.scope.touch_modes IS
'What a touch that the path rule would take as resolving does to a finding without a check, per kind: {"<kind>": "retire" | "recheck" | "flag", "*": ...}. retire: the path rule supersedes it; recheck: a recheck request (ledger.recheck_request) is opened instead and a verifier decides; flag: the finding stays and the audit records flagged (read_prompt_findings lists the merges as touched_by). A kind not listed takes "*", else ledger._default_touch_mode(kind): flag for drift, retire for every other kind. Set with ledger.set_match_policy(p_touch, p_touch_kind).';
