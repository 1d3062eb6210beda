CREATE TABLE ledger.finding_path (
    scope      text NOT NULL,
    path       text NOT NULL,
    finding_id bigint NOT NULL,
    CONSTRAINT finding_path_pkey PRIMARY KEY (scope, path, finding_id)
);

COMMENT ON TABLE ledger.finding_path IS
'The paths of the active findings (superseded_at IS NULL), one row per (scope, path, finding_id), maintained by the finding triggers _300_paths_insert (ledger.tg_finding__paths_insert) and _300_paths_update (ledger.tg_finding__paths_update); the path rule probes its primary key with a merge''s touched paths and their ancestor directories. Derived: never written directly, no role has privileges on it.';

COMMENT ON COLUMN ledger.finding_path.scope IS
'The finding''s scope (ledger.finding.scope).';

COMMENT ON COLUMN ledger.finding_path.path IS
'One normalised path of the finding (ledger.finding.paths element): a file, or a directory ending with /.';

COMMENT ON COLUMN ledger.finding_path.finding_id IS
'The active finding (ledger.finding.id) that references the path.';
