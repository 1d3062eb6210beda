"""Finding kinds are open-ended (``finding.kind`` is any text), so a policy
entry for a kind is never refused; a kind that is neither one the shipped
writers use (review, drift, analysis) nor one of the scope's findings is
most likely misspelt (``--kind drfit``): ``ledger.set_match_policy`` stores
it and raises a WARNING naming it and the scope's kinds, which the
``policy`` verb prints as one ``warning:`` line."""

from __future__ import annotations

from typing import Any

import psycopg
from click.testing import CliRunner

from findings_ledger.cli import main


def _notices(conn: psycopg.Connection[Any]) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    conn.add_notice_handler(lambda d: seen.append((d.severity_nonlocalized or "", d.message_primary or "")))
    return seen


def test_an_unknown_touch_kind_is_stored_with_a_warning(ledger_conn: psycopg.Connection[Any]) -> None:
    seen = _notices(ledger_conn)
    ledger_conn.execute("INSERT INTO ledger.finding (scope, title, kind) "
                        "VALUES ('s', 'a', 'drift'), ('s', 'b', 'lint')")
    ledger_conn.execute("SELECT ledger.set_match_policy('s', p_touch => 'recheck', p_touch_kind => 'drfit')")
    assert seen == [("WARNING", "touch_kind 'drfit': no finding of scope 's' has this kind (its kinds: drift, lint); "
                                "the entry is stored and applies to findings of that kind written later")]
    assert ledger_conn.execute("SELECT touch_modes FROM ledger.scope WHERE scope = 's'").fetchone() == (
        {"drfit": "recheck"},)
    seen.clear()
    ledger_conn.execute("SELECT ledger.set_match_policy('s', p_path_supersede_kinds => '{drift,reveiw,lint,*}')")
    assert seen == [("WARNING", "path_supersede_kinds 'reveiw': no finding of scope 's' has this kind (its kinds: "
                                "drift, lint); the entry is stored and applies to findings of that kind written later")]


def test_known_kinds_and_the_scope_s_own_raise_nothing(ledger_conn: psycopg.Connection[Any]) -> None:
    seen = _notices(ledger_conn)
    ledger_conn.execute("INSERT INTO ledger.finding (scope, title, kind) VALUES ('s', 'b', 'lint')")
    for kind in ("drift", "Review", "analysis", "lint", None):
        ledger_conn.execute("SELECT ledger.set_match_policy('s', p_touch => 'flag', p_touch_kind => %s)", (kind,))
    ledger_conn.execute("SELECT ledger.set_match_policy('s', p_path_supersede_kinds => '{drift,lint,review}')")
    ledger_conn.execute("SELECT ledger.set_match_policy('t', p_create => true, p_touch => 'retire', "
                        "p_touch_kind => 'drift')")
    assert seen == []


def test_the_policy_verb_prints_the_warning(ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO ledger.finding (scope, title, kind) VALUES ('s', 'a', 'drift')")
    result = CliRunner().invoke(main, ["policy", "s", "--touch", "recheck", "--kind", "drfit", "--dsn", ledger_dsn])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "warning: touch_kind 'drfit': no finding of scope 's' has this kind (its kinds: drift); the entry is stored "
        "and applies to findings of that kind written later"]
