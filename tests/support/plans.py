"""Reading the plans of the statements functions and triggers run, for the
plan tests (tests/sql/test_import_plan.py, tests/sql/test_hunk_plan.py): auto_explain
with log_nested_statements, its LOG lines sent to this client. Tests read
plan shapes and row counts, never times."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest


def load_auto_explain(conn: psycopg.Connection[Any]) -> None:
    """LOAD auto_explain into this session. A superuser (the throwaway
    cluster's postgres, what make test uses) may LOAD it, and every server
    build here ships it: there its absence fails the test; only a role that
    may not LOAD a library (an existing server through LEDGER_DSN) skips."""
    try:
        conn.execute("LOAD 'auto_explain'")
    except psycopg.Error as exc:
        superuser = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
        assert not (superuser and superuser[0]), f"a superuser cannot LOAD auto_explain: {exc}"
        pytest.skip(f"this role may not LOAD auto_explain: {exc}")


@contextmanager
def nested_plans(conn: psycopg.Connection[Any], keep: Callable[[str], bool], *settings: str) -> Iterator[list[str]]:
    """A transaction in which every nested statement's plan is logged to this
    client (auto_explain must be loaded); yields the list that collects the
    plans ``keep`` accepts. ``settings`` are more SET LOCAL settings
    (auto_explain.log_analyze = on, ...). The transaction commits unless
    the block raises; inside ``conn.transaction(force_rollback=True)`` it is
    a savepoint that is rolled back with it."""
    plans: list[str] = []

    def on_notice(diag: psycopg.errors.Diagnostic) -> None:
        text = diag.message_primary or ""
        if "plan:" in text and keep(text):
            plans.append(text)

    conn.add_notice_handler(on_notice)
    try:
        with conn.transaction():
            for setting in ("auto_explain.log_min_duration = 0", "auto_explain.log_nested_statements = on",
                            "client_min_messages = log", *settings):
                conn.execute(f"SET LOCAL {setting}")
            yield plans
    finally:
        conn.remove_notice_handler(on_notice)
