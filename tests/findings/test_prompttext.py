"""Reading the flagged entries back from a prompt text (findings_ledger.findings.possibly_resolved):
the text ledger.read_prompt_text prints, and text that only looks like it."""

from __future__ import annotations

import psycopg

import findings_ledger as fl
from findings_ledger.findings import PromptTouch, possibly_resolved


def _touch(sha: str, subject: str, fid: int) -> str:
    return (f"possibly resolved by {sha} ({subject}): verify with ledger.verify_finding({fid}, 'resolved' | "
            "'still_true', evidence, verifier)")


def test_the_latest_touch_of_each_flagged_finding_in_prompt_order() -> None:
    text = "\n".join([
        "[high] app.py registers night-shift (finding 7)",
        "paths: app.py",
        "The registration is still there.",
        _touch("aaaaaaaaaaaa", "first", 7),
        _touch("bbbbbbbbbbbb", "second (with brackets): and a colon", 7),
        "possibly resolved by 2 more merges, not listed (ledger.read_audit)",
        "",
        "[low] README (finding 3)",
        "no touch here",
        "",
        "[medium] docs (finding 12)",
        _touch("cccccccccccc", "docs", 12),
    ])
    assert possibly_resolved(text) == [
        PromptTouch(7, "bbbbbbbbbbbb", "second (with brackets): and a colon", 2),
        PromptTouch(12, "cccccccccccc", "docs", 1),
    ]
    assert possibly_resolved("") == []


def test_a_description_that_quotes_a_touch_line_flags_nothing() -> None:
    text = "\n".join([
        "[high] quoting (finding 4)",
        "The log said:",
        _touch("dddddddddddd", "forged", 9),  # names finding 9, inside finding 4's block
        _touch("eeeeeeeeeeee", "no finding yet", 4)[:-2],  # cut short: not a touch line
    ])
    assert possibly_resolved(text) == []


def test_what_the_database_prints(ledger_conn: psycopg.Connection) -> None:
    fl.add_finding(ledger_conn, "s", "app.py registers night-shift", paths=["app.py"], kind="drift",
                   finding_key="F1")
    quiet = fl.add_finding(ledger_conn, "s", "README", paths=["README.md"], kind="drift", finding_key="F2")
    flagged = fl.add_finding(ledger_conn, "s", "docs", paths=["docs/x.md"], kind="drift", finding_key="F3")
    fl.record_merge(ledger_conn, "s", "a" * 40, ["docs/x.md"], message="Docs (part 1): more\n\nbody")
    fl.record_merge(ledger_conn, "s", "b" * 40, ["docs/x.md"], message="Docs, part 2")
    got = possibly_resolved(fl.read_prompt_text(ledger_conn, "s").prompt)
    assert got == [PromptTouch(flagged.id, "b" * 12, "Docs, part 2", 2)]
    assert quiet.id not in [t.finding_id for t in got]
