"""Importers: findings files in the design record's format, the
drift-review JSON of the drift-review scenario, re-import without duplicates, the CLI."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import psycopg
from click.testing import CliRunner
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl
from findings_ledger.cli import main
from findings_ledger.importers import drift_key, read_finding_file

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("s", "spec07")

DRIFT = {"drift_findings": [
    {"severity": "major", "description": "packages/af/af/nightshift.py still exists in the repository.",
     "spec_ref": "07_nightshift_standalone_cli", "artifact_ref": "packages/af/af/nightshift.py"},
    {"severity": "critical", "description": "The entire packages/nightshift/ directory does not exist.\nCreate it.",
     "spec_ref": "07_nightshift_standalone_cli", "artifact_ref": "./packages/nightshift/"},
    {"severity": "minor", "description": "An absolute path is rejected", "artifact_ref": "/etc/passwd"},
    "not an object",
    {"severity": "low", "description": "Night-shift tests have not been migrated.", "spec_ref": None},
]}


def write(directory: Path, name: str, text: str) -> Path:
    p = directory / name
    p.write_text(text, encoding="utf-8")
    return p


def test_drift_json_import_is_idempotent_and_feeds_the_path_rule(ledger_conn: psycopg.Connection[Any],
                                                                 tmp_path: Path) -> None:
    path = write(tmp_path, "drift.json", json.dumps(DRIFT))
    report = fl.import_findings(ledger_conn, "spec07", path)
    assert [s.name for s in report.skipped] == ["drift.json#drift_findings[2]", "drift.json#drift_findings[3]"]
    assert "LD001" in report.skipped[0].reason  # /etc/passwd is not a repository path
    assert report.count("inserted") == 3
    rows = ledger_conn.execute(
        "SELECT finding_key, kind, severity, title, description, paths, tags, source FROM ledger.finding "
        "ORDER BY id").fetchall()
    assert rows[0] == (drift_key(DRIFT["drift_findings"][0]), "drift", "high",
                       "packages/af/af/nightshift.py still exists in the repository.", None,
                       ["packages/af/af/nightshift.py"], ["spec:07_nightshift_standalone_cli"], "drift-review")
    assert rows[1][3:6] == ("The entire packages/nightshift/ directory does not exist.",
                            "The entire packages/nightshift/ directory does not exist.\nCreate it.",
                            ["packages/nightshift/"])
    assert rows[2][5:7] == ([], [])

    again = fl.import_findings(ledger_conn, "spec07", path)
    assert again.count("unchanged") == 3 and again.count("inserted") == 0
    fl.record_merge(ledger_conn, "spec07", "abcd001", ["packages/af/af/nightshift.py"], message="Remove night-shift")
    retired = fl.import_findings(ledger_conn, "spec07", path)
    assert [i.finding.status for i in retired.imported] == ["retired", "unchanged", "unchanged"]
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (3,)
    assert ledger_conn.execute(
        "SELECT count(*) FROM ledger.finding WHERE superseded_at IS NOT NULL").fetchone() == (1,)


def test_a_file_that_is_not_a_drift_review_is_reported(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    for name, text in (("a.json", '{"findings": []}'), ("b.json", "{not json"), ("c.json", '{"drift_findings": 3}')):
        report = fl.import_findings(ledger_conn, "s", write(tmp_path, name, text))
        assert [s.name for s in report.skipped] == [name] and report.imported == []


def test_findings_files_reimport_updates_and_never_duplicates(ledger_conn: psycopg.Connection[Any],
                                                              tmp_path: Path) -> None:
    d = tmp_path / "findings"
    d.mkdir()
    write(d, "2026-06-01-with-id.md", "---\nid: 42\ntitle: First title\nstrong_keywords: ERR_ONE, ERR_TWO\n---\n")
    write(d, "2026-06-02-slug-only.md", "---\ntitle: Slug only\n---\nBody text is the description.\n")
    write(d, "2026-06-03-heading.md", "# Title from the heading\n\nNo front matter at all.\n")
    write(d, "2026-06-04-weak-keyword.md", "---\ntitle: Weak\nstrong_keywords: [dispatcher]\n---\n")
    write(d, "2026-06-05-no-title.md", "---\nkind: drift\n---\n")
    write(d, "notes.txt", "ignored: not a .md file")
    (d / "archived").mkdir()
    write(d / "archived", "2026-01-01-old.md", "---\ntitle: Old\n---\n")

    first = fl.import_findings(ledger_conn, "s", d)
    assert [(i.name, i.finding.finding_key, i.finding.slug, i.finding.status) for i in first.imported] == [
        ("2026-06-01-with-id.md", "42", "with-id", "inserted"),
        ("2026-06-02-slug-only.md", None, "slug-only", "inserted"),
        ("2026-06-03-heading.md", None, "heading", "inserted"),
    ]
    skipped = {s.name: s.reason for s in first.skipped}
    assert set(skipped) == {"2026-06-04-weak-keyword.md", "2026-06-05-no-title.md"}
    assert "LD101" in skipped["2026-06-04-weak-keyword.md"] and "LD002" in skipped["2026-06-05-no-title.md"]
    assert ledger_conn.execute(
        "SELECT title, description, strong_keywords FROM ledger.finding ORDER BY id").fetchall() == [
        ("First title", None, ["ERR_ONE", "ERR_TWO"]),
        ("Slug only", "Body text is the description.", []),
        ("Title from the heading", "# Title from the heading\n\nNo front matter at all.", []),
    ]

    write(d, "2026-06-01-with-id.md", "---\nid: 42\ntitle: Second title\n---\n")
    second = fl.import_findings(ledger_conn, "s", d)
    assert [i.finding.status for i in second.imported] == ["updated", "unchanged", "unchanged"]
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (3,)
    assert ledger_conn.execute("SELECT title FROM ledger.finding WHERE finding_key = '42'").fetchone() == (
        "Second title",)

    write(d, "2026-06-06-slug-only.md", "---\nid: X-1\ntitle: Same slug, another finding\n---\n")
    third = fl.import_findings(ledger_conn, "s", d)
    assert "23505" in {s.name: s.reason for s in third.skipped}["2026-06-06-slug-only.md"]


def test_read_finding_file_fields(tmp_path: Path) -> None:
    p = write(tmp_path, "2026-06-24-drift-frozen.md",
              "---\nfinding_id: F-7\nuid: ignored\ntitle: Drift frozen\ndescription: Short.\nkind: drift\n"
              "source_bot: drift-reviewer\ntags: [a, b]\npaths: packages/x/, src/y.py\nseverity: high\n---\nLong.\n")
    assert read_finding_file(p) == {
        "title": "Drift frozen", "description": "Short.", "finding_key": "F-7", "kind": "drift",
        "severity": "high", "source": "drift-reviewer", "slug": "drift-frozen", "strong_keywords": [],
        "tags": ["a", "b"], "paths": ["packages/x/", "src/y.py"], "expects": None, "task_group": None,
        "resolved_when": None, "observed_at_precision": "day",
        # the file name's date: the end of that day (no merge of that day retires it)
        "observed_at": datetime(2026, 6, 24, 23, 59, 59, 999999, tzinfo=timezone.utc)}


def test_cli_import_findings_with_a_workspace_scope(ledger_conn: psycopg.Connection[Any], ledger_dsn: str,
                                                    tmp_path: Path) -> None:
    d = tmp_path / "b-c"
    d.mkdir()
    write(d, "2026-06-01-one.md", "---\nid: F-1\ntitle: One\n---\n")
    write(d, "2026-06-02-bad.md", "---\ntitle: [unclosed\n---\n")
    runner = CliRunner()
    out = runner.invoke(main, ["import-findings", str(d), "--workspace", str(d), "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    scope = fl.workspace_scope(ledger_conn, d)
    assert scope.endswith("-b%2Dc")
    assert f"scope {scope}: 1 inserted" in out.output
    assert "2026-06-02-bad.md" in out.output
    again = runner.invoke(main, ["import-findings", str(d), "--scope", scope, "--dsn", ledger_dsn])
    assert "0 inserted, 0 updated, 1 unchanged" in again.output
    assert runner.invoke(main, ["import-findings", str(d), "--dsn", ledger_dsn]).exit_code == 2


def test_findings_files_keep_when_they_were_observed(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    d = tmp_path / "findings"
    d.mkdir()
    write(d, "2026-06-01-all-three.md",
          "---\ntitle: All three\nobserved_at: 2026-06-10T08:30:00+02:00\ncreated: 2026-06-09\ndate: 2026-06-08\n---\n")
    write(d, "2026-06-01-created.md", "---\ntitle: Created\ncreated: 2026-06-09T12:00:00\ndate: 2026-06-08\n---\n")
    write(d, "2026-06-01-date.md", "---\ntitle: Date\ndate: '2026-06-08'\n---\n")
    write(d, "2026-06-01-name-only.md", "---\ntitle: Name only\n---\n")
    write(d, "2026-06-01-zulu.md", "---\ntitle: Zulu\nobserved_at: '2026-06-11T10:00:00Z'\n---\n")
    write(d, "2026-06-01-bad-date.md", "---\ntitle: Bad date\ncreated: last tuesday\n---\n")
    report = fl.import_findings(ledger_conn, "s", d)
    assert [(s.name, s.reason) for s in report.skipped] == [
        ("2026-06-01-bad-date.md", "created 'last tuesday' is not a date or an ISO 8601 timestamp")]
    stored = dict(ledger_conn.execute("SELECT slug, observed_at FROM ledger.finding").fetchall())
    utc = timezone.utc
    end_of = lambda day: datetime(2026, 6, day, 23, 59, 59, 999999, tzinfo=utc)  # noqa: E731
    assert stored == {
        "all-three": datetime(2026, 6, 10, 6, 30, tzinfo=utc),  # observed_at wins, its offset kept
        "created": datetime(2026, 6, 9, 12, 0, tzinfo=utc),  # no offset: UTC
        "date": end_of(8),  # a bare date: the end of that day
        "name-only": end_of(1),  # the file name's date
        "zulu": datetime(2026, 6, 11, 10, tzinfo=utc),
    }


def test_expects_and_task_group_come_from_the_files(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    d = tmp_path / "findings"
    d.mkdir()
    write(d, "2026-06-01-missing-dir.md",
          "---\ntitle: packages/nightshift/ does not exist\nexpects: present\npaths: packages/nightshift/\n"
          "task_group: '07_nightshift_standalone_cli:0'\n---\n")
    write(d, "2026-06-01-still-there.md",
          "---\ntitle: nightshift.py still exists\nexpects: absent\npaths: packages/af/af/nightshift.py\n"
          "node_id: '07_nightshift_standalone_cli:1'\n---\n")
    write(d, "2026-06-01-plain.md", "---\ntitle: Plain\npaths: src/app.py:40-48\n---\n")
    write(d, "2026-06-01-bad-expects.md", "---\ntitle: Bad\nexpects: gone\n---\n")
    report = fl.import_findings(ledger_conn, "s", d, task_group="07_nightshift_standalone_cli:2")
    assert [s.name for s in report.skipped] == ["2026-06-01-bad-expects.md"]
    assert "LD003" in report.skipped[0].reason and "gone" in report.skipped[0].reason
    rows = ledger_conn.execute("SELECT slug, expects, task_group, paths, anchors FROM ledger.finding ORDER BY slug")
    assert rows.fetchall() == [
        ("missing-dir", "present", "07_nightshift_standalone_cli:0", ["packages/nightshift/"], None),
        ("plain", "change", "07_nightshift_standalone_cli:2", ["src/app.py"], {"src/app.py": [40, 48]}),
        ("still-there", "absent", "07_nightshift_standalone_cli:1", ["packages/af/af/nightshift.py"], None),
    ]


def test_a_drift_review_carries_its_time_group_and_expectations(ledger_conn: psycopg.Connection[Any],
                                                                tmp_path: Path) -> None:
    review = {
        "observed_at": "2026-06-24T16:51:49Z", "node_id": "07_nightshift_standalone_cli:0",
        "drift_findings": [
            {"severity": "critical", "description": "The entire packages/nightshift/ directory does not exist.",
             "spec_ref": "07", "artifact_ref": "packages/nightshift/", "expects": "present"},
            {"severity": "major", "description": "packages/af/af/nightshift.py still exists in the repository.",
             "spec_ref": "07", "artifact_ref": "packages/af/af/nightshift.py", "expects": "absent",
             "timestamp": "2026-06-25T09:00:00+00:00", "task_group": "07_nightshift_standalone_cli:1"},
            {"severity": "minor", "description": "A bad time", "artifact_ref": "x.py", "created_at": 17},
        ]}
    report = fl.import_findings(ledger_conn, "spec07", write(tmp_path, "review.json", json.dumps(review)))
    assert [(s.name, s.reason) for s in report.skipped] == [
        ("review.json#drift_findings[2]", "created_at 17 is not a date or an ISO 8601 timestamp")]
    rows = ledger_conn.execute("SELECT expects, observed_at, task_group FROM ledger.finding ORDER BY id").fetchall()
    assert rows == [
        ("present", datetime(2026, 6, 24, 16, 51, 49, tzinfo=timezone.utc), "07_nightshift_standalone_cli:0"),
        ("absent", datetime(2026, 6, 25, 9, tzinfo=timezone.utc), "07_nightshift_standalone_cli:1"),
    ]


def test_cli_import_findings_task_group(ledger_conn: psycopg.Connection[Any], ledger_dsn: str,
                                        tmp_path: Path) -> None:
    d = tmp_path / "findings"
    d.mkdir()
    write(d, "2026-06-01-one.md", "---\ntitle: One\n---\n")
    out = CliRunner().invoke(main, ["import-findings", str(d), "--scope", "s", "--task-group", "07_x:3",
                                    "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    assert ledger_conn.execute("SELECT task_group FROM ledger.finding").fetchone() == ("07_x:3",)
