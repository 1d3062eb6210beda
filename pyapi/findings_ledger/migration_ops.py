"""How revisions execute their frozen SQL files, identically online and
offline.

A revision is a module ``migrations/versions/NNNN_name.py`` and a directory
``migrations/versions/NNNN_name/`` beside it holding ``upgrade.sql``,
``downgrade.sql`` and the frozen object files they include. Both scripts are
plain psql scripts: a DBA runs them with ``psql -f`` (from any directory:
``\\ir`` includes are relative to the including file). The module calls
:func:`run_revision_file`, which expands the ``\\ir`` includes the way psql
resolves them (a line holding only ``\\ir FILE``, FILE optionally in single
quotes; revision files use no other meta-command but ``\\set ON_ERROR_STOP on``,
which is left out, and none inside a dollar-quoted body) and hands the text to :func:`run_sql`.

Online, the text goes to the driver unparsed (``no_parameters``: psycopg
sees no placeholders); offline (``alembic upgrade --sql``) it is written to
the script verbatim. Neither path runs it through SQLAlchemy's ``text()``,
which would treat ``:name`` as a bind parameter and double ``%`` signs.

Online and offline, :func:`run_revision_file` opens the revision's SQL
with the run's settings as ``SET LOCAL`` (``ledger_transaction_settings``,
passed to ``context.configure`` by ``migrations/env.py``), so no setting of
the migration outlives the revision's transaction: behind a
transaction-mode pooler (pgbouncer) the next client of the server
connection sees none of them. Offline, each revision block first checks the
recorded version (:func:`version_guard`): applied to a database at another
revision, the block raises LD502 before it changes anything, and ``psql -v
ON_ERROR_STOP=1`` stops there with the block's transaction rolled back.

A revision never reads a live ``sql/`` file: an include that leaves
``migrations/versions/`` is an error, so a revision's text cannot change when
``sql/`` does.

This module is part of the migration history's machinery: keep it backwards
compatible, since every revision imports it.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# psql's include-relative meta-command, alone on its line.
INCLUDE = re.compile(r"^\\ir\s+(?:'(?P<quoted>[^']+)'|(?P<path>\S+))\s*$")
# The line a revision's upgrade.sql opens with, so that ``psql -f`` with
# psql's defaults stops at its version guard (:func:`revision_guard`) instead
# of running on. Alembic stops at the first error anyway: the line is left out.
STOP_ON_ERROR = "\\set ON_ERROR_STOP on"
# Any other psql meta-command at the start of a line: not supported here, since
# alembic would not run it the way psql does.
_META = re.compile(r"^\\[a-zA-Z]")


class RevisionFileError(RuntimeError):
    """A revision's SQL file is missing, includes a file outside
    ``migrations/versions/``, or uses a psql meta-command other than ``\\ir``."""


def included(line: str) -> str | None:
    """The file a ``\\ir`` line includes, or None for any other line."""
    match = INCLUDE.match(line.rstrip("\n"))
    return (match["quoted"] or match["path"]) if match else None


def includes(text: str) -> list[str]:
    """The files a psql script includes, in order."""
    return [target for line in text.splitlines() if (target := included(line)) is not None]


def expand_includes(path: Path, root: Path | None = None, _seen: tuple[Path, ...] = ()) -> str:
    """The text of psql script ``path`` with every ``\\ir FILE`` line replaced
    by FILE's expanded text (relative to the including file's directory, as
    psql resolves it). Every file must lie under ``root`` (default: the
    ``versions`` directory two levels up, i.e. the revision's own tree and
    its siblings). Raises :class:`RevisionFileError`.
    """
    path = path.resolve()
    root = (root or path.parent.parent).resolve()
    if root not in path.parents:
        raise RevisionFileError(
            f"{path}: outside {root}: a revision includes only frozen files of migrations/versions/"
        )
    if path in _seen:
        raise RevisionFileError(f"{path}: includes itself ({' -> '.join(map(str, _seen))})")
    if not path.is_file():
        raise RevisionFileError(f"{path}: no such file")
    out: list[str] = []
    for number, line in enumerate(path.read_text().splitlines(keepends=True), 1):
        target = included(line)
        if target is not None:
            text = expand_includes(path.parent / target, root, (*_seen, path))
            out.append(text if text.endswith("\n") else text + "\n")
        elif line.strip() == STOP_ON_ERROR:
            continue
        elif _META.match(line):
            raise RevisionFileError(f"{path}:{number}: only \\ir is supported in revision files: {line.strip()}")
        else:
            out.append(line)
    return "".join(out)


def _op() -> Any:
    """alembic's ``op`` proxy of the running migration, imported when a
    revision runs (tools/new_revision.py uses this module's text helpers
    without alembic)."""
    from alembic import op

    return op


def run_sql(sql: str) -> None:
    """Execute ``sql`` (one or more complete statements, each ending in ``;``)."""
    ctx = _op().get_context()
    if ctx.as_sql:
        ctx.impl.static_output(sql.strip() + "\n")
    else:
        _op().get_bind().exec_driver_sql(sql, execution_options={"no_parameters": True})


def _is_merge(module_file: str) -> bool:
    """Whether the revision module ``module_file`` joins several heads
    (``down_revision`` a tuple)."""
    return bool(re.search(r"^down_revision\s*=\s*\(", Path(module_file).read_text(), re.MULTILINE))


def _statements(sql: str) -> list[str]:
    """The statements of a script, split the way psql splits them
    (sqlparse: quotes, comments and dollar quoting respected), comments and
    empty statements dropped."""
    import sqlparse

    out = []
    for statement in sqlparse.split(sql):
        code = sqlparse.format(statement, strip_comments=True).strip()
        if code and code != ";":
            out.append(code)
    return out


def run_concurrently(script: Path, root: Path) -> None:
    """Run each statement of ``script`` on its own, outside the revision's
    transaction (``CREATE INDEX CONCURRENTLY`` cannot run inside one)."""
    with _op().get_context().autocommit_block():
        for statement in _statements(expand_includes(script, root=root)):
            run_sql(statement)


#: The ``pg_advisory_lock`` key that serialises migration runs against one
#: database (advisory locks are per database): an SQL expression.
MIGRATION_LOCK_KEY = "hashtextextended('findings-ledger migrations', 0)"

#: A PostgreSQL duration as the migration settings take it: a number with an
#: optional unit (milliseconds without one; ``0`` disables).
DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|min|h|d)?\s*$")
_UNIT_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0, None: 1e-3}


def duration_seconds(duration: str) -> float:
    """A :data:`DURATION` in seconds. Raises ValueError for anything else."""
    match = DURATION.match(duration)
    if match is None:
        raise ValueError(f"not a duration: {duration!r}")
    return float(match[1]) * _UNIT_SECONDS[match[2]]


def acquire_lock(try_lock: Callable[[], bool], wait: str, locked_out: Callable[[], BaseException]) -> None:
    """Take the migration lock with ``try_lock`` (one short statement, True
    when taken), trying again every quarter second until ``wait`` (a
    :data:`DURATION`; ``0``: for ever) has passed, then raise
    ``locked_out()``. Says once on stderr that it waits. Not one waiting
    statement: a waiting statement holds a snapshot, and the other run's
    ``CREATE INDEX CONCURRENTLY`` would wait for it."""
    if try_lock():
        return
    seconds = duration_seconds(wait)
    print("findings-ledger migrations: another migration of this database holds the migration lock: "
          f"waiting {'for ever' if seconds == 0 else 'up to ' + wait} for it to finish",
          file=sys.stderr, flush=True)
    deadline = time.monotonic() + seconds
    while not try_lock():
        if seconds and time.monotonic() >= deadline:
            raise locked_out()
        time.sleep(0.25)


@contextmanager
def lock_connection(dsn: str, wait: str, locked_out: Callable[[], BaseException]) -> Iterator[None]:
    """Hold the migration lock on a connection of its own, in one open
    transaction (a transaction-level lock: safe behind a transaction pooler,
    released if the run is killed); see :func:`acquire_lock`."""
    import psycopg

    with psycopg.connect(dsn) as lock:

        def try_lock() -> bool:
            # Each try in a transaction of its own: a transaction that stays open
            # after a failed try keeps its xmin, which CREATE INDEX CONCURRENTLY
            # of the run holding the lock would wait for.
            row = lock.execute(f"SELECT pg_catalog.pg_try_advisory_xact_lock({MIGRATION_LOCK_KEY})").fetchone()
            if not (row and row[0]):
                lock.rollback()
                return False
            return True

        acquire_lock(try_lock, wait, locked_out)
        try:
            yield
        finally:
            lock.rollback()


@contextmanager
def lock_session(conn: Any, wait: str, locked_out: Callable[[], BaseException]) -> Iterator[None]:
    """Hold the migration lock as a session lock on a caller's SQLAlchemy
    ``Connection`` ``conn``, released at the end; see :func:`acquire_lock`."""

    def try_lock() -> bool:
        taken = bool(conn.exec_driver_sql(f"SELECT pg_catalog.pg_try_advisory_lock({MIGRATION_LOCK_KEY})").scalar())
        conn.commit()
        return taken

    acquire_lock(try_lock, wait, locked_out)
    try:
        yield
    finally:
        conn.rollback()
        conn.exec_driver_sql(f"SELECT pg_catalog.pg_advisory_unlock({MIGRATION_LOCK_KEY})")
        conn.commit()


def _literal(value: str | None) -> str:
    return "NULL" if value is None else "'" + value.replace("'", "''") + "'"


def version_guard(expected: tuple[str, ...], target: str, direction: str) -> str:
    """A ``DO`` block raising LD502 unless ``ledger.alembic_version`` holds
    exactly the revisions ``expected`` (empty: no version table, or an empty
    one: a database without the ledger). ``target`` and ``direction``
    (``upgrade``/``downgrade``) name what the guarded SQL does, for the
    message. The table is read with dynamic SQL, so the block also runs
    where it does not exist yet."""
    want = ", ".join(expected) if expected else "no ledger schema"
    array = "ARRAY[" + ", ".join(_literal(r) for r in sorted(expected)) + "]::text[]"
    return f"""DO $ledger_version_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM {array} THEN
        RAISE EXCEPTION 'this script''s step to % ({direction}) expects the database at {want}, '
                        'but it is at %: nothing of this step was applied',
            {_literal(target)},
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no ledger schema'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'generate the script from the revision the database is at: '
                         'alembic upgrade <that revision>:head --sql (docs/dba.md)';
    END IF;
END
$ledger_version_guard$;
"""


REVISION_GUARD_TAG = "ledger_revision_guard"


def revision_guard(revision: str, down_revision: str) -> str:
    """The first statement of a revision's ``upgrade.sql``, after the line
    :data:`STOP_ON_ERROR` (``psql -f`` then stops there): a ``DO`` block
    raising LD502 unless ``ledger.alembic_version`` holds exactly
    ``down_revision``, naming both revisions and the version the database is
    at, so that the file run again with ``psql -f`` on a database already past
    it (or not yet at the revision before it) changes nothing instead of
    putting back older function bodies. Alembic runs the file while the
    version is ``down_revision`` (it records the new one after the file);
    after a ``psql -f`` of a revision, ``alembic stamp <revision>`` records it
    (docs/dba.md). The table is read with dynamic SQL, so the block also runs
    where it does not exist. Written by tools/new_revision.py."""
    return f"""{STOP_ON_ERROR}
DO ${REVISION_GUARD_TAG}$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY[{_literal(down_revision)}]::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of {revision} expects the database at {down_revision}, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
${REVISION_GUARD_TAG}$;
"""


def known_revision_guard(known: Iterable[str], heads: Iterable[str]) -> str:
    """A ``DO`` block raising LD503 (schema_newer) when ``ledger.alembic_version``
    holds a revision outside ``known`` (the revisions this findings-ledger
    ships): a newer findings-ledger migrated the database. ``heads`` (this
    findings-ledger's newest revisions) are named in the message, with how to
    go back. Run online before any revision (``migrations/env.py``), so the
    database is left as it is instead of alembic's "Can't locate revision"."""
    array = "ARRAY[" + ", ".join(_literal(r) for r in sorted(known)) + "]::text[]"
    head = ", ".join(sorted(heads))
    how = (f"the database is newer than this findings-ledger. To go back to this findings-ledger, downgrade the "
           f"database to {head} with the newer findings-ledger first (alembic downgrade {head}, or "
           f"findings_ledger.downgrade(dsn, '{head}')), then run this one; or upgrade findings-ledger "
           f"(docs/dba.md, \"Rolling a deployment back\")")
    return f"""DO $ledger_known_revision$
DECLARE
    v_at text;
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NULL THEN
        RETURN;
    END IF;
    EXECUTE 'SELECT pg_catalog.min(version_num) FROM ledger.alembic_version WHERE version_num <> ALL ($1)'
        INTO v_at USING {array};
    IF v_at IS NOT NULL THEN
        RAISE EXCEPTION 'the database''s ledger schema is at revision %, which this findings-ledger '
                        '(its newest revision is {head}) does not know: %',
            pg_catalog.quote_literal(v_at), {_literal(how)}
            USING ERRCODE = 'LD503';
    END IF;
END
$ledger_known_revision$;
"""


def _guard_for(module_file: str, name: str) -> str:
    """The offline version guard of the revision whose module is
    ``module_file``: before ``upgrade.sql`` the database must be at its
    down revision(s), before ``downgrade.sql`` at the revision itself."""
    script = getattr(_op().get_context(), "script", None)
    if script is None:
        return ""
    path = Path(module_file).resolve()
    for rev in script.walk_revisions():
        if rev.path and Path(rev.path).resolve() == path:
            down = rev.down_revision
            downs = tuple(down) if isinstance(down, (tuple, list)) else ((down,) if down else ())
            if name == "upgrade.sql":
                return version_guard(downs, rev.revision, "upgrade")
            return version_guard((rev.revision,), ", ".join(downs) or "base", "downgrade")
    return ""


def transaction_settings() -> str:
    """The run's ``SET LOCAL`` statements (from ``context.configure``'s
    ``ledger_transaction_settings``), one per line; empty when none."""
    settings = _op().get_context().opts.get("ledger_transaction_settings") or ()
    return "".join(f"{statement};\n" for statement in settings)


def run_revision_file(module_file: str, name: str) -> None:
    """Run ``name`` (``upgrade.sql`` or ``downgrade.sql``) of the revision
    whose module is ``module_file`` (pass ``__file__``): the directory of the
    same name beside the module, includes expanded.

    When the directory holds ``concurrently.sql``, its statements run after
    ``upgrade.sql``, each outside a transaction; ``downgrade_concurrently.sql``
    runs the same way before ``downgrade.sql``. The SQL is opened by the
    run's ``SET LOCAL`` settings and, offline, by the version guard
    (:func:`version_guard`). A merge revision (no directory of its own)
    runs nothing.
    """
    module = Path(module_file)
    directory = module.parent / module.stem
    concurrent = directory / ("concurrently.sql" if name == "upgrade.sql" else "downgrade_concurrently.sql")
    if name == "downgrade.sql" and concurrent.exists():
        run_concurrently(concurrent, module.parent)
    if not directory.exists() and _is_merge(module_file):
        return
    guard = _guard_for(module_file, name) if _op().get_context().as_sql else ""
    run_sql(guard + transaction_settings() + expand_includes(directory / name, root=module.parent))
    if name == "upgrade.sql" and concurrent.exists():
        run_concurrently(concurrent, module.parent)


def without_header(text: str) -> str:
    """``text`` from its first statement on: the leading lines that are blank
    or ``--`` comments (an object file's header, which no database keeps) left out."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() and not line.lstrip().startswith("--"):
            return "".join(lines[i:])
    return ""


#: what collapse_whitespace reads, in order: a single-quoted literal (to its closing quote, or the
#: end), a ``--`` comment up to the whitespace that ends its line, or a run of whitespace
_COLLAPSE = re.compile(r"'[^']*'?|--[^\n]*?(?=[^\S\n]*(?:\n|\Z))|\s+")
_WHITESPACE = re.compile(r"\s+")


def _collapsed(m: re.Match[str]) -> str:
    token = m.group()
    if token[0] == "'":
        return token
    if token[0] == "-":
        return _WHITESPACE.sub(" ", token)
    return " "


def collapse_whitespace(text: str) -> str:
    """``text`` with each run of whitespace outside single-quoted literals as
    one space, and none at either end: two texts that differ only in
    indentation, line breaks or blank lines are equal. A quote inside a ``--``
    comment opens no literal; whitespace inside a literal is kept."""
    return _COLLAPSE.sub(_collapsed, text).strip()
