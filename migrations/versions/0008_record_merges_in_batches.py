"""Record merges in batches (issue 12)

ledger.record_merges(p_scope text, p_merges jsonb) records a JSON array of
merges of one scope in one multi-row INSERT ... ON CONFLICT (scope,
commit_sha) DO NOTHING, in array order, and returns per element (ord,
merge_id, recorded, decisions) what ledger.record_merge returns for one.
At most 10,000 elements (LD004); each is checked against its shape first
(ledger._check_json_shape, which learns the type "object" for hunks;
merged_at ISO 8601 with its offset): LD003/LD002 name merges[i].<field>.
Each element's recorded merge (a redelivery, an abbreviated sha) is looked
up before the INSERT, as one record_merge per element would find it. SECURITY DEFINER like
record_merge (it returns audit rows); ledger_writer may execute it
(privileges.sql re-run). set_hygiene_mode and set_match_policy say how to
create an unknown scope (p_create => true) in the LD005 error's HINT
instead of its message. No table changes.

Frozen files:

* functions/record_merges.sql
* functions/set_hygiene_mode.sql
* functions/_check_json_shape.sql
* functions/set_match_policy.sql
* privileges.sql

Revision ID: 0008_record_merges_in_batches
Revises: 0007_merge_trigger_phase_2
Create Date: 2026-12-01 13:37:31.068440

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0008_record_merges_in_batches'
down_revision = '0007_merge_trigger_phase_2'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
