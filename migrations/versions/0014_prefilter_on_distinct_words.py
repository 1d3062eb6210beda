"""The message pre-filter on distinct words; path keys in a loop (issue 12)

Profiled for one merge (2 KB message, 100 paths, 1,000,000 findings), the
statement trigger's two helpers were most of its cost:
- ledger._message_may_match built the file-name and dated-slug forms of
  every token of the message (a 2 KB commit message repeats most of its
  words), normalised it to NFC even when it already was, and called the
  SQL function ledger._scoped_paths, which PostgreSQL plans on every call.
  It now builds those forms from the distinct tokens (and their line-end
  joined forms), skips NFC for a message already in NFC, and writes the
  scope prefix out in its query. The probe keys are the same set
  (checked against the 0007 version on the corpus's 2,958 commit messages
  and 3,000 random ones); 2.6 -> 1.6 ms for the benchmark's message.
- ledger._path_keys was a SQL function (string_to_array / array_to_string
  per prefix, then a DISTINCT sort) planned on every call; it is now a
  PL/pgSQL loop of strpos over each path, and may repeat a key (the btree
  probe of path = ANY (keys) removes repeats itself): 1.2 -> 0.3 ms for 100
  paths (tests/test_path_properties.py checks the key set against a
  reference).
CREATE OR REPLACE FUNCTION only, no table lock.

Frozen files:

* functions/_path_keys.sql
* functions/_message_may_match.sql

Revision ID: 0014_prefilter_on_distinct_words
Revises: 0013_claim_reads_the_task_once
Create Date: 2026-12-01 17:32:26.130385

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0014_prefilter_on_distinct_words'
down_revision = '0013_claim_reads_the_task_once'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
