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

``make test`` runs the parallel part with ``--dist loadgroup
--no-loadscope-reorder``: a work unit is an ``xdist_group``, in collection
order (without the flag xdist orders units by their number of tests). Every
test is put in the group of its module (one module per worker at a time, so
a module's fixtures are built once), except the tests of
:data:`SPREAD_MODULES`: each of those is a unit of its own, so their minutes
are shared among the workers instead of running on one while the others idle.

The slowest grouped modules (:data:`SLOW_FIRST`) are collected first, so that
a worker starts them at once instead of finishing the run with one of them;
the spread tests come last, where their small units fill the workers evenly.
The order of the tests within a module is unchanged.

``LEDGER_FAIL_ON_SKIP=1`` (what ``.ci/run`` sets for ``make test``) turns
every skip into a failure that gives the skip's reason: CI's machine has
everything the suite can use (root, apt-get, Debian's PostgreSQL with ICU,
npm, the corpus beside the checkout, a full clone), so a skip there is a
test that stopped testing, as when the corpus was looked for one folder too
low. Elsewhere a skip stays a skip, naming what is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: fixtures of tests/support that tests of more than one folder use
pytest_plugins = ["support.pgbouncer"]

#: modules (paths below tests/) that run after the parallel part, and why
SERIAL_MODULES = {
    "reliability/test_faults.py": "kills backends with pg_terminate_backend and crashes its own cluster "
    "(LEDGER_CRASH_PGPORT) under load: it wants the machine to itself",
}


#: the slowest grouped modules (paths below tests/), slowest first (on 2 cores: 30 s to minutes each)
SLOW_FIRST = [
    "migrations/test_offline_sql.py",
    "decisions/test_tokeniser_differential.py",
    "decisions/test_corpus_decisions.py",
    "merges/test_bulk_equivalence.py",
    "tooling/test_bench_smoke.py",
    "tooling/test_release.py",
    "migrations/test_populated_upgrade.py",
    "tooling/test_example_service.py",
    "migrations/test_alembic.py",
]

#: modules whose tests are spread over the workers one by one: long in all, and no test depends
#: on another (function-scoped fixtures; cli/test_cli_errors' module fixture is read-only input),
#: largest first
SPREAD_MODULES = [
    "cli/test_cli_errors.py",
    "sql/test_scope_names_and_times.py",
    "tooling/test_doc_examples.py",
    "tooling/test_pytest_plugin.py",
    "migrations/test_revisions.py",
    "merges/test_merge_integrity.py",
    "access/test_security_roles.py",
    "sql/test_paths.py",
    "sql/test_unicode_paths.py",
    "merges/test_record_merges.py",
]


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    spread = set(SPREAD_MODULES)
    for item in items:
        name = module(item)
        if name in SERIAL_MODULES or item.get_closest_marker("stress"):
            item.add_marker(pytest.mark.serial)
        if name not in spread and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(name))
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    rank.update({name: len(rank) + 1 + i for i, name in enumerate(SPREAD_MODULES)})
    items.sort(key=lambda item: rank.get(module(item), len(SLOW_FIRST)))  # stable: the rest keep their order


def module(item: pytest.Item) -> str:
    """The item's module as a path below tests/ (``reliability/test_faults.py``)."""
    try:
        return item.path.resolve().relative_to(TESTS).as_posix()
    except ValueError:  # a test outside tests/ (pytest given another directory)
        return item.path.name


#: the environment variable that turns skips into failures (see the module docstring)
FAIL_ON_SKIP = "LEDGER_FAIL_ON_SKIP"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get(FAIL_ON_SKIP) == "1" and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped with {FAIL_ON_SKIP}=1 (CI has everything the suite uses): {reason}"
