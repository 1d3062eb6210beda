-- The file-state protocol of checked findings (run: psql -X -a -f docs/examples/file_states.sql).
-- A drift review writes a finding with its check: night-shift's extraction
-- module exists and no longer raises NotImplementedError.
INSERT INTO ledger.finding (scope, finding_key, kind, title, observed_at, resolved_when) VALUES
  ('spec-07', 'F04', 'drift', 'extraction.py is a stub', '2026-06-01T00:00:00Z',
   '{"all": [{"path_exists": "agent_fox/nightshift/extraction.py"},
             {"file_lacks": {"path": "agent_fox/nightshift/extraction.py", "pattern": "NotImplementedError"}}]}');
SELECT finding_key, paths FROM ledger.finding WHERE scope = 'spec-07';
-- Two merges touch the file; neither retires the finding by the touch.
INSERT INTO ledger.merge (scope, commit_sha, message, paths, merged_at) VALUES
  ('spec-07', '7f5130c1', 'Add extraction stubs', '{agent_fox/nightshift/extraction.py}', '2026-06-02T10:00:00Z'),
  ('spec-07', 'eb0dee12', 'Implement extraction', '{agent_fox/nightshift/extraction.py}', '2026-06-03T10:00:00Z');
-- What the writer must read, at which commit.
SELECT merge_id, commit_sha, finding_id, paths FROM ledger.pending_file_state ORDER BY merge_id;
-- The later merge is answered first: its tree holds, but it waits for the earlier one.
SELECT * FROM ledger.record_file_states(
  (SELECT id FROM ledger.merge WHERE commit_sha = 'eb0dee12'),
  '{"agent_fox/nightshift/extraction.py": "def extract(doc):\n    return parse(doc)\n"}');
-- The earlier merge's tree (a stub): the check fails there, so the later merge retires it.
SELECT * FROM ledger.record_file_states(
  (SELECT id FROM ledger.merge WHERE commit_sha = '7f5130c1'),
  '{"agent_fox/nightshift/extraction.py": "def extract(doc):\n    raise NotImplementedError\n"}');
-- A redelivered answer changes nothing.
SELECT * FROM ledger.record_file_states(
  (SELECT id FROM ledger.merge WHERE commit_sha = '7f5130c1'),
  '{"agent_fox/nightshift/extraction.py": "def extract(doc):\n    raise NotImplementedError\n"}');
SELECT f.finding_key, m.commit_sha, a.action, a.rule, a.evidence
  FROM ledger.supersession a JOIN ledger.finding f ON f.id = a.finding_id JOIN ledger.merge m ON m.id = a.merge_id
 WHERE a.scope = 'spec-07' ORDER BY a.id;
SELECT finding_key, superseded_by, supersede_rule FROM ledger.finding WHERE scope = 'spec-07';
-- A path no request asked for is refused, naming it; nothing is written.
SELECT * FROM ledger.record_file_states((SELECT id FROM ledger.merge WHERE commit_sha = '7f5130c1'),
                                        '{"README.md": null}');
