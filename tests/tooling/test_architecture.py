"""The package's import graph: no circle anywhere, the runtime API apart from
the CLI and the tooling (the import-linter contracts in pyproject.toml, the
same check as ``make lint``), and ``import findings_ledger`` loading only
what a service needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

# What a service that imports findings_ledger must not pay for.
NOT_FOR_SERVICES = (
    "sqlalchemy",
    "alembic",
    "click",
    "rich",
    "pytest",
    "_pytest",
    "pytest_postgresql",
    "findings_ledger.cli",
    "findings_ledger.testing",
    "findings_ledger.schema",
    "findings_ledger.demo",
)


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan),
    plus modules importing themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    modules = sorted(m for m in graph.modules if m.split(".")[0] == "findings_ledger")

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.find_modules_directly_imported_by(v)):
            if w.split(".")[0] != "findings_ledger":
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.find_modules_directly_imported_by(v):
                found.append(sorted(component))

    for m in modules:
        if m not in index:
            visit(m)
    return found


def test_the_import_linter_contracts_are_kept() -> None:
    proc = subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_no_module_takes_part_in_an_import_circle() -> None:
    graph = grimp.build_graph("findings_ledger", cache_dir=None)
    assert "findings_ledger.cli.helpers" in graph.modules  # the graph is the package's
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_circle_through_a_package_init() -> None:
    graph = grimp.ImportGraph()
    for m in ("findings_ledger", "findings_ledger.cli", "findings_ledger.cli.helpers", "findings_ledger.api"):
        graph.add_module(m)
    graph.add_import(importer="findings_ledger.cli", imported="findings_ledger.cli.helpers")
    graph.add_import(importer="findings_ledger.cli.helpers", imported="findings_ledger.cli")
    graph.add_import(importer="findings_ledger.cli", imported="findings_ledger.api")
    assert _cycles(graph) == [["findings_ledger.cli", "findings_ledger.cli.helpers"]]


def test_import_findings_ledger_loads_only_the_runtime_api() -> None:
    code = (
        "import json, sys\n"
        "import findings_ledger as fl\n"
        "missing = [n for n in fl.__all__ if not hasattr(fl, n)]\n"
        "print(json.dumps({'missing': missing, 'modules': sorted(sys.modules)}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    result = json.loads(proc.stdout)
    assert result["missing"] == []
    loaded = result["modules"]
    unwanted = [m for m in loaded if any(m == p or m.startswith(p + ".") for p in NOT_FOR_SERVICES)]
    assert unwanted == []
    assert "findings_ledger.api" in loaded and "psycopg" in loaded
