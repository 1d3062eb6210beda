"""The revisions themselves: released files never change, every revision
holds only what changed (no two copies of one object's text), none reads a
live sql/ file, and tools/new_revision.py writes a revision of about the
size of the change that upgrades and downgrades a real database."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from support.migrations import ROOT, copy_project, migrate_project, new_revision_tool

from findings_ledger.migration_ops import RevisionFileError, expand_includes

sys.path.insert(0, str(ROOT / "tools"))
import new_revision  # noqa: E402

MIGRATIONS = ROOT / "migrations"
#: the numbers the tool gives the next two revisions (after those the checkout already has)
_LAST = max(int(p.name[:4]) for p in (MIGRATIONS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))
N2, N3 = f"{_LAST + 1:04d}", f"{_LAST + 2:04d}"
VERSIONS = MIGRATIONS / "versions"
RELEASED = MIGRATIONS / "released.sha256"
#: The number the tool gives the next revision (the tests below write one).
NEXT = f"{len(list(VERSIONS.glob('*.py'))) + 1:04d}"


def released() -> dict[str, str]:
    return new_revision.read_pins(RELEASED)


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


#: The commit tagged v0.1.0: a clone without tags (CI's) still has it in main's history.
RELEASE_COMMIT = "b0215dc8fc6ace2851d185966159ac390f33a5b4"


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def test_pins_only_grow_from_the_release_tag() -> None:
    """The pins of release 0.1.0 are still there, unchanged (a release keeps
    every pin of a released revision and adds its fold's): read at the v0.1.0 tag when the clone has it (which must be
    RELEASE_COMMIT), else at RELEASE_COMMIT; skipped only in a shallow clone
    that has neither."""
    tag = _git("rev-parse", "--verify", "-q", "v0.1.0^{commit}")
    if tag.returncode == 0:
        assert tag.stdout.strip() == RELEASE_COMMIT, "the v0.1.0 tag moved"
    proc = _git("show", f"{RELEASE_COMMIT}:migrations/released.sha256")
    if proc.returncode != 0:
        assert _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true", proc.stderr
        pytest.skip("a shallow clone without the release commit")
    tagged = {path: digest for digest, path in (line.split("  ", 1) for line in proc.stdout.splitlines() if line)}
    assert {p: released().get(p) for p in tagged} == tagged


def test_sql_matches_the_frozen_state() -> None:
    result = new_revision.plan(ROOT / "sql", VERSIONS)
    assert result.empty, f"sql/ changed since the last revision: {result.changes} (make revision M=...)"


def test_no_two_frozen_files_are_the_same_text() -> None:
    """One copy per text: a revision that goes back to an earlier text
    includes the earlier file instead (see test_a_revert_includes_the_earlier_file)."""
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


def test_a_functions_identity_is_its_name_and_input_argument_types() -> None:
    """As PostgreSQL identifies a function: argument names, defaults, type
    modifiers and OUT arguments are not part of it, and types are named one
    way whichever way they are written."""
    text = ("-- CREATE FUNCTION ledger.commented_out(x int)\n"
            "CREATE OR REPLACE FUNCTION ledger.f(p_a text, p_b int4 DEFAULT 3, OUT o_x text,\n"
            "    p_c text[] = '{}', VARIADIC p_d numeric(10, 2)[], p_e TEXT[] DEFAULT ARRAY['x,y', 'z'],\n"
            "    INOUT p_f timestamp with time zone, p_g double precision)\n"
            "RETURNS SETOF ledger.finding\nLANGUAGE sql AS $$ SELECT 1 $$;\n"
            "COMMENT ON FUNCTION ledger.f(text, integer, text[], numeric[], text[], timestamptz, float8) IS 'f';")
    state = new_revision.State()
    for statement in new_revision.parse(text, "functions/f.sql"):
        state.apply(statement)
    expected = "ledger.f(text, integer, text[], numeric[], text[], timestamptz, double precision)"
    assert list(state.objects) == [f"function {expected}"]
    assert state.comments[f"FUNCTION {expected}"][0] == f"function {expected}"
    assert state.objects[f"function {expected}"].attrs == {
        "volatility": "volatile", "security": False, "parallel": "unsafe", "strict": False, "leakproof": False,
        "cost": 100.0, "rows": 1000.0, "set": ()}


def test_revision_ids_fit_alembics_version_column() -> None:
    rev_id = new_revision.revision_id(12, "lock the queue reads through the claim index, at last")
    assert rev_id.startswith("0012_lock_the_queue") and len(rev_id) <= 32


def _next(name: str, later: int = 1) -> str:
    """The id the tool gives the next revision named ``name`` (after every
    revision there is; ``later=2``: the one after that)."""
    return f"{len(new_revision.revisions(VERSIONS)) + later:04d}_{name}"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A copy of sql/ and migrations/ to write revisions into."""
    return copy_project(tmp_path)


_tool = new_revision_tool
_migrate = migrate_project


def _written(project: Path, slug: str) -> Path:
    """The directory of the revision the tool just wrote for ``slug``: its
    number follows whatever revisions the checkout already has."""
    (rev_dir,) = (project / "migrations" / "versions").glob(f"[0-9][0-9][0-9][0-9]_{slug}")
    return rev_dir


def _previous(project: Path, rev_dir: Path) -> str:
    """The revision before the one in ``rev_dir`` (its down_revision)."""
    module = rev_dir.with_suffix(".py").read_text()
    return module.split("down_revision = '", 1)[1].split("'", 1)[0]


def _rank(dsn: str, severity: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT ledger._severity_rank(%s)", (severity,)).fetchone()
        assert row is not None
        return int(row[0])


def _comment(dsn: str, signature: str) -> str | None:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT obj_description(to_regprocedure(%s), 'pg_proc')", (signature,)).fetchone()
        return row[0] if row else None


def test_a_one_function_change_is_a_revision_of_that_size(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    source = project / "sql" / "findings" / "functions" / "_severity_rank.sql"
    text = source.read_text()
    assert "ELSE 5 END" in text
    source.write_text(text.replace("ELSE 5 END", "ELSE 6 END"))
    assert _tool(project, "--check").returncode == 1
    proc = _tool(project, "rank other six")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rev_dir = project / "migrations" / "versions" / _next("rank_other_six")
    files = sorted(p.relative_to(rev_dir).as_posix() for p in rev_dir.rglob("*") if p.is_file())
    assert files == ["downgrade.sql", "functions/_severity_rank.sql", "upgrade.sql"]
    frozen = (rev_dir / "functions" / "_severity_rank.sql").read_text()
    assert frozen.startswith("CREATE OR REPLACE FUNCTION"), "the header is not frozen"
    size = sum(p.stat().st_size for p in rev_dir.rglob("*") if p.is_file())
    assert size < source.stat().st_size + 1500, "a one-function revision is about that function's size"
    assert (rev_dir / "downgrade.sql").read_text().count("\\ir ../0001_baseline/functions/_severity_rank.sql") == 1
    assert _tool(project, "--check").returncode == 0

    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")  # the copy's new revisions
    assert _rank(dsn, "unknown") == 6
    _migrate(dsn, project, _previous(project, rev_dir), down=True)
    assert _rank(dsn, "unknown") == 5


def test_new_and_changed_signatures_are_dropped_on_the_way_back(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    (project / "sql" / "common" / "functions" / "answer.sql").write_text(
        "CREATE OR REPLACE FUNCTION ledger.answer(p_x integer DEFAULT 1)\nRETURNS integer\n"
        "LANGUAGE sql IMMUTABLE\nAS $$ SELECT 42 + p_x $$;\n")
    install = project / "sql" / "install.sql"
    install.write_text(install.read_text().replace("\\ir common/functions/_check_text.sql\n",
                                                   "\\ir common/functions/_check_text.sql\n"
                                                   "\\ir common/functions/answer.sql\n"))
    assert _tool(project, "answer").returncode == 0
    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")  # the copy's new revisions
    assert _comment(dsn, "ledger.answer(integer)") is None  # exists, no comment
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT ledger.answer()").fetchone() == (43,)
    # a new argument: the old signature goes, so no overload is left behind
    (project / "sql" / "common" / "functions" / "answer.sql").write_text(
        "CREATE OR REPLACE FUNCTION ledger.answer(p_x integer, p_y integer DEFAULT 0)\nRETURNS integer\n"
        "LANGUAGE sql IMMUTABLE\nAS $$ SELECT 42 + p_x + p_y $$;\n")
    assert _tool(project, "answer two args").returncode == 0
    _migrate(dsn, project, "head")

    def overloads() -> list[str]:
        with psycopg.connect(dsn) as conn:
            return [r[0] for r in conn.execute(
                "SELECT oid::regprocedure::text FROM pg_proc WHERE proname = 'answer' ORDER BY 1")]

    assert overloads() == ["ledger.answer(integer,integer)"]
    _migrate(dsn, project, _next("answer"), down=True)
    assert overloads() == ["ledger.answer(integer)"]
    _migrate(dsn, project, _previous(project, _written(project, "answer")), down=True)
    assert overloads() == []


def test_a_changed_table_asks_for_hand_written_alter_statements(project: Path) -> None:
    table = project / "sql" / "common" / "tables" / "scope.sql"
    table.write_text(table.read_text().replace("    default_branch        text,\n",
                                               "    default_branch        text,\n    note text,\n"))
    proc = _tool(project, "scope note")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "TODO(new_revision)" in proc.stdout
    upgrade = (project / "migrations" / "versions" / _next("scope_note") / "upgrade.sql").read_text()
    assert "-- TODO(new_revision): table ledger.scope: changed; write the ALTER statements" in upgrade
    assert "--   +    note text," in upgrade


def test_concurrently_sql_runs_outside_the_revision_transaction(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    source = project / "sql" / "findings" / "functions" / "_severity_rank.sql"
    source.write_text(source.read_text().replace("ELSE 5 END", "ELSE 2 + 3 END"))
    assert _tool(project, "kind index").returncode == 0
    rev_dir = project / "migrations" / "versions" / _next("kind_index")
    (rev_dir / "concurrently.sql").write_text(
        "DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_kind_idx;\n"
        "CREATE INDEX CONCURRENTLY finding_kind_idx\n    ON ledger.finding (scope, kind);\n")
    (rev_dir / "downgrade_concurrently.sql").write_text("DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_kind_idx;\n")
    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")  # the copy's new revisions
    valid = "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass('ledger.finding_kind_idx')"
    with psycopg.connect(dsn) as conn:
        assert conn.execute(valid).fetchone() == (True,)
    _migrate(dsn, project, _previous(project, rev_dir), down=True)
    with psycopg.connect(dsn) as conn:
        assert conn.execute(valid).fetchone() is None


def _head() -> str:
    return new_revision.revisions(VERSIONS)[-1].rev


def _same_as_head(dsn: str, ledger_database_factory: Callable[..., str], what: str) -> None:
    """The schema at ``dsn`` equals the repository's head (a fresh database)."""
    from support.migrations import assert_same_schema

    reference = ledger_database_factory()  # the repository's head, cloned
    assert_same_schema(reference, dsn, what)


def _drop_install_line(project: Path, rel: str) -> None:
    install = project / "sql" / "install.sql"
    install.write_text(install.read_text().replace(f"\\ir {rel}\n", ""))
    (project / "sql" / rel).unlink()


def test_a_removed_trigger_and_its_function_come_back_in_order(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    _drop_install_line(project, "merges/triggers/merge___110_branch.sql")
    _drop_install_line(project, "merges/functions/tg_merge__prepare_branch.sql")
    assert _tool(project, "no branch trigger").returncode == 0
    rev_dir = project / "migrations" / "versions" / _next("no_branch_trigger")
    upgrade = (rev_dir / "upgrade.sql").read_text()
    assert upgrade.index("DROP TRIGGER _110_branch ON ledger.merge;") < upgrade.index(
        "DROP FUNCTION ledger.tg_merge__prepare_branch();")
    downgrade = (rev_dir / "downgrade.sql").read_text()
    assert downgrade.index("functions/tg_merge__prepare_branch.sql") < downgrade.index(
        "triggers/merge___110_branch.sql")
    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")  # the copy's new revisions
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pg_trigger WHERE tgname = '_110_branch'").fetchone() == (0,)
    _migrate(dsn, project, _head(), down=True)
    _same_as_head(dsn, ledger_database_factory, "removed and restored trigger")


def test_a_granted_functions_new_argument_keeps_exact_grants(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    source = project / "sql" / "claims" / "functions" / "requeue_task.sql"
    text = source.read_text()
    assert "ledger.requeue_task(p_task_id bigint)" in text
    source.write_text(text.replace("ledger.requeue_task(p_task_id bigint)",
                                   "ledger.requeue_task(p_task_id bigint, p_note text DEFAULT NULL)")
                      .replace("ledger.requeue_task(bigint)", "ledger.requeue_task(bigint, text)"))
    privileges = project / "sql" / "access" / "privileges.sql"
    privileges.write_text(privileges.read_text().replace("ledger.requeue_task(bigint),",
                                                         "ledger.requeue_task(bigint, text),"))
    assert _tool(project, "requeue note").returncode == 0
    upgrade = (project / "migrations" / "versions" / _next("requeue_note") / "upgrade.sql").read_text()
    # the new signature's grants exactly: PUBLIC's default EXECUTE revoked, the agent's granted
    assert upgrade.splitlines()[-2:] == ["REVOKE EXECUTE ON FUNCTION ledger.requeue_task(bigint, text) FROM PUBLIC;",
                                         "GRANT EXECUTE ON FUNCTION ledger.requeue_task(bigint, text) TO ledger_agent;"]
    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")  # the copy's new revisions
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT p.oid::regprocedure::text, has_function_privilege('ledger_agent', p.oid, 'EXECUTE'), "
            "has_function_privilege('ledger_reader', p.oid, 'EXECUTE') FROM pg_proc p WHERE proname = 'requeue_task'"
        ).fetchall()
    assert rows == [("ledger.requeue_task(bigint,text)", True, False)]
    _migrate(dsn, project, _head(), down=True)
    _same_as_head(dsn, ledger_database_factory, "signature change undone")


def test_an_expression_index_is_rebuilt_concurrently(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    source = project / "sql" / "decisions" / "indexes" / "finding_active_evidence_idx.sql"
    source.write_text(source.read_text().replace("WITH (fastupdate = off)", "WITH (fastupdate = on)"))
    assert _tool(project, "evidence index fastupdate").returncode == 0
    rev_dir = project / "migrations" / "versions" / _next("evidence_index_fastupdate")
    assert "CREATE INDEX" not in (rev_dir / "upgrade.sql").read_text()
    concurrently = (rev_dir / "concurrently.sql").read_text()
    assert "DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_active_evidence_idx;" in concurrently
    assert "CREATE INDEX CONCURRENTLY finding_active_evidence_idx ON ledger.finding" in concurrently
    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")  # the copy's new revisions
    options = "SELECT reloptions FROM pg_class WHERE oid = 'ledger.finding_active_evidence_idx'::regclass"
    with psycopg.connect(dsn) as conn:
        assert conn.execute(options).fetchone() == (["fastupdate=on"],)
    _migrate(dsn, project, _head(), down=True)
    _same_as_head(dsn, ledger_database_factory, "index rebuilt and restored")


def test_a_revert_includes_the_earlier_file(project: Path, ledger_database_factory: Callable[..., str]) -> None:
    source = project / "sql" / "findings" / "functions" / "_severity_rank.sql"
    original = source.read_text()
    source.write_text(original.replace("ELSE 5 END", "ELSE 6 END"))
    assert _tool(project, "rank six").returncode == 0
    source.write_text("-- a header the baseline never had\n" + original)  # the header is not code
    assert _tool(project, "rank six back").returncode == 0
    rev_dir = project / "migrations" / "versions" / _next("rank_six_back", later=2)
    assert sorted(p.name for p in rev_dir.rglob("*") if p.is_file()) == ["downgrade.sql", "upgrade.sql"]
    assert "\\ir ../0001_baseline/functions/_severity_rank.sql" in (rev_dir / "upgrade.sql").read_text()
    assert f"\\ir ../{_next('rank_six')}/functions/_severity_rank.sql" in (rev_dir / "downgrade.sql").read_text()
    assert _tool(project, "--check").returncode == 0
    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")  # the copy's new revisions
    assert _rank(dsn, "unknown") == 5
    _migrate(dsn, project, _next("rank_six"), down=True)
    assert _rank(dsn, "unknown") == 6
