"""ledger.reconcile(scope): merges written while the ledger's
triggers did not fire (session_replication_role = replica, as logical
replication applies rows) keep processed = false; reconcile applies them in
id order, with the trigger's own function (ledger._apply_merge), exactly
once, and normalises the paths and branches such rows carry; the matcher
and the revert rule apply to them as they do to live merges."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb
from support.security import as_role, counts, wait_until_blocked
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl

FINDINGS = [
    # (scope, title, paths as a replica would carry them, written by the replica?)
    ("spec", "a.py stale", ["src/a.py"], False),
    ("spec", "b.py stale", ["./src/b.py:3"], True),
    ("spec", "docs stale", ["docs//"], True),
    ("spec", "lib stale", ["lib/"], False),
    ("other", "a.py elsewhere", ["src/a.py"], False),
]
MERGES = [
    # (scope, commit_sha, node_id, paths as carried)
    ("spec", "aaaa", "node-1", ["src\\a.py", "./src/b.py:12"]),
    ("spec", "bbbb", "node-2", ["src/a.py"]),  # already superseded by aaaa
    ("spec", "cccc", None, ["docs/readme.md", " lib/x.py "]),
    ("spec", "dddd", "node-4", []),
]


def replica(conn: psycopg.Connection[Any], on: bool) -> None:
    conn.execute("SET session_replication_role = " + ("replica" if on else "DEFAULT"))


def write_findings(conn: psycopg.Connection[Any], via_replica: bool) -> None:
    retire_drift_on_touch(conn, *sorted({f[0] for f in FINDINGS}))  # the path rule as such
    for scope, title, paths, by_replica in FINDINGS:
        replica(conn, via_replica and by_replica)
        conn.execute("INSERT INTO ledger.finding (scope, title, kind, paths) VALUES (%s, %s, 'drift', %s)",
                     (scope, title, paths))
    replica(conn, False)


def write_merges(conn: psycopg.Connection[Any], via_replica: bool) -> None:
    replica(conn, via_replica)
    for scope, sha, node, paths in MERGES:
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, node_id, paths) VALUES (%s, %s, %s, %s)",
                     (scope, sha, node, paths))
    replica(conn, False)


def outcome(conn: psycopg.Connection[Any]) -> tuple[list[tuple], list[tuple], list[tuple]]:
    findings = conn.execute(
        "SELECT id, paths, superseded_at IS NOT NULL, superseded_by, superseded_by_merge_id, supersede_rule "
        "FROM ledger.finding ORDER BY id").fetchall()
    merges = conn.execute("SELECT id, scope, commit_sha, paths, processed FROM ledger.merge ORDER BY id").fetchall()
    audit = conn.execute(
        "SELECT scope, finding_id, merge_id, action, rule, evidence, detail FROM ledger.supersession ORDER BY id"
    ).fetchall()
    return findings, merges, audit


def test_reconcile_gives_exactly_what_the_triggers_give(
    ledger_conn: psycopg.Connection, ledger_dsn_factory: Callable[[], str]
) -> None:
    write_findings(ledger_conn, via_replica=True)
    write_merges(ledger_conn, via_replica=True)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge WHERE NOT processed").fetchone() == (4,)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.supersession").fetchone() == (0,)
    with as_role(ledger_conn, "ledger_admin") as conn:
        applied = fl.reconcile(conn, "spec")
    assert [r.merge_id for r in applied] == [1, 2, 3, 4]
    assert [r.superseded for r in applied] == [[1, 2], [], [3, 4], []]
    with psycopg.connect(ledger_dsn_factory(), autocommit=True) as live:
        write_findings(live, via_replica=False)
        write_merges(live, via_replica=False)
        assert outcome(ledger_conn) == outcome(live)


def test_reconcile_is_idempotent(ledger_conn: psycopg.Connection) -> None:
    write_findings(ledger_conn, via_replica=True)
    write_merges(ledger_conn, via_replica=True)
    assert len(fl.reconcile(ledger_conn, "spec")) == 4
    after = outcome(ledger_conn)
    assert fl.reconcile(ledger_conn, "spec") == []
    assert fl.reconcile(ledger_conn, "other") == []
    assert outcome(ledger_conn) == after


def test_reconcile_follows_hygiene_mode(ledger_conn: psycopg.Connection) -> None:
    retire_drift_on_touch(ledger_conn, "spec")
    fid = fl.add_finding(ledger_conn, "spec", "stale", paths=["a.py"], kind="drift").id
    fl.set_hygiene_mode(ledger_conn, "spec", "dry")
    replica(ledger_conn, True)
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', 'abcd', '{a.py}')")
    replica(ledger_conn, False)
    [result] = fl.reconcile(ledger_conn, "spec")
    assert [(d.finding_id, d.action) for d in result.decisions] == [(fid, "would_supersede")]
    assert [f.id for f in fl.active_findings(ledger_conn, "spec")] == [fid]


def test_reconcile_creates_a_scope_only_replicated_rows_name(ledger_conn: psycopg.Connection) -> None:
    """Replica mode skips the foreign key triggers too: the scope row may be missing."""
    replica(ledger_conn, True)
    ledger_conn.execute("INSERT INTO ledger.finding (scope, title, kind, paths) VALUES ('replicated', 't', 'drift', "
                        "'{x.py}')")
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('replicated', 'abcd', '{x.py}')")
    replica(ledger_conn, False)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.scope").fetchone() == (0,)
    [result] = fl.reconcile(ledger_conn, "replicated")
    # the created scope has the shipped touch mode: the unchecked drift finding is flagged
    assert result.superseded == [] and [d.action for d in result.decisions] == ["flagged"]
    assert ledger_conn.execute("SELECT scope, hygiene_mode FROM ledger.scope").fetchall() == [("replicated", "on")]


@pytest.mark.parametrize(
    ("scope", "error", "field"),
    [(None, fl.ValueRequired, "reconcile.scope"), ("  ", fl.ValueRequired, "reconcile.scope"),
     ("s" * 201, fl.ValueTooLong, "reconcile.scope"), ("a\tb", fl.ValueInvalid, "reconcile.scope"),
     ("no-such-scope", fl.NotFound, "reconcile.scope")],
)
def test_reconcile_bad_scope(ledger_conn: psycopg.Connection, scope: Any, error: type, field: str) -> None:
    with pytest.raises(error) as info:
        fl.reconcile(ledger_conn, scope)
    assert field in str(info.value)


def test_a_path_that_cannot_be_normalised_stops_reconcile_and_applies_nothing(ledger_conn: psycopg.Connection) -> None:
    fl.add_finding(ledger_conn, "spec", "stale", paths=["a.py"], kind="drift")
    replica(ledger_conn, True)
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', 'aaaa', '{a.py}')")
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', 'bbbb', '{../x.py}')")
    replica(ledger_conn, False)
    before = (counts(ledger_conn), outcome(ledger_conn))
    with pytest.raises(fl.PathRejected) as info:
        fl.reconcile(ledger_conn, "spec")
    assert "merge 2 paths[1]" in str(info.value)
    assert (counts(ledger_conn), outcome(ledger_conn)) == before
    ledger_conn.execute("UPDATE ledger.merge SET paths = '{x.py}' WHERE id = 2")  # the DBA's fix
    assert [r.merge_id for r in fl.reconcile(ledger_conn, "spec")] == [1, 2]


def test_concurrent_reconciles_apply_each_merge_once(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    """Two connections reconcile the same scope at the same moment: the second
    waits for the first's row locks and then finds nothing left to do."""
    write_findings(ledger_conn, via_replica=True)
    write_merges(ledger_conn, via_replica=True)
    first = psycopg.connect(ledger_dsn)
    second = psycopg.connect(ledger_dsn, autocommit=True)
    try:
        applied_first = fl.reconcile(first, "spec")  # transaction open, locks held
        result: dict[str, Any] = {}
        worker = threading.Thread(target=lambda: result.setdefault("second", fl.reconcile(second, "spec")))
        worker.start()
        wait_until_blocked(ledger_conn, second.info.backend_pid)
        first.commit()
        worker.join(30)
        assert not worker.is_alive()
    finally:
        first.close()
        second.close()
    assert len(applied_first) == 4 and result["second"] == []
    superseded = ledger_conn.execute("SELECT count(*) FROM ledger.supersession WHERE action = 'superseded'")
    assert superseded.fetchone() == (4,)



SHA_1 = "1111aaaa" * 5
MATCHING_MERGES = [
    # (commit_sha, message, paths, branch as a replica would carry it)
    (SHA_1, "Fixes F-1\n\nand touches src/a.py", ["src/a.py"], "refs/heads/main"),
    ("2222bbbb", "Revert \"Fixes F-1\"\n\nThis reverts commit " + SHA_1.upper() + ".", [], "main"),
    ("3333cccc", "Closes F-2", [], "refs/heads/feature"),  # another branch: skipped
    ("4444dddd", "resolves ECONNRESET_7, mentions F-2", ["./lib/x.py:3"], None),
]


def write_matching(conn: psycopg.Connection[Any], via_replica: bool) -> None:
    fl.set_match_policy(conn, "spec", default_branch="main", create=True)
    retire_drift_on_touch(conn, "spec")  # the path rule as such
    for key, title, keywords, paths in (("F-1", "parser drops data", [], ["src/a.py"]),
                                        ("F-2", "lexer is slow", [], ["lib/"]),
                                        (None, "socket reset", ["ECONNRESET_7"], [])):
        conn.execute("INSERT INTO ledger.finding (scope, finding_key, title, strong_keywords, kind, paths) "
                     "VALUES ('spec', %s, %s, %s, 'drift', %s)", (key, title, keywords, paths))
    replica(conn, via_replica)
    for sha, message, paths, branch in MATCHING_MERGES:
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message, paths, branch) "
                     "VALUES ('spec', %s, %s, %s, %s)", (sha, message, paths, branch))
    replica(conn, False)


def without_times(result: tuple[list[tuple], list[tuple], list[tuple]]) -> tuple[list[tuple], ...]:
    """outcome() without the timestamps a reopen copies into its audit detail."""
    findings, merges, audit = result
    return findings, merges, [(*row[:-1], {k: v for k, v in (row[-1] or {}).items() if k != "superseded_at"})
                              for row in audit]


def test_reconcile_applies_message_rules_branches_and_reverts_like_the_triggers(
    ledger_conn: psycopg.Connection, ledger_dsn_factory: Callable[[], str]
) -> None:
    """The matcher (key, keyword rules, the scope's default_branch) and the
    revert rule (ledger._apply_revert) run for reconciled merges exactly as
    the _200_supersede and _300_revert triggers run them; the branch is
    normalised as _110_branch would."""
    write_matching(ledger_conn, via_replica=True)
    with as_role(ledger_conn, "ledger_admin") as conn:
        applied = fl.reconcile(conn, "spec")
    assert [sorted((d.finding_id or 0, d.action) for d in r.decisions) for r in applied] == [
        [(1, "superseded")],
        [(1, "reopened")],
        [(0, "skipped"), (2, "skipped")],
        [(2, "superseded"), (3, "superseded")],
    ]
    assert ledger_conn.execute("SELECT branch FROM ledger.merge ORDER BY id").fetchall() == [
        ("main",), ("main",), ("feature",), (None,)]
    with psycopg.connect(ledger_dsn_factory(), autocommit=True) as live:
        write_matching(live, via_replica=False)
        assert without_times(outcome(ledger_conn)) == without_times(outcome(live))
        assert ledger_conn.execute("SELECT id, reopen_count, state FROM ledger.finding_lifecycle ORDER BY id")\
            .fetchall() == live.execute("SELECT id, reopen_count, state FROM ledger.finding_lifecycle ORDER BY id")\
            .fetchall()


T0 = datetime(2026, 6, 1, tzinfo=timezone.utc)
DECISION_FINDINGS = [
    # (title, paths as written, expects, observed on day, written by the replica?)
    ("anchored", ["./src/a.py:42"], "change", 0, True),
    ("ranged", ["src/b.py:40-48"], "change", 0, True),
    ("package missing", ["pkg/"], "present", 0, False),
    ("old module", ["old.py"], "absent", 0, True),
    ("filed later", ["src/c.py"], "change", 5, False),
]
DECISION_MERGES = [
    # (commit_sha, day, paths, added, deleted, hunks), all as a replica carries them
    ("d1d1", 1, ["src\\a.py", "src/b.py", "./src/c.py"], None, None,
     {"./src/a.py": [[0, 0, 1, 10]], "src/b.py": [[44, 0, 45, 1]]}),
    ("d2d2", 2, ["pkg/x.py", "old.py"], ["./pkg/x.py"], ["old.py"], None),
    ("d3d3", 3, ["src/a.py"], None, None, {"src/a.py": [[52, 1, 52, 1]]}),
]


def write_decisions(conn: psycopg.Connection[Any], via_replica: bool) -> None:
    retire_drift_on_touch(conn, "spec")  # the path rule as such
    for title, paths, expects, observed, by_replica in DECISION_FINDINGS:
        replica(conn, via_replica and by_replica)
        conn.execute("INSERT INTO ledger.finding (scope, title, kind, paths, expects, observed_at) "
                     "VALUES ('spec', %s, 'drift', %s, %s, %s)", (title, paths, expects, T0 + timedelta(days=observed)))
    replica(conn, via_replica)
    for sha, on, paths, added, deleted, hunks in DECISION_MERGES:
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths, merged_at, added, deleted, hunks) "
                     "VALUES ('spec', %s, %s, %s, %s, %s, %s)",
                     (sha, paths, T0 + timedelta(days=on), added, deleted, None if hunks is None else Jsonb(hunks)))
    replica(conn, False)


def decision_state(conn: psycopg.Connection[Any]) -> tuple[list[tuple], list[tuple], list[tuple]]:
    return (
        conn.execute("SELECT id, paths, anchors, superseded_at IS NOT NULL, superseded_by_merge_id "
                     "FROM ledger.finding ORDER BY id").fetchall(),
        conn.execute("SELECT id, paths, added, deleted, hunks, processed FROM ledger.merge ORDER BY id").fetchall(),
        conn.execute("SELECT id, finding_id, merge_id, action, rule, evidence, reason, detail "
                     "FROM ledger.supersession ORDER BY id").fetchall(),
    )


def test_reconcile_applies_causality_change_kinds_and_anchors_like_the_triggers(
    ledger_conn: psycopg.Connection, ledger_dsn_factory: Callable[[], str]
) -> None:
    """Findings and merges a replica wrote (raw paths with line suffixes,
    un-normalised hunk keys and change kinds) reconcile to exactly what the
    triggers decide for the same rows written live: the anchors are taken
    and moved, present/absent follow added/deleted, an older merge leaves a
    later finding alone."""
    write_decisions(ledger_conn, via_replica=True)
    with as_role(ledger_conn, "ledger_admin") as conn:
        applied = fl.reconcile(conn, "spec")
    assert [[(d.finding_id, d.action) for d in r.decisions] for r in applied] == [
        [(2, "superseded"), (5, "not_before_observed"), (1, "anchor_moved")],  # the anchor record last
        [(3, "superseded"), (4, "superseded")],
        [(1, "superseded")],
    ]
    with psycopg.connect(ledger_dsn_factory(), autocommit=True) as live:
        write_decisions(live, via_replica=False)
        assert decision_state(ledger_conn) == decision_state(live)
    assert ledger_conn.execute("SELECT hunks FROM ledger.merge WHERE commit_sha = 'd1d1'").fetchone() == (
        {"src/a.py": [[0, 0, 1, 10]], "src/b.py": [[44, 0, 45, 1]]},)


def test_reconcile_lower_cases_a_commit_sha_written_without_triggers(ledger_conn: psycopg.Connection) -> None:
    """The trigger lower-cases commit_sha; a row written without it keeps its
    case until reconcile, which lower-cases it, so that a later redelivery
    in lower case is the same merge (ON CONFLICT DO NOTHING), not a second."""
    fl.add_finding(ledger_conn, "case", "stale", paths=["a.py"], kind="drift")
    replica(ledger_conn, True)
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('case', 'ABCD1234', '{a.py}')")
    replica(ledger_conn, False)
    assert [r.merge_id for r in fl.reconcile(ledger_conn, "case")] == [1]
    assert ledger_conn.execute("SELECT commit_sha, processed FROM ledger.merge").fetchall() == [("abcd1234", True)]
    again = fl.record_merge(ledger_conn, "case", "abcd1234", ["a.py"])
    assert again.merge_id == 1
    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge").fetchone() == (1,)


@pytest.mark.parametrize(("sha", "code", "words"), [
    ("XYZ1", "LD003", "invalid merge 2 commit_sha: 'xyz1' is not a hexadecimal commit id"),
    ("  ", "LD002", "merge 2 commit_sha is required"),
    ("A" * 65, "LD004", "invalid merge 2 commit_sha: 65 characters, at most 64"),
    ("AAAA1111", "LD007", "merge 2 (written without triggers) is merge 1 again"),
    ("AAAA111", "LD007", "merge 2 (written without triggers) is merge 1 again"),  # an abbreviation of it
    ("aaaa1111ffff", "LD007", "merge 2 (written without triggers) is merge 1 again"),  # it abbreviates this one
])
def test_reconcile_refuses_a_bad_or_duplicate_commit_sha_and_applies_nothing(
        ledger_conn: psycopg.Connection, sha: str, code: str, words: str) -> None:
    fl.add_finding(ledger_conn, "case", "stale", paths=["a.py"], kind="drift")
    fl.record_merge(ledger_conn, "case", "aaaa1111", ["b.py"])
    replica(ledger_conn, True)
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('case', %s, '{a.py}')", (sha,))
    replica(ledger_conn, False)
    before = (counts(ledger_conn), outcome(ledger_conn))
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("SELECT * FROM ledger.reconcile('case')")
    assert info.value.sqlstate == code
    assert words in str(info.value)
    assert (counts(ledger_conn), outcome(ledger_conn)) == before


def test_reconcile_blames_the_later_copy_and_checks_a_malformed_one_in_its_own_turn(
        ledger_conn: psycopg.Connection) -> None:
    """Two rows written without triggers: a valid sha and a malformed one that
    starts with it. The first is applied; the second is LD003 for its own
    sha, not an LD007 telling the DBA to delete the valid first one. Two
    copies of one commit: the later one is the duplicate."""
    fl.add_finding(ledger_conn, "pair", "stale", paths=["a.py"], kind="drift")
    replica(ledger_conn, True)
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES "
                        "('pair', 'abcd', '{b.py}'), ('pair', 'abcdXYZ', '{b.py}')")
    replica(ledger_conn, False)
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("SELECT * FROM ledger.reconcile('pair')")
    assert info.value.sqlstate == "LD003" and "merge 2 commit_sha: 'abcdxyz'" in str(info.value)
    ledger_conn.execute("DELETE FROM ledger.merge WHERE id = 2")
    replica(ledger_conn, True)
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('pair', 'ABCD', '{b.py}')")
    replica(ledger_conn, False)
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("SELECT * FROM ledger.reconcile('pair')")
    assert info.value.sqlstate == "LD007" and "merge 3 (written without triggers) is merge 1 again" in str(info.value)
    assert "WHERE id = 3" in (info.value.diag.message_hint or "")
