"""tools/new_revision.py freezes code, not prose: a header-only or
whitespace-only edit of a sql/ object needs no revision (``--check`` stays
green, and sql/ still builds what the revisions build), and a changed
``COMMENT ON`` is a revision holding that statement alone, which later
revisions build on. Each test runs the tool on a copy of sql/ and
migrations/."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from support.migrations import (
    ROOT,
    VERSION_TABLE,
    assert_same_schema,
    copy_project,
    migrate_project,
    new_revision_tool,
    psql_file,
    script_body,
)

RANK = "functions/_severity_rank.sql"  # in a revision
SQL_RANK = "findings/functions/_severity_rank.sql"  # in sql/
COMMENT = "COMMENT ON FUNCTION ledger._severity_rank(text) IS\n'"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


_tool = new_revision_tool
_migrate = migrate_project


def _edit(project: Path, rel: str, old: str, new: str) -> None:
    path = project / "sql" / rel
    text = path.read_text()
    assert old in text, f"{rel} no longer holds {old!r}"
    path.write_text(text.replace(old, new, 1))


def _written(project: Path) -> list[Path]:
    """The revision directories the tool wrote into the copy (newest last)."""
    theirs = {p.name for p in (ROOT / "migrations" / "versions").iterdir()}
    return sorted(p for p in (project / "migrations" / "versions").iterdir() if p.is_dir() and p.name not in theirs
                  and p.name != "__pycache__")


def _comment(dsn: str) -> str:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT obj_description('ledger._severity_rank(text)'::regprocedure, 'pg_proc')").fetchone()
        assert row is not None
        return str(row[0])


def _files(rev_dir: Path) -> list[str]:
    return sorted(p.relative_to(rev_dir).as_posix() for p in rev_dir.rglob("*") if p.is_file())


def test_a_header_or_whitespace_edit_needs_no_revision(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    _edit(project, SQL_RANK, "-- Sort rank of a severity", "-- The sort rank of a severity")
    _edit(project, "claims/functions/claim_task.sql", "-- Claims the next",
          "--\n-- Claims, in a header reworded, the next")
    _edit(project, SQL_RANK, "    SELECT CASE p_severity\n        WHEN", "  SELECT CASE p_severity WHEN")  # re-indented
    _edit(project, "common/tables/scope.sql", "\n", "\n\n")  # a blank line in a table's file
    check = _tool(project, "--check")
    assert (check.returncode, check.stdout) == (0, "")
    proc = _tool(project, "header only")
    assert proc.returncode == 1 and "nothing to write" in proc.stderr, proc.stdout + proc.stderr
    assert _written(project) == []

    # and sql/ still builds what the revisions build (the drift check)
    migrated = ledger_database_factory()  # the repository's head, cloned
    _migrate(migrated, project, "head")  # the copy's new revisions
    installed = ledger_database_factory(migrated=False)
    psql_file(installed, project / "sql" / "install.sql")
    with psycopg.connect(installed) as conn:
        conn.execute(VERSION_TABLE)
    assert_same_schema(migrated, installed, "sql/ with edited headers and whitespace")


def test_whitespace_inside_a_quoted_literal_is_a_change(project: Path) -> None:
    _edit(project, SQL_RANK, "WHEN 'critical' THEN", "WHEN 'critical ' THEN")
    assert _tool(project, "--check").returncode == 1
    _edit(project, SQL_RANK, "WHEN 'critical ' THEN", "WHEN 'critical' THEN")
    _edit(project, SQL_RANK, "-- anything else 5", "-- anything else 5 (a quote ' in the header opens no literal)")
    _edit(project, SQL_RANK, "ELSE 5 END", "ELSE  5  END")
    assert _tool(project, "--check").returncode == 0


def test_a_comment_on_change_is_a_revision_of_that_statement_alone(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    _edit(project, SQL_RANK, COMMENT, COMMENT + "Changed. ")
    check = _tool(project, "--check")
    assert check.returncode == 1
    assert check.stdout.splitlines()[0] == ("since the last revision: "
                                            "COMMENT ON changed: FUNCTION ledger._severity_rank(text)")
    proc = _tool(project, "rank comment")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (rev_dir,) = _written(project)
    assert _files(rev_dir) == ["downgrade.sql", "upgrade.sql"]
    held = "\n".join(script_body(rev_dir / "upgrade.sql"))  # after the title line and the version guard
    assert held.startswith(COMMENT + "Changed. ") and held.count(";") == 1 and "CREATE" not in held
    downgrade = (rev_dir / "downgrade.sql").read_text()
    assert COMMENT + "Sort rank" in downgrade and "\\ir" not in downgrade
    assert _tool(project, "--check").returncode == 0

    # a later change of the body freezes the file; undoing it gives back the changed comment
    _edit(project, SQL_RANK, "ELSE 5 END", "ELSE 6 END")
    assert _tool(project, "rank other six").returncode == 0
    first, second = _written(project)
    assert first == rev_dir and _files(second) == ["downgrade.sql", RANK, "upgrade.sql"]
    # the earlier definition, then the comment the later revision gave it
    assert f"\\ir ../0001_baseline/{RANK}\n{COMMENT}Changed. " in (second / "downgrade.sql").read_text()
    assert _tool(project, "--check").returncode == 0

    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")  # the copy's new revisions
    assert _comment(dsn).startswith("Changed. ")
    _migrate(dsn, project, rev_dir.name, down=True)
    assert _comment(dsn).startswith("Changed. ")
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT ledger._severity_rank('x')").fetchone() == (5,)
    _migrate(dsn, project, "-1", down=True)
    assert _comment(dsn).startswith("Sort rank")


def test_a_removed_comment_is_set_to_null_and_comes_back(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    path = project / "sql" / SQL_RANK
    text = path.read_text()
    path.write_text(text[:text.index("COMMENT ON")])
    assert _tool(project, "rank no comment").returncode == 0
    (rev_dir,) = _written(project)
    assert _files(rev_dir) == ["downgrade.sql", "upgrade.sql"]
    assert script_body(rev_dir / "upgrade.sql") == [
        "COMMENT ON FUNCTION ledger._severity_rank(text) IS NULL;"]
    assert _tool(project, "--check").returncode == 0
    path.write_text(text)
    assert _tool(project, "--check").returncode == 1
