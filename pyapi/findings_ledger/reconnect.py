"""Reconnecting after a failover (docs/scaling.md, "Failover").

A client of a primary with a standby is given both in one libpq DSN, the
primary first, and asks for the server that takes writes::

    host=db1,db2 port=5432,5432 dbname=app target_session_attrs=read-write connect_timeout=5

libpq tries the hosts in order and keeps the first that is up and not in
recovery, so after a failover the same DSN finds the promoted standby: the
old primary refuses connections, the standby refuses read-write sessions
until it is promoted. Between the kill and the promotion nothing accepts a
read-write session, so a client that lost its connection tries again for a
while: :func:`connect_retrying`.

What a client did before the loss is known only from the database: a
transaction whose COMMIT got no answer may or may not have committed. Every
writer of the ledger can be resumed from what the database holds: a merge
is redelivered (``ON CONFLICT DO NOTHING``; ``record_merge`` reports
``recorded = False``), an answer is given again (``record_file_states`` and
``answer_recheck`` are idempotent), a finding is looked up by its key, a
claimed task is found by its runtime and status, replay-git skips the
commits already recorded. So the loop is always: reconnect, read what is
done, go on with the rest.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg


def connect_retrying(
    dsn: str, *, timeout: float, interval: float = 0.25, autocommit: bool = True, **kwargs: Any
) -> psycopg.Connection[Any]:
    """A connection to ``dsn`` (a libpq DSN or URI, one host or a list;
    ``target_session_attrs=read-write`` for a writer), trying again every
    ``interval`` seconds while no server accepts one, for at most
    ``timeout`` seconds. ``kwargs`` go to :func:`psycopg.connect`. Raises
    the last :class:`psycopg.OperationalError` when the time is up (with
    ``timeout`` 0: after one attempt over the whole list)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return psycopg.connect(dsn, autocommit=autocommit, **kwargs)
        except psycopg.OperationalError:
            if time.monotonic() + interval > deadline:
                raise
            time.sleep(interval)


def connection_lost(conn: psycopg.Connection[Any], exc: BaseException) -> bool:
    """Whether ``exc``, raised by a statement on ``conn``, means the server
    is gone (the connection is closed or broken: reconnect and resume)
    rather than a refusal of the statement (a constraint, a project
    SQLSTATE: the same statement would fail again)."""
    return isinstance(exc, psycopg.OperationalError) and (conn.closed or conn.broken)
