-- ledger.merge: one row per merge that landed in a scope. Inserting a row
-- (plain INSERT, multi-row INSERT, COPY or ledger.record_merge) runs the
-- merge triggers: _100_prepare validates and normalises, _120_redelivery
-- compares a redelivered commit with the recorded one (an abbreviated sha
-- is the same commit; what differs is LD007), _200_supersede (once per
-- statement, each merge in id order) supersedes the findings it resolves
-- and reopens what a reverted merge retired.
-- Redeliver with INSERT ... ON CONFLICT DO NOTHING. A recorded (processed)
-- merge is immutable: _010_immutable refuses every UPDATE (LD006), ON
-- CONFLICT DO UPDATE included. merge_scope_commit_sha_bytes_idx (both columns
-- in byte order, whatever the collation) finds the recorded shas a given sha
-- abbreviates or is abbreviated by (ledger._recorded_merge).
-- added, deleted and hunks (optional: NULL means unknown) say what kind of
-- change each path was and which lines changed (_120_changes validates them).
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

CREATE INDEX merge_unprocessed_idx ON ledger.merge (id) WHERE NOT processed;
CREATE INDEX merge_scope_commit_sha_bytes_idx ON ledger.merge (scope COLLATE pg_catalog."C", commit_sha COLLATE pg_catalog."C");

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
