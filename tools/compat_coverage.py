"""pytest plugin for ``make test-compat`` (tools/compat.py loads it with
``-p compat_coverage``): which SQL objects of schema ``ledger`` the run used.

Every test database is dropped by pytest-postgresql's ``DatabaseJanitor``, and
the recycled one (``ledger_dsn``) is reset after each test; just before each
drop and each reset this plugin reads that database's
``pg_stat_user_functions`` (the server runs with ``track_functions = all``)
and ``pg_stat_user_tables``, and keeps, per object, the test modules that
called (function) or read and wrote (table) it. At the end it writes
``$COMPAT_COVERAGE_OUT`` (JSON): every function and table of the schema, and
who used it. Databases made outside the janitor (the crash test's own
cluster, a subprocess's) are not counted, so the figures are a lower bound.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from typing import Any

import psycopg
import pytest
from pytest_postgresql.janitor import DatabaseJanitor

from findings_ledger.testing.databases import Recycler, database_dsn

_current = {"module": "(collection)"}
_functions: dict[str, set[str]] = defaultdict(set)
_tables_read: dict[str, set[str]] = defaultdict(set)
_tables_written: dict[str, set[str]] = defaultdict(set)
_all: dict[str, Any] = {"functions": {}, "tables": set(), "definitions": []}

FUNCTIONS = """
SELECT p.oid::regprocedure::text, p.proname::text, l.lanname::text, p.prosrc
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
 WHERE n.nspname = 'ledger'
   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
"""
# SQL text outside function bodies that can call a function: views, policies, indexes, constraints, defaults
DEFINITIONS = """
SELECT pg_get_viewdef(c.oid) FROM pg_class c WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind = 'v'
UNION ALL SELECT coalesce(qual, '') || ' ' || coalesce(with_check, '') FROM pg_policies WHERE schemaname = 'ledger'
UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname = 'ledger'
UNION ALL SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'ledger'::regnamespace
UNION ALL SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid
 WHERE c.relnamespace = 'ledger'::regnamespace
"""
TABLES = "SELECT relid::regclass::text FROM pg_stat_user_tables WHERE schemaname = 'ledger'"
CALLED = """
SELECT funcid::regprocedure::text FROM pg_stat_user_functions WHERE schemaname = 'ledger' AND calls > 0
"""
USED = """
SELECT relid::regclass::text, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) > 0, n_tup_ins + n_tup_upd + n_tup_del > 0
  FROM pg_stat_user_tables WHERE schemaname = 'ledger'
"""


def _record(janitor: DatabaseJanitor) -> None:
    who = "(template: migrations)" if janitor.as_template else _current["module"]
    params: dict[str, Any] = {"dbname": janitor.dbname, "user": janitor.user, "password": janitor.password,
              "host": janitor.host, "port": janitor.port}
    _record_database(params, who, janitor.as_template)


def _record_database(params: dict[str, Any], who: str, as_template: bool, keep: int = 0) -> None:
    """Read the use of one database; ``keep``: a backend pid that stays connected (the recycler's)."""
    try:
        with psycopg.connect(**params, autocommit=True, connect_timeout=5) as conn, conn.cursor() as cur:
            # the test's own backends report their counts when they exit
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline:
                cur.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND pid <> pg_backend_pid() AND pid <> %s", (keep,))
                if cur.fetchone()[0] == 0:
                    break
                time.sleep(0.02)
            cur.execute("SELECT pg_stat_clear_snapshot()")
            if as_template:  # the schema as the migrations made it, not a test's additions
                cur.execute(FUNCTIONS)
                _all["functions"] = {sig: {"name": name, "language": lang, "source": src}
                                     for sig, name, lang, src in cur.fetchall()}
                cur.execute(TABLES)
                _all["tables"] = {r[0] for r in cur.fetchall()}
                cur.execute(DEFINITIONS)
                _all["definitions"] = [r[0] for r in cur.fetchall()]
            cur.execute(CALLED)
            for (name,) in cur.fetchall():
                _functions[name].add(who)
            cur.execute(USED)
            for name, read, written in cur.fetchall():
                if read:
                    _tables_read[name].add(who)
                if written:
                    _tables_written[name].add(who)
    except psycopg.Error:
        pass  # a database that does not exist (yet, or any more)


_original_drop = DatabaseJanitor.drop
_original_release = Recycler.release


def _drop(self: DatabaseJanitor) -> None:
    _record(self)
    _original_drop(self)


def _release(self: Recycler) -> None:
    """The recycled database (``ledger_dsn``) serves one test after another and its
    reset clears the statistics: each test's use is read before its reset."""
    if self.name is not None:
        own = self._conn.info.backend_pid if self._conn is not None and not self._conn.closed else 0
        _record_database(psycopg.conninfo.conninfo_to_dict(database_dsn(self.server, self.name)),
                         _current["module"], False, own)
    _original_release(self)


def pytest_configure(config: pytest.Config) -> None:
    DatabaseJanitor.drop = _drop  # type: ignore[method-assign]
    Recycler.release = _release  # type: ignore[method-assign]


def pytest_unconfigure(config: pytest.Config) -> None:
    DatabaseJanitor.drop = _original_drop  # type: ignore[method-assign]
    Recycler.release = _original_release  # type: ignore[method-assign]
    out = os.environ.get("COMPAT_COVERAGE_OUT")
    if not out:
        return
    report: dict[str, Any] = {
        "functions": {f: sorted(_functions.get(f, ())) for f in sorted(_all["functions"])},
        "sources": _all["functions"],
        "definitions": _all["definitions"],
        "tables_read": {t: sorted(_tables_read.get(t, ())) for t in sorted(_all["tables"])},
        "tables_written": {t: sorted(_tables_written.get(t, ())) for t in sorted(_all["tables"])},
    }
    with open(out, "w") as fh:
        json.dump(report, fh, indent=1, sort_keys=True)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _current["module"] = item.nodeid.split("::")[0]
