"""The layout of tests/ (docs/testing.md, "Where the tests are"): every test
module sits in the folder of what it tests, the helpers are the ``support``
package, and the module lists of tests/conftest.py name modules that exist.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import conftest
import pytest

TESTS = Path(__file__).resolve().parents[1]
FOLDERS = {"access", "api", "checks", "claims", "cli", "decisions", "findings", "merges", "migrations",
           "reliability", "sql", "support", "tooling"}


def test_every_test_module_is_in_a_folder_of_what_it_tests() -> None:
    flat = sorted(p.name for p in TESTS.glob("*.py") if p.name != "conftest.py")
    assert flat == [], "move these into a folder of tests/ (docs/testing.md lists them)"
    folders = {p.parent.relative_to(TESTS).parts[0] for p in TESTS.rglob("*.py") if p.parent != TESTS}
    assert folders <= FOLDERS, f"folders docs/testing.md does not describe: {sorted(folders - FOLDERS)}"


def test_helpers_are_in_support_and_test_modules_nowhere_else() -> None:
    outside = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py")
                     if p.parent != TESTS and not p.name.startswith("test_") and p.parent.name != "support")
    assert outside == [], "helper modules belong in tests/support/ (imported as support.<name>)"
    tests_in_support = sorted(p.name for p in (TESTS / "support").glob("test_*.py"))
    assert tests_in_support == []


def test_module_names_are_unique_across_folders() -> None:
    names = [p.name for p in TESTS.rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []  # pytest imports them by base name


def test_the_conftest_lists_name_existing_modules() -> None:
    for name in [*conftest.SERIAL_MODULES, *conftest.SLOW_FIRST, *conftest.SPREAD_MODULES]:
        assert (TESTS / name).is_file(), f"tests/conftest.py names {name}, which does not exist"


OLD_HELPERS = ("_migrations", "_plans", "_plugin_project", "claims_helpers", "load_helpers", "security_helpers",
               "matching_support", "gitrepo", "lifecycle_load")


def test_no_module_imports_a_helper_by_its_old_flat_name() -> None:
    """The helpers were flat modules of tests/ once; a test written against that layout fails here
    with its line rather than with a ModuleNotFoundError in the middle of a run."""
    pattern = re.compile(rf"^\s*(from|import) ({'|'.join(OLD_HELPERS)})\b")
    found = [f"{p.relative_to(TESTS)}:{n}" for p in sorted(TESTS.rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.match(line)]
    assert found == [], "import the helpers as support.<name> (docs/testing.md, 'Where the tests are')"


def test_a_test_module_imports_test_modules_of_its_own_folder_only() -> None:
    """pytest puts a test module's own folder on sys.path: ``from test_x import`` of another
    folder's module works only when some earlier module of that folder was imported first (it
    failed when tests/migrations/test_migration_operations.py ran alone)."""
    pattern = re.compile(r"^\s*(?:from|import) (test_\w+)\b")
    found = [f"{p.relative_to(TESTS)}:{n}" for p in sorted(TESTS.rglob("test_*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if (m := pattern.match(line)) and not (p.parent / f"{m[1]}.py").is_file()]
    assert found == [], "share what several folders use through tests/support/"


ROOT_FILES = {".gitignore", ".squawk.toml", "CHANGELOG.md", "MANIFEST.in", "Makefile", "README.md", "alembic.ini",
              "mkdocs.yml", "pyproject.toml"}


def test_the_repository_root_holds_only_the_known_files() -> None:
    root = TESTS.parent
    if not (root / ".git").exists():
        pytest.skip(f"{root} is not a git checkout")
    tracked = subprocess.run(["git", "-C", str(root), "ls-files"], check=True, capture_output=True,
                             text=True).stdout.splitlines()
    stray = sorted({p for p in tracked if "/" not in p} - ROOT_FILES)
    assert stray == [], "files at the repository root no doc describes (a shell mishap's output?)"


HISTORY = re.compile(r"\bseed 0\d\d\b|\bissue-\d+\b|\(issue \d+[,):]|\bissues? #\d+ (?:asks|says|wants)", re.I)


def test_the_reference_names_no_tracker_issue_and_no_seed() -> None:
    """History (a tracker's issue numbers, the seed documents) belongs in
    CHANGELOG.md and the revision docstrings; the code, SQL, tests and docs
    say what a thing is. "issue 1" as a row of the issue table is a value,
    not a reference, and stays."""
    root = TESTS.parent
    if not (root / ".git").exists():
        pytest.skip(f"{root} is not a git checkout")
    tracked = subprocess.run(["git", "-C", str(root), "ls-files"], check=True, capture_output=True,
                             text=True).stdout.splitlines()
    found = []
    for rel in tracked:
        if rel == "CHANGELOG.md" or rel.startswith("migrations/versions/") or "/corpus/" in rel:
            continue
        path = root / rel
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        found += [f"{rel}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if HISTORY.search(line)]
    assert found == []


#: a skip in code (not in a string a test writes out): pytest.skip(...), a skipif mark, importorskip
SKIP_CALL = re.compile(r"^\s*(?:@|\w+\s*=\s*)?pytest\.(?:skip|mark\.skipif|importorskip)\(")


def test_every_module_that_can_skip_is_in_the_skip_table_of_testing_md() -> None:
    """docs/testing.md, "What a run skips, and where", explains each setup's
    count: a module that can skip and is not in its table would make the
    counts of two setups differ unexplained, and a row for a module that no
    longer skips explains nothing."""
    can_skip = {str(p.relative_to(TESTS)) for p in sorted(TESTS.rglob("*.py"))
                if any(SKIP_CALL.search(line) for line in p.read_text(encoding="utf-8").splitlines())}
    text = (TESTS.parent / "docs" / "testing.md").read_text(encoding="utf-8")
    section = text.split("## What a run skips, and where", 1)[1].split("\n## ", 1)[0]
    named = {m for row in section.splitlines() if row.startswith("| `")
             for m in re.findall(r"`([a-z]+/\w+\.py)`", row.split(" | ", 1)[0])}
    assert can_skip - named == set(), "add these to docs/testing.md's skip table, saying where and why they skip"
    assert named - can_skip == set(), "these rows of docs/testing.md's skip table name modules that cannot skip"


#: a timing or a revision in a header: "0.2 ms", "40 us", "1.1 ms before revision 00NN"
HEADER_HISTORY = re.compile(r"\d\s?(?:ms|us|µs)\b|\brevision 00\d\d\b|\bbefore revision\b", re.I)


def test_sql_headers_state_what_is_true_now() -> None:
    """The leading comment of every sql/ object says what it does, its shape
    and its SQLSTATEs; timings belong in docs/performance.md and history in
    CHANGELOG.md and the revision docstrings (a header-only edit needs no
    revision, so a stale figure there would never be noticed)."""
    found = []
    for path in sorted((TESTS.parent / "sql").rglob("*.sql")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.startswith("--"):
                break
            if HEADER_HISTORY.search(line):
                found.append(f"{path.relative_to(TESTS.parent)}:{n}: {line.strip()}")
    assert found == []
