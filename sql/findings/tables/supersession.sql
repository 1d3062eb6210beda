-- ledger.supersession: the audit. One row per decision (superseded,
-- would_supersede, already_superseded, candidate, skipped, ambiguous,
-- mention, dismissed, restored, reopened, ...), written in the same
-- transaction as the change it records and before it. Append-only
-- (_010_append_only, _011_append_only_truncate: LD402); every insert is
-- announced on channel ledger_finding (_100_notify).
CREATE TABLE ledger.supersession (
    id         bigint GENERATED ALWAYS AS IDENTITY,
    scope      text NOT NULL,
    finding_id bigint,
    merge_id   bigint,
    action     text NOT NULL,
    rule       text,
    evidence   text,
    detail     jsonb,
    actor      text,
    reason     text,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT supersession_pkey PRIMARY KEY (id),
    CONSTRAINT supersession_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope),
    CONSTRAINT supersession_finding_id_fkey FOREIGN KEY (finding_id) REFERENCES ledger.finding (id),
    CONSTRAINT supersession_merge_id_fkey FOREIGN KEY (merge_id) REFERENCES ledger.merge (id)
);

CREATE INDEX supersession_finding_idx ON ledger.supersession (finding_id, id);
CREATE INDEX supersession_merge_idx ON ledger.supersession (merge_id, id);
CREATE INDEX supersession_scope_idx ON ledger.supersession (scope, id);
-- the merges' anchor records (one per merge that moved anchors), for a finding's history
CREATE INDEX supersession_anchor_moves_idx ON ledger.supersession (scope, id)
    WHERE finding_id IS NULL AND action = 'anchor_moved';

COMMENT ON TABLE ledger.supersession IS
'The audit trail: one row per decision, written in the same transaction as the change it records, before the finding changes; the anchors a merge only moved within their files are one row of the merge, its anchor record (finding_id NULL, action anchor_moved, detail {"moves": {"<path>": {"<finding_id>": [from_first, from_last, to_first, to_last]}}}; ledger._anchor_moves reads it per finding). action: superseded, would_supersede (dry mode), already_superseded (a concurrent merge won), ... rule: path, ... evidence: the touched path (or text) that matched.';
