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
"""

from __future__ import annotations

import pytest

#: modules that run after the parallel part, and why
SERIAL_MODULES = {
    "test_faults.py": "kills backends with pg_terminate_backend and crashes its own cluster "
    "(LEDGER_CRASH_PGPORT) under load: it wants the machine to itself",
}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SERIAL_MODULES or item.get_closest_marker("stress"):
            item.add_marker(pytest.mark.serial)
