"""The conventions of the API, the ``common`` topic's call
(:func:`set_hygiene_mode`) and the schema's version: :func:`migrate` /
:func:`downgrade` (the alembic revisions shipped with the package),
:func:`current_revision`, :func:`head_revision`, :func:`schema_behind`.

Each topic's calls live in the module named like its folder of ``sql/``:
:mod:`~findings_ledger.findings`, :mod:`~findings_ledger.merges`,
:mod:`~findings_ledger.checks`, :mod:`~findings_ledger.decisions`,
:mod:`~findings_ledger.claims`, :mod:`~findings_ledger.access` (the formats
in :mod:`~findings_ledger.importers` and :mod:`~findings_ledger.sarif`).
Conventions, the same for every call of those modules and this one:

* the first argument is the caller's psycopg 3 connection; nothing here
  commits or rolls back, so callers compose their own transactions (with
  ``autocommit=True`` each call is its own transaction);
* each call is one SQL statement calling one stored function (see
  :mod:`findings_ledger.queries`);
* results are frozen dataclasses (:mod:`findings_ledger.models`);
* ledger errors arrive as typed exceptions (:mod:`findings_ledger.errors`),
  with the psycopg error as ``__cause__``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from . import queries
from .errors import MigrationLocked, checked_arguments, error_for, translate
from .revisions import migrations_dir, read_revision, shipped_revisions


def alembic_config(dsn: str | None = None) -> Any:
    """An alembic ``Config`` for the ledger's revisions targeting ``dsn``."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    if dsn is not None:
        cfg.attributes["dsn"] = dsn
    return cfg


@checked_arguments
def migrate(dsn: str, revision: str = "head") -> None:
    """Upgrade the database at ``dsn`` (libpq DSN or URI) to ``revision``.

    Runs the real alembic revisions (the same as ``alembic upgrade head``);
    upgrading a database already at head does nothing. A database at a
    revision a release folded away is first brought to that release's fold
    (:mod:`findings_ledger.folds`: the archived revisions, then a stamp once
    its catalog is the folded state, else :class:`~findings_ledger.folds.FoldRefused`). A ledger SQLSTATE a
    revision raises is its :class:`~findings_ledger.errors.LedgerError`; a
    malformed DSN or a failed connection is the :class:`psycopg.Error`
    :func:`psycopg.connect` raises.
    """
    from alembic import command

    from . import folds

    with _translate_migration():
        shipped = folds.folds()
        if shipped:
            with psycopg.connect(dsn) as conn:
                at = read_revision(conn)
            fold = folds.fold_of(at)
            if fold is not None and at is not None:
                wait = os.environ.get("LEDGER_MIGRATION_LOCK_TIMEOUT") or "10min"
                folds.upgrade_replaced(dsn, at, fold, wait, lambda: MigrationLocked(
                    f"another migration of this database held the migration lock for longer than {wait} "
                    "(LEDGER_MIGRATION_LOCK_TIMEOUT): nothing was changed", sqlstate="55P03"))
        command.upgrade(alembic_config(dsn), revision)


def schema_behind(conn: psycopg.Connection[Any]) -> str | None:
    """Why the database of ``conn`` is not at this findings-ledger's head,
    or None when it is (or is at a revision this findings-ledger does not
    know, i.e. newer, or its version cannot be read by this role). A
    revision a release folded away (:func:`findings_ledger.folds.fold_of`)
    is behind. The
    answer is one sentence: ``no ledger schema`` or ``at REV, behind HEAD``.
    Reads ``ledger.alembic_version`` (one or two queries)."""
    try:
        version = current_revision(conn)
    except psycopg.errors.InsufficientPrivilege:
        if not conn.autocommit:
            conn.rollback()
        return None
    from .folds import fold_of

    revs, heads = shipped_revisions()
    if version is None:
        return "no ledger schema"
    if version in heads or (version not in revs and fold_of(version) is None):
        return None
    return f"at {version}, behind this findings-ledger's {', '.join(sorted(heads))}"


@checked_arguments
def head_revision() -> str:
    """The newest revision of this findings-ledger (alembic's head)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"{migrations_dir()} holds no revision")
    return head


@checked_arguments
def current_revision(conn: psycopg.Connection[Any]) -> str | None:
    """The revision the database of ``conn`` is at (``ledger.alembic_version``),
    or None when it has no ledger schema yet."""
    return read_revision(conn)


@checked_arguments
def downgrade(dsn: str, revision: str, *, allow_data_loss: bool = False) -> None:
    """Downgrade the database at ``dsn`` to ``revision`` (``"base"``: remove
    the ledger), as ``alembic downgrade`` does.

    Below the baseline every ledger table is dropped, so while the ledger
    holds rows that step raises :class:`~findings_ledger.errors.DowngradeRefused`
    (LD501, naming the row count of each table) and drops nothing, unless
    ``allow_data_loss=True`` (``alembic -x allow_data_loss=true``). A
    revision whose downgrade drops a column or table holding data (a non-NULL
    value, a value other than the column's default, a row of a dropped table)
    raises the same, naming the revision and each column or table with its
    count. The guards of every revision to undo run before the first is
    undone, so a refused downgrade leaves the database at its revision.
    """
    import argparse

    from alembic import command

    cfg = alembic_config(dsn)
    cfg.cmd_opts = argparse.Namespace(x=[f"allow_data_loss={'true' if allow_data_loss else 'false'}"])
    with _translate_migration():
        command.downgrade(cfg, revision)


@contextmanager
def _translate_migration() -> Iterator[None]:
    """Re-raise a ledger SQLSTATE that a revision raised as its typed
    :class:`~findings_ledger.errors.LedgerError`, and any other database or
    connection error (a malformed DSN, a refused connection) as the psycopg
    error :func:`psycopg.connect` would raise, not SQLAlchemy's wrapper.
    alembic runs the SQL through SQLAlchemy, whose ``DBAPIError`` keeps the
    psycopg error as ``.orig`` (read without importing SQLAlchemy here)."""
    try:
        yield
    except Exception as exc:
        orig = getattr(exc, "orig", None)
        if not isinstance(orig, psycopg.Error):
            raise
        err = error_for(orig)
        if err is not None:
            raise err from orig
        raise orig from None  # psycopg's own error, as psycopg.connect would raise it


@checked_arguments
def set_hygiene_mode(conn: psycopg.Connection[Any], scope: str, mode: str, *, create: bool = False) -> str:
    """Set ``scope``'s hygiene mode (``on``, ``dry`` or ``off``); returns the
    stored mode. An unknown scope raises ``NotFound`` (LD005) unless
    ``create=True``. Raises ``ValueInvalid`` (LD003)."""
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.SET_HYGIENE_MODE, {"scope": scope, "mode": mode, "create": create})
        row = cur.fetchone()
    assert row is not None
    return str(row[1])
