"""Supersession when a merge lands (the drift-review scenario's "Option A"): the path rule,
hygiene modes, redelivery, the audit row of every change, renames, and the
scope rules. Findings here are of kind 'drift' on purpose: the path rule is
the drift rule (later rules treat other kinds differently)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl

SHA_1 = "1" * 40
SHA_2 = "2" * 40
SHA_3 = "3" * 40


def drift(conn: psycopg.Connection, title: str, paths: list[str], scope: str = "spec") -> int:
    """A drift finding in a scope that retires drift findings on a touch:
    the path rule as such (the shipped touch mode of drift is flag)."""
    retire_drift_on_touch(conn, scope)
    return fl.add_finding(conn, scope, title, paths=paths, kind="drift").id


def active_ids(conn: psycopg.Connection, scope: str = "spec") -> list[int]:
    return sorted(f.id for f in fl.active_findings(conn, scope))


def superseded_state(conn: psycopg.Connection) -> list[tuple[Any, ...]]:
    return conn.execute(
        "SELECT id, superseded_at IS NOT NULL, superseded_by, superseded_by_merge_id, supersede_rule "
        "FROM ledger.finding ORDER BY id"
    ).fetchall()


# --- exact file versus directory prefix -------------------------------------------------------


@pytest.mark.parametrize(
    ("finding_path", "touched", "matches"),
    [
        ("src/a.py", "src/a.py", True),  # exact file
        ("src/a.py", "src/a.pyc", False),  # a file is not a prefix
        ("src/a.py", "src/a.py/x", False),  # a file reference is no directory
        ("src/a/", "src/a/b.py", True),  # directory reference, '/' boundary
        ("src/a/", "src/ab.py", False),  # same characters, no '/' boundary
        ("src/a/", "src/ab/c.py", False),
        ("src/a/", "src/a", False),  # the file 'src/a' is not inside 'src/a/'
        ("src/", "src/a/b/c/d.py", True),  # nested directories
        ("src/a/b/", "src/a/b/c/d.py", True),
        ("src/a/b/", "src/a/c/d.py", False),
        ("src/a/b/c/", "src/a/b/c/d.py", True),
        ("a/", "b/a/c.py", False),  # a prefix of the whole path, not of a segment inside it
        ("src/a", "src/a/b.py", False),  # no trailing '/': a file reference, matched exactly only
        ("docs/", "docs/", True),  # a merge may name a directory itself
    ],
)
def test_exact_and_directory_prefix_matching(
    ledger_conn: psycopg.Connection, finding_path: str, touched: str, matches: bool
) -> None:
    fid = drift(ledger_conn, "about " + finding_path, [finding_path])
    result = fl.record_merge(ledger_conn, "spec", SHA_1, [touched], node_id="spec:2")
    assert result.superseded == ([fid] if matches else [])
    assert active_ids(ledger_conn) == ([] if matches else [fid])


def test_one_merge_supersedes_every_matching_finding_and_only_those(ledger_conn: psycopg.Connection) -> None:
    file_hit = drift(ledger_conn, "file", ["pkg/mod.py"])
    dir_hit = drift(ledger_conn, "dir", ["pkg/"])
    nested_hit = drift(ledger_conn, "nested dir", ["pkg/sub/"])
    one_of_many = drift(ledger_conn, "several paths, one touched", ["other.py", "pkg/sub/deep.py"])
    sibling = drift(ledger_conn, "sibling dir", ["pkgx/"])
    other_file = drift(ledger_conn, "other file", ["pkg/other.py"])

    result = fl.record_merge(ledger_conn, "spec", SHA_1, ["pkg/mod.py", "pkg/sub/deep.py"], node_id="spec:3")

    assert sorted(result.superseded) == [file_hit, dir_hit, nested_hit, one_of_many]
    assert active_ids(ledger_conn) == [sibling, other_file]


def test_findings_without_paths_stay_active(ledger_conn: psycopg.Connection) -> None:
    no_paths = drift(ledger_conn, "a finding about behaviour, no file", [])
    with_path = drift(ledger_conn, "a finding about a file", ["a.py"])
    fl.record_merge(ledger_conn, "spec", SHA_1, ["a.py", "b.py", "docs/"], node_id="spec:2")
    fl.record_merge(ledger_conn, "spec", SHA_2, ["c/", "d.py"], node_id="spec:3")
    assert active_ids(ledger_conn) == [no_paths]
    assert fl.read_audit(ledger_conn, "spec", finding_id=no_paths) == []
    assert [a.finding_id for a in fl.read_audit(ledger_conn, "spec")] == [with_path]


def test_a_merge_without_paths_supersedes_nothing(ledger_conn: psycopg.Connection) -> None:
    fid = drift(ledger_conn, "t", ["a.py"])
    result = fl.record_merge(ledger_conn, "spec", SHA_1, [], node_id="spec:2")
    assert result.recorded and result.decisions == []
    assert active_ids(ledger_conn) == [fid]


def test_other_scopes_are_untouched(ledger_conn: psycopg.Connection) -> None:
    mine = drift(ledger_conn, "t", ["a.py"], scope="spec-a")
    theirs = drift(ledger_conn, "t", ["a.py"], scope="spec-b")
    result = fl.record_merge(ledger_conn, "spec-a", SHA_1, ["a.py"])
    assert result.superseded == [mine]
    assert active_ids(ledger_conn, "spec-b") == [theirs]


def test_an_already_superseded_finding_is_not_superseded_again(ledger_conn: psycopg.Connection) -> None:
    fid = drift(ledger_conn, "t", ["a.py"])
    fl.record_merge(ledger_conn, "spec", SHA_1, ["a.py"], node_id="spec:2")
    before = superseded_state(ledger_conn)
    second = fl.record_merge(ledger_conn, "spec", SHA_2, ["a.py"], node_id="spec:3")
    assert second.recorded and second.decisions == []
    assert superseded_state(ledger_conn) == before
    assert before == [(fid, True, "spec:2", 1, "path")]


# --- the audit row of every change --------------------------------------------------------------


def test_audit_row_for_every_change_names_node_merge_and_path(ledger_conn: psycopg.Connection) -> None:
    f_dir = drift(ledger_conn, "dir", ["packages/nightshift/"])
    f_file = drift(ledger_conn, "file", ["./packages/af/app.py:88"])  # stored as packages/af/app.py
    result = fl.record_merge(
        ledger_conn,
        "spec",
        SHA_1,
        ["packages/nightshift/pyproject.toml", "packages/af/app.py", "README.md"],
        node_id="07_nightshift:3",
    )

    rows = ledger_conn.execute(
        "SELECT f.id, f.superseded_by, f.superseded_by_merge_id, f.supersede_rule, f.superseded_at = a.created_at "
        "FROM ledger.finding f JOIN ledger.supersession a ON a.finding_id = f.id ORDER BY f.id"
    ).fetchall()
    assert rows == [
        (f_dir, "07_nightshift:3", result.merge_id, "path", True),
        (f_file, "07_nightshift:3", result.merge_id, "path", True),
    ]
    audit = fl.read_audit(ledger_conn, "spec")
    assert [(a.finding_id, a.merge_id, a.action, a.rule, a.evidence) for a in audit] == [
        (f_dir, result.merge_id, "superseded", "path", "packages/nightshift/pyproject.toml"),
        (f_file, result.merge_id, "superseded", "path", "packages/af/app.py"),
    ]
    def paths_of(detail: dict | None) -> dict:
        return {k: (detail or {}).get(k) for k in ("finding_path", "touched_path")}

    # (the message matcher adds more keys to detail: kind, pieces, ...)
    assert paths_of(audit[0].detail) == {
        "finding_path": "packages/nightshift/",
        "touched_path": "packages/nightshift/pyproject.toml",
    }
    assert paths_of(audit[1].detail) == {"finding_path": "packages/af/app.py", "touched_path": "packages/af/app.py"}
    # the API's decisions are the same audit rows
    assert [(d.finding_id, d.action, d.rule, d.evidence) for d in result.decisions] == [
        (a.finding_id, a.action, a.rule, a.evidence) for a in audit
    ]
    # nothing is deleted: the superseded finding keeps its text
    assert ledger_conn.execute("SELECT count(*), min(title) FROM ledger.finding").fetchone() == (2, "dir")


def test_superseded_by_is_the_commit_sha_when_the_merge_has_no_node_id(ledger_conn: psycopg.Connection) -> None:
    fid = drift(ledger_conn, "t", ["a.py"])
    result = fl.record_merge(ledger_conn, "spec", SHA_1.upper(), ["a.py"])
    assert superseded_state(ledger_conn) == [(fid, True, SHA_1, result.merge_id, "path")]


def test_audit_evidence_is_the_first_matching_touched_path(ledger_conn: psycopg.Connection) -> None:
    fid = drift(ledger_conn, "t", ["z.py", "lib/"])
    fl.record_merge(ledger_conn, "spec", SHA_1, ["z.py", "lib/b.py", "lib/a.py"])
    (entry,) = fl.read_audit(ledger_conn, "spec", finding_id=fid)
    assert (entry.action, entry.evidence) == ("superseded", "lib/a.py")
    assert (entry.detail or {}).get("finding_path") == "lib/"
    assert (entry.detail or {}).get("touched_path") == "lib/a.py"


# --- renames --------------------------------------------------------------------------------


def test_a_rename_touches_both_sides(ledger_conn: psycopg.Connection) -> None:
    old_side = drift(ledger_conn, "old file", ["packages/af/tests/test_nightshift.py"])
    new_side = drift(ledger_conn, "new dir", ["packages/nightshift/tests/"])
    unrelated = drift(ledger_conn, "unrelated", ["packages/af/tests/test_other.py"])
    # a merge records a rename as both paths (the git reader lists old and new)
    result = fl.record_merge(
        ledger_conn,
        "spec",
        SHA_1,
        ["packages/af/tests/test_nightshift.py", "packages/nightshift/tests/test_cli.py"],
        node_id="spec:5",
    )
    assert sorted(result.superseded) == [old_side, new_side]
    assert active_ids(ledger_conn) == [unrelated]
    evidence = {d.finding_id: d.evidence for d in result.decisions}
    assert evidence == {
        old_side: "packages/af/tests/test_nightshift.py",
        new_side: "packages/nightshift/tests/test_cli.py",
    }


# --- hygiene modes ----------------------------------------------------------------------------


def test_dry_mode_audits_would_supersede_and_changes_no_finding(ledger_conn: psycopg.Connection) -> None:
    assert fl.set_hygiene_mode(ledger_conn, "spec", "dry", create=True) == "dry"
    f1 = drift(ledger_conn, "t1", ["a.py"])
    f2 = drift(ledger_conn, "t2", ["d/"])
    f3 = drift(ledger_conn, "t3", ["z.py"])
    before = superseded_state(ledger_conn)

    result = fl.record_merge(ledger_conn, "spec", SHA_1, ["a.py", "d/e.py"], node_id="spec:2")

    assert superseded_state(ledger_conn) == before
    assert all(not s[1] for s in before)
    assert active_ids(ledger_conn) == [f1, f2, f3]
    assert result.superseded == []
    audit = fl.read_audit(ledger_conn, "spec")
    assert [(a.finding_id, a.merge_id, a.action, a.rule, a.evidence) for a in audit] == [
        (f1, result.merge_id, "would_supersede", "path", "a.py"),
        (f2, result.merge_id, "would_supersede", "path", "d/e.py"),
    ]


def test_off_mode_does_nothing(ledger_conn: psycopg.Connection) -> None:
    fl.set_hygiene_mode(ledger_conn, "spec", "off", create=True)
    fid = drift(ledger_conn, "t", ["a.py"])
    result = fl.record_merge(ledger_conn, "spec", SHA_1, ["a.py"], node_id="spec:2")
    assert result.recorded and result.decisions == []
    assert active_ids(ledger_conn) == [fid]
    assert ledger_conn.execute("SELECT count(*) FROM ledger.supersession").fetchone() == (0,)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge").fetchone() == (1,)


def test_switching_dry_to_on_applies_to_later_merges_only(ledger_conn: psycopg.Connection) -> None:
    fl.set_hygiene_mode(ledger_conn, "spec", "dry", create=True)
    fid = drift(ledger_conn, "t", ["a.py"])
    fl.record_merge(ledger_conn, "spec", SHA_1, ["a.py"])
    fl.set_hygiene_mode(ledger_conn, "spec", "on")
    assert active_ids(ledger_conn) == [fid]
    second = fl.record_merge(ledger_conn, "spec", SHA_2, ["a.py"])
    assert second.superseded == [fid]
    assert [a.action for a in fl.read_audit(ledger_conn, "spec")] == ["would_supersede", "superseded"]


def test_hygiene_mode_written_with_plain_sql(ledger_conn: psycopg.Connection) -> None:
    ledger_conn.execute("INSERT INTO ledger.scope (scope, hygiene_mode) VALUES ('spec', ' DRY ')")
    fid = drift(ledger_conn, "t", ["a.py"])
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', %s, '{a.py}')", (SHA_1,))
    assert active_ids(ledger_conn) == [fid]
    assert [a.action for a in fl.read_audit(ledger_conn, "spec")] == ["would_supersede"]


# --- redelivery -------------------------------------------------------------------------------


def test_redelivery_with_on_conflict_do_nothing_has_no_second_effect(ledger_conn: psycopg.Connection) -> None:
    drift(ledger_conn, "t", ["a.py"])
    later = drift(ledger_conn, "t2", ["b.py"])
    insert = (
        "INSERT INTO ledger.merge (scope, commit_sha, node_id, paths) VALUES ('spec', %s, %s, %s) "
        "ON CONFLICT (scope, commit_sha) DO NOTHING"
    )
    cur = ledger_conn.execute(insert, (SHA_1, "spec:2", ["a.py"]))
    assert cur.rowcount == 1
    state = superseded_state(ledger_conn)
    audit = ledger_conn.execute("SELECT * FROM ledger.supersession ORDER BY id").fetchall()

    # the same merge again, from another node, its paths spelled otherwise: ignored
    cur = ledger_conn.execute(insert, (SHA_1, "spec:9", ["./a.py:3"]))
    assert cur.rowcount == 0
    # without a conflict target, and with the sha in upper case (stored lower-cased): ignored too
    cur = ledger_conn.execute(
        "INSERT INTO ledger.merge (scope, commit_sha, node_id, paths) VALUES ('spec', %s, 'spec:9', '{a.py}') "
        "ON CONFLICT DO NOTHING",
        (SHA_1.upper(),),
    )
    assert cur.rowcount == 0
    # (other paths, message or branch are a conflict, not a redelivery: tests/merges/test_merge_integrity.py)

    assert superseded_state(ledger_conn) == state
    assert ledger_conn.execute("SELECT * FROM ledger.supersession ORDER BY id").fetchall() == audit
    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge").fetchone() == (1,)
    assert active_ids(ledger_conn) == [later]


def test_redelivery_through_record_merge_returns_the_original_decisions(ledger_conn: psycopg.Connection) -> None:
    fid = drift(ledger_conn, "t", ["a.py"])
    other = drift(ledger_conn, "t2", ["b.py"])
    first = fl.record_merge(ledger_conn, "spec", SHA_1, ["a.py"], node_id="spec:2")
    state = superseded_state(ledger_conn)

    again = fl.record_merge(ledger_conn, "spec", SHA_1, ["a.py"], node_id="spec:9")

    assert first.recorded is True and again.recorded is False
    assert again.merge_id == first.merge_id
    assert again.decisions == first.decisions
    assert again.superseded == [fid]
    assert superseded_state(ledger_conn) == state
    assert active_ids(ledger_conn) == [other]
    assert len(fl.read_audit(ledger_conn, "spec")) == 1


def test_a_plain_duplicate_insert_is_a_typed_error_and_changes_nothing(ledger_conn: psycopg.Connection) -> None:
    drift(ledger_conn, "t", ["a.py"])
    fl.record_merge(ledger_conn, "spec", SHA_1, ["a.py"])
    with pytest.raises(psycopg.errors.UniqueViolation) as info:
        ledger_conn.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', %s, '{a.py}')", (SHA_1,)
        )
    assert info.value.sqlstate == "23505"
    assert fl.errors.error_for(info.value).__class__ is fl.DuplicateMerge
    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge").fetchone() == (1,)


# --- scopes -----------------------------------------------------------------------------------


def test_scope_is_created_with_defaults_on_first_use(ledger_conn: psycopg.Connection) -> None:
    assert ledger_conn.execute("SELECT count(*) FROM ledger.scope").fetchone() == (0,)
    fl.add_finding(ledger_conn, " spec-a ", "t", kind="drift")
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha) VALUES ('spec-b', %s)", (SHA_1,))
    fl.record_merge(ledger_conn, "spec-c", SHA_2)
    rows = ledger_conn.execute(
        "SELECT scope, hygiene_mode, created_at IS NOT NULL FROM ledger.scope ORDER BY 1"
    ).fetchall()
    assert rows == [("spec-a", "on", True), ("spec-b", "on", True), ("spec-c", "on", True)]
    assert [f.scope for f in fl.active_findings(ledger_conn, "spec-a")] == ["spec-a"]


def test_an_unknown_scope_is_ld005(ledger_conn: psycopg.Connection) -> None:
    drift(ledger_conn, "t", ["a.py"], scope="known")
    with pytest.raises(fl.NotFound) as info:
        fl.active_findings(ledger_conn, "knwon")
    assert info.value.sqlstate == "LD005"
    assert "knwon" in str(info.value)
    with pytest.raises(fl.NotFound):
        fl.read_audit(ledger_conn, "knwon")
    with pytest.raises(psycopg.Error) as raw:
        ledger_conn.execute("SELECT * FROM ledger.active_findings('knwon')")
    assert raw.value.sqlstate == "LD005"
    # asking does not create it
    assert ledger_conn.execute("SELECT scope FROM ledger.scope").fetchall() == [("known",)]


def test_active_findings_come_in_prompt_order(ledger_conn: psycopg.Connection) -> None:
    low = fl.add_finding(ledger_conn, "spec", "low", severity="low", kind="drift").id
    crit = fl.add_finding(ledger_conn, "spec", "crit", severity="critical", kind="drift").id
    med1 = fl.add_finding(ledger_conn, "spec", "med1", kind="drift").id
    med2 = fl.add_finding(ledger_conn, "spec", "med2", severity="MAJOR", kind="drift").id  # major -> high
    assert [f.id for f in fl.active_findings(ledger_conn, "spec")] == [crit, med2, med1, low]
