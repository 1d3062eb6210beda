"""Issue 14: hardening against hostile and careless writers.

Revision ID: 0002_harden_hostile_input
Revises: 0001_baseline
Create Date: 2026-12-01 10:51:32.421061

What a writer could do without complaint at 0001, and what it gets now:

* rewrite a merge (UPDATE, ON CONFLICT DO UPDATE): trigger _010_immutable
  refuses every UPDATE of a processed merge (LD006);
* redeliver a commit with other paths, message or branch, or by an
  abbreviated sha (two merges of one commit): trigger _120_redelivery and
  _recorded_merge compare it with the recorded merge (LD007 naming what
  differs; an identical one becomes a DO NOTHING redelivery); the index
  merge_scope_commit_sha_c_idx (byte order) finds the shas an abbreviation
  stands for;
* paths in NFD, git-C-quoted, blank but for a no-break space, with format
  or C1 control characters, in a 2-D array or one not starting at 1:
  normalize_path (NFC, _unquote_path, Unicode white space from
  _unicode_class), normalize_paths (LD001, LD003);
* replace_findings elements of any JSON type, with unknown fields:
  _check_json_shape (LD003);
* forged NOTIFY ledger_finding events: the payload is only the audit id,
  re-read with ledger.read_finding_events under the caller's rights;
* blocking another tenant's re-review through its advisory-lock key:
  replace_findings locks the scope row instead;
* locale-dependent lower(): every lower() folds ASCII (COLLATE "C");
* scope names with a comma (not listable in ledger.scopes), control or
  format characters: _check_scope (LD002, LD003), workspace_scope encodes
  them;
* created_at, merged_at, injected_at in the future: _check_timestamp
  (LD003 beyond 5 minutes, clamped to now() within).

Existing rows are not rewritten (ledger.reconcile re-normalises a scope's
active findings' paths). Frozen files: the changed and new functions, the
two triggers, privileges.sql (grants of the new helpers and of
read_finding_events), tables/merge.sql (its comment and the new index).

Locks, in the transaction: SHARE ROW EXCLUSIVE on merge (two new
triggers), ACCESS SHARE on finding and supersession (SQL functions parsed
against them). Then concurrently.sql, outside it: CREATE INDEX
CONCURRENTLY merge_scope_commit_sha_c_idx, and REINDEX INDEX CONCURRENTLY
finding_active_evidence_idx, whose keys change on a database whose
collation is not C (SHARE UPDATE EXCLUSIVE; rerunnable). The downgrade
restores the earlier functions, drops the index and rebuilds the evidence
index in its own transaction (SHARE on finding while it builds).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0002_harden_hostile_input'
down_revision = '0001_baseline'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
