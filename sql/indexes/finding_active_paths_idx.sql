-- finding_active_paths_idx: every path of every active finding, keyed
-- scope || U+001F || path (ledger._scoped_paths). The path rule probes it
-- with a merge's touched paths and their ancestor directories.
CREATE INDEX finding_active_paths_idx ON ledger.finding
    USING gin (ledger._scoped_paths(scope, paths)) WITH (fastupdate = off)
    WHERE superseded_at IS NULL;
