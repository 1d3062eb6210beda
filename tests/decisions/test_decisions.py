"""Table-driven decisions on real histories: causality, change kinds and line
anchors that move with the code.

Each case runs in its own scope of one shared database: its findings are
inserted with plain INSERTs (paths as reviewers write them, ``src/a.py:42``),
then its merges are recorded one by one through the Python API, each with
its own expected action per finding (``action`` or ``action:rule``,
``none``: the merge left no audit row for it). After the last merge the
case states which findings are superseded and where their anchors are.
``tests/decisions/test_decisions_writers.py`` replays the same cases through plain
INSERT, multi-row INSERT and COPY and finds the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb
from support.matching import module_conn, module_dsn  # noqa: F401
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl

#: Day 0 of every case; a finding is observed on day ``observed`` (default 0),
#: a merge lands on day ``at`` (default 1; None: now).
T0 = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def day(n: float | None) -> datetime | None:
    return None if n is None else T0 + timedelta(days=n)


@dataclass
class Merge:
    """One merge of a case and what it must decide for each finding."""

    paths: tuple[str, ...]
    expect: dict[str, str]
    added: tuple[str, ...] | None = None
    deleted: tuple[str, ...] | None = None
    hunks: dict[str, list[list[int]]] | None = None
    at: float | None = 1
    message: str = ""


@dataclass
class DCase:
    id: str
    findings: dict[str, dict[str, Any]]
    merges: list[Merge]
    superseded: set[str] = field(default_factory=set)
    anchors: dict[str, dict[str, list[int]] | None] = field(default_factory=dict)
    policy: dict[str, Any] = field(default_factory=dict)
    mode: str = "on"


def F(*paths: str, kind: str = "drift", expects: str | None = None, observed: float = 0,
      key: str | None = None) -> dict[str, Any]:
    return {"paths": list(paths), "kind": kind, "expects": expects, "observed": observed, "key": key}


A42 = {"a": F("src/a.py:42")}

CASES = [
    # --- causality: a merge older than the finding never decides it ---------------------------
    DCase("before-observed", {"a": F("src/a.py", observed=5)},
          [Merge(("src/a.py",), {"a": "not_before_observed:path"}, at=1),
           Merge(("src/a.py",), {"a": "superseded:path"}, at=6)], {"a"}),
    DCase("same-instant-is-not-before", {"a": F("src/a.py", observed=1)},
          [Merge(("src/a.py",), {"a": "superseded:path"}, at=1)], {"a"}),
    DCase("message-before-observed", {"a": F(key="F-1", observed=3)},
          [Merge((), {"a": "not_before_observed:key"}, at=2, message="Fixes F-1"),
           Merge((), {"a": "superseded:key"}, at=4, message="Fixes F-1 for real")], {"a"}),
    DCase("before-observed-keeps-the-anchor", {"a": F("src/a.py:42", observed=5)},
          [Merge(("src/a.py",), {"a": "not_before_observed:path"}, hunks={"src/a.py": [[0, 0, 1, 10]]}, at=1)],
          anchors={"a": {"src/a.py": [42, 42]}}),
    # no case of observed_at after the row was written: a writer's observed_at more than 5 minutes ahead
    # is LD003 and one within the skew is stored as the time of the write
    # (tests/access/test_security_writer_values.py)
    # --- change kinds: present / absent --------------------------------------------------------
    DCase("present-file-added", {"a": F("packages/nightshift/cli.py", expects="present")},
          [Merge(("packages/nightshift/cli.py",), {"a": "superseded:path"}, added=("packages/nightshift/cli.py",))],
          {"a"}),
    DCase("present-directory-gets-a-file", {"a": F("packages/nightshift/", expects="present")},
          [Merge(("packages/nightshift/pyproject.toml", "pyproject.toml"), {"a": "superseded:path"},
                 added=("packages/nightshift/pyproject.toml",))], {"a"}),
    DCase("present-only-modified", {"a": F("packages/nightshift/cli.py", expects="present")},
          [Merge(("packages/nightshift/cli.py",), {"a": "mention:path"}, added=())]),
    DCase("present-without-change-kinds", {"a": F("packages/nightshift/", expects="present")},
          [Merge(("packages/nightshift/x.py",), {"a": "candidate:path"})]),
    DCase("present-added-elsewhere", {"a": F("packages/nightshift/", expects="present")},
          [Merge(("packages/nightshift/x.py", "docs/y.md"), {"a": "mention:path"}, added=("docs/y.md",))]),
    DCase("absent-file-deleted", {"a": F("packages/af/af/nightshift.py", expects="absent")},
          [Merge(("packages/af/af/nightshift.py", "packages/af/af/app.py"), {"a": "superseded:path"},
                 deleted=("packages/af/af/nightshift.py",))], {"a"}),
    DCase("absent-only-modified", {"a": F("packages/af/af/nightshift.py", expects="absent")},
          [Merge(("packages/af/af/nightshift.py",), {"a": "mention:path"}, deleted=())]),
    DCase("absent-without-change-kinds", {"a": F("packages/af/af/nightshift.py", expects="absent")},
          [Merge(("packages/af/af/nightshift.py",), {"a": "candidate:path"})]),
    DCase("rename-is-delete-and-add",
          {"old": F("src/old.py", expects="absent"), "new": F("src/new.py", expects="present"),
           "any": F("src/old.py")},
          [Merge(("src/old.py", "src/new.py"), {"old": "superseded:path", "new": "superseded:path",
                                                 "any": "superseded:path"},
                 added=("src/new.py",), deleted=("src/old.py",))], {"old", "new", "any"}),
    DCase("absent-directory-files-deleted", {"a": F("packages/af/af/nightshift/", expects="absent")},
          [Merge(("packages/af/af/nightshift/a.py",), {"a": "candidate:path"},
                 deleted=("packages/af/af/nightshift/a.py",))]),
    DCase("absent-directory-gone", {"a": F("packages/af/af/nightshift/", expects="absent")},
          [Merge(("packages/af/af/nightshift/a.py",), {"a": "superseded:path"},
                 deleted=("packages/af/af/nightshift/a.py", "packages/af/af/nightshift/"))], {"a"}),
    DCase("absent-file-under-a-gone-directory", {"a": F("packages/af/af/nightshift/cli.py", expects="absent")},
          [Merge(("packages/af/af/nightshift/cli.py",), {"a": "superseded:path"},
                 deleted=("packages/af/af/nightshift/",))], {"a"}),
    DCase("present-review-kind-is-a-candidate", {"a": F("src/new.py", kind="review", expects="present")},
          [Merge(("src/new.py",), {"a": "candidate:path"}, added=("src/new.py",))]),
    DCase("change-ignores-change-kinds", {"a": F("src/a.py")},
          [Merge(("src/a.py",), {"a": "superseded:path"}, added=(), deleted=())], {"a"}),
    # --- line anchors ---------------------------------------------------------------------------
    DCase("anchor-hunk-overlaps", A42,
          [Merge(("src/a.py",), {"a": "superseded:path"}, hunks={"src/a.py": [[40, 6, 40, 7]]})], {"a"}),
    DCase("anchor-hunk-far-below", A42,
          [Merge(("src/a.py",), {}, hunks={"src/a.py": [[100, 11, 100, 11]]})],
          anchors={"a": {"src/a.py": [42, 42]}}),
    DCase("anchor-moves-with-inserted-lines", A42,
          [Merge(("src/a.py",), {"a": "anchor_moved:path"}, hunks={"src/a.py": [[0, 0, 1, 10]]}),
           Merge(("src/a.py",), {}, hunks={"src/a.py": [[42, 1, 42, 1]]}, at=2),
           Merge(("src/a.py",), {"a": "superseded:path"}, hunks={"src/a.py": [[52, 1, 52, 2]]}, at=3)], {"a"}),
    DCase("anchor-moves-with-removed-lines", A42,
          [Merge(("src/a.py",), {"a": "anchor_moved:path"}, hunks={"src/a.py": [[10, 5, 9, 0], [60, 2, 55, 1]]})],
          anchors={"a": {"src/a.py": [37, 37]}}),
    DCase("anchor-insert-right-above", A42,
          [Merge(("src/a.py",), {"a": "anchor_moved:path"}, hunks={"src/a.py": [[41, 0, 42, 3]]})],
          anchors={"a": {"src/a.py": [45, 45]}}),
    DCase("anchor-insert-right-below", A42,
          [Merge(("src/a.py",), {}, hunks={"src/a.py": [[42, 0, 43, 3]]})],
          anchors={"a": {"src/a.py": [42, 42]}}),
    DCase("anchor-range-insert-inside", {"a": F("src/b.py:40-48")},
          [Merge(("src/b.py",), {"a": "superseded:path"}, hunks={"src/b.py": [[44, 0, 45, 2]]})], {"a"}),
    DCase("anchor-range-edge", {"a": F("src/b.py:40-48")},
          [Merge(("src/b.py",), {"a": "superseded:path"}, hunks={"src/b.py": [[48, 3, 48, 1]]})], {"a"}),
    DCase("anchor-line-column", {"a": F("src/a.py:42:7")},
          [Merge(("src/a.py",), {"a": "anchor_moved:path"}, hunks={"src/a.py": [[1, 1, 1, 3]]})],
          anchors={"a": {"src/a.py": [44, 44]}}),
    DCase("anchor-no-hunks-for-the-path", A42,
          [Merge(("src/a.py", "src/b.py"), {"a": "superseded:path"}, hunks={"src/b.py": [[1, 1, 1, 1]]})], {"a"}),
    DCase("anchor-no-hunks-at-all", A42, [Merge(("src/a.py",), {"a": "superseded:path"})], {"a"}),
    DCase("anchor-empty-hunk-list", A42,
          [Merge(("src/a.py",), {}, hunks={"src/a.py": []})],
          anchors={"a": {"src/a.py": [42, 42]}}),
    DCase("anchor-file-deleted", A42,
          [Merge(("src/a.py",), {"a": "superseded:path"}, deleted=("src/a.py",), hunks={"src/a.py": []})], {"a"}),
    DCase("anchor-file-renamed", A42,
          [Merge(("src/a.py", "lib/a.py"), {"a": "candidate:path"}, deleted=("src/a.py",), added=("lib/a.py",),
                 hunks={"src/a.py": [[1, 50, 0, 0]], "lib/a.py": [[0, 0, 1, 50]]})],
          anchors={"a": {"src/a.py": [42, 42]}}),
    DCase("anchor-follows-a-rename", {"a": F("src/a.py:42", "docs/x.md")},
          [Merge(("src/a.py", "lib/a.py"), {"a": "anchor_moved:path"}, deleted=("src/a.py",), added=("lib/a.py",),
                 hunks={"src/a.py": [[1, 1, 1, 3]]}),
           Merge(("lib/a.py",), {}, hunks={"lib/a.py": [[42, 1, 42, 1]]}, at=2),
           Merge(("lib/a.py",), {"a": "superseded:path"}, hunks={"lib/a.py": [[44, 1, 44, 1]]}, at=3)], {"a"}),
    DCase("anchor-rename-changing-the-line", A42,
          [Merge(("src/a.py", "lib/a.py"), {"a": "superseded:path"}, deleted=("src/a.py",), added=("lib/a.py",),
                 hunks={"src/a.py": [[42, 1, 42, 1]]})], {"a"}),
    DCase("anchor-rename-to-another-name", A42,
          [Merge(("src/a.py", "src/b.py"), {"a": "candidate:path"}, deleted=("src/a.py",), added=("src/b.py",),
                 hunks={"src/a.py": [[1, 1, 1, 1]]})],
          anchors={"a": {"src/a.py": [42, 42]}}),
    DCase("anchor-file-deleted-other-added", A42,
          [Merge(("src/a.py", "src/b.py"), {"a": "superseded:path"}, deleted=("src/a.py",), added=("src/b.py",),
                 hunks={"src/a.py": [[1, 50, 0, 0]]})], {"a"}),
    DCase("anchor-context-3", A42,
          [Merge(("src/a.py",), {"a": "superseded:path"}, hunks={"src/a.py": [[45, 1, 45, 1]]})], {"a"},
          policy={"line_context": 3}),
    DCase("anchor-context-0", A42,
          [Merge(("src/a.py",), {}, hunks={"src/a.py": [[43, 1, 43, 1]]})],
          anchors={"a": {"src/a.py": [42, 42]}}),
    DCase("anchor-review-kind", {"a": F("src/a.py:42", kind="review"), "b": F("src/a.py:90", kind="review")},
          [Merge(("src/a.py",), {"a": "candidate:path", "b": "anchor_moved:path"},
                 hunks={"src/a.py": [[42, 1, 42, 3]]})],
          anchors={"a": {"src/a.py": [42, 42]}, "b": {"src/a.py": [92, 92]}}),
    DCase("anchor-two-files-one-overlaps", {"a": F("src/a.py:10", "src/b.py:20")},
          [Merge(("src/a.py", "src/b.py"), {"a": "superseded:path"},
                 hunks={"src/a.py": [[10, 1, 10, 1]], "src/b.py": [[1, 0, 2, 4]]})], {"a"}),
    DCase("anchor-two-files-both-move", {"a": F("src/a.py:10", "src/b.py:20")},
          [Merge(("src/a.py", "src/b.py"), {"a": "anchor_moved:path"},
                 hunks={"src/a.py": [[1, 2, 1, 0]], "src/b.py": [[1, 0, 2, 4]]})],
          anchors={"a": {"src/a.py": [8, 8], "src/b.py": [24, 24]}}),
    DCase("anchor-and-bare-path", {"a": F("src/a.py:10", "docs/x.md")},
          [Merge(("src/a.py", "docs/x.md"), {"a": "superseded:path"}, hunks={"src/a.py": [[90, 1, 90, 1]]})],
          {"a"}),
    DCase("anchor-and-resolving-message", {"a": F("src/a.py:10", key="F-7")},
          [Merge(("src/a.py",), {"a": "superseded:key"}, hunks={"src/a.py": [[90, 1, 90, 1]]}, message="Fixes F-7")],
          {"a"}),
    DCase("anchor-moves-in-dry-mode", {"a": F("src/a.py:42"), "b": F("src/a.py:5")},
          [Merge(("src/a.py",), {"a": "anchor_moved:path", "b": "would_supersede:path"},
                 hunks={"src/a.py": [[5, 1, 5, 3]]})],
          anchors={"a": {"src/a.py": [44, 44]}, "b": {"src/a.py": [5, 5]}}, mode="dry"),
    DCase("anchor-directory-suffix-is-no-anchor", {"a": F("src/:12")},
          [Merge(("src/a.py",), {"a": "superseded:path"}, hunks={"src/a.py": [[90, 1, 90, 1]]})], {"a"}),
]


def test_the_table_covers_every_rule() -> None:
    assert len({c.id for c in CASES}) == len(CASES) >= 40
    actions = {e.split(":")[0] for c in CASES for m in c.merges for e in m.expect.values()}
    assert actions >= {"superseded", "would_supersede", "not_before_observed", "candidate", "mention",
                       "anchor_moved"}
    # an anchored file touched away from the lines, none above: no row at all
    assert any(m.hunks and not m.expect for c in CASES for m in c.merges)


def insert_findings(conn: psycopg.Connection[Any], scope: str, case: DCase) -> dict[int, str]:
    """The case's findings in a scope that retires drift findings on a touch
    (the path rule as such; a case's own policy may set another touch mode)."""
    retire_drift_on_touch(conn, scope)
    labels = {}
    for label, spec in case.findings.items():
        row = conn.execute(
            "INSERT INTO ledger.finding (scope, title, finding_key, kind, paths, expects, observed_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (scope, f"{case.id} {label}", spec["key"], spec["kind"], spec["paths"], spec["expects"],
             day(spec["observed"])),
        ).fetchone()
        assert row is not None
        labels[row[0]] = label
    return labels


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_decision_case(module_conn: psycopg.Connection[Any], case: DCase) -> None:  # noqa: F811
    conn = module_conn
    scope = f"decide:{case.id}"
    labels = insert_findings(conn, scope, case)
    if case.policy:
        fl.set_match_policy(conn, scope, **case.policy)
    fl.set_hygiene_mode(conn, scope, case.mode)
    for n, m in enumerate(case.merges):
        result = fl.record_merge(conn, scope, f"{n + 1:04x}cafe", m.paths, message=m.message, merged_at=day(m.at),
                                 added=m.added, deleted=m.deleted, hunks=m.hunks)
        got = {label: "none" for label in case.findings}
        for d in result.decisions:
            got[labels[d.finding_id]] = f"{d.action}:{d.rule}"
            assert d.reason, "every decision says why"
        assert got == {label: m.expect.get(label, "none") for label in case.findings}, f"merge {n + 1}"
    rows = conn.execute("SELECT id, superseded_at IS NOT NULL, anchors FROM ledger.finding WHERE scope = %s",
                        (scope,)).fetchall()
    assert {labels[i] for i, gone, _ in rows if gone} == case.superseded
    for i, _, anchors in rows:
        if labels[i] in case.anchors:
            assert anchors == case.anchors[labels[i]], labels[i]


def test_a_followed_rename_moves_the_path_and_the_anchor(module_conn: psycopg.Connection[Any]) -> None:  # noqa: F811
    row = module_conn.execute("SELECT paths, anchors, superseded_at FROM ledger.finding "
                              "WHERE scope = 'decide:anchor-follows-a-rename'").fetchone()
    assert row is not None and row[:2] == (["lib/a.py", "docs/x.md"], {"lib/a.py": [44, 44]})


def audit(conn: psycopg.Connection[Any], scope: str) -> list[tuple[Any, ...]]:
    return conn.execute(
        "SELECT finding_id, action, rule, evidence, reason, detail FROM ledger.supersession WHERE scope = %s "
        "ORDER BY id", (scope,)).fetchall()


def test_a_move_is_audited_with_both_ranges_and_the_finding_reads_the_new_one(
    ledger_conn: psycopg.Connection[Any],
) -> None:
    retire_drift_on_touch(ledger_conn, "s")  # the path rule as such
    f = fl.add_finding(ledger_conn, "s", "Off-by-one in the pager", paths=["src/a.py:42"], kind="drift")
    assert (f.paths, f.anchors) == (["src/a.py"], {"src/a.py": [42, 42]})
    m = fl.record_merge(ledger_conn, "s", "aa01", ["src/a.py"], message="Add a licence header",
                        hunks={"src/a.py": [[0, 0, 1, 10]]})
    # stored as one row of the merge, its anchor record: {path: {finding_id: [from, to]}}
    [(fid, action, rule, evidence, reason, detail)] = audit(ledger_conn, "s")
    assert (fid, action, rule, evidence) == (None, "anchor_moved", "path", None)
    assert detail == {"moves": {"src/a.py": {str(f.id): [42, 42, 52, 52]}}}
    assert "moved the line anchors of 1 finding(s)" in reason
    # read per finding: the audit, the merge's decisions and the finding's history say where it went
    [entry] = fl.read_audit(ledger_conn, "s", finding_id=f.id)
    assert (entry.finding_id, entry.action, entry.rule, entry.evidence) == (f.id, "anchor_moved", "path", "src/a.py")
    assert entry.detail == {"anchor_moves": [{"path": "src/a.py", "from": [42, 42], "to": [52, 52]}]}
    assert entry.reason == ("the merge changed src/a.py away from the finding's line 42: 10 lines added above, "
                            "the anchor moves by +10")
    [decision] = m.decisions
    assert (decision.finding_id, decision.action, decision.reason, decision.detail) == (
        f.id, "anchor_moved", entry.reason, entry.detail)
    moved = [h for h in fl.read_history(ledger_conn, f.id) if h.event == "anchor_moved"]
    assert [(h.commit_sha, h.detail) for h in moved] == [("aa01", entry.detail)]
    assert ledger_conn.execute("SELECT anchors, superseded_at FROM ledger.finding WHERE id = %s",
                               (f.id,)).fetchone() == ({"src/a.py": [52, 52]}, None)
    entry = fl.read_audit(ledger_conn, "s", merge_id=m.merge_id)[0]
    assert (entry.commit_sha, entry.subject) == ("aa01", "Add a licence header")
    # the anchor's line 52 is where a later merge must hit it
    at_42 = fl.record_merge(ledger_conn, "s", "aa02", ["src/a.py"], hunks={"src/a.py": [[42, 1, 42, 1]]})
    assert at_42.superseded == []
    at_52 = fl.record_merge(ledger_conn, "s", "aa03", ["src/a.py"], hunks={"src/a.py": [[52, 1, 52, 1]]})
    assert at_52.superseded == [f.id]


def test_each_finding_reads_its_own_moves_from_the_merges_anchor_records(ledger_conn: psycopg.Connection[Any]) -> None:
    """Two merges move two findings' anchors (one on two paths): each merge
    writes one anchor record; the audit, a finding's filtered audit and its
    history give each finding its own moves, in merge order, with the commit."""
    retire_drift_on_touch(ledger_conn, "s")
    one = fl.add_finding(ledger_conn, "s", "one", paths=["src/a.py:42"], kind="drift")
    two = fl.add_finding(ledger_conn, "s", "two", paths=["src/a.py:80-82", "src/b.py:5"], kind="drift")
    fl.record_merge(ledger_conn, "s", "ab01", ["src/a.py", "src/b.py"],
                    hunks={"src/a.py": [[10, 0, 11, 10]], "src/b.py": [[1, 0, 1, 2]]})
    fl.record_merge(ledger_conn, "s", "ab02", ["src/a.py"], hunks={"src/a.py": [[1, 3, 1, 0]]})
    stored = ledger_conn.execute("SELECT finding_id, detail FROM ledger.supersession ORDER BY id").fetchall()
    assert stored == [
        (None, {"moves": {"src/a.py": {str(one.id): [42, 42, 52, 52], str(two.id): [80, 82, 90, 92]},
                          "src/b.py": {str(two.id): [5, 5, 7, 7]}}}),
        (None, {"moves": {"src/a.py": {str(one.id): [52, 52, 49, 49], str(two.id): [90, 92, 87, 89]}}}),
    ]
    assert [(a.finding_id, a.commit_sha) for a in fl.read_audit(ledger_conn, "s")] == [
        (one.id, "ab01"), (two.id, "ab01"), (one.id, "ab02"), (two.id, "ab02")]
    mine = fl.read_audit(ledger_conn, "s", finding_id=two.id)
    assert [(a.commit_sha, a.detail) for a in mine] == [
        ("ab01", {"anchor_moves": [{"path": "src/a.py", "from": [80, 82], "to": [90, 92]},
                                   {"path": "src/b.py", "from": [5, 5], "to": [7, 7]}]}),
        ("ab02", {"anchor_moves": [{"path": "src/a.py", "from": [90, 92], "to": [87, 89]}]})]
    assert "3 lines removed above, the anchor moves by -3" in (mine[1].reason or "")
    # evidence and reason are those of the first moved path, as the finding's own row had them
    assert (mine[0].evidence, "src/b.py" in (mine[0].reason or "")) == ("src/a.py", False)
    history = [(h.event, h.commit_sha, h.detail) for h in fl.read_history(ledger_conn, one.id)
               if h.event == "anchor_moved"]
    assert history == [("anchor_moved", "ab01", {"anchor_moves": [{"path": "src/a.py", "from": [42, 42],
                                                                    "to": [52, 52]}]}),
                       ("anchor_moved", "ab02", {"anchor_moves": [{"path": "src/a.py", "from": [52, 52],
                                                                    "to": [49, 49]}]})]
    assert ledger_conn.execute("SELECT anchors FROM ledger.finding WHERE id = %s", (two.id,)).fetchone() == (
        {"src/a.py": [87, 89], "src/b.py": [7, 7]},)


@pytest.mark.parametrize("detail", [
    None, {}, {"moves": None}, {"moves": []}, {"moves": {"a.py": []}}, {"moves": {"a.py": {"x": [1, 1, 2, 2]}}},
    {"moves": {"a.py": {"1": [1, 1, 2]}}}, {"moves": {"a.py": {"1": [1, 1, 2, "2"]}}},
    {"moves": {"a.py": {"1": [0, 1, 2, 2]}}}, {"moves": {"a.py": {"1": [1, 1, 2, 2.5]}}},
    {"moves": {"a.py": {"1": [1, 1, 2, 2147483648]}}}, {"moves": {"a.py": {"99999999999999999999": [1, 1, 2, 2]}}},
])
def test_an_anchor_record_of_another_shape_reads_as_no_move(ledger_conn: psycopg.Connection[Any],
                                                            detail: Any) -> None:
    value = Jsonb(detail) if detail is not None else None
    assert ledger_conn.execute("SELECT * FROM ledger._anchor_moves(%s)", (value,)).fetchall() == []
    assert ledger_conn.execute("SELECT * FROM ledger._anchor_moves(%s, 1)", (value,)).fetchall() == []


def test_the_causality_reason_names_both_times(ledger_conn: psycopg.Connection[Any]) -> None:
    retire_drift_on_touch(ledger_conn, "s")  # the path rule as such
    fl.add_finding(ledger_conn, "s", "stale", paths=["a.py"], kind="drift",
                   observed_at=datetime(2026, 5, 24, 9, 30, tzinfo=timezone.utc))
    r = fl.record_merge(ledger_conn, "s", "bb01", ["a.py"], merged_at=datetime(2026, 5, 17, 8, 0, tzinfo=timezone.utc))
    [d] = r.decisions
    assert (d.action, d.rule) == ("not_before_observed", "path")
    assert "2026-05-17T08:00:00Z" in (d.reason or "") and "2026-05-24T09:30:00Z" in (d.reason or "")
    assert d.detail is not None and d.detail["would_be"] == "supersede"
    assert r.superseded == []


def test_an_anchor_move_respects_the_audit_and_the_lifecycle(ledger_conn: psycopg.Connection[Any]) -> None:
    """The move is written by the merge trigger as the owner, after its audit
    row, through the finding's triggers; a dismissed or superseded finding's
    anchor never moves, and the moves a revert brings back follow its hunks."""
    moving = fl.add_finding(ledger_conn, "s", "moving", paths=["src/a.py:42"], kind="drift")
    gone = fl.add_finding(ledger_conn, "s", "dismissed", paths=["src/a.py:80"], kind="drift")
    fl.dismiss_finding(ledger_conn, gone.id, "wont_fix", "alice", "not worth it")
    fl.record_merge(ledger_conn, "s", "cc01", ["src/a.py"], hunks={"src/a.py": [[1, 0, 2, 5]]})
    rows = dict(ledger_conn.execute("SELECT id, anchors FROM ledger.finding WHERE scope = 's'").fetchall())
    assert rows == {moving.id: {"src/a.py": [47, 47]}, gone.id: {"src/a.py": [80, 80]}}
    # an invalid anchor written by hand is refused by the same trigger
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("UPDATE ledger.finding SET anchors = '{\"src/b.py\": [1, 2]}' WHERE id = %s",
                            (moving.id,))
    assert info.value.sqlstate == "LD003"
    # nothing can rewrite the audit row that records the move
    with pytest.raises(psycopg.Error):
        with ledger_conn.transaction():
            ledger_conn.execute("SET LOCAL ROLE ledger_writer")
            ledger_conn.execute("UPDATE ledger.supersession SET reason = 'x'")


def test_an_older_merge_replayed_through_record_merge_retires_nothing(
    ledger_conn: psycopg.Connection[Any],
) -> None:
    """The issue's first symptom: findings imported with the file's date, then
    the repository's history replayed oldest first. The commit that created
    the file a week before the finding was filed leaves it alone; a commit
    after it retires it."""
    filed = datetime(2026, 5, 24, tzinfo=timezone.utc)
    retire_drift_on_touch(ledger_conn, "replay")  # the path rule as such
    f = fl.add_finding(ledger_conn, "replay", "claims never expire", paths=["internal/manager.go"], kind="drift",
                       observed_at=filed)
    history = [("c0ffee01", filed - timedelta(days=7), "Add the claim manager"),
               ("c0ffee02", filed - timedelta(days=1), "Cap the body size"),
               ("c0ffee03", filed + timedelta(days=2), "Expire claims after their lease")]
    actions = []
    for sha, at, message in history:
        r = fl.record_merge(ledger_conn, "replay", sha, ["internal/manager.go"], message=message, merged_at=at,
                            added=["internal/manager.go"] if sha == "c0ffee01" else [])
        actions.append([d.action for d in r.decisions])
    assert actions == [["not_before_observed"], ["not_before_observed"], ["superseded"]]
    assert fl.read_finding(ledger_conn, f.id).superseded_by == "c0ffee03"


@pytest.mark.parametrize(("paths", "stored", "anchors"), [
    (["src/a.py:42"], ["src/a.py"], {"src/a.py": [42, 42]}),
    (["src/a.py:42:7"], ["src/a.py"], {"src/a.py": [42, 42]}),
    (["./src/a.py:40-48"], ["src/a.py"], {"src/a.py": [40, 48]}),
    (["src\\a.py :12 "], ["src/a.py"], {"src/a.py": [12, 12]}),
    (["src/a.py:10", "src/a.py:50"], ["src/a.py"], {"src/a.py": [10, 50]}),
    (["src/a.py", "src/a.py:10"], ["src/a.py"], None),
    (["src/a.py:0"], ["src/a.py"], None),
    (["src/:12"], ["src/"], None),
    (["src/a.py:3", "b.py"], ["src/a.py", "b.py"], {"src/a.py": [3, 3]}),
    ([], [], None),
])
def test_line_suffixes_become_anchors(ledger_conn: psycopg.Connection[Any], paths: list[str], stored: list[str],
                                      anchors: dict[str, list[int]] | None) -> None:
    row = ledger_conn.execute("INSERT INTO ledger.finding (scope, title, paths) VALUES ('s', 't', %s) "
                              "RETURNING paths, anchors", (paths,)).fetchone()
    assert row == (stored, anchors)


def test_anchors_written_with_the_row_are_kept_and_checked(ledger_conn: psycopg.Connection[Any]) -> None:
    """A dump restored with COPY carries bare paths and its anchors: they are kept."""
    with ledger_conn.cursor().copy("COPY ledger.finding (scope, title, paths, anchors) FROM STDIN") as copy:
        copy.write_row(("s", "restored", ["src/a.py", "b.py"], '{"./src/a.py": [52, 60]}'))
    assert ledger_conn.execute("SELECT anchors FROM ledger.finding").fetchone() == ({"src/a.py": [52, 60]},)
