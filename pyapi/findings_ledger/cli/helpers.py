"""What every verb of the ``findings-ledger`` command line shares: the
``--dsn`` option, the DSN it resolves to, the console tables are printed on
and the translation of user mistakes into one ``error:`` line.

Every command connects to ``--dsn`` / ``$LEDGER_DSN``, or, when neither is
set, to database ``ledger`` on the throwaway cluster (started on demand, see
:mod:`findings_ledger.testing.cluster`). A user mistake (bad input, unknown
scope, unreachable server) prints one ``error:`` line on stderr and exits 1;
usage errors exit 2.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import alembic.util
import click
import psycopg
import sqlalchemy.exc
from rich.console import Console

from .. import gitlog, queries
from ..errors import LedgerError, NotFound
from ..testing import cluster

F = TypeVar("F", bound=Callable[..., Any])

#: The console tables and reports are printed on (its width is set by the group).
console = Console()

dsn_option = click.option(
    "--dsn", envvar="LEDGER_DSN", default=None, help="libpq DSN or URI (default: $LEDGER_DSN, else a throwaway cluster)"
)


def resolve_dsn(dsn: str | None) -> str:
    """``dsn``, else ``$LEDGER_DSN``, else the throwaway cluster's ``ledger``
    database (created if missing)."""
    if dsn:
        return dsn
    server = cluster.server_dsn("postgres")
    if cluster.DSN_ENV in os.environ:
        return server
    ensure_database(server, "ledger")
    return cluster.default_cluster().dsn("ledger")


def ensure_database(server_dsn: str, name: str) -> None:
    """Create database ``name`` on the server unless it exists."""
    with psycopg.connect(server_dsn, autocommit=True) as conn:
        exists = conn.execute(queries.DATABASE_EXISTS, {"name": name}).fetchone()
        if not exists:
            conn.execute(queries.CREATE_DATABASE.format(name=psycopg.sql.Identifier(name)))


def one_line(text: object) -> str:
    """``text`` on one line: lines joined with ``; `` (server and git messages
    may span several)."""
    return "; ".join(line.strip() for line in str(text).strip().splitlines() if line.strip())


def user_errors(fn: F) -> F:
    """Turn ledger, connection and cluster errors into one ``error:`` line and exit 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except LedgerError as exc:
            click.echo(f"error: {one_line(exc)} [{exc.sqlstate}]", err=True)
        except (psycopg.OperationalError, cluster.ClusterError) as exc:
            click.echo(f"error: cannot reach PostgreSQL: {str(exc).strip().splitlines()[0]}", err=True)
        except sqlalchemy.exc.OperationalError as exc:  # alembic connects through SQLAlchemy
            click.echo(f"error: cannot reach PostgreSQL: {str(exc.orig).strip().splitlines()[0]}", err=True)
        except sqlalchemy.exc.DBAPIError as exc:
            click.echo(f"error: migration failed: {one_line(exc.orig)}", err=True)
        except alembic.util.CommandError as exc:
            click.echo(f"error: {one_line(exc)}", err=True)
        except (FileNotFoundError, NotADirectoryError, ValueError) as exc:
            click.echo(f"error: {one_line(exc)}", err=True)
        sys.exit(1)

    return wrapper  # type: ignore[return-value]


create_option = click.option(
    "--create", is_flag=True, default=False,
    help="create SCOPE if it does not exist (otherwise an unknown scope is an error: LD005)",
)


@contextlib.contextmanager
def offer_create() -> Iterator[None]:
    """An unknown scope (LD005) in a verb with ``--create`` says so in the
    verb's words: "(--create creates it)" instead of the SQL parameter."""
    try:
        yield
    except NotFound as exc:
        message = re.sub(r"\s*\(pass p_create[^)]*\)", "", str(exc)) + " (--create creates it)"
        raise NotFound(message, exc.sqlstate, exc.hint) from exc


def unreadable_warning(merges: Sequence[gitlog.GitMerge]) -> str | None:
    """The one warning line naming the commits recorded without hunks
    because their diffs cannot be read (None when there are none)."""
    lacking = [m for m in merges if m.diff_error is not None]
    if not lacking:
        return None
    first = lacking[0]
    example = first.diff_error if len(lacking) == 1 else f"e.g. {first.sha[:12]}: {first.diff_error}"
    return (f"warning: {len(lacking)} commit(s) recorded without hunks ({example}); the file-level rule "
            f"applies to them: {', '.join(m.sha[:12] for m in lacking)}")


renames_option = click.option(
    "--no-renames", "no_renames", is_flag=True, default=False,
    help="no rename detection: a rename is a deletion plus an addition (reads no blob for it; for partial clones)",
)
