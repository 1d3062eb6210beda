"""The revisions themselves: released files never change, every revision
holds only what changed (no two copies of one object's text), none reads a
live sql/ file, and tools/new_revision.py writes a revision of about the
size of the change that upgrades and downgrades a real database."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from _migrations import ROOT

from findings_ledger.migration_ops import RevisionFileError, expand_includes

sys.path.insert(0, str(ROOT / "tools"))
import new_revision  # noqa: E402

MIGRATIONS = ROOT / "migrations"
VERSIONS = MIGRATIONS / "versions"
RELEASED = MIGRATIONS / "released.sha256"


def released() -> dict[str, str]:
    return {path: digest for digest, path in (line.split("  ", 1) for line in RELEASED.read_text().splitlines())}


def test_released_revisions_are_unchanged() -> None:
    pinned = released()
    assert pinned, "migrations/released.sha256 pins nothing"
    changed = [p for p, digest in pinned.items()
               if not (MIGRATIONS / p).is_file() or hashlib.sha256((MIGRATIONS / p).read_bytes()).hexdigest() != digest]
    assert changed == [], f"released revision files changed or removed (write a new revision instead): {changed}"
    for rev in new_revision.revisions(VERSIONS):
        files = {p.relative_to(MIGRATIONS).as_posix() for p in new_revision.revision_files(rev)}
        if rev.module.relative_to(MIGRATIONS).as_posix() in pinned:
            assert files <= set(pinned), f"files added to released revision {rev.rev}: {sorted(files - set(pinned))}"


def test_the_baseline_is_released() -> None:
    assert "versions/0001_baseline.py" in released()
    assert "versions/0001_baseline/upgrade.sql" in released()


def test_sql_matches_the_frozen_state() -> None:
    result = new_revision.plan(ROOT / "sql", VERSIONS, "next")
    assert result.empty, f"sql/ changed since the last revision: {sorted(result.files)} (make revision M=...)"


def test_no_two_frozen_files_are_the_same_text() -> None:
    seen: dict[str, Path] = {}
    for rev in new_revision.revisions(VERSIONS):
        for path in new_revision.object_files(rev.directory).values():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            assert digest not in seen, f"{path} repeats {seen[digest]}: a revision holds only what changed"
            seen[digest] = path


def test_every_revision_script_expands_and_has_no_todo() -> None:
    for rev in new_revision.revisions(VERSIONS):
        for name in ("upgrade.sql", "downgrade.sql"):
            text = expand_includes(rev.directory / name, root=VERSIONS)
            assert new_revision.TODO not in text, f"{rev.rev}/{name}: a TODO block is left"


def test_an_include_outside_the_versions_directory_is_refused(tmp_path: Path) -> None:
    rev = tmp_path / "versions" / "0009_x"
    rev.mkdir(parents=True)
    (tmp_path / "live.sql").write_text("SELECT 1;\n")
    (rev / "upgrade.sql").write_text("\\ir ../../live.sql\n")
    with pytest.raises(RevisionFileError, match="outside"):
        expand_includes(rev / "upgrade.sql", root=tmp_path / "versions")
    (rev / "upgrade.sql").write_text("\\set x 1\n")
    with pytest.raises(RevisionFileError, match="only \\\\ir"):
        expand_includes(rev / "upgrade.sql", root=tmp_path / "versions")


def test_function_signatures_leave_out_defaults_and_out_arguments() -> None:
    text = ("CREATE OR REPLACE FUNCTION ledger.f(p_a text, p_b integer DEFAULT 3, OUT o_x text,\n"
            "    p_c text[] = '{}', VARIADIC p_d numeric(10, 2)[])\nRETURNS text")
    expected = "ledger.f(p_a text, p_b integer, p_c text[], p_d numeric(10, 2)[])"
    assert new_revision.function_signatures(text) == [expected]


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A copy of sql/ and migrations/ to write revisions into."""
    shutil.copytree(ROOT / "sql", tmp_path / "sql")
    shutil.copytree(MIGRATIONS, tmp_path / "migrations", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _tool(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "new_revision.py"), "--sql-dir", str(project / "sql"),
         "--migrations", str(project / "migrations"), *args],
        capture_output=True, text=True,
    )


def _migrate(dsn: str, project: Path, spec: str, down: bool = False) -> None:
    from alembic import command

    from findings_ledger.api import alembic_config

    cfg = alembic_config(dsn)
    cfg.set_main_option("script_location", str(project / "migrations"))
    (command.downgrade if down else command.upgrade)(cfg, spec)


def _written(project: Path, slug: str) -> Path:
    """The directory of the revision the tool just wrote for ``slug``: its
    number follows whatever revisions the checkout already has."""
    (rev_dir,) = (project / "migrations" / "versions").glob(f"[0-9][0-9][0-9][0-9]_{slug}")
    return rev_dir


def _previous(project: Path, rev_dir: Path) -> str:
    """The revision before the one in ``rev_dir`` (its down_revision)."""
    module = rev_dir.with_suffix(".py").read_text()
    return module.split("down_revision = '", 1)[1].split("'", 1)[0]


def _comment(dsn: str, signature: str) -> str | None:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT obj_description(to_regprocedure(%s), 'pg_proc')", (signature,)).fetchone()
        return row[0] if row else None


def test_a_one_function_change_is_a_revision_of_that_size(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    source = project / "sql" / "functions" / "_severity_rank.sql"
    text = source.read_text()
    assert "COMMENT ON FUNCTION ledger._severity_rank(text) IS\n'" in text
    source.write_text(text.replace("COMMENT ON FUNCTION ledger._severity_rank(text) IS\n'",
                                   "COMMENT ON FUNCTION ledger._severity_rank(text) IS\n'Changed. "))
    assert _tool(project, "--check").returncode == 1
    proc = _tool(project, "rank comment")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rev_dir = _written(project, "rank_comment")
    files = sorted(p.relative_to(rev_dir).as_posix() for p in rev_dir.rglob("*") if p.is_file())
    assert files == ["downgrade.sql", "functions/_severity_rank.sql", "upgrade.sql"]
    size = sum(p.stat().st_size for p in rev_dir.rglob("*") if p.is_file())
    assert size < source.stat().st_size + 1500, "a one-function revision is about that function's size"
    assert (rev_dir / "downgrade.sql").read_text().count("\\ir ../0001_baseline/functions/_severity_rank.sql") == 1
    assert _tool(project, "--check").returncode == 0

    dsn = ledger_database_factory(migrated=False)
    _migrate(dsn, project, "head")
    assert _comment(dsn, "ledger._severity_rank(text)").startswith("Changed. ")
    _migrate(dsn, project, _previous(project, rev_dir), down=True)
    assert not _comment(dsn, "ledger._severity_rank(text)").startswith("Changed. ")


def test_new_and_changed_signatures_are_dropped_on_the_way_back(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    (project / "sql" / "functions" / "answer.sql").write_text(
        "CREATE OR REPLACE FUNCTION ledger.answer(p_x integer DEFAULT 1)\nRETURNS integer\n"
        "LANGUAGE sql IMMUTABLE\nAS $$ SELECT 42 + p_x $$;\n")
    install = project / "sql" / "install.sql"
    install.write_text(install.read_text().replace("\\ir functions/_check_text.sql\n",
                                                   "\\ir functions/_check_text.sql\n\\ir functions/answer.sql\n"))
    assert _tool(project, "answer").returncode == 0
    dsn = ledger_database_factory(migrated=False)
    _migrate(dsn, project, "head")
    assert _comment(dsn, "ledger.answer(integer)") is None  # exists, no comment
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT ledger.answer()").fetchone() == (43,)
    # a new argument: the old signature goes, so no overload is left behind
    (project / "sql" / "functions" / "answer.sql").write_text(
        "CREATE OR REPLACE FUNCTION ledger.answer(p_x integer, p_y integer DEFAULT 0)\nRETURNS integer\n"
        "LANGUAGE sql IMMUTABLE\nAS $$ SELECT 42 + p_x + p_y $$;\n")
    assert _tool(project, "answer two args").returncode == 0
    _migrate(dsn, project, "head")

    def overloads() -> list[str]:
        with psycopg.connect(dsn) as conn:
            return [r[0] for r in conn.execute(
                "SELECT oid::regprocedure::text FROM pg_proc WHERE proname = 'answer' ORDER BY 1")]

    assert overloads() == ["ledger.answer(integer,integer)"]
    _migrate(dsn, project, _written(project, "answer").name, down=True)
    assert overloads() == ["ledger.answer(integer)"]
    _migrate(dsn, project, _previous(project, _written(project, "answer")), down=True)
    assert overloads() == []


def test_a_changed_table_asks_for_hand_written_alter_statements(project: Path) -> None:
    table = project / "sql" / "tables" / "scope.sql"
    table.write_text(table.read_text().replace("    default_branch        text,\n",
                                               "    default_branch        text,\n    note text,\n"))
    proc = _tool(project, "scope note")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "TODO(new_revision)" in proc.stdout
    upgrade = (_written(project, "scope_note") / "upgrade.sql").read_text()
    assert "-- TODO(new_revision): tables/scope.sql: changed; write the ALTER statements" in upgrade
    assert "--   +    note text," in upgrade


def test_concurrently_sql_runs_outside_the_revision_transaction(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    source = project / "sql" / "functions" / "_severity_rank.sql"
    source.write_text(source.read_text() + "\n")
    assert _tool(project, "kind index").returncode == 0
    rev_dir = _written(project, "kind_index")
    (rev_dir / "concurrently.sql").write_text(
        "DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_kind_idx;\n"
        "CREATE INDEX CONCURRENTLY finding_kind_idx\n    ON ledger.finding (scope, kind);\n")
    (rev_dir / "downgrade_concurrently.sql").write_text("DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_kind_idx;\n")
    dsn = ledger_database_factory(migrated=False)
    _migrate(dsn, project, "head")
    valid = "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass('ledger.finding_kind_idx')"
    with psycopg.connect(dsn) as conn:
        assert conn.execute(valid).fetchone() == (True,)
    _migrate(dsn, project, _previous(project, rev_dir), down=True)
    with psycopg.connect(dsn) as conn:
        assert conn.execute(valid).fetchone() is None
