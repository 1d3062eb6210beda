"""Shared fixtures of the message-matching tests.

``module_conn``: one migrated database per test module (cloned from the
session template like ``ledger_conn``), for table-driven tests that each work
in their own scope: cloning a database per case would cost half a second
each. ``add`` inserts a finding with a plain INSERT and returns its id.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
import pytest

from findings_ledger.testing.databases import database_dsn, janitor

_counter = itertools.count()


@pytest.fixture(scope="module")
def module_dsn(ledger_server: dict[str, Any], ledger_template: str) -> Iterator[str]:
    name = f"ledger_mod_{os.getpid()}_{next(_counter)}"
    with janitor(ledger_server, name, template=ledger_template):
        yield database_dsn(ledger_server, name)


@pytest.fixture(scope="module")
def module_conn(module_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(module_dsn, autocommit=True) as conn:
        yield conn


def add(
    conn: psycopg.Connection[Any],
    scope: str,
    title: str,
    *,
    key: str | None = None,
    slug: str | None = None,
    keywords: Sequence[str] = (),
    kind: str = "review",
    paths: Sequence[str] = (),
) -> int:
    """Insert one finding with a plain INSERT (the way a service would)."""
    row = conn.execute(
        "INSERT INTO ledger.finding (scope, title, finding_key, slug, strong_keywords, kind, paths) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (scope, title, key, slug, list(keywords), kind, list(paths)),
    ).fetchone()
    assert row is not None
    return int(row[0])
