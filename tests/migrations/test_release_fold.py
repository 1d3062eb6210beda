"""``make release`` (tools/release.py) and databases at the revisions a
release folded away (findings_ledger.folds).

The tool runs in a scratch ``git clone`` of this repository's HEAD, never
here. Its refusals: uncommitted changes, sql/ ahead of the revisions, and
a fold that would build another catalog than the chain it replaces, named
by the object. The whole fold: a clone with one unreleased revision of its
own (a probe table), so there is always something to fold, whether or not
this repository's chain was folded already.

The migration from replaced revisions uses this repository's newest fold
when it ships one (migrations/replaced/), else the scratch clone's fold of
the unreleased chain: from its oldest, a middle and its newest replaced
revision, with rows in every table of the last release (and what the
revisions up to it derive), ``findings-ledger migrate`` keeps every row and
ends at the catalog of a fresh install; ``alembic upgrade`` refuses with
one line; a database at the newest replaced revision whose catalog differs
is refused naming the object; a downgrade below the release names what it
would drop (LD501)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from test_populated_upgrade import FINDINGS, HISTORICAL_MERGES, LIVE_MERGES, SCOPES, TABLE_COLUMNS, _checksums

from findings_ledger import folds
from findings_ledger.testing import databases

ROOT = Path(__file__).resolve().parents[2]
PROBE = """-- ledger.release_probe: a table of the release tests' scratch clone (tests/migrations/test_release_fold.py).
CREATE TABLE ledger.release_probe (
    id   bigint GENERATED ALWAYS AS IDENTITY,
    note text NOT NULL,
    CONSTRAINT release_probe_pkey PRIMARY KEY (id)
);

COMMENT ON TABLE ledger.release_probe IS
'A probe: the unreleased change the release tests fold.';
"""
SIZES = {":historical": "300", ":findings": "400", ":live": "60"}
#: rows in the last release's other tables (scope, merge, finding and supersession come from the load)
OTHER_ROWS = """
INSERT INTO ledger.issue (scope, title) SELECT 'repo-' || (n % 20), 'issue ' || n FROM generate_series(1, 30) n;
INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id)
SELECT id, 'agent-' || (id % 3), 'runtime-' || id FROM ledger.issue;
INSERT INTO ledger.injection (session_id, finding_id)
SELECT 'session-' || (id % 7), id FROM ledger.finding WHERE id <= 50;
INSERT INTO ledger.retired_session (session_id, reason) VALUES ('session-1', 'rotated'), ('session-2', 'expired');
"""


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _clone(dest: Path) -> Path:
    """A scratch clone of this repository's HEAD on a branch of its own."""
    head = _git(ROOT, "rev-parse", "HEAD").strip()
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(dest)], check=True)
    _git(dest, "checkout", "--quiet", "-b", "release-test", head)
    _git(dest, "config", "user.email", "release-test@example.invalid")
    _git(dest, "config", "user.name", "release test")
    return dest


def _tool(clone: Path, server: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEDGER_DSN": server, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, str(clone / "tools" / "release.py"), *args], cwd=clone, env=env,
                          capture_output=True, text=True)


def _next_version(clone: Path) -> str:
    current = re.search(r'(?m)^version = "(\d+)\.(\d+)\.(\d+)"$', (clone / "pyproject.toml").read_text())
    assert current
    return f"{current[1]}.{int(current[2]) + 1}.0"


def _add_probe(clone: Path, extra_upgrade: str = "") -> str:
    """One unreleased revision in the clone: a new table (and ``extra_upgrade``
    written by hand into its upgrade.sql), committed. Returns its id."""
    (clone / "sql" / "zz_release_probe.sql").write_text(PROBE)
    with (clone / "sql" / "install.sql").open("a") as install:
        install.write("\\ir zz_release_probe.sql\n")
    done = subprocess.run([sys.executable, str(clone / "tools" / "new_revision.py"), "probe for release"], cwd=clone,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (rev,) = [p.stem for p in (clone / "migrations" / "versions").glob("*_probe_for_release.py")]
    if extra_upgrade:
        with (clone / "migrations" / "versions" / rev / "upgrade.sql").open("a") as upgrade:
            upgrade.write(extra_upgrade)
    _git(clone, "add", "-A")
    _git(clone, "commit", "--quiet", "-m", "release probe")
    return rev


def _server(ledger_server: dict[str, Any]) -> str:
    return make_conninfo(**{k: v for k, v in ledger_server.items() if v is not None})


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, (done.returncode, done.stderr[-3000:])
    return lines[0]


# ---------------------------------------------------------------------------
# The tool's refusals


def test_uncommitted_changes_are_refused(tmp_path: Path, ledger_server: dict[str, Any]) -> None:
    clone = _clone(tmp_path / "clone")
    (clone / "README.md").write_text((clone / "README.md").read_text() + "\nan edit\n")
    tags = _git(clone, "tag", "--list")
    line = _one_line(_tool(clone, _server(ledger_server), _next_version(clone), "--no-build"))
    assert line.startswith("release: the work tree has uncommitted changes (1: M README.md)"), line
    assert _git(clone, "tag", "--list") == tags and "README.md" in _git(clone, "status", "--porcelain")


def test_sql_ahead_of_the_revisions_is_refused(tmp_path: Path, ledger_server: dict[str, Any]) -> None:
    clone = _clone(tmp_path / "clone")
    (clone / "sql" / "zz_release_probe.sql").write_text(PROBE)
    with (clone / "sql" / "install.sql").open("a") as install:
        install.write("\\ir zz_release_probe.sql\n")
    _git(clone, "add", "-A")
    _git(clone, "commit", "--quiet", "-m", "a table without its revision")
    head = _git(clone, "rev-parse", "HEAD")
    line = _one_line(_tool(clone, _server(ledger_server), _next_version(clone), "--no-build"))
    assert line.startswith("release: sql/ differs from what head's revisions build (new: table ledger.release_probe"), \
        line
    assert line.endswith("run make revision first")
    assert _git(clone, "rev-parse", "HEAD") == head and _git(clone, "status", "--porcelain") == ""


def test_a_fold_that_would_change_the_catalog_is_refused_naming_the_object(
        tmp_path: Path, ledger_server: dict[str, Any]) -> None:
    """A default set by hand on a table the fold creates whole: the chain has
    it, the fold's CREATE TABLE (sql/'s) does not."""
    clone = _clone(tmp_path / "clone")
    _add_probe(clone, "ALTER TABLE ledger.release_probe ALTER COLUMN note SET DEFAULT 'by hand';\n")
    head, tags = _git(clone, "rev-parse", "HEAD"), _git(clone, "tag", "--list")
    line = _one_line(_tool(clone, _server(ledger_server), _next_version(clone), "--no-build"))
    assert line == ("release: the fold would change the catalog of a database at the replaced revisions: "
                    "column ledger.release_probe.note (differs)"), line
    assert _git(clone, "rev-parse", "HEAD") == head and _git(clone, "tag", "--list") == tags


# ---------------------------------------------------------------------------
# The whole fold, and databases at replaced revisions


@pytest.fixture(scope="module")
def folded(tmp_path_factory: pytest.TempPathFactory, ledger_server: dict[str, Any]) -> tuple[Path, folds.Fold]:
    """(project, fold): this repository and its newest fold when it ships one,
    else a scratch clone whose unreleased chain the tool folded."""
    shipped = folds.folds(ROOT / "migrations")
    if shipped:
        return ROOT, shipped[-1]
    clone = _clone(tmp_path_factory.mktemp("release") / "clone")
    _add_probe(clone)
    done = _tool(clone, _server(ledger_server), _next_version(clone), "--no-build")
    assert done.returncode == 0, done.stderr[-3000:]
    return clone, folds.folds(clone / "migrations")[-1]


def test_the_whole_fold_in_a_scratch_clone(tmp_path: Path, ledger_server: dict[str, Any]) -> None:
    clone = _clone(tmp_path / "clone")
    before = [p.stem for p in sorted((clone / "migrations" / "versions").glob("*.py"))]
    probe = _add_probe(clone)
    version, tags = _next_version(clone), _git(clone, "tag", "--list").split()
    done = _tool(clone, _server(ledger_server), version, "--no-build")
    assert done.returncode == 0, done.stderr[-3000:]
    (fold,) = [f for f in folds.folds(clone / "migrations") if f.version == version]
    released = [rev for rev in before if rev == before[0] or re.match(r"\d{4}_release_\d+_\d+_\d+$", rev)]
    assert fold.start == released[-1]
    assert fold.replaced == (*before[before.index(released[-1]) + 1:], probe)
    assert sorted(p.stem for p in (clone / "migrations" / "versions").glob("*.py")) == [*released, fold.fold]
    assert fold.fold == f"{len(released) + 1:04d}_release_{version.replace('.', '_')}"
    with tarfile.open(fold.archive) as archive:
        names = set(archive.getnames())
    assert {f"{rev}.py" for rev in fold.replaced} <= names
    assert {f"{rev}/upgrade.sql" for rev in fold.replaced} <= names
    # the pins: every released revision's files, the fold's, the archive; each as it is
    pins = dict(reversed(line.split("  ", 1)) for line in
                (clone / "migrations" / "released.sha256").read_text().splitlines())
    import hashlib

    assert all(hashlib.sha256((clone / "migrations" / p).read_bytes()).hexdigest() == d for p, d in pins.items())
    assert {p.split("/")[1].removesuffix(".py") for p in pins if p.startswith("versions/")
            and p.count("/") == 1} == {*released, fold.fold}
    assert f"replaced/{version}.tar.xz" in pins
    # (the size of what the wheel carries of migrations/ is tests/tooling/test_release.py's: this clone
    # holds one release more than the repository, a probe's)
    assert f'version = "{version}"' in (clone / "pyproject.toml").read_text()
    changelog = (clone / "CHANGELOG.md").read_text()
    assert re.search(rf"(?m)^## {re.escape(version)} - \d{{4}}-\d\d-\d\d$", changelog)
    assert "## Unreleased" not in changelog
    assert _git(clone, "tag", "--list").split() == sorted([*tags, f"v{version}"])
    assert _git(clone, "status", "--porcelain") == ""
    assert _git(clone, "log", "-1", "--format=%s").startswith(f"release {version}: ")


def _load_release_rows(dsn: str) -> None:
    """Rows in every table of the last release (the load of test_populated_upgrade, smaller)."""
    def sized(query: str) -> str:
        for key, value in SIZES.items():
            query = query.replace(key, value)
        return query

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCOPES)
        conn.execute("ALTER TABLE ledger.merge DISABLE TRIGGER USER")
        conn.execute(sized(HISTORICAL_MERGES))
        conn.execute("ALTER TABLE ledger.merge ENABLE TRIGGER USER")
        conn.execute(sized(FINDINGS))
        conn.execute(sized(LIVE_MERGES))
        conn.execute(OTHER_ROWS)
        names = conn.execute("SELECT relname FROM pg_class WHERE relnamespace = 'ledger'::regnamespace "
                             "AND relkind = 'r' AND relname <> 'alembic_version'").fetchall()
        counts = {n: conn.execute(f"SELECT count(*) FROM ledger.{n}").fetchone()[0] for (n,) in names}
    assert all(counts.values()), counts


def _project_python(project: Path, code: str, dsn: str) -> subprocess.CompletedProcess[str]:
    """``code`` run with the project's own findings_ledger (its migrations)."""
    env = {**os.environ, "PYTHONPATH": str(project / "pyapi"), "PYTHONDONTWRITEBYTECODE": "1", "DSN": dsn}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=project)


MIGRATE = "import os, findings_ledger; findings_ledger.migrate(os.environ['DSN'])"


def _at(dsn: str, fold: folds.Fold, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    with folds.archived_chain(fold) as chain:
        cfg = Config()
        cfg.set_main_option("script_location", str(chain))
        cfg.attributes["dsn"] = dsn
        cfg.attributes["ledger_replaced_chain"] = True
        command.upgrade(cfg, fold.start)
        _load_release_rows(dsn)
        command.upgrade(cfg, revision)


@pytest.fixture(scope="module")
def at_replaced(folded: tuple[Path, folds.Fold], ledger_server: dict[str, Any]) -> Iterator[Callable[[str], str]]:
    """A function ``revision -> dsn``: a new database at replaced ``revision``
    holding the last release's rows (:func:`_at`), a clone of a template this
    module builds once per revision (the walk through the archived chain
    takes seconds). The test kit's databases (janitor, owner mark), dropped
    at the module's end."""
    _, fold = folded
    templates: dict[str, str] = {}
    with contextlib.ExitStack() as stack:

        def at(revision: str) -> str:
            if revision not in templates:
                name = databases.unique_name("release_fold_at")
                stack.enter_context(databases.janitor(ledger_server, name, as_template=True))
                databases.mark_owner(ledger_server, name)
                _at(databases.database_dsn(ledger_server, name), fold, revision)
                templates[revision] = name
            return stack.enter_context(contextlib.contextmanager(databases.fresh_database)(
                ledger_server, templates[revision]))

        yield at


#: values for the required columns of a table the last release does not have (rows written at a replaced
#: revision): the first finding and merge of one scope
LATE_VALUES = {
    "scope": "'repo-1'",
    "finding_id": "(SELECT min(id) FROM ledger.finding WHERE scope = 'repo-1')",
    "merge_id": "(SELECT min(id) FROM ledger.merge WHERE scope = 'repo-1')",
    "paths": "ARRAY['src/late.py']",
    "note": "'a row written at a replaced revision'",
}


def _fill_empty_tables(dsn: str) -> None:
    """A row in each table still empty (the tables revisions after the last
    release added), from :data:`LATE_VALUES`; every table then holds rows."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for table, n in _counts(dsn).items():
            if n:
                continue
            required = [c for (c,) in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = 'ledger' "
                "AND table_name = %s AND is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO' "
                "ORDER BY ordinal_position", (table,))]
            conn.execute(f"INSERT INTO ledger.{table} ({', '.join(required)}) "
                         f"VALUES ({', '.join(LATE_VALUES[c] for c in required)})")
    assert all(_counts(dsn).values()), _counts(dsn)


def _counts(dsn: str) -> dict[str, int]:
    with psycopg.connect(dsn) as conn:
        names = conn.execute("SELECT relname FROM pg_class WHERE relnamespace = 'ledger'::regnamespace "
                             "AND relkind = 'r' AND relname <> 'alembic_version'").fetchall()
        return {n: conn.execute(f"SELECT count(*) FROM ledger.{n}").fetchone()[0] for (n,) in names}


def _version(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return [r for (r,) in conn.execute("SELECT version_num FROM ledger.alembic_version")]


@pytest.mark.parametrize("which", ["oldest", "middle", "newest"])
def test_migrate_from_a_replaced_revision_keeps_every_row(
        which: str, folded: tuple[Path, folds.Fold], ledger_database_factory: Callable[..., str],
        at_replaced: Callable[[str], str]) -> None:
    project, fold = folded
    revision = {"oldest": fold.replaced[0], "middle": fold.replaced[len(fold.replaced) // 2],
                "newest": fold.newest}[which]
    dsn = at_replaced(revision)
    assert _version(dsn) == [revision]
    _fill_empty_tables(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        tables = [(t, cols, pk) for t, cols, pk in conn.execute(TABLE_COLUMNS).fetchall()]
        rows_before = _checksums(conn, tables)
    counts_before = _counts(dsn)

    # alembic's own upgrade refuses, changing nothing
    alembic = subprocess.run(
        [sys.executable, "-m", "alembic", "-c", str(project / "alembic.ini"), "-x", f"dsn={dsn}", "upgrade", "head"],
        env={**os.environ, "PYTHONPATH": str(project / "pyapi"), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True, text=True, cwd=project)
    assert alembic.returncode == 1
    assert alembic.stderr.strip().splitlines()[-1] == (
        f"findings-ledger migrations: {folds.replaced_message(revision, fold)}"), alembic.stderr[-2000:]
    assert _version(dsn) == [revision]

    done = _project_python(project, MIGRATE, dsn)
    assert done.returncode == 0, done.stderr[-3000:]
    fresh = ledger_database_factory(migrated=False)
    assert _project_python(project, MIGRATE, fresh).returncode == 0
    assert _version(dsn) == _version(fresh)
    with psycopg.connect(dsn) as a, psycopg.connect(fresh) as b:
        assert folds.difference(folds.catalog(b), folds.catalog(a)) is None
        assert _checksums(a, tables) == rows_before
    after = _counts(dsn)
    assert {t: n for t, n in after.items() if t in counts_before} == counts_before
    print(f"{revision}: {sum(counts_before.values())} rows in {len(counts_before)} tables, all kept: {after}")


def _view_changed_by_hand(conn: psycopg.Connection[Any]) -> None:
    definition = conn.execute("SELECT pg_get_viewdef('ledger.active_finding'::regclass)").fetchone()
    assert definition is not None
    conn.execute(f"CREATE OR REPLACE VIEW ledger.active_finding AS {definition[0].rstrip().rstrip(';')} "
                 "AND f.id > 0".encode())


@pytest.mark.parametrize(("change", "named"), [
    (lambda conn: conn.execute("COMMENT ON TABLE ledger.retired_session IS 'changed by hand'"),
     "relation ledger.retired_session"),
    # a view is compared by definition, not by the deparsed text the manifest holds (another major prints it
    # differently): one whose query was changed by hand is still refused
    (_view_changed_by_hand, "relation ledger.active_finding"),
], ids=["comment", "view"])
def test_a_database_at_the_newest_replaced_revision_with_another_catalog_is_refused(
        folded: tuple[Path, folds.Fold], at_replaced: Callable[[str], str],
        change: Callable[[psycopg.Connection[Any]], Any], named: str) -> None:
    project, fold = folded
    dsn = at_replaced(fold.newest)
    with psycopg.connect(dsn, autocommit=True) as conn:
        change(conn)
    done = _project_python(project, MIGRATE, dsn)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"findings_ledger.folds.FoldRefused: the database at {fold.newest} differs from release {fold.version}'s "
        f"folded state at {named} (differs): nothing was stamped "
        "(docs/dba.md, \"Releases and folded revisions\")")
    assert _version(dsn) == [fold.newest]


def test_a_view_is_compared_by_definition_when_the_manifest_deparsed_it_otherwise(
        folded: tuple[Path, folds.Fold], at_replaced: Callable[[str], str]) -> None:
    """The manifest's digest of a view is of ``pg_get_viewdef`` on the release's major; another major prints
    the same view otherwise (PostgreSQL 18 does for both views). Here the manifest's digests of the views are
    made unlike this server's: the views still equal the fold's definitions and the database is stamped; a
    table's digest made unlike is refused."""
    import dataclasses

    _, fold = folded
    views = {f"relation ledger.{name}": "deparsed elsewhere" for name in ("active_finding", "finding_lifecycle")}
    for catalog, refused in ((views, None), ({"relation ledger.retired_session": "deparsed elsewhere"},
                                             "relation ledger.retired_session (differs)")):
        dsn = at_replaced(fold.newest)
        other = dataclasses.replace(fold, catalog={**fold.catalog, **catalog})
        with psycopg.connect(dsn) as conn:
            if refused:
                with pytest.raises(folds.FoldRefused, match=re.escape(refused)):
                    folds.check_and_stamp(conn, other)
            else:
                folds.check_and_stamp(conn, other)
                definitions = conn.execute("SELECT pg_get_viewdef('ledger.active_finding'::regclass)").fetchone()
                conn.commit()
        assert _version(dsn) == [fold.newest if refused else fold.fold]
        if not refused:
            with psycopg.connect(dsn) as conn:  # the savepoint's CREATE OR REPLACE VIEW left nothing behind
                now = conn.execute("SELECT pg_get_viewdef('ledger.active_finding'::regclass)").fetchone()
                assert now == definitions


def test_a_downgrade_below_the_release_names_what_it_would_drop(
        folded: tuple[Path, folds.Fold], at_replaced: Callable[[str], str]) -> None:
    project, fold = folded
    dsn = at_replaced(fold.replaced[0])
    assert _project_python(project, MIGRATE, dsn).returncode == 0
    manifest = json.loads(fold.archive.with_suffix("").with_suffix(".json").read_text())
    assert manifest["fold"] == fold.fold
    code = ("import os, findings_ledger; "
            f"findings_ledger.downgrade(os.environ['DSN'], {fold.start!r})")
    done = _project_python(project, code, dsn)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert f"downgrade of {fold.fold} would drop data (" in last, last
    assert "ledger.agent_task.scope: 30" in last, last
    assert _version(dsn) != [fold.start]


def test_a_database_at_a_replaced_revision_is_behind_and_two_concurrent_migrates_both_bring_it_to_head(
        folded: tuple[Path, folds.Fold], at_replaced: Callable[[str], str]) -> None:
    """A database at a revision the fold replaced is behind: the CLI's verbs refuse it with one line saying to
    migrate, :func:`findings_ledger.api.schema_behind` says so, and a missing ledger function is
    :class:`~findings_ledger.SchemaBehind`. Two ``migrate`` runs started together both succeed (the second
    finds the version at the fold once it holds the migration lock) and leave it at head."""
    import findings_ledger as fl
    from findings_ledger import api

    project, fold = folded
    if project != ROOT:
        pytest.fail("this repository ships no fold")  # the behind check reads this findings-ledger's folds
    revision = fold.replaced[len(fold.replaced) // 2]
    dsn = at_replaced(revision)
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert api.schema_behind(conn) == f"at {revision}, behind this findings-ledger's {fl.head_revision()}"
    cli = str(Path(sys.executable).with_name("findings-ledger"))
    run = subprocess.run([cli, "active", "s", "--dsn", dsn], capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.strip().startswith("error: the ledger schema of database ") and run.stderr.strip().endswith(
        f"is at {revision}, behind this findings-ledger's {fl.head_revision()}: run `findings-ledger migrate` "
        "with the same --dsn"), run.stderr
    with psycopg.connect(dsn) as conn:
        conn.execute("DROP FUNCTION IF EXISTS ledger.active_findings")  # rolled back below
        with pytest.raises(fl.SchemaBehind) as info:
            fl.active_findings(conn, "s")
        assert info.value.sqlstate == "LD502"
        assert str(info.value).startswith("the database's ledger schema is behind this findings-ledger ("), info.value
        conn.rollback()

    both = [subprocess.Popen([sys.executable, "-c", MIGRATE], env={**os.environ, "PYTHONPATH": str(project / "pyapi"),
                                                                   "PYTHONDONTWRITEBYTECODE": "1", "DSN": dsn},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=project)
            for _ in range(2)]
    for proc in both:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
    assert _version(dsn) == [fl.head_revision()]
