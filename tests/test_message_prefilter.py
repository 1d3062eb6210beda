"""The message pre-filter ledger._message_may_match, which decides whether
ledger._merge_decisions runs the full tokeniser and message matcher at all:
a false must mean that ledger._match_message finds nothing. A property test
over messages built from the evidence of a scope's findings (key, slug, its
file name, a keyword, title words, pieces of them broken at a line end) and
every construct the segmenter knows (paragraphs, list items, trailers,
quotes, fences, code spans, HTML comments, revert subjects, CR LF, characters
whose NFC form is a letter) checks exactly that, and that the pre-filter
lets through every message that does match."""

from __future__ import annotations

import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findings_ledger as fl

SCOPE = "prefilter"
PIECES = [
    "F-42", "heartbeat-loss", "2026-01-02-heartbeat-loss.md", "findings/", "ERR_X", "Login", "fails", "on",
    "Safari", "Cache", "stale", "Fixes", "fixes", "closed", "the", "heart", "beat-", "loss", "heartbeat-", "F-", "42",
    " ", " ", "\n", "\n", "\n\n", "-\n", "/\n", "-", "/", ".", ",", ":", "!", "(", ")", "#", '"',
    "> ", "~~~", "```", "`", "- ", "1. ", "Refs: ", "Fixes: ", "Revert \"", "abc1234", "<!--", "-->", "\r\n",
    "\u00a0", "\u2014", "\u212b", "\u00c5", "A\u030a", "\u00c5\u00c5\u00c5",
]


def _findings(conn: psycopg.Connection) -> None:
    if conn.execute("SELECT count(*) FROM ledger.finding WHERE scope = %s", (SCOPE,)).fetchone() != (0,):
        return
    fl.add_finding(conn, SCOPE, "Login fails on Safari", finding_key="F-42", kind="drift")
    fl.add_finding(conn, SCOPE, "Cache stale", kind="drift")
    fl.add_finding(conn, SCOPE, "Heartbeat lost", kind="drift", finding_key="heartbeat-loss")
    conn.execute("UPDATE ledger.finding SET slug = 'heartbeat-loss', strong_keywords = '{ERR_X}' "
                 "WHERE scope = %s AND finding_key = 'heartbeat-loss'", (SCOPE,))
    fl.add_finding(conn, SCOPE, "\u00c5ngstr\u00f6m units wrong everywhere", finding_key="\u00c5-1", kind="drift")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(PIECES), max_size=16))
def test_the_prefilter_never_hides_a_match(ledger_conn: psycopg.Connection, parts: list[str]) -> None:
    _findings(ledger_conn)
    message = "".join(parts)
    may = ledger_conn.execute("SELECT ledger._message_may_match(%s, %s)", (SCOPE, message)).fetchone()[0]
    found = ledger_conn.execute("SELECT count(*) FROM ledger._match_message(%s, %s)", (SCOPE, message)).fetchone()[0]
    assert may or found == 0, message


def test_the_prefilter_passes_what_names_a_finding_and_stops_what_cannot(ledger_conn: psycopg.Connection) -> None:
    _findings(ledger_conn)

    def may(message: str) -> bool:
        return ledger_conn.execute("SELECT ledger._message_may_match(%s, %s)", (SCOPE, message)).fetchone()[0]
    for message in ("Fixes F-42", "see heartbeat-loss", "findings/2026-01-02-heartbeat-loss.md", "ERR_X again",
                    "Login fails on Safari 15", 'Fix "Cache stale"', "heartbeat-\nloss", "\u212b-1 again"):
        assert may(message), message
        found = ledger_conn.execute("SELECT count(*) FROM ledger._match_message(%s, %s)", (SCOPE, message))
        assert found.fetchone() != (0,), message
    for message in ("", "   \n\n", "--- !!!", "Refactor the parser", "Login page", "F-421 and F-4", "stale cache"):
        assert not may(message), message
    for message in ("`x`", "a <!-- b -->", "nothing\r\nhere"):  # not modelled: the full matcher decides
        assert may(message), message
    assert not may("Fixes F-42".replace("F-42", "F-43")) and not ledger_conn.execute(
        "SELECT ledger._message_may_match('no-such-scope', 'Fixes F-42')").fetchone()[0]
