"""Check patterns that cannot stall a writer or change meaning.

A back reference (``\\1`` .. ``\\9``) can take time exponential in the
text: ``(.{3,})\\1`` on 2 KB of hex runs for seconds, on a file of 200 KB
for ever. Every write of a check refuses one with LD105 naming it, its
position and what to write. A check stored with one anyway (before the
refusal, or by a role that bypassed the finding trigger) is not evaluated:
its request's outcome is ``error`` (audit ``check_error`` naming the part
and the reason), the finding stays, and the other requests of the same
``record_file_states`` call are settled as ever. The test sets a statement
timeout only so that a regression fails instead of hanging; it asserts on
outcomes, never on time.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

import findings_ledger as fl
from findings_ledger.errors import PatternDialect, ValueInvalid, translate

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)
#: 1920 characters of hex on which ``(.{3,})\1`` runs past 5 s on PostgreSQL 15
HEX = "".join(hashlib.md5(str(g).encode()).hexdigest() for g in range(1, 61))
SLOW = r"(.{3,})\1"


def _insert(conn: psycopg.Connection[Any], pattern: str) -> Any:
    with translate():
        return conn.execute(
            "INSERT INTO ledger.finding (scope, finding_key, title, resolved_when) "
            "VALUES ('bounds', 'F1', 'a title', %s) RETURNING resolved_when -> 'file_contains' ->> 'pattern'",
            (Jsonb({"file_contains": {"path": "src/app.py", "pattern": pattern}}),),
        ).fetchone()[0]


@pytest.mark.parametrize(("written", "construct", "position"), [
    (SLOW, r"\1 (a back reference", 8),
    (r"(a)(b)\2x", r"\2 (a back reference", 7),
    (r"(?i)(x)\9", r"\9 (a back reference", 8),
    (r"(?b)\(a\)\1", r"\1 (a back reference", 10),   # a BRE has them too
])
def test_a_back_reference_is_refused_on_write(ledger_conn: psycopg.Connection[Any], written: str,
                                             construct: str, position: int) -> None:
    with pytest.raises(PatternDialect) as err:
        _insert(ledger_conn, written)
    message = str(err.value)
    assert "finding.resolved_when.file_contains.pattern" in message
    assert f"{construct}: matching it can take time exponential in the text) at character {position}" in message
    assert "the text the group matches written out again" in message
    assert isinstance(err.value, ValueInvalid)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding WHERE scope = 'bounds'").fetchone() == (0,)


@pytest.mark.parametrize("written", [r"\\1", r"(?q)(a)\1", r"***=(a)\1", r"[0-9]{1}"])
def test_what_is_not_a_back_reference_is_stored_as_written(ledger_conn: psycopg.Connection[Any],
                                                          written: str) -> None:
    assert _insert(ledger_conn, written) == written


def _eval(conn: psycopg.Connection[Any], check: dict[str, Any], states: dict[str, Any]) -> tuple[Any, ...]:
    return conn.execute("SELECT holds, part, error FROM ledger._eval_check(%s, %s)",
                        (Jsonb(check), Jsonb(states))).fetchone()


def test_a_part_that_cannot_be_evaluated_is_undecided_with_the_reason(ledger_conn: psycopg.Connection[Any]) -> None:
    ledger_conn.execute("SET statement_timeout = '20s'")
    slow = {"file_contains": {"path": "a.py", "pattern": SLOW}}
    broken = {"file_lacks": {"path": "a.py", "pattern": "(a"}}   # a pattern stored without the validation
    yes = {"path_exists": "a.py"}
    no = {"path_absent": "a.py"}
    states = {"a.py": HEX}
    holds, part, error = _eval(ledger_conn, slow, states)
    assert (holds, part) == (None, "file_contains")
    assert error.startswith(r"the pattern has a back reference (\1 .. \9), which the ledger does not evaluate")
    holds, part, error = _eval(ledger_conn, broken, states)
    assert (holds, part) == (None, "file_lacks")
    assert error.startswith("PostgreSQL could not match the pattern (2201B: invalid regular expression")
    # the part decides nothing; the others decide as ever
    assert _eval(ledger_conn, {"any": [slow, yes]}, states) == (True, "any[1].path_exists", None)
    assert _eval(ledger_conn, {"all": [slow, no]}, states) == (False, "all[1].path_absent", None)
    assert _eval(ledger_conn, {"all": [yes, broken]}, states)[:2] == (None, "all[1].file_lacks")
    assert _eval(ledger_conn, {"all": [{"file_contains": {"path": "b.py", "pattern": "x"}}, yes]}, states) == (
        None, None, None)   # merely unknown: no error


def test_a_stored_back_reference_is_an_error_outcome_and_the_batch_goes_on(
        ledger_conn: psycopg.Connection[Any]) -> None:
    ledger_conn.execute("SET statement_timeout = '20s'")
    slow = fl.add_finding(ledger_conn, "s", "a.py repeats itself", finding_key="SLOW", kind="drift",
                          resolved_when={"file_lacks": {"path": "a.py", "pattern": "placeholder"}},
                          observed_at=OLD).id
    fine = fl.add_finding(ledger_conn, "s", "a.py has no hex", finding_key="FINE", kind="drift",
                          resolved_when={"file_contains": {"path": "a.py", "pattern": "[0-9a-f]{32}"}},
                          observed_at=OLD).id
    # a check stored before back references were refused: written past the finding trigger
    ledger_conn.execute("SET session_replication_role = replica")
    ledger_conn.execute("UPDATE ledger.finding SET resolved_when = %s WHERE id = %s",
                        (Jsonb({"file_lacks": {"path": "a.py", "pattern": SLOW}}), slow))
    ledger_conn.execute("RESET session_replication_role")
    merge = fl.record_merge(ledger_conn, "s", "1" * 40, paths=["a.py"], message="more hex").merge_id
    out = fl.record_file_states(ledger_conn, merge, {"a.py": HEX})
    assert sorted((o.finding_id, o.outcome, o.part) for o in out) == sorted(
        [(slow, "error", "file_lacks"), (fine, "held", "file_contains")])
    assert [f.id for f in fl.active_findings(ledger_conn, "s")] == [slow]
    (action, evidence, reason, detail), = ledger_conn.execute(
        "SELECT action, evidence, reason, detail FROM ledger.supersession WHERE finding_id = %s AND rule = 'check'",
        (slow,)).fetchall()
    assert (action, evidence) == ("check_error", "file_lacks")
    assert reason.startswith(f"the finding's check could not be evaluated on the tree of {'1' * 40}: file_lacks: "
                             r"the pattern has a back reference (\1 .. \9)")
    assert detail["error"].startswith(r"the pattern has a back reference")
    # answering again changes nothing
    assert sorted((o.finding_id, o.outcome) for o in fl.record_file_states(ledger_conn, merge, {"a.py": HEX})) == \
        sorted([(slow, "error"), (fine, "held")])
    assert ledger_conn.execute("SELECT count(*) FROM ledger.supersession WHERE action = 'check_error'"
                               ).fetchone() == (1,)
