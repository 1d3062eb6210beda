CREATE TABLE ledger.finding (
    id                     bigint GENERATED ALWAYS AS IDENTITY,
    scope                  text NOT NULL,
    finding_key            text,
    kind                   text NOT NULL DEFAULT 'review',
    severity               text NOT NULL DEFAULT 'medium',
    title                  text NOT NULL,
    description            text,
    paths                  text[] NOT NULL DEFAULT '{}',
    source                 text,
    created_at             timestamptz NOT NULL DEFAULT now(),
    superseded_at          timestamptz,
    superseded_by          text,
    superseded_by_merge_id bigint,
    supersede_rule         text,
    dismissed_at           timestamptz,
    dismissed_by           text,
    resolution             text,
    dismissal_reason       text,
    report_count           integer NOT NULL DEFAULT 1,
    last_reported_at       timestamptz,
    reopen_count           integer NOT NULL DEFAULT 0,
    review_run             text,
    slug                   text,
    strong_keywords        text[] NOT NULL DEFAULT '{}',
    tags                   text[] NOT NULL DEFAULT '{}',
    observed_at            timestamptz NOT NULL DEFAULT now(),
    expects                text NOT NULL DEFAULT 'change',
    anchors                jsonb,
    task_group             text,
    resolved_when          jsonb,
    observed_at_precision  text NOT NULL DEFAULT 'instant',
    CONSTRAINT finding_pkey PRIMARY KEY (id),
    CONSTRAINT finding_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope),
    CONSTRAINT finding_superseded_by_merge_id_fkey FOREIGN KEY (superseded_by_merge_id) REFERENCES ledger.merge (id),
    CONSTRAINT finding_scope_finding_key_key UNIQUE (scope, finding_key),
    CONSTRAINT finding_severity_check CHECK (severity IN ('critical', 'high', 'medium', 'low', 'info')),
    CONSTRAINT finding_resolution_check CHECK (resolution IN ('accepted', 'false_positive', 'wont_fix', 'duplicate')),
    CONSTRAINT finding_dismissal_check
        CHECK (dismissed_at IS NULL OR (resolution IS NOT NULL AND superseded_at IS NOT NULL)),
    CONSTRAINT finding_expects_check CHECK (expects IN ('change', 'present', 'absent')),
    CONSTRAINT finding_anchors_check CHECK (jsonb_typeof(anchors) = 'object'),
    CONSTRAINT finding_resolved_when_check CHECK (jsonb_typeof(resolved_when) = 'object'),
    CONSTRAINT finding_observed_at_precision_check CHECK (observed_at_precision IN ('instant', 'day'))
);

COMMENT ON TABLE ledger.finding IS
'A review or drift note injected into later agents'' prompts. superseded_at IS NULL means active; a superseded finding keeps all its text and is never deleted. paths: repository-relative files, directories end with /.';

COMMENT ON COLUMN ledger.finding.superseded_by IS
'Who retired the finding: the superseding merge''s node_id (the drift-review scenario''s marker), or its commit sha when it has none.';

COMMENT ON COLUMN ledger.finding.dismissed_at IS
'When a person dismissed the finding (ledger.dismiss_finding); NULL when it is not dismissed. A dismissed finding also has superseded_at set, so it is never active.';

COMMENT ON COLUMN ledger.finding.resolution IS
'The dismissal decision: accepted, false_positive, wont_fix or duplicate; NULL unless dismissed.';

COMMENT ON COLUMN ledger.finding.dismissal_reason IS
'Why the person dismissed it (required by ledger.dismiss_finding).';

COMMENT ON COLUMN ledger.finding.report_count IS
'How many times the finding was reported, the first report included (ledger.report_finding counts re-reports).';

COMMENT ON COLUMN ledger.finding.last_reported_at IS
'When it was last re-reported; NULL when it was reported only once.';

COMMENT ON COLUMN ledger.finding.reopen_count IS
'How many times it went back to active: re-reported while superseded, reverted merge, restore.';

COMMENT ON COLUMN ledger.finding.review_run IS
'The review run (ledger.replace_findings / report_finding p_review_run) that last reported it.';

COMMENT ON COLUMN ledger.finding.slug IS
'The findings file slug (YYYY-MM-DD-<slug>.md -> <slug>): one token, unique per scope. A merge message naming it (or the file name) is slug evidence.';

COMMENT ON COLUMN ledger.finding.strong_keywords IS
'Distinctive tokens the finding''s author labelled (error codes, function names): a merge message naming one as a whole token is keyword evidence.';

COMMENT ON COLUMN ledger.finding.tags IS
'Free labels from the findings file; not used for matching.';

COMMENT ON COLUMN ledger.finding.observed_at IS
'When the problem was observed (default: when the row was written; importers take it from the file''s date). A merge whose merged_at is before least(observed_at, created_at) never supersedes the finding: it is audited not_before_observed. Rows written before this column existed read the time of the upgrade, so for them the rule uses created_at.';

COMMENT ON COLUMN ledger.finding.expects IS
'What change resolves the finding: change (default: a merge touching a path it references, or its anchored lines), present (it says a path is missing: a merge that adds the path, or a file under the directory), absent (it says a path should not exist: a merge that deletes it). A merge that does not say what it added or deleted only records a candidate for present and absent.';

COMMENT ON COLUMN ledger.finding.anchors IS
'Line anchors, {"<path>": [first_line, last_line]} (1-based, inclusive), taken from paths written src/a.py:42 (42-42), src/a.py:42:7 (42-42) or src/a.py:40-48 (40-48); paths holds the bare path. NULL: no anchor (the file-level rule). A merge with hunks for an anchored path supersedes the finding only when a hunk overlaps the range (within the scope''s line_context) and otherwise moves the range by the lines its hunks added or removed above it (audited anchor_moved).';

COMMENT ON COLUMN ledger.finding.task_group IS
'The task group the finding was generated for (the drift-review scenario''s Option C), e.g. 07_nightshift_standalone_cli:0; set explicitly, or taken from source when source is a node id ending in :<number>. NULL: unknown. ledger.read_prompt_findings(p_current_group, p_max_groups) keeps the findings at most p_max_groups groups back (the trailing number orders groups of the same prefix).';

COMMENT ON COLUMN ledger.finding.resolved_when IS
'The check that proves the finding resolved, evaluated on the tree of each merge that touches a path it names (NULL: no check, the touch rules apply). Closed grammar, one key per node: {"path_exists": "a/b.py" | "pkg/"}, {"path_absent": ...} (a trailing / is a directory: at least one file under it), {"file_contains": {"path": "f.py", "pattern": "REGEX"}} (the file exists and its text matches REGEX with ~), {"file_lacks": {"path": "f.py", "pattern": "REGEX"}} (absent or not matching), {"all": [...]}, {"any": [...]} (non-empty). At most depth 8, 64 nodes, a pattern of 1000 characters; paths normalised as finding.paths, and every path a check names is added to paths if absent (so the path index finds the finding on a touch). Validated on write by ledger._check_resolved_when (LD003 / LD004 naming the part, e.g. finding.resolved_when.all[1].file_contains.pattern). A merge never retires a checked finding by a touch (path, line or expects rule) nor by a message: a touch of a path the check names, or a message naming the finding''s key or slug with a resolution verb, opens a file-state request (ledger.file_state_request), and the finding retires, rule check, at the first such merge whose tree makes the check hold.';

COMMENT ON COLUMN ledger.finding.observed_at_precision IS
'How precisely observed_at is known: instant (default) or day (only its UTC date is known; importers write a date-only value as that day''s end, 23:59:59.999999 UTC). With day, naming evidence (the finding''s own key or slug governed by a resolution verb: a commit cannot name a slug that did not exist yet) passes the causality gate for a merge on or after the start of that UTC day; every other rule (path, line, expects, keyword, title, check) compares with least(observed_at, created_at) as for instant.';
