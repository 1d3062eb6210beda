"""The Node.js service in examples/node-service/ (pg and pg-copy-streams from
the npm registry, installed with ``npm ci`` from its committed lock file)
passes its own ``node --test`` suite against a migrated database of the
ledger fixtures, and gets exactly the decisions the Python API gets for the
same rows.

The scenario (examples/node-service/scenario.json) is written twice: by the
Node service into one fresh database (findings by plain INSERT, merges by a
multi-row INSERT and by COPY; checked findings whose file-state requests it
answers with ``ledger.record_file_states`` from the scenario's trees), and by
the Python API into another (``add_finding``, ``record_merges``,
``pending_file_states``, ``record_file_states``). Both databases' merges,
audit rows (finding key, action, rule, evidence per merge), file-state
requests (states, outcome, part), active findings and prompt sets are then
read with the same SQL and compared; the Node suite's own output is printed
(pytest -s shows it) and its closing counts asserted.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

import findings_ledger as fl

SERVICE = Path(__file__).resolve().parents[2] / "examples" / "node-service"
NODE = shutil.which("node")
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(NODE is None or NPM is None, reason="node and npm are not installed (node 20)")


def installed() -> None:
    """``npm ci`` when node_modules is missing or older than the lock (what ``make test`` does too)."""
    stamp = SERVICE / "node_modules" / ".package-lock.json"
    lock = SERVICE / "package-lock.json"
    if stamp.exists() and stamp.stat().st_mtime >= lock.stat().st_mtime:
        return
    proc = subprocess.run([str(NPM), "ci", "--no-audit", "--no-fund"], cwd=SERVICE, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"npm ci failed:\n{proc.stdout}\n{proc.stderr}"


def libpq_env(dsn: str) -> dict[str, str]:
    """libpq's PG* variables for ``dsn`` (node's pg reads them), and LEDGER_DSN itself."""
    params = conninfo_to_dict(dsn)
    names = {"host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "dbname": "PGDATABASE", "password": "PGPASSWORD"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update({var: str(params[key]) for key, var in names.items() if params.get(key) is not None})
    env["LEDGER_DSN"] = dsn
    return env


def python_side(dsn: str, scenario: dict[str, Any]) -> None:
    """The same rows through the Python API."""
    scope = scenario["scope"]
    with psycopg.connect(dsn, autocommit=True) as conn:
        fl.set_hygiene_mode(conn, scope, "on", create=True)
        fl.set_match_policy(conn, scope, path_supersede_kinds=scenario["path_supersede_kinds"])
        for kind, mode in scenario["touch_modes"].items():  # the scenario's drift findings retire on a touch
            fl.set_match_policy(conn, scope, touch=mode, touch_kind=kind)
        for f in scenario["findings"]:
            fl.add_finding(conn, scope, f["title"], paths=f["paths"], kind=f["kind"],
                           severity=f.get("severity", "medium"), finding_key=f["key"])
        for batch in ("insert_merges", "copy_merges"):
            fl.record_merges(conn, scope, [
                {"commit_sha": m["sha"], "paths": m["paths"], "message": m.get("message", ""),
                 "added": m.get("added"), "deleted": m.get("deleted")} for m in scenario[batch]])
        # checked findings: the file-state requests answered from the same trees, in merge order
        checked = scenario["checked"]
        for f in checked["findings"]:
            fl.add_finding(conn, checked["scope"], f["title"], paths=f["paths"], kind=f["kind"],
                           finding_key=f["key"], resolved_when=f["resolved_when"])
        fl.record_merges(conn, checked["scope"], [
            {"commit_sha": m["sha"], "paths": m["paths"], "message": m["message"]} for m in checked["merges"]])
        pending: dict[int, tuple[str, set[str]]] = {}
        for request in fl.pending_file_states(conn, checked["scope"]):
            pending.setdefault(request.merge_id, (request.commit_sha, set()))[1].update(request.paths)
        for merge_id, (sha, paths) in sorted(pending.items()):
            fl.record_file_states(conn, merge_id, {p: checked["trees"][sha].get(p) for p in sorted(paths)})


def read_back(dsn: str, scope: str) -> dict[str, Any]:
    """What the ledger holds and decided, read the same way from either database."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        merges = conn.execute("SELECT commit_sha, message, paths, added, deleted FROM ledger.merge "
                              "WHERE scope = %s ORDER BY commit_sha", (scope,)).fetchall()
        audit = conn.execute(
            "SELECT m.commit_sha, f.finding_key, a.action, a.rule, a.evidence FROM ledger.supersession a "
            "JOIN ledger.merge m ON m.id = a.merge_id LEFT JOIN ledger.finding f ON f.id = a.finding_id "
            "WHERE a.scope = %s ORDER BY m.commit_sha, a.id", (scope,)).fetchall()
        findings = conn.execute("SELECT finding_key, paths, anchors, superseded_at IS NULL, supersede_rule "
                                "FROM ledger.finding WHERE scope = %s ORDER BY finding_key", (scope,)).fetchall()
        prompt = [f.finding_key for f in fl.read_prompt_findings(conn, scope).findings]
        requests = conn.execute(
            "SELECT f.finding_key, m.commit_sha, r.paths, r.states, r.outcome, r.part, r.answered_at IS NULL "
            "FROM ledger.file_state_request r JOIN ledger.finding f ON f.id = r.finding_id "
            "JOIN ledger.merge m ON m.id = r.merge_id ORDER BY 1, 2").fetchall()
    return {"merges": merges, "audit": audit, "findings": findings, "prompt": prompt, "requests": requests}


def test_the_node_service_gets_the_python_api_decisions(ledger_dsn_factory: Callable[[], str],
                                                         tmp_path: Path) -> None:
    installed()
    scenario = json.loads((SERVICE / "scenario.json").read_text(encoding="utf-8"))
    node_dsn, python_dsn = ledger_dsn_factory(), ledger_dsn_factory()
    out = tmp_path / "decisions.json"
    proc = subprocess.run([str(NODE), "--test", "--test-reporter=spec", "test/"], cwd=SERVICE,
                          env={**libpq_env(node_dsn), "LEDGER_DECISIONS_OUT": str(out), "NO_COLOR": "1"},
                          capture_output=True, text=True, timeout=300)
    print(proc.stdout)  # the Node suite's own report
    assert proc.returncode == 0, f"node --test failed:\n{proc.stdout}\n{proc.stderr}"
    assert re.search(r"^. pass 7$", proc.stdout, re.M) and re.search(r"^. fail 0$", proc.stdout, re.M), proc.stdout

    python_side(python_dsn, scenario)
    for scope in (scenario["scope"], scenario["checked"]["scope"]):
        node, python = read_back(node_dsn, scope), read_back(python_dsn, scope)
        assert node == python, scope
    assert [r[4] for r in node["requests"]] == ["failed", "held", "failed", "held"]  # G then S, merge by merge
    python = read_back(python_dsn, scenario["scope"])
    # and what the Node service itself read is the same
    seen = json.loads(out.read_text(encoding="utf-8"))
    by_merge = {sha: [[d["finding_key"], d["action"], d["rule"], d["evidence"]] for d in ds]
                for sha, ds in seen["merges"].items()}
    checked = read_back(python_dsn, scenario["checked"]["scope"])
    audit = python["audit"] + checked["audit"]
    assert by_merge == {sha: [[k, a, r, e] for s, k, a, r, e in audit if s == sha] for sha in by_merge}
    assert seen["file_states"] == [{"finding_key": k, "supersede_rule": "check", "commit_sha": "f6f6f6f6f6f6"}
                                   for k in ("G", "S")]
    assert seen["prompt"] == python["prompt"] and seen["active"] == scenario["expect_active"]
    assert ("A", "superseded", "path", "src/a.py") in [tuple(d) for d in by_merge["a1a1a1a1a1a1"]]
