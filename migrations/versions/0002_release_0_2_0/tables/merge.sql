CREATE TABLE ledger.merge (
    id          bigint GENERATED ALWAYS AS IDENTITY,
    scope       text NOT NULL,
    commit_sha  text NOT NULL,
    node_id     text,
    message     text NOT NULL DEFAULT '',
    paths       text[] NOT NULL DEFAULT '{}',
    merged_at   timestamptz NOT NULL DEFAULT now(),
    recorded_at timestamptz NOT NULL DEFAULT now(),
    processed   boolean NOT NULL DEFAULT false,
    branch      text,
    added       text[],
    deleted     text[],
    hunks       jsonb,
    CONSTRAINT merge_pkey PRIMARY KEY (id),
    CONSTRAINT merge_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope),
    CONSTRAINT merge_scope_commit_sha_key UNIQUE (scope, commit_sha),
    CONSTRAINT merge_hunks_check CHECK (jsonb_typeof(hunks) = 'object')
);

COMMENT ON TABLE ledger.merge IS
'One row per merge that landed. paths: the files it touched (both sides of a rename). node_id: the session or node that produced it. (scope, commit_sha) is unique, and an abbreviated sha is the same commit: redeliver with INSERT ... ON CONFLICT DO NOTHING; a redelivery with other paths, message or branch fails (LD007). Immutable once processed: every UPDATE fails (LD006). Inserting a row supersedes findings (trigger _200_supersede).';

COMMENT ON COLUMN ledger.merge.processed IS
'true once the row went through the ledger triggers; false for rows applied with session_replication_role = replica.';

COMMENT ON COLUMN ledger.merge.branch IS
'The branch the merge landed on (refs/heads/ dropped); NULL: unknown, never skipped.';

COMMENT ON COLUMN ledger.merge.added IS
'The paths the merge added (a subset of paths, normalised like them); NULL: unknown. A rename is its new path added and its old path deleted. Findings that expect a path present are retired only by a merge that adds it.';

COMMENT ON COLUMN ledger.merge.deleted IS
'The paths the merge deleted (a subset of paths, normalised like them), and directories (ending in /) that no longer exist after it, each holding one of paths; NULL: unknown. Findings that expect a path absent are retired only by a merge that deletes it.';

COMMENT ON COLUMN ledger.merge.hunks IS
'The changed lines per path, git''s @@ -a,b +c,d @@ of git diff -U0: {"<path>": [[old_start, old_count, new_start, new_count], ...]}, paths among paths, integers >= 0; a rename''s hunks under its old path; NULL or a path left out: no line information for it (the file-level rule applies). Anchored findings on a path with hunks are superseded only when a hunk overlaps their lines; otherwise their anchors move (with a rename that keeps their lines, to the new path).';
