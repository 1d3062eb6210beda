"""What the caller owns (docs/python.md, "Connections and transactions"):
the API never commits, so the caller's connection decides (autocommit, or
explicit transactions), and an idle transaction holds its locks; and the API
behind pgbouncer in transaction mode, how many services reach PostgreSQL.

pgbouncer is Debian's package, installed by ``tools/ensure-pgbouncer.sh``
(``make test`` runs it; as root through apt-get). Without it the pgbouncer
tests skip, naming why. Each starts its own pgbouncer on a private port with
a generated configuration and auth file, in front of the test server.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import psycopg
import pytest
from support.pgbouncer import Bouncer, dbname
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl


def test_default_connections_collide_on_prepared_statements_in_transaction_mode(
        bouncer: Callable[..., Bouncer], ledger_dsn: str) -> None:
    """Why docs/python.md asks for prepare_threshold=None: two clients that share
    one server connection both name their first prepared statement _pg3_0."""
    b = bouncer(pool_size=1, prepared_statements=0)
    with psycopg.connect(ledger_dsn, autocommit=True) as direct:
        fl.add_finding(direct, "spec", "a finding", paths=["a.py"])
    with psycopg.connect(b.dsn(dbname(ledger_dsn)), autocommit=True) as one, \
            psycopg.connect(b.dsn(dbname(ledger_dsn)), autocommit=True) as two:
        for _ in range(6):  # psycopg prepares a query from its 5th execution on (prepare_threshold=5)
            fl.active_findings(one, "spec")
        with pytest.raises(psycopg.errors.DuplicatePreparedStatement, match='"_pg3_0" already exists'):
            for _ in range(6):
                fl.active_findings(two, "spec")


def test_the_api_in_transaction_mode_with_prepare_threshold_none(
        bouncer: Callable[..., Bouncer], ledger_dsn: str) -> None:
    """Four services, two server connections: every call of theirs lands, with
    the settings docs/python.md recommends (autocommit, prepare_threshold=None)."""
    b = bouncer(pool_size=2)
    target = b.dsn(dbname(ledger_dsn))
    errors: list[BaseException] = []

    def service(n: int) -> None:
        try:
            with psycopg.connect(target, autocommit=True, prepare_threshold=None) as conn:
                scope = f"svc-{n}"
                retire_drift_on_touch(conn, scope)  # the path rule as such on the drift findings
                for i in range(12):
                    fl.add_finding(conn, scope, f"finding {i}", paths=[f"src/m{i}.py"], kind="drift",
                                   finding_key=f"F{i:02}")
                    assert len(fl.active_findings(conn, scope)) == 1
                    m = fl.record_merge(conn, scope, f"{n:02x}{i:06x}", [f"src/m{i}.py"], message=f"Rework m{i}")
                    assert m.recorded and len(m.superseded) == 1
                    assert fl.active_findings(conn, scope) == []
                assert len([a for a in fl.read_audit(conn, scope) if a.action == "superseded"]) == 12
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=service, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    with psycopg.connect(ledger_dsn) as direct:
        assert direct.execute("SELECT count(*), count(superseded_at) FROM ledger.finding").fetchone() == (48, 48)


def test_an_explicit_transaction_through_transaction_mode_is_all_or_nothing(
        bouncer: Callable[..., Bouncer], ledger_dsn: str) -> None:
    b = bouncer(pool_size=1)
    with psycopg.connect(b.dsn(dbname(ledger_dsn)), prepare_threshold=None) as conn:
        with conn.transaction():
            fl.add_finding(conn, "spec", "kept", paths=["a.py"])
            fl.record_merge(conn, "spec", "aaaa0001", ["b.py"])
        with pytest.raises(fl.PathRejected), conn.transaction():
            fl.add_finding(conn, "spec", "dropped with its transaction", paths=["c.py"])
            fl.add_finding(conn, "spec", "bad", paths=["../outside.py"])
        conn.commit()
    with psycopg.connect(ledger_dsn) as direct:
        assert direct.execute("SELECT title FROM ledger.finding").fetchall() == [("kept",)]
        assert direct.execute("SELECT count(*) FROM ledger.merge").fetchone() == (1,)


def test_the_api_never_commits_and_an_idle_transaction_blocks_ddl(ledger_dsn: str) -> None:
    """A read on a connection without autocommit leaves it idle in transaction,
    holding ACCESS SHARE on what it read: an ALTER TABLE waits for it (here:
    fails after lock_timeout) until the caller commits or rolls back."""
    with psycopg.connect(ledger_dsn) as reader, psycopg.connect(ledger_dsn, autocommit=True) as dba:
        first = fl.add_finding(dba, "spec", "committed", paths=["a.py"])
        assert [f.id for f in fl.active_findings(reader, "spec")] == [first.id]
        assert reader.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        pid = reader.info.backend_pid
        assert dba.execute("SELECT state FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() == (
            "idle in transaction",)
        dba.execute("SET lock_timeout = '200ms'")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            dba.execute("ALTER TABLE ledger.finding ADD COLUMN probe integer")
        f = fl.add_finding(reader, "spec", "not committed yet", paths=["b.py"])
        assert dba.execute("SELECT count(*) FROM ledger.finding").fetchone() == (1,)  # invisible until commit
        reader.commit()
        assert dba.execute("SELECT id FROM ledger.finding ORDER BY id").fetchall() == [(first.id,), (f.id,)]
        with dba.transaction(force_rollback=True):  # nothing holds the table now
            dba.execute("ALTER TABLE ledger.finding ADD COLUMN probe integer")
