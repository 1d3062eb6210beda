CREATE OR REPLACE VIEW ledger.pending_file_state AS
SELECT r.merge_id, m.commit_sha, r.scope, r.finding_id, r.paths, r.requested_at, r.id AS request_id
  FROM ledger.file_state_request r
  JOIN ledger.merge m ON m.id = r.merge_id
 WHERE r.answered_at IS NULL
   AND (NOT (SELECT pg_catalog.row_security_active('ledger.file_state_request'::pg_catalog.regclass))
        OR r.scope = ANY ((SELECT ledger._visible_scopes())::text[]));

COMMENT ON VIEW ledger.pending_file_state IS
'Pending file-state requests (answered_at IS NULL) with the merge''s commit_sha: (merge_id, commit_sha, scope, finding_id, paths text[] to read at that commit (directories end in /), requested_at, request_id); order by merge_id. Answer with ledger.record_file_states(merge_id, states). Honours per-scope row-level security.';
