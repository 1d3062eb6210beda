"""plpgsql_check finds nothing unjustified in any PL/pgSQL function at head
(the same check as ``make lint``, here on the test's migrated database), and
a justification that excuses no finding fails it (tools/plpgsql_check.py)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("plpgsql_check", ROOT / "tools" / "plpgsql_check.py")
assert _spec and _spec.loader
plpgsql_check = importlib.util.module_from_spec(_spec)
sys.modules["plpgsql_check"] = plpgsql_check  # its dataclass looks its module up
_spec.loader.exec_module(plpgsql_check)


def test_every_plpgsql_function_passes_plpgsql_check(ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        available = conn.execute("SELECT count(*) FROM pg_available_extensions WHERE name = 'plpgsql_check'")
        if available.fetchone() == (0,):
            bindir = conn.execute("SELECT setting FROM pg_config WHERE name = 'BINDIR'").fetchone()
            # make test runs tools/ensure-plpgsql-check.sh, which installs Debian's package as root: for
            # Debian's server there its absence is a failure; only where it cannot be installed (the
            # embedded PyPI/npm servers, a user who is not root) does the test skip
            debian = bindir is not None and str(bindir[0]).startswith("/usr/lib/postgresql/")
            assert not (debian and os.geteuid() == 0 and shutil.which("apt-get")), \
                "plpgsql_check is not installed for Debian's server although this is root with apt-get: " \
                "run tools/ensure-plpgsql-check.sh (make test does)"
            pytest.skip("the plpgsql_check extension cannot be installed for this server here "
                        "(tools/ensure-plpgsql-check.sh installs Debian's package as root)")
        functions = conn.execute("SELECT count(*) FROM pg_proc WHERE pronamespace = 'ledger'::regnamespace "
                                 "AND prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql')").fetchone()
    count, findings = plpgsql_check.check(ledger_dsn)
    assert functions is not None and count >= functions[0] > 40  # every function, triggers once per relation
    unjustified, stale = plpgsql_check.judge(findings)
    assert not unjustified, "\n".join(map(str, unjustified))
    assert not stale


def test_a_justification_that_excuses_nothing_is_stale() -> None:
    assert len(plpgsql_check.judge([])[1]) == len(plpgsql_check.JUSTIFIED) > 0
    f = plpgsql_check.Finding("ledger.enable_scope_rls()", None, "performance", None,
                              "routine is marked as VOLATILE, should be STABLE (attention: ...)", "")
    unjustified, stale = plpgsql_check.judge([f])
    assert unjustified == [] and [fn for fn, _ in stale] == ["disable_scope_rls", "create_publication",
                                                              "tg_finding__active_totals"]
    other = plpgsql_check.Finding("ledger._apply_merge(bigint)", None, "warning", 15, "unused variable \"v_x\"", "")
    assert plpgsql_check.judge([other])[0] == [other]
