"""bench/majors.py's merge of per-major results into one side-by-side report,
on two real results.json: two ``bench/run.py --quick`` runs on this server,
one measuring claims and imports, the other claims alone (so the import
cases and targets are missing from one column). Which major made a file
does not matter to the merge; starting a cluster per major is `make
bench-majors`' and is not repeated here."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from support.bench import run_bench

from findings_ledger.testing import cluster, pg_binaries

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import majors  # noqa: E402
import run as bench  # noqa: E402


@pytest.fixture(scope="module")
def two_runs(ledger_server: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    server = psycopg.conninfo.make_conninfo(**ledger_server)
    prefix = f"ledger_bmajors_{os.getpid()}"
    out = tmp_path_factory.mktemp("majors")
    assert run_bench(server, out / "a", prefix, "--quick", "--only", "claims", "--only", "import") == 0
    assert run_bench(server, out / "b", prefix, "--quick", "--only", "claims") == 0
    return {"A": json.loads((out / "a" / "results.json").read_text()),
            "B": json.loads((out / "b" / "results.json").read_text())}


def tables(report: str) -> list[list[list[str]]]:
    """The report's Markdown tables, each a list of rows of cells (header first, the rule left out)."""
    found: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in report.splitlines() + [""]:
        if line.startswith("| "):
            current.append([c.replace("\\|", "|") for c in line[2:-2].split(" | ")])
        elif line.startswith("|-"):
            continue
        elif current:
            found.append(current)
            current = []
    return found


def test_rows_are_aligned_by_case_and_parameters(two_runs: dict[str, dict[str, Any]]) -> None:
    a, b = two_runs["A"], two_runs["B"]
    # B's rows in the opposite order: a row's column is found by its case and parameters, not its position
    shuffled = {**b, "rows": list(reversed(b["rows"]))}
    cases, _ = tables(majors.side_by_side({"PostgreSQL A": a, "PostgreSQL B": shuffled}))
    assert cases[0] == ["case", "parameters", "PostgreSQL A", "PostgreSQL B"]
    by_key = {(r[0], r[1]): r[2:] for r in cases[1:]}
    assert len(by_key) == len(cases) - 1  # each (case, parameters) once
    claims = [r for r in b["rows"] if r["case"].startswith("claim")]
    assert claims and any("median_ms" in r for r in claims) and any("claims_per_s" in r for r in claims)
    for row in claims:
        mine = next(r for r in a["rows"] if (r["case"], r["params"]) == (row["case"], row["params"]))
        assert by_key[(row["case"], row["params"])] == [majors.cell(mine), majors.cell(row)]
    claim = next(r for r in b["rows"] if r["case"] == "claim")
    assert majors.cell(claim) == (f"{majors._num(claim['median_ms'])} / {majors._num(claim['p95_ms'])} "
                                  f"(x{claim['ratio']})")


def test_a_case_missing_on_one_major_is_a_dash_not_dropped(two_runs: dict[str, dict[str, Any]]) -> None:
    a, b = two_runs["A"], two_runs["B"]
    cases, _ = tables(majors.side_by_side({"PostgreSQL A": a, "PostgreSQL B": b}))
    imports = [r for r in cases[1:] if r[0] == "import findings"]
    assert len(imports) == sum(r["case"] == "import findings" for r in a["rows"]) >= 2
    assert all(r[3] == majors.MISSING and r[2] != majors.MISSING for r in imports)
    # and the other way round: missing in the first column
    cases, _ = tables(majors.side_by_side({"PostgreSQL B": b, "PostgreSQL A": a}))
    assert all(r[2] == majors.MISSING for r in cases[1:] if r[0] == "import findings")
    union = {(r["case"], r["params"]) for r in a["rows"] + b["rows"]}
    assert {(r[0], r[1]) for r in cases[1:]} == union


def test_targets_say_holds_or_missed_per_major(two_runs: dict[str, dict[str, Any]]) -> None:
    a, b = two_runs["A"], two_runs["B"]
    _, targets = tables(majors.side_by_side({"PostgreSQL A": a, "PostgreSQL B": b}))
    assert targets[0] == ["target", "limit", "PostgreSQL A", "PostgreSQL B"]
    # A measured every target B did
    assert [r[0] for r in targets[1:]] == [majors.target_key(t["target"]) for t in a["targets"]]

    def verdict(t: dict[str, Any]) -> str:
        figures = majors.target_figures(t["target"])
        return f"{t['value']} {'holds' if t['holds'] else 'MISSED'}" + (f" ({figures})" if figures else "")

    for row, t in zip(targets[1:], a["targets"], strict=True):
        assert row[1] == str(t["limit"])
        assert row[2] == verdict(t)
        theirs = next((x for x in b["targets"] if majors.target_key(x["target"]) == row[0]), None)
        assert row[3] == (majors.MISSING if theirs is None else verdict(theirs))
    assert any(r[3] == majors.MISSING for r in targets[1:] if r[0].startswith("import"))
    assert all(r[3] != majors.MISSING for r in targets[1:] if r[0].startswith("claim"))


def test_a_target_whose_name_holds_each_runs_figures_is_one_row() -> None:
    """Targets that write what they measured into their names (bench/costs.py) align by the name without
    those figures, and each run's figures follow its verdict."""
    def run_of(cpu: str, value: float, holds: bool) -> dict[str, Any]:
        return {"rows": [], "targets": [
            {"target": f"viper: backend CPU at the median merge <= 3x the minimal trigger (CPU ms {cpu})",
             "value": value, "limit": 3.0, "holds": holds},
            {"target": "prompt read at 1,000 active findings: p95 <= 5 ms", "value": 0.5, "limit": 5.0,
             "holds": True}]}

    _, targets = tables(majors.side_by_side({"15": run_of("1.560 against 0.298", 5.24, False),
                                             "18": run_of("1.611 against 0.286", 5.64, False)}))
    assert targets[1:] == [
        ["viper: backend CPU at the median merge <= 3x the minimal trigger", "3.0",
         "5.24 MISSED (CPU ms 1.560 against 0.298)", "5.64 MISSED (CPU ms 1.611 against 0.286)"],
        ["prompt read at 1,000 active findings: p95 <= 5 ms", "5.0", "0.5 holds", "0.5 holds"]]


@pytest.mark.parametrize("given", ["12", "15,x", "15,15", ""])
def test_an_unknown_major_is_one_line(given: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert majors.main(["--majors", given]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --majors") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(("given", "said"), [(["--dsn", "host=/tmp"], "drop --dsn"),
                                             (["--dsn=host=/tmp"], "drop --dsn"),
                                             (["--ds", "postgresql://elsewhere/x"], "drop --ds "),
                                             (["--ds=postgresql://elsewhere/x"], "drop --ds "),
                                             (["--ou", "x"], "drop --ou "),
                                             (["--out=x"], "drop --out "),
                                             (["--pre", "p"], "does not take --pre"),
                                             (["--bogus"], "does not take --bogus"),
                                             (["--only", "nothing"], "invalid choice: 'nothing'"),
                                             (["--only"], "expected one argument")])
def test_a_wrong_argument_for_run_py_is_one_line(given: list[str], said: str) -> None:
    problem = majors.check_bench_args(["--quick", *given])
    assert problem is not None and said in problem and "\n" not in problem
    assert majors.check_bench_args(["--quick", "--only", "real", "--only=prompt", "--prefix", "p"]) is None


def test_run_py_takes_no_abbreviation() -> None:
    args, unknown = bench.arguments().parse_known_args(["--ds", "postgresql://elsewhere/x", "--ou", "x"])
    assert unknown == ["--ds", "postgresql://elsewhere/x", "--ou", "x"]
    assert args.dsn != "postgresql://elsewhere/x" and args.out == bench.OUT


def test_the_dsn_and_out_of_majors_py_win_over_any_the_user_gave(tmp_path: Path) -> None:
    # had an argument got past check_bench_args, run.py would still use the major's server and directory
    cmd = majors.bench_command("host=/mine port=1", tmp_path / "pg15",
                               ["--quick", "--dsn", "postgresql://elsewhere/x", "--out=elsewhere"])
    assert cmd[:2] == [sys.executable, str(ROOT / "bench" / "run.py")]
    args = bench.arguments().parse_args(cmd[2:])
    assert (args.dsn, args.out, args.quick) == ("host=/mine port=1", tmp_path / "pg15", True)


def test_a_wrong_argument_stops_before_any_server_starts(capsys: pytest.CaptureFixture[str]) -> None:
    assert majors.main(["--majors", "13", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err == "error: bench/run.py does not take --bogus (see python bench/run.py --help)\n"


def test_each_major_gets_its_debian_binaries_else_the_system_ones_of_that_major_else_embedded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for major in (13, 16):  # not the newest on the system: 16 wins PATH's initdb, 13 is still found
        (tmp_path / str(major) / "bin").mkdir(parents=True)
        (tmp_path / str(major) / "bin" / "initdb").write_text("")
    (tmp_path / "14" / "bin").mkdir(parents=True)  # a directory without initdb is not a server
    monkeypatch.setattr(majors, "SYSTEM_ROOT", tmp_path)
    monkeypatch.setattr(pg_binaries, "system_bindir", lambda: (Path("/opt/pg/bin"), "system, initdb on PATH"))
    monkeypatch.setattr(pg_binaries, "server_version", lambda bindir: "15.4")
    assert [majors.binaries_for(m) for m in (13, 14, 15, 16, 18)] == [
        str(tmp_path / "13" / "bin"), "embedded-14", "system", str(tmp_path / "16" / "bin"), "embedded-18"]
    monkeypatch.setattr(pg_binaries, "system_bindir", lambda: None)
    assert majors.binaries_for(15) == "embedded-15"


def test_the_binaries_for_each_major_are_that_major() -> None:
    # on this machine, whatever it has: what binaries_for picks resolves to the major asked, or is embedded
    for major in pg_binaries.MAJORS:
        chosen = majors.binaries_for(major)
        if not chosen.startswith("embedded-"):
            assert pg_binaries.resolve(chosen).major == major


def test_each_major_runs_on_the_compat_port_scheme() -> None:
    # tools/compat.py's ports: a hundred apart per major, not base + 5 and base + 8 among other sessions' ports
    assert [cluster.port_for(54580, m) for m in (13, 15, 18)] == [54880, 55080, 55380]


class FakeBinaries:
    major, version = 15, "15.0"

    def describe(self) -> str:
        return "PostgreSQL 15.0 (fake)"


@pytest.mark.parametrize("when", ["set-up interrupted", "run failed", "run done"])
def test_a_cluster_run_major_started_is_stopped_and_removed(when: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """run_major's clean-up (the database is not the point: the cluster calls are stand-ins)."""
    seen: dict[str, Any] = {}
    own = cluster.Cluster(base=tmp_path / "pg15", port=0)

    def default_cluster() -> cluster.Cluster:
        seen["port"] = os.environ[cluster.PORT_ENV]
        return own

    def ensure_cluster(c: cluster.Cluster) -> cluster.Cluster:
        (c.base / "data").mkdir(parents=True)
        if when == "set-up interrupted":
            raise KeyboardInterrupt
        return c

    monkeypatch.setattr(majors, "binaries_for", lambda major: f"embedded-{major}")
    monkeypatch.setattr(pg_binaries, "ensure", lambda: FakeBinaries())
    monkeypatch.setattr(cluster, "default_cluster", default_cluster)
    monkeypatch.setattr(cluster, "is_running", lambda c: False)
    monkeypatch.setattr(cluster, "ensure_cluster", ensure_cluster)
    monkeypatch.setattr(cluster, "stop_cluster", lambda c: seen.setdefault("stopped", c) is c)
    monkeypatch.setattr(majors, "subprocess", SimpleNamespace(run=lambda cmd, **kw: subprocess.CompletedProcess(
        cmd, 0 if when == "run done" else 3)))
    if when == "set-up interrupted":
        with pytest.raises(KeyboardInterrupt):
            majors.run_major(15, 54580, tmp_path / "out", [])
    elif when == "run failed":
        with pytest.raises(RuntimeError, match="exited with 3"):
            majors.run_major(15, 54580, tmp_path / "out", [])
    else:
        assert majors.run_major(15, 54580, tmp_path / "out", []) == tmp_path / "out" / "pg15" / "results.json"
    assert seen == {"port": "55080", "stopped": own} and not own.base.exists()


def test_a_cluster_that_was_running_is_left_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = cluster.Cluster(base=tmp_path / "pg15", port=0)
    (own.base / "data").mkdir(parents=True)
    stopped: list[cluster.Cluster] = []
    monkeypatch.setattr(majors, "binaries_for", lambda major: f"embedded-{major}")
    monkeypatch.setattr(pg_binaries, "ensure", lambda: FakeBinaries())
    monkeypatch.setattr(cluster, "default_cluster", lambda: own)
    monkeypatch.setattr(cluster, "is_running", lambda c: True)
    monkeypatch.setattr(cluster, "ensure_cluster", lambda c: c)
    monkeypatch.setattr(cluster, "stop_cluster", stopped.append)
    done = SimpleNamespace(run=lambda cmd, **kw: subprocess.CompletedProcess(cmd, 0))
    monkeypatch.setattr(majors, "subprocess", done)
    majors.run_major(15, 54580, tmp_path / "out", [])
    assert stopped == [] and (own.base / "data").is_dir()


def patch_runs(monkeypatch: pytest.MonkeyPatch, results: dict[int, Path | Exception]) -> None:
    def run_major(major: int, base_port: int, out: Path, bench_args: list[str]) -> Path:
        got = results[major]
        if isinstance(got, Exception):
            raise got
        return got

    monkeypatch.setattr(majors, "run_major", run_major)


def test_a_failing_major_is_one_line_and_the_others_are_reported(two_runs: dict[str, dict[str, Any]],
                                                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "pg18" / "results.json"
    good.parent.mkdir()
    good.write_text(json.dumps(two_runs["A"]))
    patch_runs(monkeypatch, {15: RuntimeError("bench/run.py on PostgreSQL 15 exited with 1"), 18: good})
    handler = signal.getsignal(signal.SIGTERM)
    assert majors.main(["--majors", "15,18", "--out", str(tmp_path)]) == 1
    assert signal.getsignal(signal.SIGTERM) == handler  # main's SIGTERM handler does not outlive it
    captured = capsys.readouterr()
    assert captured.err.splitlines() == ["error: PostgreSQL 15: bench/run.py on PostgreSQL 15 exited with 1",
                                         "bench/majors.py: no figures from PostgreSQL 15 (see the error above)"]
    report = (tmp_path / "results-majors.md").read_text()
    cases, targets = tables(report)
    assert cases[0] == ["case", "parameters", "PostgreSQL 18"] and len(cases) == len(two_runs["A"]["rows"]) + 1
    assert targets[0] == ["target", "limit", "PostgreSQL 18"]
    assert report in captured.out


@pytest.mark.parametrize("content", [None, "{broken", "[]", b"\xff\xfe"])
def test_a_results_file_that_cannot_be_read_is_one_line(content: str | bytes | None,
                                                         two_runs: dict[str, dict[str, Any]], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    bad, good = tmp_path / "pg15.json", tmp_path / "pg18.json"
    if isinstance(content, str):
        bad.write_text(content)
    elif isinstance(content, bytes):
        bad.write_bytes(content)
    good.write_text(json.dumps(two_runs["B"]))
    patch_runs(monkeypatch, {15: bad, 18: good})
    assert majors.main(["--majors", "15,18", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[0].startswith(f"error: PostgreSQL 15: cannot read {bad}: ")
    assert tables((tmp_path / "results-majors.md").read_text())[0][0][2:] == ["PostgreSQL 18"]
