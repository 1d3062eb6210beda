CREATE INDEX supersession_anchor_moves_idx ON ledger.supersession (scope, id)
    WHERE finding_id IS NULL AND action = 'anchor_moved';
