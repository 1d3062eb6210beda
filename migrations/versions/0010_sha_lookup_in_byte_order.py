"""Sha lookup in byte order: ledger._recorded_merge probes only (issue 12)

The redelivery check (_120_redelivery, ledger.record_merge) looked a sha up
with one query over merge_scope_commit_sha_c_idx ((scope, commit_sha
COLLATE "C")) and the unique key. PL/pgSQL keeps a generic plan per
session, and a plan made while ledger.merge was nearly empty (a fresh
ledger's first COPY, multi-row INSERT or replay) was an index scan on the
scope alone with every sha condition as a filter: each merge then read every
merge of its scope recorded so far, so a batch cost the square of its size
(a COPY of 2,000 merges: 1.2 ms per check, against 0.26 ms for 500).

Now every lookup is a btree probe whose conditions only the new index
merge_scope_commit_sha_bytes_idx (scope COLLATE "C", commit_sha COLLATE
"C") can serve, and the function sets enable_seqscan = off: the exact sha,
the greatest recorded sha below it sharing its first 4 digits (only when
there is one are the prefix lengths probed), and the range of longer shas.
The decisions and errors are the same (tests/test_merge_integrity.py).
The index is built, and the old one dropped, by concurrently.sql.

Frozen files:

* tables/merge.sql
* functions/_recorded_merge.sql

Revision ID: 0010_sha_lookup_in_byte_order
Revises: 0009_title_words_in_plpgsql
Create Date: 2026-12-01 15:17:17.544199

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0010_sha_lookup_in_byte_order'
down_revision = '0009_title_words_in_plpgsql'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
