"""The suite's split for parallel runs (docs/testing.md, "Parallel runs").

``make test`` runs the suite in two parts: every test not marked ``serial``
under pytest-xdist (``-n``, one module per worker at a time), then the
``serial`` tests on their own. ``serial`` is added here, at collection, to:

* every ``stress`` test (the load tests at full length in ``make test-stress``,
  a few seconds in ``make test``): their writers and the crash would compete
  with the other workers for the 2 cores they are meant to load;
* :data:`SERIAL_MODULES`, each with its reason.

A plain ``pytest -n 4`` runs everything at once and passes too (the fixtures
are parallel-safe); the split only keeps the load tests honest and the
parallel part fast.

The slowest modules (:data:`SLOW_FIRST`) are collected first, so that under
``--dist loadfile --no-loadscope-reorder`` (one module per worker at a time,
in collection order; without the flag xdist orders modules by their number
of tests) a worker starts them at once instead of finishing the run with
one of them while the others idle. The order of the tests within a module is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: modules (paths below tests/) that run after the parallel part, and why
SERIAL_MODULES = {
    "reliability/test_faults.py": "kills backends with pg_terminate_backend and crashes its own cluster "
    "(LEDGER_CRASH_PGPORT) under load: it wants the machine to itself",
}


#: the slowest modules (paths below tests/), slowest first (measured on 2 cores: 30 s to several minutes each)
SLOW_FIRST = [
    "migrations/test_populated_upgrade.py",
    "tooling/test_release.py",
    "migrations/test_offline_sql.py",
    "security/test_security_roles.py",
    "migrations/test_revisions.py",
    "tooling/test_example_service.py",
    "migrations/test_alembic.py",
    "tooling/test_doc_examples.py",
    "cli/test_cli_errors.py",
]


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if module(item) in SERIAL_MODULES or item.get_closest_marker("stress"):
            item.add_marker(pytest.mark.serial)
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(module(item), len(rank)))  # stable: the rest keep their order


def module(item: pytest.Item) -> str:
    """The item's module as a path below tests/ (``reliability/test_faults.py``)."""
    try:
        return item.path.resolve().relative_to(TESTS).as_posix()
    except ValueError:  # a test outside tests/ (pytest given another directory)
        return item.path.name
