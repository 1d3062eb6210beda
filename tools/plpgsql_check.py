"""Static check of every PL/pgSQL function of schema ``ledger`` with the
``plpgsql_check`` extension (part of ``make lint``).

    .venv/bin/python tools/plpgsql_check.py      # exit 1 on any unjustified finding

On the throwaway cluster (started when needed; ``tools/ensure-plpgsql-check.sh``,
run by ``make lint``, installs Debian's ``postgresql-<major>-plpgsql-check``),
a scratch database is migrated to head with the real revisions, ``CREATE
EXTENSION plpgsql_check`` is run in it, and every PL/pgSQL function is checked
with ``plpgsql_check_function_tb``: a trigger function once per relation it
is a trigger of (with the transition table's name when it has one), every
other function on its own. All checks are on: fatal errors, other warnings,
extra warnings, performance and security warnings. The scratch database is
dropped afterwards.

A finding is fixed in ``sql/`` (and a revision) or justified in
:data:`JUSTIFIED` with its reason; a justification that no longer matches a
finding fails the check too, so the list cannot go stale (as in
``tools/lint_sql.py`` for squawk).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "pyapi"))

import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

from findings_ledger.api import migrate  # noqa: E402
from findings_ledger.testing import cluster  # noqa: E402

#: (function name, pattern of the message, reason): findings that stay, each with why.
JUSTIFIED: list[tuple[str, re.Pattern[str], str]] = [
    (
        "enable_scope_rls",
        re.compile(r"^routine is marked as VOLATILE, should be STABLE"),
        "its dynamic SQL is ALTER TABLE ... ENABLE / FORCE ROW LEVEL SECURITY on every scoped table, which "
        "changes the catalog: VOLATILE is right (plpgsql_check cannot see into EXECUTE, as its message says)",
    ),
    (
        "disable_scope_rls",
        re.compile(r"^routine is marked as VOLATILE, should be STABLE"),
        "its dynamic SQL is ALTER TABLE ... DISABLE / NO FORCE ROW LEVEL SECURITY: it changes the catalog, "
        "so VOLATILE is right (plpgsql_check cannot see into EXECUTE)",
    ),
    (
        "create_publication",
        re.compile(r"^routine is marked as VOLATILE, should be STABLE"),
        "its dynamic SQL is CREATE PUBLICATION: it changes the catalog, so VOLATILE is right (plpgsql_check "
        "cannot see into EXECUTE)",
    ),
    (
        "tg_finding__active_totals",
        re.compile(r'^relation "old_finding" does not exist'),
        "checked as the INSERT trigger _310_active_totals_insert, which has no OLD TABLE: the function reads "
        "old_finding only when TG_OP is UPDATE, that is as _310_active_totals_update, which has it",
    ),
]

#: every PL/pgSQL function of schema ledger, with the relations (and transition
#: table names) of the triggers that call it; no trigger: one row with relid NULL
TARGETS = """
SELECT p.oid::regprocedure::text AS name, p.oid, t.tgrelid AS relid,
       t.tgnewtable::text AS newtable, t.tgoldtable::text AS oldtable
  FROM pg_proc p
  JOIN pg_language l ON l.oid = p.prolang AND l.lanname = 'plpgsql'
  LEFT JOIN pg_trigger t ON t.tgfoid = p.oid AND NOT t.tgisinternal
 WHERE p.pronamespace = 'ledger'::regnamespace
 ORDER BY 1, t.tgrelid::regclass::text
"""

CHECK = """
SELECT level, lineno, message, coalesce(detail, ''), coalesce(hint, ''), coalesce(statement, '')
  FROM plpgsql_check_function_tb(%(oid)s::regprocedure, coalesce(%(relid)s, 0)::regclass,
       fatal_errors => false, other_warnings => true, performance_warnings => true,
       extra_warnings => true, security_warnings => true,
       oldtable => %(oldtable)s, newtable => %(newtable)s)
"""


@dataclass(frozen=True)
class Finding:
    function: str
    relation: str | None
    level: str
    lineno: int | None
    message: str
    detail: str

    def __str__(self) -> str:
        where = f" (trigger on {self.relation})" if self.relation else ""
        line = f" line {self.lineno}" if self.lineno else ""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.function}{where}{line}: {self.level}: {self.message}{detail}"


def check(dsn: str) -> tuple[int, list[Finding]]:
    """(number of checks run, findings) for every PL/pgSQL function of the database."""
    findings: list[Finding] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS plpgsql_check")
        targets = conn.execute(TARGETS).fetchall()
        for name, oid, relid, newtable, oldtable in targets:
            relation = None
            if relid is not None:
                relation = conn.execute("SELECT %s::regclass::text", (relid,)).fetchone()[0]  # type: ignore[index]
            rows = conn.execute(CHECK, {"oid": oid, "relid": relid, "newtable": newtable,
                                        "oldtable": oldtable}).fetchall()
            for level, lineno, message, detail, _hint, _statement in rows:
                findings.append(Finding(name, relation, level, lineno, message, detail))
    return len(targets), findings


def judge(findings: list[Finding]) -> tuple[list[Finding], list[tuple[str, str]]]:
    """(unjustified findings, stale justifications as (function, pattern))."""
    used: set[int] = set()
    open_: list[Finding] = []
    for f in findings:
        hits = [i for i, (fn, pattern, _) in enumerate(JUSTIFIED)
                if f.function.startswith(f"ledger.{fn}(") and pattern.search(f.message)]
        used.update(hits)
        if not hits:
            open_.append(f)
    stale = [(fn, pattern.pattern) for i, (fn, pattern, _) in enumerate(JUSTIFIED) if i not in used]
    return open_, stale


def main() -> int:
    try:
        server = cluster.server_dsn("postgres")
    except cluster.ClusterError as exc:
        print(f"plpgsql_check: error: {exc}", file=sys.stderr)
        return 1
    name = f"ledger_plpgsql_check_{os.getpid()}"
    ident = sql.Identifier(name)
    with cluster.catalog_lock(server), psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(ident))
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(ident))
    try:
        dsn = psycopg.conninfo.make_conninfo(server, dbname=name)
        migrate(dsn)
        try:
            count, findings = check(dsn)
        except psycopg.errors.FeatureNotSupported as exc:
            print(f"plpgsql_check: error: {exc} (run tools/ensure-plpgsql-check.sh)", file=sys.stderr)
            return 1
    finally:  # under the shared catalog lock (findings_ledger.testing.cluster.catalog_lock)
        with cluster.catalog_lock(server), psycopg.connect(server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(ident))
    open_, stale = judge(findings)
    for f in open_:
        print(f"plpgsql_check: {f}")
    for fn, pattern in stale:
        print(f"plpgsql_check: stale justification (matches no finding): {fn} /{pattern}/")
    justified = len(findings) - len(open_)
    print(f"plpgsql_check: {count} checks of PL/pgSQL functions (triggers per relation), "
          f"{len(open_)} unjustified findings, {justified} justified, {len(stale)} stale justifications")
    return 1 if open_ or stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
