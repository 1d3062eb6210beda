"""review-bot against a real, migrated, empty ledger: ``ledger_conn`` comes
from the findings-ledger pytest plugin, nothing is mocked."""

from __future__ import annotations

import psycopg
import pytest
from review_bot import Comment, file_review, on_merged, prompt_notes, watch_repo

REVIEW = [
    Comment("r1", "./src/api.py:42", "Validate the page size", "high"),
    Comment("r2", "docs/", "Document the new endpoint", "low"),
    Comment("r3", "src/db.py:7:3", "Close the cursor", "Major"),
]


def test_a_merge_retires_the_notes_it_addressed(ledger_conn: psycopg.Connection) -> None:
    watch_repo(ledger_conn, "shop")
    assert file_review(ledger_conn, "shop", REVIEW) == 3
    assert on_merged(ledger_conn, "shop", "9f8e7d6c", ["src/api.py", "docs/api/pages.md"], node="agent-2")
    assert prompt_notes(ledger_conn, "shop") == ["[high] Close the cursor (src/db.py)"]


def test_redelivered_merges_and_reviews_have_no_second_effect(ledger_conn: psycopg.Connection) -> None:
    watch_repo(ledger_conn, "shop")
    file_review(ledger_conn, "shop", REVIEW)
    assert on_merged(ledger_conn, "shop", "ABCDEF01", ["src/db.py"]) is True
    assert on_merged(ledger_conn, "shop", "abcdef01", ["src/db.py"]) is False
    assert file_review(ledger_conn, "shop", REVIEW) == 0
    assert len(prompt_notes(ledger_conn, "shop")) == 2


def test_a_bad_location_is_refused_by_the_database(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(psycopg.Error) as info:
        file_review(ledger_conn, "shop", [Comment("r9", "/etc/passwd", "Absolute path")])
    assert info.value.sqlstate == "LD001"
    with pytest.raises(psycopg.Error) as unknown:
        prompt_notes(ledger_conn, "shop")
    assert unknown.value.sqlstate == "LD005"  # nothing was stored, not even the scope
