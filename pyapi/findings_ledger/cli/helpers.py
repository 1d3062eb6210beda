"""What every verb of the ``findings-ledger`` command line shares: the
``--dsn`` option, the DSN it resolves to, the console tables are printed on
and the translation of user mistakes into one ``error:`` line.

Every command connects to ``--dsn`` / ``$LEDGER_DSN``, or, when neither is
set, to database ``ledger`` on the throwaway cluster (started on demand, see
:mod:`findings_ledger.testing.cluster`, which only such a run imports). A user mistake (bad input, unknown
scope, unreachable server, a malformed DSN, a database without the schema,
a cluster that cannot start) prints one ``error:`` line on stderr and exits
1; usage errors exit 2. :func:`explain` is the one place that decides what
is a user mistake; the group (:class:`LedgerGroup`) applies it to every
verb, :func:`user_errors` to one.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar

import click
import psycopg
from psycopg.conninfo import conninfo_to_dict
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from .. import api, gitlog, reconnect
from ..errors import LedgerError, MigrationLocked, NotFound

F = TypeVar("F", bound=Callable[..., Any])

_META = "findings_ledger.dsn"

#: The variable that names the database when ``--dsn`` is not given.
DSN_ENV = "LEDGER_DSN"

#: The throwaway cluster's module: imported by :func:`resolve_dsn` (and
#: :func:`ensure_database`) only when they need the cluster.
_CLUSTER_MODULE = "findings_ledger.testing.cluster"

#: The console tables and reports are printed on (its width is set by the group).
console = Console()


def progress_bar() -> Progress:
    """The progress bar of the long verbs (``replay-git``, ``evaluate``):
    description, bar, done/total and elapsed time on stderr, gone when
    finished, so stdout keeps only the result."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )

dsn_option = click.option(
    "--dsn", envvar=DSN_ENV, default=None, help="libpq DSN or URI (default: $LEDGER_DSN, else a throwaway cluster)"
)


class UserError(click.ClickException):
    """A user mistake: printed as one ``error:`` line, exit status 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {one_line(self.message)}", err=True)


def _dsn_source() -> str:
    """Where the DSN came from, for messages: ``--dsn`` or ``LEDGER_DSN``."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.get_parameter_source("dsn") == click.core.ParameterSource.COMMANDLINE:
        return "--dsn"
    return DSN_ENV


def check_dsn(dsn: str, source: str) -> None:
    """Refuse a ``dsn`` libpq cannot parse, naming ``source`` (the option or
    variable it came from). The value itself is not repeated: it may hold a
    password. libpq's message quotes the part it stumbled on, sometimes the
    whole URI: any password in it is shown as ``***`` (:func:`redact_dsn`)."""
    try:
        conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as exc:
        raise UserError(
            f"{source} is not a libpq DSN or postgresql:// URI: {redact_dsn(one_line(exc), dsn)} "
            "(e.g. 'host=db dbname=app user=me' or 'postgresql://me@db/app')"
        ) from None


def redact_dsn(message: str, dsn: str) -> str:
    """``message`` with every password written in ``dsn`` (a URI's
    ``user:password@`` or a ``password=`` keyword, parsed or not) replaced
    by ``***``."""
    secrets = set(re.findall(r"://[^:/@\s]*:([^@\s]+)@", dsn))
    secrets |= {a or b for a, b in re.findall(r"password\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S+))", dsn)}
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        message = message.replace(secret, "***")
    return message


def resolve_dsn(dsn: str | None) -> str:
    """``dsn``, else ``$LEDGER_DSN``, else the throwaway cluster's ``ledger``
    database (created if missing). A DSN libpq cannot parse is a
    :class:`UserError` naming ``--dsn`` or ``LEDGER_DSN``."""
    if dsn:
        source = _dsn_source()
    elif os.environ.get(DSN_ENV):
        dsn, source = os.environ[DSN_ENV], DSN_ENV
    else:  # the default server: the test kit's throwaway cluster, imported only now
        from ..testing import cluster

        c = cluster.ensure_cluster()
        cluster.ensure_database(c.dsn("postgres"), "ledger")
        dsn, source = c.dsn("ledger"), ""
    check_dsn(dsn, source)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:  # for the messages of explain()
        ctx.meta[_META] = (dsn, source)
    return dsn


def connect(dsn: str | None) -> psycopg.Connection[Any]:
    """An ``autocommit=True`` connection to the verb's database
    (:func:`resolve_dsn`), whose ledger schema is at this findings-ledger's
    head: a database without it, or behind, is a :class:`UserError` saying
    how to migrate (one read of ``ledger.alembic_version``)."""
    conn = psycopg.connect(resolve_dsn(dsn), autocommit=True)
    try:
        behind = api.schema_behind(conn)
    except BaseException:
        conn.close()
        raise
    if behind is not None:
        conn.close()
        database, again = _target()
        if behind == "no ledger schema":
            raise UserError(f"{database} has no ledger schema: run `findings-ledger migrate`{again} first")
        raise UserError(f"the ledger schema of {database} is {behind}: run `findings-ledger migrate`{again}")
    return conn


def reconnect_after_loss(dsn: str | None, timeout: float, lost: BaseException) -> psycopg.Connection[Any]:
    """A new connection for a long verb whose connection ``lost`` broke
    mid-run (:func:`connect`'s checks included): the same DSN tried again
    for up to ``timeout`` seconds (:func:`findings_ledger.reconnect.connect_retrying`;
    a host list with ``target_session_attrs=read-write`` finds the promoted
    standby). Says so on stderr, one warning line when the loss is seen and
    one when connected again, with the seconds it took. Raises
    :class:`UserError` (one ``error:`` line) when nothing accepted a
    connection in time: rerunning the same command resumes."""
    started = time.monotonic()
    click.echo(f"warning: lost the connection to PostgreSQL ({one_line(lost)}); reconnecting for up to "
               f"{timeout:g} s", err=True)
    try:
        conn = reconnect.connect_retrying(resolve_dsn(dsn), timeout=timeout)
    except psycopg.OperationalError as exc:
        raise UserError(f"lost the connection to PostgreSQL and could not reconnect within {timeout:g} s: "
                        f"{one_line(exc)}; rerun the same command to resume") from None
    conn.close()
    conn = connect(dsn)
    click.echo(f"warning: reconnected after {time.monotonic() - started:.1f} s; resuming", err=True)
    return conn


def ensure_database(server_dsn: str, name: str) -> None:
    """Create database ``name`` on the server unless it exists."""
    from ..testing import cluster

    cluster.ensure_database(server_dsn, name)


def one_line(text: object) -> str:
    """``text`` on one line: lines joined with ``; `` (server and git messages
    may span several)."""
    return "; ".join(line.strip() for line in str(text).strip().splitlines() if line.strip())


def _target() -> tuple[str, str]:
    """``database 'x'`` the verb connected to and how to name it again
    (``--dsn``, ``LEDGER_DSN`` or nothing: the throwaway cluster)."""
    ctx = click.get_current_context(silent=True)
    dsn, source = ctx.meta.get(_META, ("", "")) if ctx is not None else ("", "")
    try:
        name = conninfo_to_dict(dsn).get("dbname", "") if dsn else ""
    except psycopg.ProgrammingError:
        name = ""
    return (f"database {name!r}" if name else "the database"), (f" with the same {source}" if source else "")


def explain(exc: BaseException) -> str | None:
    """The one ``error:`` line for a user mistake, or None for a bug (which
    keeps its traceback). Shared by :func:`user_errors` and the group."""
    if isinstance(exc, UserError):
        return exc.message
    if isinstance(exc, (LedgerError, MigrationLocked)):
        return f"{exc} [{exc.sqlstate}]"
    cluster = sys.modules.get(_CLUSTER_MODULE)  # not imported: no ClusterError can have been raised
    if cluster is not None and isinstance(exc, cluster.ClusterError):
        return str(exc)
    if isinstance(exc, psycopg.errors.InvalidSchemaName):
        database, again = _target()
        return (f"{database} has no ledger schema ({exc.diag.message_primary or exc}): "
                f"run `findings-ledger migrate`{again} first")
    if isinstance(exc, (psycopg.errors.UndefinedTable, psycopg.errors.UndefinedFunction,
                        psycopg.errors.UndefinedColumn)):
        database, again = _target()
        return (f"the ledger schema of {database} is not at this findings-ledger's version "
                f"({exc.diag.message_primary or exc}): run `findings-ledger migrate`{again}")
    if isinstance(exc, psycopg.OperationalError):
        return f"cannot reach PostgreSQL: {exc}"
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return (f"PostgreSQL refused: {exc} [{exc.sqlstate}]: connect as a role with the ledger's grants "
                "(docs/security.md)")
    if isinstance(exc, psycopg.Error) and not exc.sqlstate and not isinstance(exc, psycopg.OperationalError):
        # raised by psycopg itself, e.g. loading a stored value Python cannot hold
        database, _ = _target()
        return f"cannot read what {database} returned: {one_line(exc)} (raised by the client, not by PostgreSQL)"
    if isinstance(exc, psycopg.Error):
        return f"PostgreSQL refused: {exc}" + (f" [{exc.sqlstate}]" if exc.sqlstate else "")
    if _is_alembic_command_error(exc):
        return str(exc)
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) not in str(exc) else ""
        return f"{exc}{where}"
    if isinstance(exc, ValueError):
        return str(exc)
    return None


def _is_alembic_command_error(exc: BaseException) -> bool:
    """Whether ``exc`` is alembic's ``CommandError`` (a bad revision name),
    without importing alembic: only the verbs that migrate import it (it
    costs most of the start-up), and before they do no exception can be one."""
    util = sys.modules.get("alembic.util")
    return util is not None and isinstance(exc, util.CommandError)


#: The exit status of a process that SIGPIPE ended (128 + 13), what a shell shows for a Unix tool
#: whose reader went away
SIGPIPE_STATUS = 141


def closed_pipe() -> NoReturn:
    """End the process quietly because its standard output's reader went away
    (``findings-ledger export s | head``), as a Unix tool ended by SIGPIPE does:
    no message, status :data:`SIGPIPE_STATUS`. Standard output is pointed at
    ``/dev/null`` first, so the interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(SIGPIPE_STATUS)


def user_errors(fn: F) -> F:
    """Turn user mistakes (:func:`explain`) into one ``error:`` line and exit 1;
    a closed standard output (:func:`closed_pipe`) ends the verb quietly."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except click.exceptions.Exit:
            raise
        except click.ClickException:
            raise
        except BrokenPipeError:
            closed_pipe()
        except Exception as exc:
            message = explain(exc)
            if message is None:
                raise
        click.echo(f"error: {one_line(message)}", err=True)
        sys.exit(1)

    return wrapper  # type: ignore[return-value]


create_option = click.option(
    "--create", is_flag=True, default=False,
    help="create SCOPE if it does not exist (otherwise an unknown scope is an error: LD005)",
)


@contextlib.contextmanager
def offer_create() -> Iterator[None]:
    """An unknown scope (LD005) in a verb with ``--create`` says what to do
    in the verb's words, "(--create creates it)" (the SQL function's hint
    names its parameter, ``p_create``)."""
    try:
        yield
    except NotFound as exc:
        raise NotFound(f"{exc} (--create creates it)", exc.sqlstate) from exc


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


class LedgerGroup(click.Group):
    """The command group: a user mistake in any verb (also one without
    :func:`user_errors`) is one ``error:`` line and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:
            message = explain(exc)
            if message is None:
                raise
            raise UserError(message) from None
