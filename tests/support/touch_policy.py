"""The touch policy a test of the path rule on drift findings states.

The shipped touch mode of kind ``drift`` is ``flag`` (a touch of an
unchecked drift finding leaves it active, audited ``flagged``). A test of
the path rule itself (anchors, hunks, ``expects``, a file touch) retiring
drift findings states that policy for its scope: :func:`retire_drift_on_touch`
(``policy --touch retire --kind drift``), or the SQL :data:`RETIRE_DRIFT_SQL`
for a psql script or a plain INSERT writer.
"""

from __future__ import annotations

from typing import Any

import psycopg

import findings_ledger as fl

#: the same policy in SQL, for a scope given as %s (or formatted in)
RETIRE_DRIFT_SQL = "SELECT ledger.set_match_policy(%s, p_create => true, p_touch => 'retire', p_touch_kind => 'drift')"


def retire_drift_on_touch(conn: psycopg.Connection[Any], *scopes: str) -> None:
    """Each scope (created if absent) retires an unchecked drift finding on a
    resolving touch: the path rule as such."""
    for scope in scopes:
        fl.set_match_policy(conn, scope, create=True, touch="retire", touch_kind="drift")


def drift_retires_on_touch(*scopes: str, autouse: bool = True) -> Any:
    """A fixture (``drift_retires_on_touch``; autouse unless ``autouse=False``,
    then ``@pytest.mark.usefixtures("drift_retires_on_touch")`` on the tests
    that need it) for a module whose tests exercise the path rule on drift
    findings: before each test, ``scopes`` (created if absent) retire an
    unchecked drift finding on a resolving touch, in the test's database
    (``ledger_dsn``, the one ``ledger_conn`` connects to). Assign it to a
    module-level name: ``_touch = drift_retires_on_touch("spec", "s")``."""
    import pytest

    @pytest.fixture(autouse=autouse, name="drift_retires_on_touch")
    def _drift_retires_on_touch(ledger_dsn: str) -> None:
        with psycopg.connect(ledger_dsn, autocommit=True) as conn:
            retire_drift_on_touch(conn, *scopes)

    return _drift_retires_on_touch
