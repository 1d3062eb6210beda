"""one definition of the token characters: ledger._token_chars

The word characters of a message token are written once, in the new
``ledger._token_chars()``; ``ledger._token_regex`` and
``ledger._token_split_regex`` are built from it. ``_token_split_regex`` took
them by cutting the bracket expression out of ``_token_regex(false)``'s text.
Both return exactly the text they returned before, so every token, key and
decision is the same. ``_token_chars`` is granted like ``_token_regex``
(privileges.sql re-run).

Frozen files:

* functions/_token_chars.sql
* functions/_token_regex.sql
* functions/_token_split_regex.sql
* privileges.sql

Revision ID: 0029_one_definition_of_the_token
Revises: 0028_one_builder_of_the_path_key
Create Date: 2026-12-02 18:41:06.676856

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0029_one_definition_of_the_token'
down_revision = '0028_one_builder_of_the_path_key'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
