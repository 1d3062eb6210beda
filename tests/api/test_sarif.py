"""SARIF 2.1.0 in and out (docs/sarif.md, findings_ledger.sarif).

The real run: ruff's own ``--output-format sarif`` on a small file set,
imported, the file fixed, ruff run again and re-imported: the fixed result
is retired with rule ``reanalysis`` (audited with the run), the one that
moved keeps its finding and its anchor moves, a new one is added. Then the
bad inputs, each one line and nothing of the run written, an interrupted
replace leaving the previous set as it was, and the export validated against
the OASIS schema the package ships.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from jsonschema import Draft4Validator

import findings_ledger as fl
from findings_ledger import sarif

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
CLI = Path(sys.executable).with_name("findings-ledger")
SCOPE = "sarif"

BEFORE = """import os
import sys


def main():
    unused = 1
    return sys.argv
"""
# the fix: `import os` removed (F401 fixed), so F841 moves up one line; a new F811-free problem added below
AFTER = """import sys


def main():
    unused = 1
    return sys.argv


def other():
    return undefined_name
"""


def ruff_sarif(root: Path, out: Path) -> Path:
    """ruff's own SARIF output for ``root`` (F rules only, no configuration of the project)."""
    assert RUFF is not None, "ruff is in the dev set (requirements/dev.lock)"
    proc = subprocess.run([RUFF, "check", "--isolated", "--select", "F", "--output-format", "sarif",
                           "--no-cache", "."], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    out.write_text(proc.stdout, encoding="utf-8")
    return out


def active(conn: psycopg.Connection[Any]) -> dict[str, tuple[str, list[str]]]:
    rows = conn.execute("SELECT finding_key, title, paths, anchors FROM ledger.finding "
                        "WHERE scope = %s AND superseded_at IS NULL ORDER BY id", (SCOPE,)).fetchall()
    return {k: (t, p, a) for k, t, p, a in rows}


def state(conn: psycopg.Connection[Any]) -> list[tuple[Any, ...]]:
    """Everything an import may change, for "nothing changed" comparisons."""
    findings = conn.execute("SELECT id, finding_key, paths, anchors, superseded_at, report_count, review_run "
                            "FROM ledger.finding ORDER BY id").fetchall()
    audit = conn.execute("SELECT count(*) FROM ledger.supersession").fetchone()
    return [*findings, audit]


def test_ruff_run_imported_fixed_and_reimported(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text(BEFORE, encoding="utf-8")
    first = ruff_sarif(repo, tmp_path / "run1.sarif")
    log = json.loads(first.read_text())
    assert log["runs"][0]["tool"]["driver"]["name"] == "ruff"
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"F401", "F841"}

    [one] = fl.import_sarif(ledger_conn, SCOPE, first, root=repo)
    assert (one.run.tool, one.run.category) == ("ruff", None)
    assert (one.result.added, one.result.superseded) == (2, 0)
    before = active(ledger_conn)
    by_rule = {t.split(":")[0]: (k, p, a) for k, (t, p, a) in before.items()}
    assert by_rule["F401"][1:] == (["app.py"], {"app.py": [1, 1]})
    assert by_rule["F841"][1:] == (["app.py"], {"app.py": [6, 6]})
    row = ledger_conn.execute("SELECT kind, severity, source, description FROM ledger.finding "
                              "WHERE finding_key = %s", (by_rule["F401"][0],)).fetchone()
    assert row == ("analysis", "high", "ruff", None)

    # the same run again: nothing changes but the re-report counters
    [again] = fl.import_sarif(ledger_conn, SCOPE, first, root=repo)
    assert (again.result.added, again.result.kept, again.result.superseded, again.anchors_moved) == (0, 2, 0, 0)

    (repo / "app.py").write_text(AFTER, encoding="utf-8")
    second = ruff_sarif(repo, tmp_path / "run2.sarif")
    [two] = fl.import_sarif(ledger_conn, SCOPE, second, root=repo)
    assert (two.result.added, two.result.kept, two.result.superseded, two.anchors_moved) == (1, 1, 1, 1)
    after = active(ledger_conn)
    assert by_rule["F401"][0] not in after
    assert after[by_rule["F841"][0]][2] == {"app.py": [5, 5]}  # the same finding, its anchor moved
    new_key = next(k for k in after if k not in before)
    assert after[new_key][0].startswith("F821:")

    audit = {(a.finding_id, a.action): a for a in fl.read_audit(ledger_conn, SCOPE)}
    f401 = ledger_conn.execute("SELECT id, supersede_rule, superseded_by FROM ledger.finding WHERE finding_key = %s",
                               (by_rule["F401"][0],)).fetchone()
    assert f401[1] == "reanalysis" and f401[2] == two.run.review_run
    retired = audit[(f401[0], "superseded")]
    assert (retired.rule, retired.evidence) == ("reanalysis", two.run.review_run)
    assert retired.detail["tool"] == "ruff" and retired.detail["review_run"] == two.run.review_run
    f841 = ledger_conn.execute("SELECT id FROM ledger.finding WHERE finding_key = %s",
                               (by_rule["F841"][0],)).fetchone()[0]
    moved = audit[(f841, "anchor_moved")]
    assert (moved.rule, moved.detail["from"], moved.detail["to"]) == (
        "reanalysis", {"app.py": [6, 6]}, {"app.py": [5, 5]})


def minimal(results: list[dict[str, Any]], *, tool: str = "semgrep", automation: str | None = None,
            **run: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"tool": {"driver": {"name": tool}}, "results": results, **run}
    if automation is not None:
        body["automationDetails"] = {"id": automation}
    return {"version": "2.1.0", "runs": [body]}


def result(rule: str, uri: str, line: int, *, fp: str | None = None, end: int | None = None,
           level: str | None = "warning", text: str | None = None, **extra: Any) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": line}
    if end is not None:
        region["endLine"] = end
    r: dict[str, Any] = {"ruleId": rule, "message": {"text": text or f"{rule} at {uri}"},
                         "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}],
                         **extra}
    if level is not None:
        r["level"] = level
    if fp is not None:
        r["partialFingerprints"] = {"primaryLocationLineHash": fp}
    return r


def write(tmp_path: Path, log: Any, name: str = "run.sarif") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(log) if not isinstance(log, str) else log, encoding="utf-8")
    return p


def test_fingerprints_categories_levels_and_baseline_state(ledger_conn: psycopg.Connection[Any],
                                                          tmp_path: Path) -> None:
    run1 = minimal([result("R1", "src/a.py", 10, end=12, fp="aa", level="error"),
                    result("R2", "src/b.py", 3, fp="bb", level="note"),
                    result("R3", "src/c.py", 7, fp="cc", level=None)], automation="lint/2026-12-01")
    other = minimal([result("R1", "src/a.py", 10, fp="aa")], automation="security/2026-12-01")
    [a] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, run1), root=tmp_path)
    [b] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, other, "other.sarif"), root=tmp_path)
    assert (a.run.category, a.run.review_run, b.run.category) == ("lint", "2026-12-01", "security")
    rows = ledger_conn.execute("SELECT title, severity, source, paths, anchors FROM ledger.finding "
                               "WHERE scope = %s ORDER BY id", (SCOPE,)).fetchall()
    assert rows[0] == ("R1: R1 at src/a.py", "high", "semgrep/lint", ["src/a.py"], {"src/a.py": [10, 12]})
    assert [r[1] for r in rows] == ["high", "low", "medium", "medium"]
    assert rows[3][2] == "semgrep/security"  # the same fingerprint in another category: another finding

    # a newer run of the same tool and category: cc moved lines, bb is absent by baselineState, aa gone
    run2 = minimal([result("R2", "src/b.py", 3, fp="bb", baselineState="absent"),
                    result("R3", "src/c.py", 9, fp="cc", baselineState="unchanged"),
                    result("R4", "src/d.py", 1, fp="dd", baselineState="new")], automation="lint/2026-12-02")
    [c] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, run2), root=tmp_path)
    assert (c.result.added, c.result.kept, c.result.superseded, c.anchors_moved) == (1, 1, 2, 1)
    left = ledger_conn.execute("SELECT title, source FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL "
                               "ORDER BY id", (SCOPE,)).fetchall()
    assert left == [("R3: R3 at src/c.py", "semgrep/lint"), ("R1: R1 at src/a.py", "semgrep/security"),
                    ("R4: R4 at src/d.py", "semgrep/lint")]  # the other category was not touched
    details = [a.detail for a in fl.read_audit(ledger_conn, SCOPE) if a.action in ("superseded", "anchor_moved")]
    assert {(d.get("category"), d.get("baseline_state")) for d in details} == {
        ("lint", None), ("lint", "absent"), ("lint", "unchanged")}

    # a fixed finding that comes back is reopened (the same finding)
    [d] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, run1), root=tmp_path)
    assert (d.result.added, d.result.kept, d.result.reopened, d.result.superseded) == (0, 1, 2, 1)


def test_uris_file_and_base_ids(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    log = minimal([result("R", (root / "src" / "a.py").as_uri(), 1, fp="1"),
                   result("R", "file://localhost" + str(root / "src" / "b.py"), 2, fp="2"),
                   {**result("R", "src/c%20d.py", 3, fp="3")}],
                  originalUriBaseIds={"SRC": {"uri": root.as_uri() + "/"}})
    log["runs"][0]["results"][2]["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] = "SRC"
    fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, log), root=root)
    paths = [r[0] for r in ledger_conn.execute("SELECT paths FROM ledger.finding WHERE scope = %s ORDER BY id",
                                               (SCOPE,))]
    assert paths == [["src/a.py"], ["src/b.py"], ["src/c d.py"]]


def test_computed_keys_follow_the_snippet_and_number_duplicates(ledger_conn: psycopg.Connection[Any],
                                                                tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\nimport os\nimport os\n", encoding="utf-8")
    log = minimal([result("F401", "a.py", 2), result("F401", "a.py", 3)], tool="ruff")
    [one] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, log), root=tmp_path)
    assert one.result.added == 2  # two identical lines are two findings
    keys = [f["finding_key"] for f in one.run.findings]
    (tmp_path / "a.py").write_text("\n\nx = 1\nimport os\nimport os\n", encoding="utf-8")
    moved = minimal([result("F401", "a.py", 4), result("F401", "a.py", 5)], tool="ruff")
    [two] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, moved), root=tmp_path)
    assert [f["finding_key"] for f in two.run.findings] == keys
    assert (two.result.kept, two.result.superseded, two.anchors_moved) == (2, 0, 2)


BAD: list[tuple[str, Any, str]] = [
    ("unknown version", {"version": "2.0.0", "runs": []}, "$.version: unknown SARIF version '2.0.0'"),
    ("schema", {"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": []}]},
     "$.runs[0].tool.driver: invalid SARIF: 'name' is a required property"),
    ("wrong type", {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": {}}]},
     "$.runs[0].results: invalid SARIF"),
    ("no location", minimal([{"ruleId": "R", "message": {"text": "m"}}]),
     "$.runs[0].results[0].locations: a result without a physical location"),
    ("dot dot", minimal([result("R", "../outside.py", 1)]), "leaves the repository (..)"),
    ("absolute elsewhere", minimal([result("R", "file:///etc/passwd", 1)]), "is outside the repository"),
    ("another host", minimal([result("R", "file://build-host/src/a.py", 1)]), "is a file of another host (build-host)"),
    ("another scheme", minimal([result("R", "https://example.org/a.py", 1)]), "(scheme https:)"),
    ("two runs of one tool", {"version": "2.1.0", "runs": [minimal([])["runs"][0], minimal([])["runs"][0]]},
     "$.runs[1]: a second run of tool 'semgrep'"),
    ("malformed JSON", '{"version": "2.1.0", "runs": [', "malformed JSON at line 1"),
    ("not an object", "[1, 2]", "the top level is not a JSON object"),
]


@pytest.mark.parametrize(("name", "log", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_and_imports_nothing(ledger_conn: psycopg.Connection[Any], tmp_path: Path,
                                                   name: str, log: Any, message: str) -> None:
    good = minimal([result("R", "kept.py", 1, fp="k")])
    fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, good, "good.sarif"), root=tmp_path)
    # a good run ahead of the bad part of the file is not imported either
    if isinstance(log, dict) and log.get("version") == "2.1.0" and log.get("runs"):
        log = copy.deepcopy(log)
        log["runs"].insert(0, minimal([result("G", "new.py", 1, fp="n")], tool="other")["runs"][0])
        message = message.replace("$.runs[1]", "$.runs[2]").replace("$.runs[0]", "$.runs[1]")
    before = state(ledger_conn)
    path = write(tmp_path, log)
    with pytest.raises(sarif.SarifRejected) as err:
        fl.import_sarif(ledger_conn, SCOPE, path, root=tmp_path)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith("run.sarif: ")
    assert state(ledger_conn) == before


def test_the_caps(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    path = write(tmp_path, minimal([result("R", f"f{i}.py", 1, fp=str(i)) for i in range(5)]))
    with pytest.raises(sarif.SarifRejected, match=r"over the limit of 100 bytes"):
        fl.import_sarif(ledger_conn, SCOPE, path, root=tmp_path, max_bytes=100)
    with pytest.raises(sarif.SarifRejected, match=r"\$.runs: 5 results, over the limit of 4"):
        fl.import_sarif(ledger_conn, SCOPE, path, root=tmp_path, max_results=4)
    binary = tmp_path / "bin.sarif"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(sarif.SarifRejected, match="not UTF-8 text"):
        fl.import_sarif(ledger_conn, SCOPE, binary, root=tmp_path)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)


def test_an_interrupted_replace_leaves_the_previous_set(ledger_conn: psycopg.Connection[Any],
                                                        tmp_path: Path) -> None:
    first = minimal([result("R", "a.py", 1, fp="a"), result("R", "b.py", 2, fp="b")])
    fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, first), root=tmp_path)
    before = state(ledger_conn)
    # the second run's replace fails in the database after the first run's replace of the file went through
    second = {"version": "2.1.0", "runs": [
        minimal([result("R", "c.py", 3, fp="c")])["runs"][0],
        minimal([result("R", "d.py", 1, fp="d")], tool="x/y")["runs"][0],  # LD003 in replace_findings
    ]}
    with pytest.raises(fl.ValueInvalid, match="contains '/'"):
        fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, second), root=tmp_path)
    assert state(ledger_conn) == before
    # raised mid-way in the one transaction: a trigger that fails on the first audit row of the replace
    ledger_conn.execute("""
        CREATE FUNCTION pg_temp.boom() RETURNS trigger LANGUAGE plpgsql AS
        $$BEGIN RAISE EXCEPTION 'interrupted' USING ERRCODE = 'XX000'; END$$""")
    ledger_conn.execute("CREATE TRIGGER zz_boom BEFORE INSERT ON ledger.supersession "
                        "FOR EACH ROW EXECUTE FUNCTION pg_temp.boom()")
    try:
        with pytest.raises(psycopg.errors.InternalError_, match="interrupted"):
            fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, minimal([result("R", "c.py", 3, fp="c")])),
                            root=tmp_path)
        assert state(ledger_conn) == before
    finally:
        ledger_conn.execute("DROP TRIGGER zz_boom ON ledger.supersession")


def test_killed_mid_import_leaves_the_previous_set(ledger_dsn: str, tmp_path: Path) -> None:
    """A backend killed while the replace holds its locks: the previous set is exactly as it was."""
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        fl.import_sarif(conn, SCOPE, write(tmp_path, minimal([result("R", "a.py", 1, fp="a")])), root=tmp_path)
        before = state(conn)
        big = minimal([result("R", f"f{i}.py", 1, fp=str(i)) for i in range(300)])
        victim = psycopg.connect(ledger_dsn, autocommit=True)
        pid = victim.info.backend_pid
        # the victim waits on the scope row the killer holds, mid-way into replace_findings
        with conn.transaction():
            conn.execute("SELECT 1 FROM ledger.scope WHERE scope = %s FOR UPDATE", (SCOPE,))
            import threading

            errors: list[BaseException] = []

            def run() -> None:
                try:
                    fl.import_sarif(victim, SCOPE, write(tmp_path, big, "big.sarif"), root=tmp_path)
                except BaseException as exc:  # noqa: BLE001 - the killed backend's error is the point
                    errors.append(exc)

            t = threading.Thread(target=run)
            t.start()
            for _ in range(200):
                waiting = conn.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s",
                                       (pid,)).fetchone()
                if waiting and waiting[0] == "Lock":
                    break
                t.join(0.05)
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
        t.join(30)
        assert errors and isinstance(errors[0], psycopg.OperationalError)
        assert state(conn) == before
        victim.close()


def test_export_is_valid_sarif(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, minimal([result("R", "src/a.py", 3, end=5, fp="a"),
                                                                 result("R", "src/b.py", 1, fp="b")])),
                    root=tmp_path)
    fl.add_finding(ledger_conn, SCOPE, "docs are stale", paths=["docs/", "README.md:4"], kind="drift")
    fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, minimal([result("R", "src/a.py", 3, end=5, fp="a")])),
                    root=tmp_path)
    validator = Draft4Validator(sarif.schema())
    log = fl.export_sarif(ledger_conn, SCOPE)
    assert list(validator.iter_errors(log)) == []
    results = log["runs"][0]["results"]
    assert [r["message"]["text"] for r in results] == ["R: R at src/a.py", "docs are stale"]
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "endLine": 5}
    assert results[0]["level"] == "warning" and "baselineState" not in results[0]
    full = fl.export_sarif(ledger_conn, SCOPE, include_retired=True)
    assert list(validator.iter_errors(full)) == []
    assert [r.get("baselineState") for r in full["runs"][0]["results"]] == [None, "absent", None]
    # the export reads back in: the same log is valid input (paths relative, one run)
    back = write(tmp_path, log, "export.sarif")
    assert [r.tool for r in sarif.read_sarif(back, root=tmp_path)] == ["findings-ledger"]
    with pytest.raises(fl.NotFound):
        fl.export_sarif(ledger_conn, "no-such-scope")


def cli(args: list[str], dsn: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], env={**os.environ, "LEDGER_DSN": dsn, "COLUMNS": "200"}, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_cli_import_and_export(ledger_dsn: str, tmp_path: Path) -> None:
    path = write(tmp_path, minimal([result("R", "a.py", 1, fp="a")], automation="lint/1"))
    proc = cli(["import-findings", str(path), "--scope", SCOPE], ledger_dsn, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ("semgrep/lint run 1: 1 results: 1 added, 0 kept, 0 reopened, 0 still dismissed, "
                                   "0 retired (reanalysis), 0 would retire, 0 anchors moved")
    out = tmp_path / "out.sarif"
    proc = cli(["export", SCOPE, "--format", "sarif", "-o", str(out)], ledger_dsn, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert list(Draft4Validator(sarif.schema()).iter_errors(json.loads(out.read_text()))) == []
    bad = write(tmp_path, minimal([result("R", "../x.py", 1)]), "bad.sarif")
    proc = cli(["import-findings", str(bad), "--scope", SCOPE], ledger_dsn, tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "error: bad.sarif: $.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri: "
        "'../x.py' leaves the repository (..)"]


def test_the_shipped_schema_is_the_oasis_one() -> None:
    s = sarif.schema()
    assert s["id"] == sarif.SCHEMA_URI
    assert s["properties"]["version"]["enum"] == ["2.1.0"]
    notice = Path(sarif.__file__).with_name("schemas") / "NOTICE"
    assert "OASIS" in notice.read_text(encoding="utf-8")


REANALYSE = ("SELECT added, kept, reopened, still_dismissed, superseded, would_supersede, anchors_moved "
             "FROM ledger.replace_findings(%s, 'analysis', %s, %s::jsonb, NULL, %s, %s)")


def test_the_reanalysis_rule_holds_for_a_service_writing_sql(ledger_conn: psycopg.Connection[Any]) -> None:
    """A service (role ledger_writer) calling replace_findings itself gets the same rule:
    the tool's set is replaced, another tool's is not, the anchor moves, baseline_state is read."""
    ledger_conn.execute("SET ROLE ledger_writer")
    run1 = json.dumps([{"finding_key": "k1", "title": "one", "paths": ["a.py:3-4"]},
                       {"finding_key": "k2", "title": "two", "paths": ["b.py:1"]}])
    assert ledger_conn.execute(REANALYSE, ("svc", "r1", run1, "eslint", "web")).fetchone() == (2, 0, 0, 0, 0, 0, 0)
    ledger_conn.execute(REANALYSE, ("svc", "o1", json.dumps([{"finding_key": "o", "title": "other tool"}]),
                                    "semgrep", None))
    run2 = json.dumps([{"finding_key": "k1", "title": "one", "paths": ["a.py:7-8"], "baseline_state": "updated"}])
    assert ledger_conn.execute(REANALYSE, ("svc", "r2", run2, "eslint", "web")).fetchone() == (0, 1, 0, 0, 1, 0, 1)
    ledger_conn.execute("RESET ROLE")
    rows = ledger_conn.execute("SELECT finding_key, source, anchors, supersede_rule FROM ledger.finding "
                               "WHERE scope = 'svc' ORDER BY finding_key").fetchall()
    assert rows == [("k1", "eslint/web", {"a.py": [7, 8]}, None), ("k2", "eslint/web", {"b.py": [1, 1]}, "reanalysis"),
                    ("o", "semgrep", None, None)]
    moved = ledger_conn.execute("SELECT detail FROM ledger.supersession WHERE action = 'anchor_moved'").fetchone()[0]
    assert (moved["from"], moved["to"], moved["baseline_state"], moved["category"]) == (
        {"a.py": [3, 4]}, {"a.py": [7, 8]}, "updated", "web")


@pytest.mark.parametrize(("findings", "tool", "category", "message"), [
    ([{"finding_key": "k", "title": "t", "baseline_state": "gone"}], "t", None,
     "invalid findings[1].baseline_state: 'gone' is not one of new, unchanged, updated, absent"),
    ([{"finding_key": "k", "title": "t", "baseline_state": "new"}], None, None,
     "invalid findings[1].baseline_state: 'new' is only read in a re-analysis"),
    ([{"finding_key": "k", "title": "t", "source": "other"}], "t", "c",
     "invalid findings[1].source: 'other' differs from the analysis source 't/c'"),
    ([], "a/b", None, "invalid tool: 'a/b' contains '/'"),
    ([], None, "c", "invalid category: 'c' is given without a tool"),
])
def test_reanalysis_bad_input_is_ld003(ledger_conn: psycopg.Connection[Any], findings: list[Any], tool: str | None,
                                       category: str | None, message: str) -> None:
    with pytest.raises(psycopg.Error) as err:
        ledger_conn.execute(REANALYSE.replace("'analysis'", "NULL"), ("svc", "r", json.dumps(findings), tool, category))
    assert err.value.sqlstate == "LD003" and message in str(err.value), str(err.value)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)


def test_absolute_uris_under_a_root_above_the_repository_are_refused(ledger_dsn: str, tmp_path: Path) -> None:
    """``--root`` a parent of the repository the absolute URIs lie in would store paths with
    the repository's directory in front (``repo/src/a.py``), which no merge of the repository
    names: refused, naming the repository to give as the root."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "src" / "a.py").write_text("x = 1\n")
    path = write(tmp_path, minimal([result("R", (repo / "src" / "a.py").as_uri(), 1, fp="a")]))
    proc = cli(["import-findings", str(path), "--scope", SCOPE, "--root", str(tmp_path)], ledger_dsn, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"error: run.sarif: $.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri: "
        f"{(repo / 'src' / 'a.py').as_uri()!r} lies in the git repository {repo}, below the root {tmp_path}: "
        f"its path would be stored as 'repo/src/a.py', which no merge of that repository names "
        f"(give --root {repo})"]
    with psycopg.connect(ledger_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)
    proc = cli(["import-findings", str(path), "--scope", SCOPE, "--root", str(repo)], ledger_dsn, tmp_path)
    assert proc.returncode == 0, proc.stderr
    with psycopg.connect(ledger_dsn) as conn:
        assert conn.execute("SELECT paths FROM ledger.finding").fetchall() == [(["src/a.py"],)]


def test_an_export_reimported_keeps_the_titles(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    """findings-ledger's own export names each result's rule by the finding's kind and writes
    the title and the description as one message: imported again, a title stays the finding's
    title, without the kind in front, and the description its description."""
    fl.add_finding(ledger_conn, "origin", "docs/api.md is stale", paths=["docs/api.md"], kind="drift",
                   finding_key="k1", description="the api page lists removed calls")
    fl.add_finding(ledger_conn, "origin", "a.py: unused import", paths=["a.py:3"], finding_key="k2")
    out = tmp_path / "export.sarif"
    with out.open("w", encoding="utf-8") as f:
        sarif.write_sarif(fl.export_sarif(ledger_conn, "origin"), f)
    fl.import_sarif(ledger_conn, "copy", out, root=tmp_path)
    titles = ledger_conn.execute("SELECT title, description FROM ledger.finding WHERE scope = 'copy' "
                                 "ORDER BY title").fetchall()
    assert titles == [("a.py: unused import", None), ("docs/api.md is stale", "the api page lists removed calls")]

def test_a_fingerprint_is_keyed_with_its_rule_and_file(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    """Code scanning keys an alert by rule, file and fingerprint: two rules on one line, and one rule on two
    identical files, share a primaryLocationLineHash and are four findings; a true duplicate (same rule, file and
    fingerprint) is one finding and one warning, never a refused log."""
    shared = [result("R1", "src/a.py", 3, fp="h1"), result("R2", "src/a.py", 3, fp="h1"),
              result("R1", "src/b.py", 1, fp="h2"), result("R1", "src/c.py", 1, fp="h2")]
    [one] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, minimal(shared)), root=tmp_path)
    assert (one.result.added, one.run.warnings) == (4, ())
    rows = ledger_conn.execute("SELECT title, paths FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL "
                               "ORDER BY id", (SCOPE,)).fetchall()
    assert [(t.split(":")[0], p) for t, p in rows] == [
        ("R1", ["src/a.py"]), ("R2", ["src/a.py"]), ("R1", ["src/b.py"]), ("R1", ["src/c.py"])]
    twice = [*shared[:3], result("R1", "src/a.py", 9, fp="h1")]
    [two] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, minimal(twice)), root=tmp_path)
    assert (two.result.added, two.result.kept, two.result.superseded) == (0, 3, 1)
    assert two.run.warnings == (
        "run.sarif: $.runs[0].results[3].partialFingerprints: rule 'R1' in 'src/a.py' with "
        '[["primaryLocationLineHash", "h1"]] repeats result 0 of the run: imported once',)


def suppressed(r: dict[str, Any], kind: str = "inSource", status: str | None = None,
               justification: str | None = None) -> dict[str, Any]:
    s: dict[str, Any] = {"kind": kind}
    if status is not None:
        s["status"] = status
    if justification is not None:
        s["justification"] = justification
    return {**r, "suppressions": [*r.get("suppressions", []), s]}


def test_an_accepted_suppression_is_not_an_active_finding(ledger_conn: psycopg.Connection[Any],
                                                          tmp_path: Path) -> None:
    """semgrep's `# nosemgrep` (kind inSource, no status) and an external suppression accepted are not active
    findings; a result suppressed in a later run retires its finding by the re-analysis rule, the suppression in
    the audit; underReview and rejected stay active."""
    plain = [result("R", f"{k}.py", 1, fp=k) for k in "abcd"]
    run1 = [*plain, suppressed(result("R", "e.py", 1, fp="e"))]
    [one] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, minimal(run1)), root=tmp_path)
    assert one.result.added == 4
    assert [p for (_, p, _) in active(ledger_conn).values()] == [["a.py"], ["b.py"], ["c.py"], ["d.py"]]
    run2 = [suppressed(plain[0], justification="a test fixture"),
            suppressed(plain[1], kind="external", status="accepted"),
            suppressed(plain[2], kind="external", status="underReview"),
            suppressed(suppressed(plain[3], status="accepted"), kind="external", status="rejected"),
            suppressed(result("R", "e.py", 1, fp="e"))]
    [two] = fl.import_sarif(ledger_conn, SCOPE, write(tmp_path, minimal(run2)), root=tmp_path)
    assert (two.result.added, two.result.kept, two.result.superseded) == (0, 2, 2)
    assert [p for (_, p, _) in active(ledger_conn).values()] == [["c.py"], ["d.py"]]
    retired = [(a.rule, a.detail.get("suppression")) for a in fl.read_audit(ledger_conn, SCOPE)
               if a.action == "superseded"]
    assert retired == [("reanalysis", {"kind": "inSource", "status": "accepted", "justification": "a test fixture"}),
                       ("reanalysis", {"kind": "external", "status": "accepted"})]


def test_a_suppression_holds_for_a_service_writing_sql(ledger_conn: psycopg.Connection[Any]) -> None:
    ledger_conn.execute("SET ROLE ledger_writer")
    run1 = json.dumps([{"finding_key": "k1", "title": "one"}, {"finding_key": "k2", "title": "two"},
                       {"finding_key": "k3", "title": "three", "suppression": {"kind": "external"}}])
    assert ledger_conn.execute(REANALYSE, ("svc", "r1", run1, "eslint", None)).fetchone() == (2, 0, 0, 0, 0, 0, 0)
    run2 = json.dumps([{"finding_key": "k1", "title": "one",
                        "suppression": {"kind": "external", "status": "accepted", "justification": "wontfix"}},
                       {"finding_key": "k2", "title": "two",
                        "suppression": {"kind": "inSource", "status": "rejected"}}])
    assert ledger_conn.execute(REANALYSE, ("svc", "r2", run2, "eslint", None)).fetchone() == (0, 1, 0, 0, 1, 0, 0)
    with pytest.raises(psycopg.Error) as err:
        ledger_conn.execute(REANALYSE, ("svc", "r3", json.dumps([{"finding_key": "k", "title": "t", "suppression": {
            "kind": "external", "status": "maybe"}}]), "eslint", None))
    assert err.value.sqlstate == "LD003" and "findings[1].suppression.status: 'maybe'" in str(err.value)
    ledger_conn.execute("RESET ROLE")
    rows = ledger_conn.execute("SELECT finding_key, superseded_at IS NULL FROM ledger.finding "
                               "WHERE scope = 'svc' ORDER BY finding_key").fetchall()
    assert rows == [("k1", False), ("k2", True)]
    detail = ledger_conn.execute("SELECT detail FROM ledger.supersession WHERE action = 'superseded'").fetchone()[0]
    assert detail["suppression"] == {"kind": "external", "status": "accepted", "justification": "wontfix"}


def test_a_log_made_elsewhere(ledger_conn: psycopg.Connection[Any], ledger_dsn: str, tmp_path: Path) -> None:
    """ruff in a CI job writes absolute file: URIs of its checkout: --producer-root (producer_root=) names it;
    trivy writes originalUriBaseIds.ROOTPATH = file:/// with relative URIs under it; traversal stays refused."""
    ci = "/home/runner/work/proj/proj"
    log = minimal([result("F401", f"file://{ci}/src/a.py", 1, fp="a"), result("F401", f"file://{ci}/b%20c.py", 2,
                                                                                fp="b")], tool="ruff")
    path = write(tmp_path, log)
    with pytest.raises(sarif.SarifRejected, match="is outside the repository"):
        fl.import_sarif(ledger_conn, SCOPE, path, root=tmp_path)
    for producer in (ci, ci + "/", "file://" + ci):
        [run] = sarif.read_sarif(path, root=tmp_path, producer_root=producer)
        assert [f["paths"] for f in run.findings] == [["src/a.py:1"], ["b c.py:2"]]
    fl.import_sarif(ledger_conn, SCOPE, path, root=tmp_path, producer_root=ci)
    assert [p for (_, p, _) in active(ledger_conn).values()] == [["src/a.py"], ["b c.py"]]
    for uri, message in ((f"file://{ci}/../x.py", "outside the repository"), ("file:///etc/passwd", "outside"),
                         ("../x.py", "leaves the repository (..)")):
        with pytest.raises(sarif.SarifRejected, match=message.replace("(", r"\(").replace(")", r"\)")):
            sarif.read_sarif(write(tmp_path, minimal([result("R", uri, 1, fp="x")]), "bad.sarif"), root=tmp_path,
                             producer_root=ci)

    trivy = minimal([result("CVE-1", "go.mod", 3, fp="t"), result("CVE-2", "src/app/go.sum", 1, fp="u")],
                    tool="Trivy", originalUriBaseIds={"ROOTPATH": {"uri": "file:///"}})
    for r in trivy["runs"][0]["results"]:
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] = "ROOTPATH"
    [run] = sarif.read_sarif(write(tmp_path, trivy, "trivy.sarif"), root=tmp_path)
    assert [f["paths"] for f in run.findings] == [["go.mod:3"], ["src/app/go.sum:1"]]
    trivy["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "../../etc/x"
    with pytest.raises(sarif.SarifRejected, match=r"leaves the repository \(\.\.\)"):
        sarif.read_sarif(write(tmp_path, trivy, "trivy.sarif"), root=tmp_path)

    # the CLI's option
    proc = cli(["import-findings", str(path), "--scope", "cli-elsewhere", "--producer-root", ci], ledger_dsn, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "2 added" in proc.stdout


def test_a_root_above_the_repository_is_refused(tmp_path: Path) -> None:
    """Absolute URIs under a --root that is a parent of the repository would be stored as repo/src/a.py, a path
    no merge of the repository names: refused, naming the repository to give instead."""
    repo = tmp_path / "parent" / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    path = write(tmp_path, minimal([result("R", (repo / "src" / "a.py").as_uri(), 1, fp="a")]))
    with pytest.raises(sarif.SarifRejected) as err:
        sarif.read_sarif(path, root=tmp_path / "parent")
    assert str(err.value) == (
        f"run.sarif: $.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri: "
        f"{(repo / 'src' / 'a.py').as_uri()!r} lies in the git repository {repo}, below the root "
        f"{tmp_path / 'parent'}: its path would be stored as 'repo/src/a.py', which no merge of that repository "
        f"names (give --root {repo})")
    [run] = sarif.read_sarif(path, root=repo)
    assert run.findings[0]["paths"] == ["src/a.py:1"]


def test_export_then_import_is_an_identity(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    """The demo's drift findings (one without a path, a directory, a line anchor), a keyless finding and paths a
    URI must escape, exported as SARIF and imported into another scope: the same findings."""
    from findings_ledger import demo

    for f in demo.FINDINGS:
        fl.add_finding(ledger_conn, "origin", f.title, description=f.description, paths=f.paths, kind="drift",
                       severity=f.severity, finding_key=f.key, source=demo.REVIEW_NODE, expects=f.expects)
    fl.add_finding(ledger_conn, "origin", "odd names", paths=["src/a b%20#?.py:3-4", "docs/ü/", "x:y.py"],
                   kind="review", severity="critical", finding_key="odd")
    fl.add_finding(ledger_conn, "origin", "no key here", kind="review", severity="info")
    out = tmp_path / "ledger.sarif"
    with out.open("w", encoding="utf-8") as stream:
        sarif.write_sarif(fl.export_sarif(ledger_conn, "origin"), stream)
    [back] = fl.import_sarif(ledger_conn, "copy", out, root=tmp_path)
    assert (back.result.added, back.run.warnings) == (14, ())

    def findings(scope: str) -> list[tuple[Any, ...]]:
        return ledger_conn.execute(
            "SELECT coalesce(finding_key, 'id:' || id), title, description, paths, anchors, severity, kind "
            "FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL ORDER BY id", (scope,)).fetchall()

    origin = findings("origin")
    assert [(k, p) for k, _, _, p, _, _, _ in origin][-3:-1] == [
        ("F12", []), ("odd", ["src/a b%20#?.py", "docs/ü/", "x:y.py"])]
    copy_ = findings("copy")
    assert [r[1:] for r in copy_] == [r[1:] for r in origin]
    assert [r[0] for r in copy_] == [r[0] for r in origin]
    # the same log again: the same set, nothing retired
    [again] = fl.import_sarif(ledger_conn, "copy", out, root=tmp_path)
    assert (again.result.added, again.result.kept, again.result.superseded) == (0, 14, 0)


def test_a_large_log_is_validated_by_the_compiled_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log over sarif.FAST_VALIDATION_BYTES is validated by the schema compiled with fastjsonschema (formats
    not checked, as jsonschema's validator without a format checker): it agrees with jsonschema on every log
    here, and a log it refuses is named by jsonschema's best error, the same line as for a small log."""
    calls: list[str] = []
    real_fast = sarif._fast_validator
    monkeypatch.setattr(sarif, "_fast_validator", lambda: (calls.append("fast"), real_fast())[1])
    monkeypatch.setattr(sarif, "FAST_VALIDATION_BYTES", 0)
    good = minimal([result("R", "src/a b.py", 3, fp="a", baselineState="new"),
                    suppressed(result("R", "file:///x/y.py", 1, fp="b"), justification="why")],
                   automation="lint/1", originalUriBaseIds={"ROOT": {"uri": "file:///"}})
    sarif.validate(good)
    assert calls == ["fast"]
    for name, log, message in BAD:
        if isinstance(log, dict) and log.get("version") == "2.1.0":
            fast_ok = True
            try:
                real_fast()(log)
            except Exception:  # noqa: BLE001 - fastjsonschema's own exception types
                fast_ok = False
            slow_ok = not list(sarif._validator().iter_errors(log))
            assert fast_ok == slow_ok, name
            if not slow_ok:
                with pytest.raises(sarif.SarifRejected, match=re.escape(message)):
                    sarif.validate(log, "run.sarif")
    more_bad = [{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [{"message": {}}]}]},
                {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}},
                                               "results": [{"message": {"text": "m"}, "level": "fatal"}]}]},
                {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t", "rules": [{}]}}}]},
                {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [
                    {"message": {"text": "m"}, "suppressions": [{"kind": "nowhere"}]}]}]}]
    for log in more_bad:
        assert list(sarif._validator().iter_errors(log))
        with pytest.raises(Exception):  # noqa: B017 - fastjsonschema's own exception types
            real_fast()(log)
        with pytest.raises(sarif.SarifRejected, match="invalid SARIF"):
            sarif.validate(log, "run.sarif")
    # the real ruff log
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text(BEFORE, encoding="utf-8")
    sarif.validate(json.loads(ruff_sarif(repo, tmp_path / "ruff.sarif").read_text()))


def test_a_dead_client_leaves_no_import_holding_the_scope(ledger_dsn: str, tmp_path: Path) -> None:
    """The import's backend notices its client is gone (client_connection_check_interval, PostgreSQL 14 on)
    and rolls back, releasing the scope's lock, instead of going on for as long as the statement runs."""
    import signal

    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        if conn.info.server_version < 140000:
            pytest.skip("client_connection_check_interval is PostgreSQL 14 and later: on 13 a dead client's "
                        "import runs on until it next writes to the client (docs/sarif.md)")
        fl.import_sarif(conn, SCOPE, write(tmp_path, minimal([result("R", "a.py", 1, fp="a")])), root=tmp_path)
        before = state(conn)
        big = write(tmp_path, minimal([result("R", f"f{i}.py", 1, fp=str(i)) for i in range(50)]), "big.sarif")
        with conn.transaction():
            # the import's backend takes the scope's row, then waits for this finding's lock
            conn.execute("SELECT 1 FROM ledger.finding WHERE scope = %s FOR UPDATE", (SCOPE,))
            proc = subprocess.Popen([str(CLI), "import-findings", str(big), "--scope", SCOPE],
                                    env={**os.environ, "LEDGER_DSN": ledger_dsn}, cwd=tmp_path,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            pid = None
            for _ in range(400):
                conn.execute("SELECT pg_stat_clear_snapshot()")  # a transaction caches pg_stat_activity
                row = conn.execute("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                   "AND query LIKE %s", ("%replace_findings%",)).fetchone()
                if row:
                    pid = row[0]
                    break
                proc.poll()
                assert proc.returncode is None, "the import ended before it waited"
                conn.execute("SELECT pg_sleep(0.05)")
            assert pid is not None
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
            gone = False
            for _ in range(200):
                conn.execute("SELECT pg_stat_clear_snapshot()")
                if conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() == (0,):
                    gone = True
                    break
                conn.execute("SELECT pg_sleep(0.05)")
            assert gone, "the dead client's import still holds the scope"
        assert state(conn) == before
