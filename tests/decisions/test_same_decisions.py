"""Same decisions over real histories: tools/decision_digest.py replays
spf13/viper of the corpus and the agent-fox bundle (its last 300 merges, by
replay-git's path) into scopes with the benchmark's findings, and the md5 of
every audit row that is not anchor bookkeeping, of every finding's state and
of every anchor move (read per finding through ledger.read_audit, with its evidence
and reason) must equal the
digests recorded in same_decisions.json. A change to what the ledger decides
changes a digest; a change that only stores the anchor bookkeeping another
way changes none."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).with_name("same_decisions.json")
AGENT_FOX_LIMIT = 300


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location("decision_digest", ROOT / "tools" / "decision_digest.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_same_decisions_over_viper_and_agent_fox(ledger_dsn: str) -> None:
    tool = _tool()
    assert (tool.CORPUS / "spf13__viper.json").exists(), f"the corpus is not at {tool.CORPUS}"
    got = tool.run(ledger_dsn, agent_fox_limit=AGENT_FOX_LIMIT)
    want = json.loads(RECORDED.read_text())
    for repo in ("spf13/viper", "agent-fox"):
        for key in ("merges", "audit", "audit_rows", "findings", "finding_rows", "moves", "move_rows"):
            assert got[repo][key] == want[repo][key], (repo, key, got[repo])
    # no audit row for an anchor that did not move; the anchors a merge moved within their files are one
    # row of the merge (its anchor record), read back as one move per finding
    for repo in ("spf13/viper", "agent-fox"):
        assert "anchor_kept" not in got[repo]["rows_by_action"]
        assert 0 < got[repo]["rows_by_action"]["anchor_moved"] <= got[repo]["merges"] < got[repo]["move_rows"]


