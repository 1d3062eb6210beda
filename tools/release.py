"""Release findings-ledger: fold the unreleased revisions into one and ship it.

    .venv/bin/python tools/release.py 0.2.0          # or: make release V=0.2.0
    .venv/bin/python tools/release.py 0.2.0 --no-build   # everything but the wheel, sdist and their install

The rule: a released revision never changes; at a release, the revisions
landed since the previous release fold into one. The released revisions are
the baseline (``0001_baseline``) and every earlier fold (``NNNN_release_X_Y_Z``);
the unreleased ones are those after the newest of them.

Refused with one line (exit 1), nothing changed:

* the work tree has uncommitted changes (``git status --porcelain``);
* sql/ differs from what head's revisions build (the revision tool's
  check, ``tools/new_revision.py --check``: run ``make revision`` first);
* the version is not X.Y.Z, not above pyproject.toml's, or its tag exists;
* nothing to fold;
* the fold would build another catalog than the old chain: fresh
  databases, the released revisions plus the fold against the released
  revisions plus the old chain, and one with ``sql/install.sql``,
  compared object by object (:func:`findings_ledger.folds.catalog`); the
  line names the first object that differs;
* the fold's downgrade does not give back the released catalog.

Removed indexes are dropped in the fold's transaction (a removed function
an index is over is dropped after it) and built again by its downgrade,
not CONCURRENTLY. The fold's row goes into docs/dba.md's table and into
``EXPECTED`` of tests/migrations/test_revision_locks.py, its locks measured
the way that test measures them; the replaced revisions' rows go.

The fold (``NNNN_release_X_Y_Z``, down_revision the last released one) is
planned by the revision tool (``tools/new_revision.py``) from the last
released state to sql/, so it holds each object's end definition once. What
a catalog cannot show is carried from the replaced revisions, in their
order: their hand-written table steps (``ALTER TABLE`` on tables the last
release has, ``DROP TABLE``, ``UPDATE``/``INSERT``/``DELETE`` backfills,
``DO`` blocks) take the place of the plan's ``-- TODO(new_revision)``
blocks, after the new tables and before the functions, and their downgrade
steps, newest first, in the downgrade. Its ``downgrade_guard.sql`` refuses
(LD501) a downgrade below the release while a table the release adds holds
rows or a column it adds holds a value other than NULL or its default,
naming each with its count; its ``upgrade.sql`` opens with the LD502
revision guard like every revision's.

The replaced revisions go, frozen, into ``migrations/replaced/X.Y.Z.tar.xz``
with ``X.Y.Z.json`` (the fold, the ids, the folded catalog), which
:mod:`findings_ledger.folds` reads to bring a database at a replaced
revision to the fold. Then: ``released.sha256`` pins the released
revisions, the fold and the archive; the version goes into pyproject.toml
(and ``__version__`` where the package has one); CHANGELOG.md's
``## Unreleased`` becomes ``## X.Y.Z - <date>``; the release is one commit
tagged ``vX.Y.Z``; ``python -m build`` makes the sdist and wheel, and the
wheel is installed with its ``cli`` extra into a fresh virtual environment
outside the clone, where ``findings-ledger --version`` and
``findings-ledger migrate`` against a throwaway database must work.

Databases: ``LEDGER_DSN`` names the server (any database on it; the tool
creates and drops its own), else the throwaway cluster on LEDGER_PGPORT.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "pyapi"))
sys.path.insert(0, str(ROOT / "tools"))

import new_revision as nr  # noqa: E402

RELEASE = re.compile(r"^\d{4}_release_\d+_\d+_\d+$")
VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
_TABLE_STEPS = {"AlterTableStmt", "UpdateStmt", "InsertStmt", "DeleteStmt", "DoStmt", "RenameStmt"}


class ReleaseError(SystemExit):
    """A one-line refusal."""

    def __init__(self, message: str) -> None:
        super().__init__(f"release: {message}")


def git(*args: str, cwd: Path = ROOT, check: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and done.returncode:
        raise ReleaseError(f"git {' '.join(args)}: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    return done.stdout


def released_index(revs: list[nr.Revision]) -> int:
    """The index of the newest released revision (the baseline or a fold)."""
    marks = [i for i, rev in enumerate(revs) if i == 0 or RELEASE.match(rev.rev)]
    return marks[-1]


# ---------------------------------------------------------------------------
# What the replaced revisions did by hand


def _target(node: object) -> str | None:
    relation = getattr(node, "relation", None)
    if relation is None:
        return None
    return nr._relation(relation)


def carried_steps(revs: list[nr.Revision], script: str, new_tables: set[str]) -> list[str]:
    """The statements the replaced revisions' ``script`` (upgrade.sql or
    downgrade.sql) hold written by hand that no catalog shows: table steps
    and data steps, in the order given. ALTER TABLE on a table the fold
    creates whole is left out (its CREATE TABLE is the end state), and so is
    a data step on such a table, but for a backfill into it (an INSERT in an
    upgrade) and the steps on it after one."""
    out: list[str] = []
    filled: set[str] = set()
    for rev in revs:
        path = rev.directory / script
        if not path.exists():
            continue
        versions = rev.directory.parent
        for st in nr.script_statements(path, versions, versions):
            if st.source is not None:
                continue
            kind = type(st.node).__name__
            if kind == "DoStmt" and f"${_guard_tag()}$" in st.text:
                continue
            if kind == "DropStmt" and str(st.node.removeType).endswith("OBJECT_TABLE"):
                names = {".".join(p.sval for p in obj) for obj in st.node.objects}
                if names & new_tables:
                    continue
                out.append(st.text)
                continue
            if kind not in _TABLE_STEPS:
                continue
            target = _target(st.node)
            if target in new_tables:
                # created whole by the fold (empty on a database at the last release), or dropped whole
                # by its downgrade: only a backfill into it, and what follows one, is carried
                if kind == "InsertStmt" and script == "upgrade.sql":
                    filled.add(target)
                elif kind == "AlterTableStmt" or target not in filled:
                    continue
            out.append(st.text)
    return out


def _guard_tag() -> str:
    from findings_ledger.migration_ops import REVISION_GUARD_TAG

    return REVISION_GUARD_TAG


def fold_plan(sql_dir: Path, versions: Path, replaced: list[nr.Revision]) -> nr.Plan:
    """The revision tool's plan from the last released state to sql/, with
    the replaced revisions' hand-written steps in place of its TODO blocks."""
    result = original_plan(sql_dir, versions)
    released = nr.frozen_state(nr.revisions(versions))
    target = nr.sql_state(sql_dir)
    new_tables = {k.split(" ", 1)[1] for k, o in target.objects.items()
                  if o.kind == "table" and k not in released.objects}
    # a removed index may be over a removed function: both go in the transaction, the index first
    # (a concurrent drop would come after the function's), and come back in the downgrade's
    gone = {k.split(" ", 1)[1] for k, o in released.objects.items() if o.kind == "index" and k not in target.objects}
    index_drops = [f"DROP INDEX IF EXISTS {name};" for name in sorted(gone)]
    result.concurrently = [s for s in result.concurrently
                           if s not in {f"DROP INDEX CONCURRENTLY IF EXISTS {name};" for name in gone}]
    index_restores = [re.sub(r"\bCONCURRENTLY\s+", "", t) for k in released.objects if k.split(" ", 1)[1] in gone
                      and released.objects[k].kind == "index" for t in released.objects[k].texts]
    restored = {f"DROP INDEX CONCURRENTLY IF EXISTS {name};" for name in gone}
    keep, skip = [], False
    for statement in result.downgrade_concurrently:
        if statement in restored:
            skip = True  # its CREATE INDEX CONCURRENTLY follows: both move into downgrade.sql
            continue
        if skip:
            skip = False
            continue
        keep.append(statement)
    result.downgrade_concurrently = keep
    up = [s for s in result.upgrade if not s.startswith(nr.TODO)]
    drops = [s for s in up if s.startswith(("DROP ", nr.FORGOTTEN))]
    tables = [s for s in up if s.startswith("\\ir tables/")]
    rest = [s for s in up if s not in drops and s not in tables]
    steps = carried_steps(replaced, "upgrade.sql", new_tables)
    header = ["-- the replaced revisions' table and data steps"] if steps else []
    result.upgrade = [*index_drops, *drops, *tables, *header, *steps, *rest]
    down_steps = carried_steps(list(reversed(replaced)), "downgrade.sql", new_tables)
    # the downgrade: the plan's (earlier definitions back, attributes, comments, grants), then the
    # carried table steps, then the new tables dropped, then the removed indexes back. A column the
    # release adds has no comment to take back (an existing column whose comment goes back to none
    # would differ in the downgrade's check)
    kept = [s for s in result.downgrade if not s.startswith(nr.TODO)
            and not re.match(r"COMMENT ON COLUMN \S+ IS NULL;$", s)]
    table_drops = [f"DROP TABLE {name};" for name in sorted(new_tables)]
    kept = [s for s in kept if s not in table_drops]
    result.downgrade = [*kept, *down_steps, *[d for d in result.downgrade if d in table_drops], *index_restores]
    result.todos = 0
    return result


original_plan = nr.plan


# ---------------------------------------------------------------------------
# Databases


@contextmanager
def scratch_databases(n: int) -> Iterator[list[str]]:
    import psycopg
    from psycopg import conninfo, sql

    from findings_ledger.testing.cluster import server_dsn

    server = server_dsn()
    names = [f"release_{uuid.uuid4().hex[:12]}" for _ in range(n)]
    with psycopg.connect(server, autocommit=True) as conn:
        for name in names:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield [conninfo.make_conninfo(server, dbname=name) for name in names]
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            for name in names:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def alembic(migrations: Path, dsn: str, verb: str, target: str, allow_data_loss: bool = False) -> None:
    import argparse as ap

    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations))
    cfg.attributes["dsn"] = dsn
    if allow_data_loss:
        cfg.cmd_opts = ap.Namespace(x=["allow_data_loss=true"])
    getattr(command, verb)(cfg, target)


def catalog(dsn: str) -> dict[str, str]:
    import psycopg

    from findings_ledger.folds import catalog as read

    with psycopg.connect(dsn) as conn:
        return read(conn)


def psql_install(dsn: str, sql_dir: Path) -> None:
    from findings_ledger.testing.schema_dump import client_binary

    done = subprocess.run([client_binary("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn,
                           "-f", str(sql_dir / "install.sql")], capture_output=True, text=True)
    if done.returncode:
        raise ReleaseError(f"psql -f sql/install.sql failed: {done.stderr.strip().splitlines()[-1:]}")


def columns(dsn: str) -> dict[str, dict[str, str | None]]:
    """{table: {column: default expression}} of the ledger tables."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        rows = conn.execute("""
            SELECT c.oid::regclass::text, quote_ident(a.attname), pg_get_expr(d.adbin, d.adrelid)
              FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
              LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
             WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind IN ('r', 'p')
               AND c.relname <> 'alembic_version' AND a.attnum > 0 AND NOT a.attisdropped
             ORDER BY 1, a.attnum""").fetchall()
    out: dict[str, dict[str, str | None]] = {}
    for table, column, default in rows:
        out.setdefault(table, {})[column] = default
    return out


def downgrade_guard(rev_id: str, before: dict[str, dict[str, str | None]],
                    after: dict[str, dict[str, str | None]], derived: set[str]) -> str | None:
    """The LD501 guard of a downgrade from ``after`` to ``before``: a new
    table's rows, a new column's values other than NULL and its default (a
    default that calls a function, such as now(), is no value an upgrade
    gives back: every non-NULL value counts). ``derived``: new tables the
    upgrade fills from the others (a backfill), which lose nothing."""
    checks = []
    for table, cols in sorted(after.items()):
        if table in derived:
            continue
        if table not in before:
            checks.append((table, f"(SELECT count(*) FROM {table})"))
            continue
        for column, default in cols.items():
            if column in before[table]:
                continue
            where = f"{column} IS NOT NULL" if default is None or "(" in default \
                else f"{column} IS DISTINCT FROM {default}"
            checks.append((f"{table}.{column}", f"(SELECT count(*) FROM {table} WHERE {where})"))
    if not checks:
        return None
    rows = "\n        UNION ALL ".join(f"SELECT '{what}', {count}" for what, count in checks)
    return f"""-- The guard of {rev_id}'s downgrade: refuses (SQLSTATE LD501) while a
-- column or table the downgrade drops holds data an upgrade cannot give back
-- (a value other than NULL or the column's default, a row of a dropped
-- table), naming the revision, each column or table and its count, unless
-- the setting ledger.allow_data_loss is 'true'. downgrade.sql includes it
-- first; migrations/env.py also runs it before a downgrade past this
-- revision starts, so a refused downgrade changes nothing.
--   alembic downgrade <revision> -x allow_data_loss=true
--   PGOPTIONS='-c ledger.allow_data_loss=true' psql -f downgrade.sql
DO $guard$
DECLARE
    v_counts text;
BEGIN
    IF coalesce(current_setting('ledger.allow_data_loss', true), '') = 'true' THEN
        RETURN;
    END IF;
    WITH c(what, n) AS (
        {rows}
    )
    SELECT string_agg(format('%s: %s', what, n), ', ' ORDER BY what) FILTER (WHERE n > 0)
      INTO v_counts
      FROM c;
    IF v_counts IS NOT NULL THEN
        RAISE EXCEPTION 'downgrade of {rev_id} would drop data (%)', v_counts
            USING ERRCODE = 'LD501',
                  HINT = 'Back the database up, then pass -x allow_data_loss=true to alembic '
                         '(or set ledger.allow_data_loss = true for psql) to drop it.';
    END IF;
END
$guard$;
"""


# ---------------------------------------------------------------------------
# What a DBA reads of the fold: its locks (docs/dba.md, tests/migrations/test_revision_locks.py)

STRENGTH = ["AccessShareLock", "RowShareLock", "RowExclusiveLock", "ShareUpdateExclusiveLock",
            "ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock"]


def fold_locks(staging: Path, dsn: str, base: str, fold: str) -> dict[str, str]:
    """The strongest lock the fold's transaction takes on each table the last
    release has, as tests/migrations/test_revision_locks.py measures it: its
    offline script's transactional part run on a database at ``base``, then
    rolled back."""
    import psycopg
    from alembic import command
    from alembic.config import Config

    buffer = io.StringIO()
    cfg = Config(output_buffer=buffer)
    cfg.set_main_option("script_location", str(staging))
    command.upgrade(cfg, f"{base}:{fold}", sql=True)
    script = buffer.getvalue()
    begin = script.rindex("BEGIN;", 0, script.index("-- Running "))
    body = script[begin + len("BEGIN;"):script.index("COMMIT;", begin)]
    with psycopg.connect(dsn) as conn:
        tables = conn.execute("SELECT array_agg(c.oid) FROM pg_class c WHERE c.relnamespace = "
                              "'ledger'::regnamespace AND c.relkind = 'r' AND c.relname <> 'alembic_version'"
                              ).fetchone()[0]  # type: ignore[index]
        conn.execute(body)
        strongest: dict[str, str] = {}
        for table, mode in conn.execute("SELECT c.relname::text, l.mode FROM pg_locks l JOIN pg_class c "
                                        "ON c.oid = l.relation WHERE l.pid = pg_backend_pid() AND l.granted "
                                        "AND c.oid = ANY (%s)", (tables,)).fetchall():
            strongest[table] = max(mode, strongest.get(table, mode), key=STRENGTH.index)
        conn.rollback()
    return dict(sorted(strongest.items()))


def _locks_text(locks: dict[str, str]) -> str:
    words = {"AccessExclusiveLock": "ACCESS EXCLUSIVE", "ShareRowExclusiveLock": "SHARE ROW EXCLUSIVE",
             "ShareUpdateExclusiveLock": "SHARE UPDATE EXCLUSIVE", "AccessShareLock": "ACCESS SHARE",
             "RowExclusiveLock": "ROW EXCLUSIVE", "ShareLock": "SHARE", "RowShareLock": "ROW SHARE",
             "ExclusiveLock": "EXCLUSIVE"}
    by_mode: dict[str, list[str]] = {}
    for table, mode in locks.items():
        by_mode.setdefault(mode, []).append(f"`{table}`")
    return "; ".join(f"{words[m]} on {', '.join(by_mode[m])}" for m in reversed(STRENGTH) if m in by_mode) or "none"


def document_fold(root: Path, fold: str, version: str, replaced: list[nr.Revision], released: list[nr.Revision],
                  locks: dict[str, str], upgrade_sql: str) -> None:
    """docs/dba.md's table (What each revision does) and test_revision_locks's
    EXPECTED: the replaced revisions' rows out, one row for the fold after the
    last released one's; tools/lint_sql.py's justified squawk findings of the
    replaced revisions made the fold's (``make lint`` names any that no
    longer match a line of the fold)."""
    gone = {rev.rev for rev in replaced}
    backfills = sorted(set(re.findall(r"(?m)^(?:UPDATE|INSERT INTO) (ledger\.\w+)", upgrade_sql)))
    dba = root / "docs" / "dba.md"
    if dba.exists():
        lines = dba.read_text().splitlines(keepends=True)
        kept = [line for line in lines if not any(line.startswith(f"| `{rev}` |") for rev in gone)]
        row = (f"| `{fold}` | release {version}: the revisions `{replaced[0].rev}` to `{replaced[-1].rev}` folded "
               f"into one (archived in `migrations/replaced/{version}.tar.xz`, docs/dba.md \"Releases and folded "
               f"revisions\"): each object at its end state, the replaced revisions' table steps and backfills "
               f"in their order | {_locks_text(locks)} | "
               f"{'backfills of ' + ', '.join(f'`{b}`' for b in backfills) if backfills else 'none'} |\n")
        last = max(i for i, line in enumerate(kept) if any(line.startswith(f"| `{r.rev}` |") for r in released))
        kept.insert(last + 1, row)
        dba.write_text("".join(kept))
    lint = root / "tools" / "lint_sql.py"
    if lint.exists():  # the squawk findings a replaced revision justified are the fold's now
        text = lint.read_text()
        for rev in gone:
            text = text.replace(f'"{rev}"', f'"{fold}"')
        lint.write_text(text)
    test = root / "tests" / "migrations" / "test_revision_locks.py"
    if test.exists():
        import ast

        text = test.read_text()
        lines = text.splitlines(keepends=True)
        tree = ast.parse(text)
        node = next(n for n in tree.body if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "EXPECTED")
        assert isinstance(node.value, ast.Dict)
        drop: set[int] = set()
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            if isinstance(key, ast.Constant) and key.value in gone:
                first = key.lineno - 1
                while first > 0 and lines[first - 1].strip().startswith("#") and \
                        not lines[first - 1].strip().startswith("# \"0002_name\""):
                    first -= 1  # its comment lines
                drop |= set(range(first, value.end_lineno))  # type: ignore[arg-type]
        close = node.value.end_lineno - 1  # type: ignore[operator]
        entry = (f"    # release {version}: {len(replaced)} revisions folded; the replaced revisions' table steps and\n"
                 "    # backfills, and the functions parsed against the tables they read\n"
                 f'    "{fold}": {{\n' + "".join(f'        "{t}": "{m}",\n' for t, m in locks.items()) + "    },\n")
        out = []
        for i, line in enumerate(lines):
            if i == close:
                out.append(entry)
            if i not in drop:
                out.append(line)
        text = "".join(out)
        text = re.sub(r"(# \"0002_name\".*\n)\n+", r"\1", text)
        test.write_text(re.sub(r"\n\n+(\s*})", r"\n\1", text))


# ---------------------------------------------------------------------------
# The fold


def stage(migrations: Path, staging: Path, version: str) -> tuple[str, list[nr.Revision], list[nr.Revision]]:
    """Write into ``staging`` (a copy of ``migrations`` with the replaced
    revisions taken out) the fold; return its id, the released revisions
    and the replaced ones."""
    revs = nr.revisions(migrations / "versions")
    last = released_index(revs)
    released, replaced = revs[:last + 1], revs[last + 1:]
    if not replaced:
        raise ReleaseError(f"nothing to fold: {revs[-1].rev} is the last released revision")
    shutil.copytree(migrations, staging, ignore=shutil.ignore_patterns("__pycache__"))
    for rev in replaced:
        (staging / "versions" / rev.module.name).unlink()
        shutil.rmtree(staging / "versions" / rev.directory.name)
    old_versions = migrations / "versions"

    def planned(sql_dir: Path, versions: Path) -> nr.Plan:
        return fold_plan(sql_dir, versions, [nr.Revision(r.rev, old_versions / r.module.name) for r in replaced])

    nr.plan = planned
    try:
        module, _ = nr.write_revision(f"release {version}", ROOT / "sql", staging)
    finally:
        nr.plan = original_plan
    return module.stem, released, replaced


def archive(replaced: list[nr.Revision], path: Path) -> None:
    """The replaced revisions, frozen, as a reproducible tar.xz."""
    files = sorted(p for rev in replaced for p in nr.revision_files(rev))
    with tarfile.open(path, "w:xz", preset=9) as tar:
        for file in files:
            info = tarfile.TarInfo(file.relative_to(_versions_dir(file)).as_posix())
            data = file.read_bytes()
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))


def _versions_dir(path: Path) -> Path:
    while path.name != "versions":
        path = path.parent
    return path


def verify(migrations: Path, staging: Path, fold: str,
           released: list[nr.Revision]) -> tuple[dict[str, str], dict[str, str]]:
    """Build and compare; return the folded catalog and the fold's locks
    (:func:`fold_locks`). Writes the fold's downgrade guard."""
    from findings_ledger.folds import difference

    base = released[-1].rev
    with scratch_databases(4) as (at_release, chain, folded, installed):
        alembic(migrations, at_release, "upgrade", base)
        alembic(migrations, chain, "upgrade", "head")
        before, after = columns(at_release), columns(chain)
        directory = staging / "versions" / fold
        derived = set(re.findall(r"(?m)^INSERT INTO (ledger\.\w+)", (directory / "upgrade.sql").read_text()))
        guard = downgrade_guard(fold, before, after, derived)
        if guard:
            (directory / "downgrade_guard.sql").write_text(guard)
            down = (directory / "downgrade.sql").read_text().split("\n", 1)
            (directory / "downgrade.sql").write_text(f"{down[0]}\n\\ir downgrade_guard.sql\n{down[1]}")
        locks = fold_locks(staging, at_release, base, fold)
        alembic(staging, folded, "upgrade", "head")
        expected = catalog(chain)
        different = difference(expected, catalog(folded))
        if different:
            raise ReleaseError(f"the fold would change the catalog of a database at the replaced revisions: "
                               f"{different}")
        psql_install(installed, ROOT / "sql")
        different = difference(expected, catalog(installed))
        if different:
            raise ReleaseError(f"sql/install.sql differs from head's revisions at {different}: run make revision")
        alembic(staging, folded, "downgrade", base)
        different = difference(catalog(at_release), catalog(folded))
        if different:
            raise ReleaseError(f"the fold's downgrade does not give back {base}'s catalog: {different}")
    return expected, locks


def pins(staging: Path, released: list[nr.Revision], fold: str, version: str) -> None:
    """released.sha256: the released revisions, the fold, the archive and its manifest."""
    old = nr.read_pins(staging / "released.sha256")
    lines = []
    for rev in released:
        for path in nr.revision_files(nr.Revision(rev.rev, staging / "versions" / rev.module.name)):
            rel = path.relative_to(staging).as_posix()
            lines.append(f"{old[rel]}  {rel}" if rel in old else nr.pin_line(staging, path))
    fold_rev = nr.Revision(fold, staging / "versions" / f"{fold}.py")
    lines += [nr.pin_line(staging, p) for p in nr.revision_files(fold_rev)]
    lines += [nr.pin_line(staging, staging / "replaced" / f"{version}{ext}") for ext in (".tar.xz", ".json")]
    (staging / "released.sha256").write_text("\n".join(lines) + "\n")


def bump(version: str, today: str, fold: str, replaced: list[nr.Revision]) -> None:
    pyproject = ROOT / "pyproject.toml"
    text = pyproject.read_text()
    pyproject.write_text(re.sub(r'(?m)^version = "[^"]+"$', f'version = "{version}"', text, count=1))
    for init in (ROOT / "pyapi").glob("*/__init__.py"):
        t = init.read_text()
        if re.search(r'(?m)^__version__ = ', t):
            init.write_text(re.sub(r'(?m)^__version__ = .*$', f'__version__ = "{version}"', t, count=1))
    changelog = ROOT / "CHANGELOG.md"
    text = changelog.read_text()
    note = (f"### Migrations (release {version})\n\n- Revisions {replaced[0].rev} to {replaced[-1].rev} "
            f"({len(replaced)}) folded into `{fold}` (`make release`): a database at 0.1.0 or at any of them "
            f"reaches {version} with `findings-ledger migrate`; the replaced revisions are archived in "
            f"`migrations/replaced/{version}.tar.xz` (docs/dba.md, \"Releases and folded revisions\").\n\n")
    if "## Unreleased" in text:
        text = text.replace("## Unreleased\n\n", f"## {version} - {today}\n\n{note}", 1)
    else:
        text = text.replace("\n## ", f"\n## {version} - {today}\n\n{note}## ", 1)
    changelog.write_text(text)


def build_and_try(version: str) -> None:
    """sdist and wheel, the wheel installed with its cli extra outside the clone, --version and migrate."""
    dist = ROOT / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], check=True,
                   capture_output=True)
    wheel = next(dist.glob(f"findings_ledger-{version}-*.whl"))
    with tempfile.TemporaryDirectory(prefix="findings-ledger-release-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        lock = ROOT / "requirements" / "dev.lock"
        subprocess.run([*pip, "-c", str(lock), f"{wheel}[cli]"], check=True, cwd=tmp)
        out = subprocess.run([str(venv / "bin" / "findings-ledger"), "--version"], capture_output=True, text=True,
                             cwd=tmp, check=True).stdout.strip()
        if version not in out:
            raise ReleaseError(f"the installed wheel says {out!r}, not {version}")
        print(f"release: installed wheel: {out}")
        with scratch_databases(1) as (dsn,):
            env = {**os.environ, "LEDGER_DSN": dsn}
            done = subprocess.run([str(venv / "bin" / "findings-ledger", ), "migrate"], capture_output=True,
                                  text=True, cwd=tmp, env=env)
            if done.returncode:
                raise ReleaseError(f"findings-ledger migrate from the installed wheel failed: "
                                   f"{(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    print(f"release: built {', '.join(sorted(p.name for p in dist.iterdir()))}")


def check_clean() -> None:
    dirty = git("status", "--porcelain").splitlines()
    if dirty:
        raise ReleaseError(f"the work tree has uncommitted changes ({len(dirty)}: {dirty[0].strip()}"
                           f"{', ...' if len(dirty) > 1 else ''}): commit or stash them first")


def check_drift(migrations: Path) -> None:
    changes = nr.plan(ROOT / "sql", migrations / "versions").changes
    if changes:
        raise ReleaseError(f"sql/ differs from what head's revisions build ({changes[0]}"
                           f"{f' and {len(changes) - 1} more' if len(changes) > 1 else ''}): "
                           "run make revision first")


def check_version(version: str) -> None:
    match = VERSION.match(version)
    if not match:
        raise ReleaseError(f"version {version!r} is not X.Y.Z")
    current = re.search(r'(?m)^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text())
    now = VERSION.match(current[1]) if current else None
    if now and tuple(map(int, match.groups())) <= tuple(map(int, now.groups())):
        raise ReleaseError(f"version {version} is not above pyproject.toml's {current[1] if current else '?'}")
    if git("tag", "--list", f"v{version}").strip():
        raise ReleaseError(f"tag v{version} exists")


def release(version: str, build: bool = True) -> str:
    migrations = ROOT / "migrations"
    check_clean()
    check_version(version)
    check_drift(migrations)
    with tempfile.TemporaryDirectory(prefix="findings-ledger-fold-") as tmp:
        staging = Path(tmp) / "migrations"
        fold, released, replaced = stage(migrations, staging, version)
        folded, locks = verify(migrations, staging, fold, released)
        upgrade_sql = (staging / "versions" / fold / "upgrade.sql").read_text()
        (staging / "replaced").mkdir(exist_ok=True)
        archive(replaced, staging / "replaced" / f"{version}.tar.xz")
        manifest = {"version": version, "fold": fold, "from": released[-1].rev,
                    "replaced": [r.rev for r in replaced], "catalog": folded}
        (staging / "replaced" / f"{version}.json").write_text(json.dumps(manifest, indent=1) + "\n")
        pins(staging, released, fold, version)
        for rev in replaced:
            git("rm", "-r", "-q", "--", str(rev.module.relative_to(ROOT)), str(rev.directory.relative_to(ROOT)))
        shutil.copytree(staging / "versions" / fold, migrations / "versions" / fold)
        shutil.copy(staging / "versions" / f"{fold}.py", migrations / "versions" / f"{fold}.py")
        shutil.copytree(staging / "replaced", migrations / "replaced", dirs_exist_ok=True)
        shutil.copy(staging / "released.sha256", migrations / "released.sha256")
    bump(version, datetime.date.today().isoformat(), fold, replaced)
    document_fold(ROOT, fold, version, replaced, released, locks, upgrade_sql)
    git("add", "-A", "migrations", "pyproject.toml", "CHANGELOG.md", "pyapi", "docs", "tests", "tools")
    git("commit", "-q", "-m", f"release {version}: revisions {replaced[0].rev} to {replaced[-1].rev} folded into "
        f"{fold}, archived in migrations/replaced/{version}.tar.xz; version, CHANGELOG, pins")
    git("tag", f"v{version}")
    print(f"release: {fold} replaces {len(replaced)} revisions ({replaced[0].rev} to {replaced[-1].rev}); "
          f"committed and tagged v{version}")
    if build:
        build_and_try(version)
    return fold


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="X.Y.Z")
    parser.add_argument("--no-build", action="store_true", help="fold, commit and tag; no wheel or sdist")
    args = parser.parse_args(argv)
    release(args.version, build=not args.no_build)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
