"""Logical replication (docs/dba.md, "Logical replication"): a real subscriber.

One throwaway cluster of this test's own (wal_level=logical; port LEDGER_LOGICAL_PGPORT,
else LEDGER_PGPORT + 103, else 54349, in /tmp/findings-ledger-logical-<uid>.<port>) holds
two databases, both migrated to head by alembic: the publisher and the subscriber. The
publication is ledger.create_publication's; the subscription connects back to the same
cluster, so its slot is made beforehand and the subscription says create_slot = false.

Rows written before the subscription (the initial copy) and after it (streaming): scopes,
findings, merges, a merge that supersedes findings (its audit), a checked finding answered
by a file state, an issue and a claimed task. Then the subscriber holds the publisher's rows
table by table, the lifecycle states agree, no worker reported an error, and the two seeded
tables hold their seed once. The identity sequences are not replicated: the promotion
snippet of docs/dba.md, run on the subscriber, lets it take writes.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger.testing import cluster

DOCS = Path(__file__).resolve().parents[2] / "docs" / "dba.md"
SEEDED = ("alembic_version", "poisoned_failure_reason")
OLD = datetime(2026, 1, 1, tzinfo=timezone.utc)


def logical_port() -> int:
    raw = os.environ.get("LEDGER_LOGICAL_PGPORT", "").strip()
    if raw:
        return int(raw)
    main = os.environ.get(cluster.PORT_ENV, "").strip()
    if main.isdigit() and int(main) + 103 <= 65535:
        return int(main) + 103
    return 54349


def _remove(c: cluster.Cluster) -> None:
    try:
        cluster.stop_cluster(c, mode="immediate")
    except cluster.ClusterError:
        pass
    shutil.rmtree(c.base, ignore_errors=True)


@pytest.fixture(scope="module")
def logical() -> Iterator[cluster.Cluster]:
    port = logical_port()
    c = cluster.Cluster(base=Path(f"/tmp/findings-ledger-logical-{os.geteuid()}.{port}"), port=port)
    _remove(c)  # a killed run's leftovers
    try:
        # PostgreSQL's defaults for the slots and senders: publisher and subscriber are one cluster here, so
        # the subscription's slot, each table sync worker's temporary slot and the replication origins of the
        # apply and sync workers (dropped only after each table is ready) share them; with 4, a sync worker
        # sometimes found no free origin state ("could not find free replication state slot") and retried
        cluster.ensure_cluster(c, settings={"wal_level": "logical", "max_wal_senders": "10",
                                            "max_replication_slots": "10", "max_logical_replication_workers": "4",
                                            "wal_receiver_status_interval": "1s"})
        yield c
    finally:
        _remove(c)


def wait_for(what: str, check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def published_tables(conn: psycopg.Connection[Any], publication: str) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT tablename FROM pg_publication_tables WHERE pubname = %s AND schemaname = 'ledger' ORDER BY 1",
        (publication,))]


def table_rows(conn: psycopg.Connection[Any], table: str) -> list[str]:
    """Every row of ledger.<table> as text, in a total order (the row's text)."""
    return [r[0] for r in conn.execute(f"SELECT t::text FROM ledger.{table} t ORDER BY 1")]


def write_some(conn: psycopg.Connection[Any], tag: str) -> dict[str, int]:
    """Findings, a merge that supersedes two of them, a checked finding answered by a file
    state, an issue with a claimed, started task; returns the ids the test follows."""
    scope = f"repl-{tag}"
    hexa = {"copy": "c0", "stream": "d0"}[tag]
    retire_drift_on_touch(conn, scope)
    gone = fl.add_finding(conn, scope, f"{tag}: a.py is stale", paths=["src/a.py"], kind="drift", observed_at=OLD).id
    gone_dir = fl.add_finding(conn, scope, f"{tag}: src is stale", paths=["src/"], kind="drift", observed_at=OLD).id
    kept = fl.add_finding(conn, scope, f"{tag}: lib is stale", paths=["lib/x.py"], kind="drift", observed_at=OLD).id
    merge = fl.record_merge(conn, scope, f"{hexa}aaaa01", ["src/a.py"], message="fix a")
    assert {d.finding_id for d in merge.decisions if d.action == "superseded"} == {gone, gone_dir}
    checked_scope = f"repl-{tag}-check"
    fl.set_hygiene_mode(conn, checked_scope, "on", create=True)
    checked = fl.add_finding(conn, checked_scope, f"{tag}: c.py has a TODO", paths=["c.py"], kind="drift",
                             observed_at=OLD, resolved_when={"all": [{"file_lacks": {"path": "c.py",
                                                                                     "pattern": "TODO"}}]}).id
    fl.record_merge(conn, checked_scope, f"{hexa}bbbb01", ["c.py"], merged_at=OLD + timedelta(days=1))
    (pending,) = fl.pending_file_states(conn, checked_scope)
    fl.record_file_states(conn, pending.merge_id, {"c.py": "done\n"})
    issue = fl.add_issue(conn, f"repl-{tag}-tasks", f"{tag}: issue", description="do it")
    fl.enqueue_task(conn, issue.id, "agent-r", f"rt-{tag}")
    claim = fl.claim_task(conn, f"rt-{tag}", lease=timedelta(minutes=5))
    assert claim is not None
    fl.start_task(conn, claim.task_id, session_id=f"sess-{tag}")
    return {"gone": gone, "gone_dir": gone_dir, "kept": kept, "checked": checked, "merge": merge.merge_id,
            "task": claim.task_id}


def promotion_snippet() -> str:
    """The SQL block of docs/dba.md that resets the identity sequences on promotion."""
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(r"<!-- promotion-sequences -->\s*```sql\n(.*?)```", text, re.S)
    assert match, "docs/dba.md has no promotion-sequences block"
    return match.group(1)


def test_no_ledger_trigger_fires_on_a_subscriber(ledger_conn: psycopg.Connection) -> None:
    """The apply worker runs with session_replication_role = replica: a trigger enabled the
    ordinary way (O) does not fire there, one ENABLE ALWAYS (A) or ENABLE REPLICA (R) would.
    None of ours is: the subscriber applies the publisher's rows as they are."""
    rows = ledger_conn.execute(
        "SELECT t.tgrelid::regclass::text, t.tgname, t.tgenabled FROM pg_trigger t "
        "JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = 'ledger'::regnamespace "
        "AND NOT t.tgisinternal ORDER BY 1, 2").fetchall()
    assert len(rows) > 20
    assert [r for r in rows if r[2] != "O"] == []


def test_create_publication_publishes_every_table_but_the_seeded_ones(ledger_conn: psycopg.Connection) -> None:
    tables = [r[0] for r in ledger_conn.execute(
        "SELECT c.relname FROM pg_class c WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind IN ('r', 'p') "
        "ORDER BY 1")]
    assert set(SEEDED) <= set(tables)
    returned = [r[0] for r in ledger_conn.execute("SELECT t::text FROM ledger.create_publication('ledger_pub') t")]
    assert returned == [f"ledger.{t}" for t in tables if t not in SEEDED]
    assert published_tables(ledger_conn, "ledger_pub") == [t for t in tables if t not in SEEDED]
    # every published table has a replica identity (its primary key): UPDATE and DELETE publish
    no_key = ledger_conn.execute(
        "SELECT c.relname FROM pg_publication_tables p JOIN pg_class c "
        "ON c.relname = p.tablename AND c.relnamespace = 'ledger'::regnamespace "
        "WHERE p.pubname = 'ledger_pub' AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid "
        "AND (i.indisprimary OR i.indisreplident))").fetchall()
    assert no_key == []
    with pytest.raises(psycopg.Error, match="p_name") as refused:
        ledger_conn.execute("SELECT ledger.create_publication(' ')")
    assert refused.value.sqlstate == "LD002"
    ledger_conn.rollback()
    with pytest.raises(psycopg.errors.DuplicateObject):
        ledger_conn.execute("SELECT ledger.create_publication('ledger_pub')")
    ledger_conn.rollback()
    for role in ("ledger_writer", "ledger_reader", "ledger_agent", "ledger_admin"):
        assert ledger_conn.execute(
            "SELECT has_function_privilege(%s, 'ledger.create_publication(text)', 'EXECUTE')", (role,)
        ).fetchone() == (False,)


def test_a_subscriber_receives_every_row_and_no_worker_fails(logical: cluster.Cluster) -> None:
    started = time.monotonic()
    for db in ("pub", "sub"):
        cluster.ensure_database(logical.dsn(), db)
        fl.migrate(logical.dsn(db))
    pub = psycopg.connect(logical.dsn("pub"), autocommit=True)
    sub = psycopg.connect(logical.dsn("sub"), autocommit=True)
    try:
        major = pub.info.server_version // 10000
        before = write_some(pub, "copy")  # the initial copy carries these
        assert [r[0] for r in pub.execute("SELECT t::text FROM ledger.create_publication('ledger_pub') t")]
        pub.execute("SELECT pg_create_logical_replication_slot('ledger_sub', 'pgoutput')")
        sub.execute(
            f"CREATE SUBSCRIPTION ledger_sub CONNECTION 'host=127.0.0.1 port={logical.port} dbname=pub user=postgres' "
            "PUBLICATION ledger_pub WITH (create_slot = false, slot_name = 'ledger_sub')")
        after = write_some(pub, "stream")  # streamed (or copied, when the copy starts later)
        fl.record_merge(pub, "repl-copy", "c0aaaa02", ["lib/x.py"])  # supersedes a copied finding
        tables = published_tables(pub, "ledger_pub")

        def caught_up() -> bool:
            states = sub.execute("SELECT srsubstate FROM pg_subscription_rel").fetchall()
            if len(states) != len(tables) or any(s != ("r",) for s in states):
                return False
            lsn = pub.execute("SELECT pg_current_wal_lsn()").fetchone()[0]  # type: ignore[index]
            return bool(pub.execute(
                "SELECT confirmed_flush_lsn >= %s::pg_lsn FROM pg_replication_slots WHERE slot_name = 'ledger_sub'",
                (lsn,)).fetchone()[0])  # type: ignore[index]

        wait_for("the subscriber to copy and catch up", caught_up)
        for table in tables:
            assert table_rows(sub, table) == table_rows(pub, table), table
        assert set(tables) >= {"finding", "merge", "supersession", "scope", "agent_task", "file_state_request"}
        states = "SELECT id, state, superseded_by_merge_id, supersede_rule FROM ledger.finding_lifecycle ORDER BY id"
        assert sub.execute(states).fetchall() == pub.execute(states).fetchall()
        lifecycle = dict(sub.execute("SELECT id, state FROM ledger.finding_lifecycle").fetchall())
        for ids in (before, after):
            assert (lifecycle[ids["gone"]], lifecycle[ids["gone_dir"]], lifecycle[ids["checked"]]) == (
                "superseded", "superseded", "superseded")
        assert lifecycle[before["kept"]] == "superseded" and lifecycle[after["kept"]] == "active"
        audit = ("SELECT finding_id, merge_id, action, rule FROM ledger.supersession "
                 "WHERE action = 'superseded' ORDER BY id")
        assert sub.execute(audit).fetchall() == pub.execute(audit).fetchall()
        assert (before["gone"], before["merge"], "superseded", "path") in sub.execute(audit).fetchall()
        # the seeded tables: their seed once, from the subscriber's own migration
        for table, key in (("alembic_version", "version_num"), ("poisoned_failure_reason", "failure_reason")):
            keys = f"SELECT {key}, count(*) FROM ledger.{table} GROUP BY 1 ORDER BY 1"
            assert sub.execute(keys).fetchall() == pub.execute(keys).fetchall()
            assert all(n == 1 for _, n in sub.execute(keys).fetchall())
        assert sub.execute("SELECT count(*) FROM ledger.poisoned_failure_reason").fetchone() == (3,)
        # no worker failed: the apply worker runs, and (15 and later) counted no error
        assert sub.execute("SELECT count(*) FROM pg_stat_subscription WHERE subname = 'ledger_sub' "
                           "AND pid IS NOT NULL AND relid IS NULL").fetchone() == (1,)
        if major >= 15:
            assert sub.execute("SELECT apply_error_count, sync_error_count FROM pg_stat_subscription_stats "
                               "WHERE subname = 'ledger_sub'").fetchone() == (0, 0)
        log = logical.logfile.read_text(errors="replace")
        assert "duplicate key" not in log and "logical replication" in log, log[-2000:]

        # what the publication leaves out: a seeded table published fails its initial copy
        pub.execute("CREATE PUBLICATION naive FOR TABLE ledger.alembic_version")
        pub.execute("SELECT pg_create_logical_replication_slot('naive', 'pgoutput')")
        sub.execute(
            f"CREATE SUBSCRIPTION naive CONNECTION 'host=127.0.0.1 port={logical.port} dbname=pub user=postgres' "
            "PUBLICATION naive WITH (create_slot = false, slot_name = 'naive')")
        wait_for("the seeded table's copy to fail", lambda: 'duplicate key value violates unique constraint '
                 '"alembic_version_pkc"' in logical.logfile.read_text(errors="replace"))
        assert sub.execute("SELECT srsubstate FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid "
                           "WHERE s.subname = 'naive'").fetchone() != ("r",)
        for name in ("naive", "ledger_sub"):
            sub.execute(f"ALTER SUBSCRIPTION {name} DISABLE")
            sub.execute(f"ALTER SUBSCRIPTION {name} SET (slot_name = NONE)")
            sub.execute(f"DROP SUBSCRIPTION {name}")
            wait_for(f"slot {name} to be released", lambda slot=name: pub.execute(
                "SELECT active FROM pg_replication_slots WHERE slot_name = %s", (slot,)).fetchone() == (False,))
            pub.execute("SELECT pg_drop_replication_slot(%s)", (name,))

        # promotion: the subscription is gone; the sequences are moved past the copied ids
        highest = sub.execute("SELECT max(id) FROM ledger.finding").fetchone()[0]  # type: ignore[index]
        with pytest.raises(psycopg.errors.UniqueViolation):
            sub.execute("INSERT INTO ledger.finding (scope, title, paths) VALUES ('repl-copy', 'too early', '{x.py}')")
        sub.execute(promotion_snippet())
        new = fl.add_finding(sub, "repl-promoted", "after the snippet", paths=["x.py"]).id
        assert new > highest
        merge = fl.record_merge(sub, "repl-copy", "e0aaaa01", ["lib/"])
        assert merge.merge_id > max(before["merge"], after["merge"])
    finally:
        pub.close()
        sub.close()
    print(f"\nlogical replication on PostgreSQL {major}: {len(tables)} tables, "
          f"{time.monotonic() - started:.1f} s")
