"""bench/majors.py's merge of per-major results into one side-by-side report,
on two real results.json: two ``bench/run.py --quick`` runs on this server,
one measuring claims and imports, the other claims alone (so the import
cases and targets are missing from one column). Which major made a file
does not matter to the merge; starting a cluster per major is `make
bench-majors`' and is not repeated here."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from findings_ledger.testing import cluster, pg_binaries
from findings_ledger.testing.cluster import catalog_lock

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import majors  # noqa: E402
import run as bench  # noqa: E402


@pytest.fixture(scope="module")
def two_runs(ledger_server: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    server = psycopg.conninfo.make_conninfo(**ledger_server)
    prefix = f"ledger_bmajors_{os.getpid()}"
    out = tmp_path_factory.mktemp("majors")
    try:
        assert bench.main(["--quick", "--dsn", server, "--out", str(out / "a"), "--prefix", prefix,
                           "--only", "claims", "--only", "import"]) == 0
        assert bench.main(["--quick", "--dsn", server, "--out", str(out / "b"), "--prefix", prefix,
                           "--only", "claims"]) == 0
    finally:
        with catalog_lock(server), psycopg.connect(server, autocommit=True) as conn:
            names = [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE %s",
                                                 (prefix + "%",))]
            for name in names:
                conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
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
    assert [r[0] for r in targets[1:]] == [t["target"] for t in a["targets"]]  # A measured every target B did
    for row, t in zip(targets[1:], a["targets"], strict=True):
        assert row[1] == str(t["limit"])
        assert row[2] == f"{t['value']} {'holds' if t['holds'] else 'MISSED'}"
        theirs = next((x for x in b["targets"] if x["target"] == t["target"]), None)
        assert row[3] == (majors.MISSING if theirs is None else
                          f"{theirs['value']} {'holds' if theirs['holds'] else 'MISSED'}")
    assert any(r[3] == majors.MISSING for r in targets[1:] if r[0].startswith("import"))
    assert all(r[3] != majors.MISSING for r in targets[1:] if r[0].startswith("claim"))


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


def test_each_major_gets_the_system_binaries_of_that_major_else_the_embedded_ones() -> None:
    found = pg_binaries.system_bindir()
    system = int(pg_binaries.server_version(found[0]).split(".")[0]) if found else None
    for major in pg_binaries.MAJORS:
        assert majors.binaries_for(major) == ("system" if major == system else f"embedded-{major}")


def test_each_major_runs_on_the_compat_port_scheme() -> None:
    # tools/compat.py's ports: a hundred apart per major, not base + 5 and base + 8 among other sessions' ports
    assert [cluster.port_for(54580, m) for m in (13, 15, 18)] == [54880, 55080, 55380]
