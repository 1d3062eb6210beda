"""The release, as a user gets it: ``python -m build`` makes the sdist and,
from it, the wheel; the wheel ships the whole package and every migration
file (``env.py``, ``script.py.mako``, ``versions/*.py``,
``versions/**/*.sql``); installed (not editable, without extras) into a
fresh virtual environment, ``import findings_ledger`` and its migrations
work on psycopg, alembic, SQLAlchemy and sqlparse alone, and what needs an
extra says which; installed with the ``cli`` extra, its ``findings-ledger
migrate`` and ``findings-ledger demo`` work against a fresh database of the
test server;
and with pytest added, and nothing else, pytest runs in an unrelated
directory (the plugin needs the ``pytest`` extra only for its fixtures).

The wheel and the virtual environment are made once per session; pip takes
the runtime dependencies at the versions of requirements/dev.lock (from its
cache or the package index).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.plugin_project import WITHOUT_THE_EXTRA

from findings_ledger import folds
from findings_ledger.testing.pytest_plugin import MISSING_EXTRA

pytestmark = pytest.mark.release

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements" / "dev.lock"
VERSION = re.search(r'(?m)^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text())[1]  # type: ignore[index]
# What the wheel must carry of migrations/ (as findings_ledger/_migrations/).
MIGRATION_FILES = ("env.py", "script.py.mako", "versions/*.py", "versions/**/*.sql", "replaced/*.tar.xz",
                   "replaced/*.json")


@dataclass(frozen=True)
class Dists:
    wheel: Path
    sdist: Path


def _env(venv: Path | None = None) -> dict[str, str]:
    """This process's environment without what would leak the checkout or
    the outer pytest into a child (and with ``venv`` first on PATH)."""
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTEST_ADDOPTS", "PYTEST_PLUGINS",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "LEDGER_DSN")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    if venv is not None:
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(cmd: Sequence[str | Path], *, cwd: Path, env: dict[str, str], check: bool = True,
         timeout: float = 300) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def _build(source: Path, out: Path, *args: str) -> None:
    _run([sys.executable, "-m", "build", *args, "--outdir", out, source], cwd=out, env=_env())


def _expected_migration_files(migrations: Path) -> set[str]:
    return {
        p.relative_to(migrations).as_posix()
        for pattern in MIGRATION_FILES
        for p in migrations.glob(pattern)
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    """The sdist and the wheel built from it, as ``python -m build`` makes them."""
    out = tmp_path_factory.mktemp("dist")
    _build(ROOT, out)
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return Dists(wheel=wheel, sdist=sdist)


def _pip(venv: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """This environment's pip acting on ``venv`` (``pip --python``): the
    environment needs no pip of its own, and ``--no-compile`` on install
    leaves byte-compiling to the first import of each module, so only what
    runs is compiled."""
    more = ("--no-compile",) if args[0] == "install" else ()
    return _run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "--disable-pip-version-check",
                 args[0], *more, *args[1:]], cwd=venv.parent, env=_env(venv))


def _venv_with(wheel: str | Path, tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A fresh virtual environment ``name`` with ``wheel`` (a path, with any
    ``[extras]``) installed at the versions of the lock."""
    venv = tmp_path_factory.mktemp("venv") / name
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=venv.parent, env=_env())
    _pip(venv, "install", "--quiet", "-c", LOCK, wheel)
    return venv


@pytest.fixture(scope="session")
def core_venv(dists: Dists, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed, no extras."""
    return _venv_with(dists.wheel, tmp_path_factory, "core")


@pytest.fixture(scope="session")
def release_venv(dists: Dists, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel and its ``cli`` extra (which
    brings ``formats``) installed: what ``findings-ledger`` needs."""
    return _venv_with(f"{dists.wheel}[cli]", tmp_path_factory, "release")


@pytest.fixture(scope="session")
def release_venv_with_pytest(release_venv: Path) -> Path:
    """The same environment with pytest added, and nothing else."""
    _pip(release_venv, "install", "--quiet", "-c", LOCK, "pytest")
    return release_venv


def test_the_wheel_ships_the_package_and_every_migration_file(dists: Dists) -> None:
    assert dists.wheel.name == f"findings_ledger-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(dists.wheel) as whl:
        names = set(whl.namelist())
        metadata = whl.read(f"findings_ledger-{VERSION}.dist-info/METADATA").decode()
    package = ROOT / "pyapi" / "findings_ledger"
    sources = {f"findings_ledger/{p.relative_to(package).as_posix()}" for p in package.rglob("*.py")
               if "__pycache__" not in p.parts}
    migrations = {f"findings_ledger/_migrations/{name}" for name in _expected_migration_files(ROOT / "migrations")}
    assert {"findings_ledger/_migrations/env.py", "findings_ledger/_migrations/script.py.mako"} <= migrations
    assert sorted(sources - names) == []
    assert sorted(migrations - names) == []
    # the revisions and the archives of folded ones: under 1.25 MB (1.08 MB at 0005: the two released
    # revisions are 0.78 MB; each unreleased one freezes whole copies of the objects it changes until the
    # next release folds them into one and archives them compressed)
    with zipfile.ZipFile(dists.wheel) as whl:
        assert sum(i.file_size for i in whl.infolist() if i.filename.startswith("findings_ledger/_migrations/")) \
            < 1_250_000
    assert "findings_ledger/py.typed" in names
    # the SARIF 2.1.0 schema findings_ledger.sarif validates with, and its notice
    # and the JSON Schemas of the drift-review and findings-file formats (findings-ledger schema)
    data = {"findings_ledger/py.typed", "findings_ledger/schemas/sarif-schema-2.1.0.json",
            "findings_ledger/schemas/NOTICE", "findings_ledger/schemas/drift-review.schema.json",
            "findings_ledger/schemas/findings-file.schema.json"}
    assert sorted(data - names) == []
    shipped = {n for n in names if n.startswith("findings_ledger/")}
    assert sorted(shipped - sources - migrations - data) == []  # nothing stale or stray
    assert [n for n in names if n.startswith("tests/")] == []
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert any(line.startswith("Requires-Dist: psycopg<4,>=3.2") for line in requires), requires
    assert [line for line in requires if "==" in line or "binary" in line] == []  # ranges; the app picks psycopg's
    # the core's dependencies only; each package of an extra declared once
    assert sorted(line.split()[1].split("<")[0].split(">")[0] for line in requires) == [
        "SQLAlchemy", "alembic", "psycopg", "sqlparse"]
    extras = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" in line]
    assert len([line for line in extras if line.startswith("Requires-Dist: jsonschema")]) == 1, extras
    assert {line.split("extra == ")[1].strip('"') for line in extras if "click" in line or "rich" in line} == {"cli"}


def test_the_sdist_holds_what_builds_the_wheel(dists: Dists) -> None:
    with tarfile.open(dists.sdist) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert {"pyproject.toml", "README.md", "pyapi/findings_ledger/__init__.py"} <= names
    assert sorted(f"migrations/{n}" for n in _expected_migration_files(ROOT / "migrations") if
                  f"migrations/{n}" not in names) == []
    assert [n for n in names if n.startswith("tests/")] == []


@pytest.mark.parametrize("python", ["as it is", "without tarfile.data_filter"])
def test_an_archive_member_outside_the_destination_or_not_a_file_is_refused(
        python: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`findings_ledger.folds.extract_archive` (the fold's archive, the sdist below) checks every
    member before it unpacks any, whether or not this Python has tarfile's data filter (Python 3.10
    and 3.11.2 do not: that case is made here by removing it)."""
    if python != "as it is":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    for name, kind, ok in [("pkg/ok.txt", tarfile.REGTYPE, True), ("../escaped.txt", tarfile.REGTYPE, False),
                           ("pkg/link", tarfile.SYMTYPE, False)]:
        archive = tmp_path / f"{name.replace('/', '_')}.tar"
        with tarfile.open(archive, "w") as tar:
            tar.addfile(_member("pkg/first.txt"), io.BytesIO(b"x\n"))
            info = _member(name, kind)
            tar.addfile(info, io.BytesIO(b"x\n") if kind == tarfile.REGTYPE else None)
        dest = tmp_path / f"dest-{archive.stem}"
        dest.mkdir()
        with tarfile.open(archive) as tar:
            if ok:
                folds.extract_archive(tar, dest)
                assert (dest / "pkg" / "ok.txt").read_text() == "x\n"
            else:
                with pytest.raises(folds.FoldRefused, match=re.escape(f"unexpected member {name!r}")):
                    folds.extract_archive(tar, dest)
                assert list(dest.iterdir()) == []  # nothing unpacked, not even the member before it
                assert not (tmp_path / "escaped.txt").exists()


def _member(name: str, kind: bytes = tarfile.REGTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    if kind == tarfile.REGTYPE:
        info.size = 2
    else:
        info.linkname = "/etc/passwd"
    return info


def test_sql_files_at_any_depth_under_a_revision_are_package_data(dists: Dists, tmp_path: Path) -> None:
    """The revisions' layout to come (versions/<rev>.py beside versions/<rev>/**/*.sql)
    ships whole: built from the sdist with such files added."""
    with tarfile.open(dists.sdist) as sdist:
        folds.extract_archive(sdist, tmp_path)
    (source,) = tmp_path.glob("findings_ledger-*")
    revision = source / "migrations" / "versions" / "0099_layout_check"
    added = ["upgrade.sql", "downgrade.sql", "tables/finding.sql", "functions/matching/_match_message.sql"]
    for name in added:
        (revision / name).parent.mkdir(parents=True, exist_ok=True)
        (revision / name).write_text("SELECT 1;\n")
    out = tmp_path / "out"
    out.mkdir()
    _build(source, out, "--wheel")
    (wheel,) = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
    expected = {f"findings_ledger/_migrations/versions/0099_layout_check/{name}" for name in added}
    assert sorted(expected - names) == []


def test_the_installed_wheel_migrates_and_replays_the_demo(
    release_venv: Path, ledger_empty_dsn: str, tmp_path: Path
) -> None:
    bin_ = release_venv / "bin"
    env = _env(release_venv)
    where = _run([bin_ / "python", "-c",
                  "import findings_ledger, psycopg\n"
                  "from findings_ledger.api import migrations_dir\n"
                  "print(findings_ledger.__file__); print(migrations_dir()); print(psycopg.pq.__impl__)"],
                 cwd=tmp_path, env=env).stdout.split()
    assert all(p.startswith(str(release_venv)) for p in where[:2]), where  # the wheel, not the checkout
    assert where[2] == "python"  # plain psycopg over the system libpq: no binary package needed
    _pip(release_venv, "check")

    env["LEDGER_DSN"] = ledger_empty_dsn
    migrated = _run([bin_ / "findings-ledger", "migrate"], cwd=tmp_path, env=env)
    assert migrated.stdout.strip() == "migrated to head"
    demo = _run([bin_ / "findings-ledger", "demo"], cwd=tmp_path, env=env)
    assert "Drift findings injected into each group's coder prompt" in demo.stdout, demo.stdout
    assert "Still active after group 7" in demo.stdout, demo.stdout
    assert demo.stderr == ""


def test_the_core_alone_imports_and_migrates_and_names_the_extra_it_lacks(
    core_venv: Path, ledger_empty_dsn: str, tmp_path: Path
) -> None:
    python = core_venv / "bin" / "python"
    env = _env(core_venv)
    _pip(core_venv, "check")
    absent = _run([python, "-c", "import click"], cwd=tmp_path, env=env, check=False)
    assert "No module named 'click'" in absent.stderr  # the extras really are missing
    out = _run([python, "-c",
                "import sys, psycopg\n"
                "import findings_ledger as fl\n"
                "print(fl.__file__)\n"
                "fl.migrate(sys.argv[1])\n"
                "with psycopg.connect(sys.argv[1]) as conn:\n"
                "    print('at head:', fl.current_revision(conn) == fl.head_revision())\n"
                "try:\n"
                "    fl.import_sarif\n"
                "except ImportError as exc:\n"
                "    print(exc)\n",
                ledger_empty_dsn], cwd=tmp_path, env=env).stdout.splitlines()
    assert out[0].startswith(str(core_venv)), out  # the wheel, not the checkout
    assert out[1] == "at head: True", out  # alembic's env.py and the revisions need no extra
    assert out[2] == ("findings_ledger.import_sarif needs the 'formats' extra (missing: frontmatter, yaml, "
                      "jsonschema, fastjsonschema): pip install 'findings-ledger[formats]'"), out
    cli = _run([core_venv / "bin" / "findings-ledger", "--version"], cwd=tmp_path, env=env, check=False)
    assert (cli.returncode, cli.stdout) == (1, "")
    assert cli.stderr == ("error: the findings-ledger command needs the 'cli' extra (missing: click, rich, "
                          "frontmatter, yaml, jsonschema, fastjsonschema): pip install 'findings-ledger[cli]'\n")


def test_pytest_runs_in_an_unrelated_directory_without_the_pytest_extra(
    release_venv_with_pytest: Path, tmp_path: Path
) -> None:
    python = release_venv_with_pytest / "bin" / "python"
    env = _env(release_venv_with_pytest)
    absent = _run([python, "-c", "import pytest_postgresql"], cwd=tmp_path, env=env, check=False)
    assert "No module named 'pytest_postgresql'" in absent.stderr  # the extra really is missing

    empty = tmp_path / "empty"
    empty.mkdir()
    collected = _run([python, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider"], cwd=empty, env=env,
                     check=False)
    out = collected.stdout + collected.stderr
    assert collected.returncode == 5, out  # no tests collected, and nothing else
    assert "rror" not in out and "Traceback" not in out, out

    fixtures = _run([python, "-m", "pytest", "--fixtures", "-p", "no:cacheprovider"], cwd=empty, env=env,
                    check=False)
    assert "ledger_conn" in fixtures.stdout  # the plugin is loaded, through its entry point

    project = tmp_path / "project"
    project.mkdir()
    (project / "test_it.py").write_text(WITHOUT_THE_EXTRA)
    ran = _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project, env=env, check=False)
    out = ran.stdout + ran.stderr
    assert ran.returncode == 1, out
    assert "1 passed, 1 error" in out and MISSING_EXTRA in out, out
    assert "Traceback" not in out, out


def test_the_mcp_verb_without_the_extra_is_one_error_line(release_venv: Path, tmp_path: Path) -> None:
    absent = _run([release_venv / "bin" / "python", "-c", "import mcp"], cwd=tmp_path, env=_env(release_venv),
                  check=False)
    assert "No module named 'mcp'" in absent.stderr  # the extra really is missing
    out = _run([release_venv / "bin" / "findings-ledger", "mcp", "--scope", "spec-07"], cwd=tmp_path,
               env=_env(release_venv), check=False)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == "error: the mcp verb needs the MCP SDK: pip install 'findings-ledger[mcp]'\n"
