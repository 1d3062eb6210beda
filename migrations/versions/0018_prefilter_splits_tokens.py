"""The message pre-filter splits a message into tokens (issue 12)

ledger._message_may_match built its probe keys from one regexp_matches pass
with ledger._token_regex(true), whose two capture groups (the separator
before each token, the token) PostgreSQL's regular-expression engine finds
in a slower second pass, and then window functions over the tokens. Its
keys are now ledger._message_probe_keys (new): the ASCII-lower-cased
message split at ledger._token_split_regex (new; the separators between
tokens, without capture groups, the word characters taken from
ledger._token_regex), the token forms from the distinct pieces and the
word runs from array slices of the significant words. A message with a
line end after '-' or '/' (where a token broken across lines is joined:
the alt form) keeps the pass with separators, unchanged. The key set is
the same (tests/test_message_prefilter.py checks it against a reference
tokeniser, and it was compared with 0014's on the corpus's 2,958 commit
messages and 10,000 random ones); a 2 KB message costs about 0.6 ms
instead of 1.1 ms. CREATE OR REPLACE FUNCTION and two new functions, no
table lock.

Frozen files:

* functions/_token_split_regex.sql
* functions/_message_probe_keys.sql
* functions/_message_may_match.sql
* privileges.sql

Revision ID: 0018_prefilter_splits_tokens
Revises: 0017_record_merges_row_index
Create Date: 2026-12-01 20:12:53.304802

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0018_prefilter_splits_tokens'
down_revision = '0017_record_merges_row_index'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
