"""Title words in PL/pgSQL: ledger._title_sig and ledger._words (issue 12)

Both were SQL functions whose body has a FROM clause, so PostgreSQL never
inlined them and planned their query again on every call; _title_sig runs
for every finding written (the evidence index expression,
ledger._evidence_keys) and for every finding a message is matched against.
As PL/pgSQL (SET search_path = pg_catalog) the query is planned once per
session: ledger._evidence_keys went from 0.10 to 0.044 ms per call
(10,000 titles, PostgreSQL 15). The results are the same for every input,
so the expression indexes built on them stay valid: nothing is rebuilt.
CREATE OR REPLACE FUNCTION only, no table lock.

Frozen files:

* functions/_words.sql
* functions/_title_sig.sql

Revision ID: 0009_title_words_in_plpgsql
Revises: 0008_record_merges_in_batches
Create Date: 2026-12-01 15:13:25.318402

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0009_title_words_in_plpgsql'
down_revision = '0008_record_merges_in_batches'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
