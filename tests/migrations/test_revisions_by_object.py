"""tools/new_revision.py keys the frozen state by catalog object, not by
file: a file moved into a folder, renamed, or an object moved between files
is no revision; an attribute change is ALTER FUNCTION lines; a grant change
is the GRANT/REVOKE of the privileges that changed; a body change freezes
that one definition, named by the object. Each test runs the tool on a copy
of sql/ and migrations/; the ones that apply a revision check the database
it builds against ``psql -f sql/install.sql`` (the normalised dump and every
function's definition, as the drift check compares them)."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from alembic import command
from support.migrations import (
    ROOT,
    VERSION_TABLE,
    assert_same_schema,
    copy_project,
    ini_config,
    migrate_project,
    new_revision_tool,
    psql_file,
    script_body,
)

_tool = new_revision_tool
_migrate = migrate_project
VERSIONS = ROOT / "migrations" / "versions"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def _written(project: Path) -> list[Path]:
    """The revision directories the tool wrote into the copy (oldest first)."""
    theirs = {p.name for p in VERSIONS.iterdir()}
    return sorted(p for p in (project / "migrations" / "versions").iterdir()
                  if p.is_dir() and p.name not in theirs and p.name != "__pycache__")


def _files(rev_dir: Path) -> list[str]:
    return sorted(p.relative_to(rev_dir).as_posix() for p in rev_dir.rglob("*") if p.is_file())


def _body(rev_dir: Path, name: str) -> list[str]:
    """A script's statements: its lines after the title line and the blank line."""
    return script_body(rev_dir / name)


def _edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert text.count(old) >= count, f"{path} no longer holds {old!r}"
    path.write_text(text.replace(old, new, count))


def _move(project: Path, rel: str, new_rel: str) -> None:
    """Move sql/REL to sql/NEW_REL and include it from there."""
    sql = project / "sql"
    (sql / new_rel).parent.mkdir(parents=True, exist_ok=True)
    (sql / rel).rename(sql / new_rel)
    _edit(sql / "install.sql", f"\\ir {rel}\n", f"\\ir {new_rel}\n")


def _installed(factory: Callable[..., str], sql_dir: Path) -> str:
    """A database built by ``psql -f sql_dir/install.sql``."""
    dsn = factory(migrated=False)
    psql_file(dsn, sql_dir / "install.sql")
    with psycopg.connect(dsn) as conn:
        conn.execute(VERSION_TABLE)
    return dsn


def test_moved_renamed_and_regrouped_files_write_no_revision(project: Path) -> None:
    sql = project / "sql"
    _move(project, "merges/functions/tg_merge__prepare.sql", "merges/prepare.sql")  # into a topic folder, renamed
    _move(project, "merges/triggers/merge___100_prepare.sql", "merges/triggers/prepare.sql")
    _move(project, "common/tables/scope.sql", "common/scope.sql")
    _move(project, "access/privileges.sql", "grants/privileges.sql")
    _move(project, "access/roles.sql", "common/roles.sql")
    # two objects into one file: the branch function joins the prepare function's file
    branch = sql / "merges" / "functions" / "tg_merge__prepare_branch.sql"
    (sql / "merges" / "prepare.sql").write_text((sql / "merges" / "prepare.sql").read_text() + "\n"
                                               + branch.read_text())
    branch.unlink()
    _edit(sql / "install.sql", "\\ir merges/functions/tg_merge__prepare_branch.sql\n", "")
    _edit(sql / "merges" / "prepare.sql", "-- ledger.tg_merge__prepare()", "-- The ledger.tg_merge__prepare()")
    check = _tool(project, "--check")
    assert (check.returncode, check.stdout) == (0, "")
    proc = _tool(project, "moved")
    assert proc.returncode == 1 and "sql/ matches the last frozen revision: nothing to write" in proc.stderr
    assert _written(project) == []


def test_a_body_edit_in_a_moved_file_freezes_that_definition_by_name(project: Path) -> None:
    _move(project, "findings/functions/_severity_rank.sql", "findings/rank.sql")
    _edit(project / "sql" / "findings" / "rank.sql", "ELSE 5 END", "ELSE 6 END")
    assert _tool(project, "rank six").returncode == 0
    (rev_dir,) = _written(project)
    assert _files(rev_dir) == ["downgrade.sql", "functions/_severity_rank.sql", "upgrade.sql"]
    assert _body(rev_dir, "upgrade.sql") == ["\\ir functions/_severity_rank.sql"]
    assert _body(rev_dir, "downgrade.sql") == ["\\ir ../0001_baseline/functions/_severity_rank.sql"]
    frozen = (rev_dir / "functions" / "_severity_rank.sql").read_text()
    assert frozen.startswith("CREATE OR REPLACE FUNCTION ledger._severity_rank") and "ELSE 6 END" in frozen
    assert frozen.count("COMMENT ON FUNCTION ledger._severity_rank(text)") == 1
    assert _tool(project, "--check").returncode == 0


def test_a_header_with_text_beyond_ascii_freezes_the_statement_from_its_first_token(project: Path) -> None:
    # pglast gives statement locations in characters; a header holding
    # multi-byte characters must not shift where the frozen statement starts
    path = project / "sql" / "findings" / "functions" / "_severity_rank.sql"
    path.write_text("-- ranks: critical … info (U+2026, é, 日本)\n" + path.read_text())
    assert _tool(project, "--check").returncode == 0
    _edit(path, "ELSE 5 END", "ELSE 6 END")
    assert _tool(project, "rank six").returncode == 0
    (rev_dir,) = _written(project)
    frozen = (rev_dir / "functions" / "_severity_rank.sql").read_text()
    assert frozen.startswith("CREATE OR REPLACE FUNCTION ledger._severity_rank") and "ELSE 6 END" in frozen
    assert _tool(project, "--check").returncode == 0


def test_an_attribute_change_then_a_body_change_are_undone_in_order(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    rank = project / "sql" / "findings" / "functions" / "_severity_rank.sql"
    _edit(rank, "LANGUAGE sql IMMUTABLE PARALLEL SAFE", "LANGUAGE sql STABLE PARALLEL SAFE SET work_mem = '8MB'")
    assert _tool(project, "rank stable").returncode == 0
    _edit(rank, "ELSE 5 END", "ELSE 6 END")
    assert _tool(project, "rank six").returncode == 0
    first, second = _written(project)
    assert _files(first) == ["downgrade.sql", "upgrade.sql"]
    assert _body(first, "upgrade.sql") == ["ALTER FUNCTION ledger._severity_rank(text) STABLE SET work_mem = '8MB';"]
    assert _body(first, "downgrade.sql") == ["ALTER FUNCTION ledger._severity_rank(text) IMMUTABLE RESET work_mem;"]
    # the body change: its CREATE OR REPLACE sets the attributes sql/ has; the way
    # back includes the baseline's definition, then gives back the attributes of `first`
    assert _body(second, "upgrade.sql") == ["\\ir functions/_severity_rank.sql"]
    assert _body(second, "downgrade.sql") == ["\\ir ../0001_baseline/functions/_severity_rank.sql",
                                              "ALTER FUNCTION ledger._severity_rank(text) STABLE SET work_mem = '8MB';"]
    assert _tool(project, "--check").returncode == 0

    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")

    def rank_function() -> tuple[int, str, list[str] | None]:
        with psycopg.connect(dsn) as conn:
            row = conn.execute("SELECT ledger._severity_rank('x'), p.provolatile::text, p.proconfig FROM pg_proc p "
                               "WHERE p.oid = 'ledger._severity_rank(text)'::regprocedure").fetchone()
            assert row is not None
            return row

    assert rank_function() == (6, "s", ["work_mem=8MB"])
    _migrate(dsn, project, first.name, down=True)
    assert rank_function() == (5, "s", ["work_mem=8MB"])
    _migrate(dsn, project, "-1", down=True)
    assert rank_function() == (5, "i", None)


def test_a_grant_change_is_the_grant_and_revoke_lines_alone(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    privileges = project / "sql" / "access" / "privileges.sql"
    _edit(privileges, "    ledger.answer_recheck(bigint, boolean, text, text),\n", "")  # the writer's
    _edit(privileges, "GRANT INSERT (session_id, reason) ON ledger.retired_session TO ledger_agent;",
          "GRANT INSERT (session_id) ON ledger.retired_session TO ledger_agent;")
    _edit(privileges, "GRANT INSERT, DELETE ON ledger.retired_session TO ledger_admin;",
          "GRANT INSERT, DELETE ON ledger.retired_session TO ledger_admin;\n"
          "GRANT EXECUTE ON FUNCTION ledger._file_slug(text) TO ledger_reader, ledger_admin;")
    assert _tool(project, "grants").returncode == 0
    (rev_dir,) = _written(project)
    assert _files(rev_dir) == ["downgrade.sql", "upgrade.sql"]
    assert _body(rev_dir, "upgrade.sql") == [
        "REVOKE EXECUTE ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) FROM ledger_writer;",
        "REVOKE INSERT (reason) ON TABLE ledger.retired_session FROM ledger_agent;",
        "GRANT EXECUTE ON FUNCTION ledger._file_slug(text) TO ledger_admin, ledger_reader;",
    ]
    assert _body(rev_dir, "downgrade.sql") == [
        "REVOKE EXECUTE ON FUNCTION ledger._file_slug(text) FROM ledger_admin, ledger_reader;",
        "GRANT EXECUTE ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) TO ledger_writer;",
        "GRANT INSERT (reason) ON TABLE ledger.retired_session TO ledger_agent;",
    ]
    assert _tool(project, "--check").returncode == 0

    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")
    assert_same_schema(_installed(ledger_database_factory, project / "sql"), dsn, "grants changed")
    _migrate(dsn, project, "-1", down=True)
    assert_same_schema(ledger_database_factory(), dsn, "grants changed, then undone")


def _git(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], input=stdin, capture_output=True, text=True)


def _unfold(project: Path, prefix: str) -> None:
    """Give the copy back the revisions a release folded, from the fold's
    archive (migrations/replaced/): the fold and every revision after it
    removed, the archived ones unpacked in their place, the archive and its
    manifest removed."""
    from findings_ledger import folds

    versions = project / "migrations" / "versions"
    (fold,) = [f for f in folds.folds(project / "migrations") if any(r.startswith(prefix) for r in f.replaced)]
    for module in versions.glob("*.py"):
        if module.stem >= fold.fold:
            module.unlink()
            shutil.rmtree(module.with_suffix(""), ignore_errors=True)
    with tarfile.open(fold.archive, "r:xz") as archive:
        folds.extract_archive(archive, versions)
    fold.archive.unlink()  # the copy is the repository before the release: no fold to stamp forward to
    fold.archive.with_suffix("").with_suffix(".json").unlink()


def _at_0033(project: Path) -> str:
    """Turn the copy into the repository as it was at the revision numbered
    0033 (one release 0.2.0 folded: :func:`_unfold` gives the copy the
    archived revisions back when it is not shipped): the revisions after it
    removed, and sql/ as it was in the commit that added 0033 (read from
    git: sql/ has moved on in ways no downgrade file shows, new tables and
    triggers among them). Returns 0033's id; skipped only in a shallow clone
    without that commit."""
    versions = project / "migrations" / "versions"
    if not any(versions.glob("0033_*")):
        _unfold(project, "0033_")
    (base,) = (p.name for p in versions.glob("0033_*") if p.is_dir())
    commit = _git("log", "--format=%H", "--diff-filter=A", "--", f"migrations/versions/{base}.py").stdout.split()
    if not commit:
        assert _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true", f"no commit added {base}"
        pytest.skip(f"a shallow clone without the commit that added {base}")
    names = _git("ls-tree", "-r", "--name-only", commit[-1], "sql").stdout.split()
    shutil.rmtree(project / "sql")
    for name in names:
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_git("show", f"{commit[-1]}:{name}").stdout)
    later = sorted(p for p in versions.iterdir() if p.is_dir() and p.name > base and p.name != "__pycache__")
    for rev_dir in later:
        shutil.rmtree(rev_dir)
        rev_dir.with_suffix(".py").unlink()
    return base


def test_search_path_in_many_functions_is_one_alter_line_each(
    project: Path, tmp_path: Path, ledger_database_factory: Callable[..., str]
) -> None:
    """The archived revision 0034 of release 0.2.0 again, as the tool writes it now: `SET search_path =
    pg_catalog` made `pg_catalog, pg_temp` in every function that pinned it
    is one ALTER FUNCTION line per function, up and down, and each end builds
    what install.sql builds."""
    base = _at_0033(project)
    present = {p.name for p in (project / "migrations" / "versions").iterdir()}  # archived ones among them
    assert _tool(project, "--check").returncode == 0, "the copy is not at 0033"
    before = tmp_path / "sql_0033"
    shutil.copytree(project / "sql", before)
    changed = []
    for path in sorted((project / "sql" / "functions").glob("*.sql")):
        text = path.read_text()
        if re.search(r"^SET search_path = pg_catalog$", text, re.MULTILINE):
            path.write_text(re.sub(r"^SET search_path = pg_catalog$", "SET search_path = pg_catalog, pg_temp", text,
                                   flags=re.MULTILINE))
            changed.append(path.stem)
    assert len(changed) > 50
    proc = _tool(project, "pg_temp last")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (rev_dir,) = [p for p in _written(project) if p.name not in present]
    # the evidence index calls functions whose settings changed: rebuilt, as their results could change
    assert _files(rev_dir) == ["concurrently.sql", "downgrade.sql", "downgrade_concurrently.sql", "upgrade.sql"]
    assert _body(rev_dir, "concurrently.sql") == ["REINDEX INDEX CONCURRENTLY ledger.finding_active_evidence_idx;"]
    up, down = _body(rev_dir, "upgrade.sql"), _body(rev_dir, "downgrade.sql")
    assert len(up) == len(changed)
    assert all(re.fullmatch(r"ALTER FUNCTION ledger\.\w+\(.*\) SET search_path = pg_catalog, pg_temp;", line)
               for line in up), up
    assert {line.split("(")[0].split(".")[1] for line in up} == set(changed)
    assert all(line.endswith(") SET search_path = pg_catalog;") for line in down) and len(down) == len(changed)
    assert _tool(project, "--check").returncode == 0
    # offline too: alembic's --sql script carries the same lines
    buffer = io.StringIO()
    cfg = ini_config(buffer)
    cfg.set_main_option("script_location", str(project / "migrations"))
    command.upgrade(cfg, f"{base}:head", sql=True)
    assert [line for line in buffer.getvalue().splitlines() if line.startswith("ALTER FUNCTION")] == up

    dsn = ledger_database_factory(migrated=False)
    _migrate(dsn, project, base)  # the copy's revisions, up to 0033
    _migrate(dsn, project, "head")  # the copy's new revision
    assert_same_schema(_installed(ledger_database_factory, project / "sql"), dsn, "search_path as ALTER lines")
    _migrate(dsn, project, base, down=True)
    assert_same_schema(_installed(ledger_database_factory, before), dsn, "search_path ALTER lines undone")


def test_a_new_table_with_its_index_trigger_policy_comments_and_grants_comes_and_goes(
    project: Path, ledger_database_factory: Callable[..., str]
) -> None:
    sql = project / "sql"
    (sql / "notes").mkdir()
    (sql / "notes" / "note.sql").write_text(
        "-- ledger.note: a note per scope.\n"
        "CREATE TABLE ledger.note (\n    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n"
        "    scope text NOT NULL,\n    body text\n);\n"
        "CREATE INDEX note_scope_idx ON ledger.note (scope);\n"
        "COMMENT ON TABLE ledger.note IS 'Notes.';\n"
        "COMMENT ON COLUMN ledger.note.body IS 'The note.';\n"
        "COMMENT ON INDEX ledger.note_scope_idx IS 'By scope.';\n")
    (sql / "notes" / "scope_access.sql").write_text(
        "DROP TRIGGER IF EXISTS _050_scope_access ON ledger.note;\n"
        "CREATE TRIGGER _050_scope_access\n    BEFORE INSERT OR UPDATE OF scope ON ledger.note\n"
        "    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scoped__check_access();\n"
        "COMMENT ON TRIGGER _050_scope_access ON ledger.note IS 'LD401 outside ledger.scopes.';\n")
    _edit(sql / "install.sql", "\\ir checks/tables/recheck_request.sql\n",
          "\\ir checks/tables/recheck_request.sql\n\\ir notes/note.sql\n")
    _edit(sql / "install.sql", "\\ir access/policies.sql\n", "\\ir notes/scope_access.sql\n\\ir access/policies.sql\n")
    (sql / "access" / "policies.sql").write_text((sql / "access" / "policies.sql").read_text()
                                      + "CREATE POLICY scope_isolation ON ledger.note\n"
                                        "    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]));\n")
    (sql / "access" / "privileges.sql").write_text((sql / "access" / "privileges.sql").read_text()
                                        + "GRANT SELECT, INSERT (scope, body) ON ledger.note TO ledger_writer;\n")
    proc = _tool(project, "notes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (rev_dir,) = _written(project)
    assert _files(rev_dir) == ["downgrade.sql", "policies/note__scope_isolation.sql", "tables/note.sql",
                               "triggers/note___050_scope_access.sql", "upgrade.sql"]
    assert _body(rev_dir, "upgrade.sql") == [
        "\\ir tables/note.sql",
        "\\ir triggers/note___050_scope_access.sql",
        "\\ir policies/note__scope_isolation.sql",
        "GRANT INSERT (body, scope) ON TABLE ledger.note TO ledger_writer;",
        "GRANT SELECT ON TABLE ledger.note TO ledger_writer;",
    ]
    assert _body(rev_dir, "downgrade.sql") == [
        "DROP POLICY scope_isolation ON ledger.note;",
        "DROP TRIGGER _050_scope_access ON ledger.note;",
        "DROP TABLE ledger.note;",
    ]
    assert "CREATE INDEX note_scope_idx" in (rev_dir / "tables" / "note.sql").read_text()  # an empty table's index
    assert _tool(project, "--check").returncode == 0

    dsn = ledger_database_factory()  # the repository's head, cloned
    _migrate(dsn, project, "head")
    assert_same_schema(_installed(ledger_database_factory, sql), dsn, "a new table")
    _migrate(dsn, project, "-1", down=True)
    assert_same_schema(ledger_database_factory(), dsn, "a new table, then undone")


def test_a_changed_policy_and_do_block_and_a_removed_table(project: Path) -> None:
    """A changed policy is dropped and created again; the roles' DO block is
    run again (the earlier one on the way back); a removed table is a TODO
    block, and nothing the revision writes names the table after it."""
    sql = project / "sql"
    _edit(sql / "access" / "policies.sql", "CREATE POLICY scope_isolation ON ledger.scope\n"
                                "    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))",
          "CREATE POLICY scope_isolation ON ledger.scope\n"
          "    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]) AND scope <> '')")
    _edit(sql / "access" / "roles.sql", "'findings-ledger: read active findings",
          "'findings-ledger: reads active findings")
    proc = _tool(project, "policy and roles")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (rev_dir,) = _written(project)
    assert _files(rev_dir) == ["downgrade.sql", "other/do_roles.sql", "policies/scope__scope_isolation.sql",
                               "upgrade.sql"]
    assert _body(rev_dir, "upgrade.sql") == ["DROP POLICY scope_isolation ON ledger.scope;",
                                             "\\ir other/do_roles.sql", "\\ir policies/scope__scope_isolation.sql"]
    downgrade = _body(rev_dir, "downgrade.sql")
    assert downgrade[:3] == ["DROP POLICY scope_isolation ON ledger.scope;", "\\ir ../0001_baseline/roles.sql",
                             "CREATE POLICY scope_isolation ON ledger.scope"]  # policies.sql holds ten: written out
    assert _tool(project, "--check").returncode == 0

    _edit(sql / "install.sql", "\\ir claims/tables/retired_session.sql\n", "")
    (sql / "claims" / "tables" / "retired_session.sql").unlink()
    privileges = sql / "access" / "privileges.sql"
    privileges.write_text("\n".join(line for line in privileges.read_text().replace(
        ", ledger.retired_session", "").replace("ledger.retired_session, ", "").splitlines()
        if "ON ledger.retired_session TO" not in line) + "\n")
    proc = _tool(project, "no retired sessions")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    _, rev_dir = _written(project)
    upgrade = (rev_dir / "upgrade.sql").read_text()
    assert "-- TODO(new_revision): table ledger.retired_session: removed; write what drops it" in upgrade
    assert [line for line in _body(rev_dir, "upgrade.sql")
            if "retired_session" in line and not line.startswith("--")] == []
    assert "\\ir ../0001_baseline/tables/retired_session.sql" in (rev_dir / "downgrade.sql").read_text()
