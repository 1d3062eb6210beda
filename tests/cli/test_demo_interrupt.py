"""`findings-ledger demo` interrupted (Ctrl-C) part-way through the scenario
leaves no partial demo scope: the scenario is one transaction."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from findings_ledger import merges
from findings_ledger.cli import main


def test_an_interrupted_demo_leaves_no_partial_scope(ledger_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    record_merge = merges.record_merge

    def interrupted(*args: Any, **kwargs: Any) -> Any:  # the user's Ctrl-C after the third merge
        calls.append(args[2])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return record_merge(*args, **kwargs)

    monkeypatch.setattr(merges, "record_merge", interrupted)
    result = CliRunner().invoke(main, ["demo", "--dsn", ledger_dsn, "--scope", "demo-interrupted"])
    assert len(calls) == 3 and result.exit_code != 0
    with psycopg.connect(ledger_dsn) as conn:
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM ledger.finding WHERE scope = 'demo-interrupted'),"
            "       (SELECT count(*) FROM ledger.merge WHERE scope = 'demo-interrupted'),"
            "       (SELECT count(*) FROM ledger.scope WHERE scope = 'demo-interrupted')").fetchone()
    assert counts == (0, 0, 0)
    # and the same scope name then runs the whole scenario
    monkeypatch.setattr(merges, "record_merge", record_merge)
    result = CliRunner().invoke(main, ["demo", "--dsn", ledger_dsn, "--scope", "demo-interrupted"],
                               env={"COLUMNS": "200"})  # the table at a known width
    assert result.exit_code == 0, result.output
    assert "after 7" in result.output
