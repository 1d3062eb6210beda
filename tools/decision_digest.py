"""Digests of what the ledger decides over real histories, to prove that a
change keeps the same decisions.

Usage::

    .venv/bin/python tools/decision_digest.py --dsn postgresql://.../db [--agent-fox-limit N] [--json]

``--dsn`` names a migrated, otherwise empty database (its scopes
``digest-viper`` and ``digest-agent-fox`` are written; run it on a throwaway
database). Two histories are replayed, one merge per statement, each into a
scope that holds the history's findings plus 300 line-anchored findings of
kind drift on the lines its hunks touch (observed before the history
starts, touch mode retire for drift: the benchmark's set-up):

* spf13/viper of the corpus (``../shared/corpus`` beside the checkout, or
  ``$LEDGER_CORPUS``): its corpus findings and its commits as written;
* agent-fox (the corpus's ``agent-fox-dev__agent-fox-v2/repo.bundle``,
  branch ``develop-line``), read by ``gitlog.read_merges`` and recorded by
  ``gitlog.replay`` (the ``replay-git`` path, batches of merges).

For each history it prints three md5 digests:

``audit``
    every audit row (``ledger.supersession``) that is not anchor
    bookkeeping: not ``anchor_kept``, not ``anchor_moved``, and not a row
    whose ``detail.would_be`` is one of those. Each row is written as its
    action, its finding (title and source), its merge (commit sha), rule,
    evidence, reason and detail, where ``detail.pieces`` leaves out the
    pieces whose outcome is ``anchor_kept`` (an anchor that did not move);
    no ids, actors or timestamps. Rows in merge order, then by finding.
``findings``
    every finding of the scope: title, source, whether it is superseded,
    superseded_by, the commit sha of superseded_by_merge_id, supersede_rule,
    dismissal, reopen_count, paths and anchors (where its anchors are now).
``moves``
    every anchor move: finding (title, source), merge (commit sha),
    ``detail.anchor_moves`` (each moved path: from, to, and to_path after a
    followed rename), evidence and reason, as ``ledger.read_audit`` gives
    them per finding,
    whether a move is stored in the finding's own audit row or in the
    merge's anchor record (the finding's history of where its anchors went).

Identical digests before and after a change mean the change decides the
same for every finding, leaves every finding in the same state, and moves
every anchor to the same place. ``--json`` prints one JSON object; the
counts of audit rows by action and the audit table's bytes per merge are
printed beside the digests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("LEDGER_CORPUS", ROOT.parent / "shared" / "corpus"))
BUNDLE = "agent-fox-dev__agent-fox-v2/repo.bundle"
ANCHORED = 300
KIND = "drift"
SEVERITIES = ["critical", "high", "medium", "low", "info"]

AUDIT_ROWS = """
SELECT a.action, f.title, f.source, m.commit_sha, a.rule, a.evidence, a.reason,
       CASE WHEN a.detail ? 'pieces'
            THEN jsonb_set(a.detail, '{pieces}',
                           coalesce((SELECT jsonb_agg(p ORDER BY o) FROM jsonb_array_elements(a.detail -> 'pieces')
                                                                   WITH ORDINALITY AS e(p, o)
                                      WHERE p ->> 'outcome' IS DISTINCT FROM 'anchor_kept'), '[]'))
            ELSE a.detail END::text
  FROM ledger.supersession a
  LEFT JOIN ledger.finding f ON f.id = a.finding_id
  LEFT JOIN ledger.merge m ON m.id = a.merge_id
 WHERE a.scope = %s
   AND a.action NOT IN ('anchor_kept', 'anchor_moved')
   AND coalesce(a.detail ->> 'would_be', '') NOT IN ('anchor_kept', 'anchor_moved')
 ORDER BY a.merge_id, f.title NULLS FIRST, f.source NULLS FIRST, a.action, a.rule, a.evidence
"""

FINDING_ROWS = """
SELECT f.title, f.source, f.superseded_at IS NOT NULL, f.superseded_by, m.commit_sha, f.supersede_rule,
       f.dismissed_at IS NOT NULL, f.resolution, f.reopen_count, f.paths, f.anchors::text
  FROM ledger.finding f LEFT JOIN ledger.merge m ON m.id = f.superseded_by_merge_id
 WHERE f.scope = %s
 ORDER BY f.title, f.source NULLS FIRST, f.id
"""

# every anchor move: the audit rows that hold the anchors after the merge
MOVE_ROWS = """
SELECT f.title, f.source, m.commit_sha, (a.detail -> 'anchor_moves')::text, a.evidence, a.reason
  FROM ledger.read_audit(%s) a
  JOIN ledger.finding f ON f.id = a.finding_id
  JOIN ledger.merge m ON m.id = a.merge_id
 WHERE a.detail ? 'anchor_moves'
 ORDER BY f.title, f.source NULLS FIRST, f.id, a.merge_id
"""


def _md5(rows: list[tuple[Any, ...]]) -> str:
    h = hashlib.md5()
    for r in rows:
        h.update(json.dumps(r, default=str, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


def _anchored(conn: psycopg.Connection[Any], scope: str, files: list[tuple[str, int]], seen: Any,
              with_text: bool) -> int:
    picked = files[::max(1, len(files) // ANCHORED)][:ANCHORED]
    conn.execute("SELECT ledger.set_match_policy(%s, p_create => true, p_touch => 'retire', p_touch_kind => %s)",
                 (scope, KIND))
    with conn.cursor() as cur, cur.copy("COPY ledger.finding (scope, title, description, kind, severity, paths, "
                                        "observed_at) FROM STDIN") as copy:
        for i, (path, line) in enumerate(picked):
            copy.write_row((scope, f"Review note {i} on {path}",
                            f"Line {line} of {path} needs a look." if with_text else None,
                            KIND, SEVERITIES[i % 5], [f"{path}:{line}"], seen))
    return len(picked)


def replay_viper(conn: psycopg.Connection[Any], scope: str = "digest-viper") -> int:
    """spf13/viper of the corpus, one merge per statement; returns the merge count."""
    from findings_ledger.evaluate import load_corpus

    corpus = load_corpus(CORPUS, ["spf13/viper"])[0]
    conn.execute("SELECT ledger.set_match_policy(%s, p_create => true)", (scope,))
    for f in corpus.findings:
        try:
            with conn.transaction():
                conn.execute(
                    "INSERT INTO ledger.finding (scope, title, description, kind, paths, finding_key, slug, "
                    "strong_keywords, observed_at, expects, source) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, "
                    "%s, %s)", (scope, f.title, f.description, f.kind, f.ledger_paths(), f.key, f.slug,
                                list(f.strong_keywords), f.observed_at, f.expects, f"corpus:{f.id}"))
        except psycopg.Error:
            continue
    files = [(c.old_path or c.path, h[0]) for cm in corpus.commits for c in cm.changes for h in c.hunks if h[0] > 0]
    seen = min(c.committed_at for c in corpus.commits) - timedelta(days=1)
    _anchored(conn, scope, files, seen, True)
    conn.execute("ANALYZE ledger.finding")
    for c in corpus.commits:
        conn.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, message, paths, merged_at, added, deleted, hunks) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (scope, c.sha, c.message, c.paths, c.committed_at, c.added, c.deleted, json.dumps(c.hunks())))
    return len(corpus.commits)


def replay_agent_fox(conn: psycopg.Connection[Any], scope: str = "digest-agent-fox", limit: int | None = None) -> int:
    """The agent-fox bundle by replay-git's path; returns the merge count."""
    from findings_ledger import gitlog

    with tempfile.TemporaryDirectory(prefix="ledger-digest-") as tmp:
        repo = Path(tmp) / "agent-fox"
        subprocess.run(["git", "clone", "--quiet", "--branch", "develop-line", str(CORPUS / BUNDLE), str(repo)],
                       check=True)
        merges = list(gitlog.read_merges(repo, f"HEAD~{limit}..HEAD") if limit else gitlog.read_merges(repo))
    files = [(p, h[0]) for m in merges for p, hs in (m.hunks or {}).items() for h in hs if h[0] > 0]
    seen = min(m.committed_at for m in merges) - timedelta(days=1)
    _anchored(conn, scope, files, seen, False)
    conn.execute("ANALYZE ledger.finding")
    gitlog.replay(conn, scope, merges)
    return len(merges)


def digests(conn: psycopg.Connection[Any], scope: str, merges: int) -> dict[str, Any]:
    """The digests of one replayed scope (see the module docstring)."""
    audit = conn.execute(AUDIT_ROWS, (scope,)).fetchall()
    findings = conn.execute(FINDING_ROWS, (scope,)).fetchall()
    moves = conn.execute(MOVE_ROWS, (scope,)).fetchall()
    counts = dict(conn.execute("SELECT action, count(*) FROM ledger.supersession WHERE scope = %s "
                               "GROUP BY action ORDER BY action", (scope,)).fetchall())
    size = conn.execute("SELECT coalesce(sum(pg_column_size(a.*)), 0) FROM ledger.supersession a WHERE scope = %s",
                        (scope,)).fetchone()
    return {"merges": merges, "audit": _md5(audit), "audit_rows": len(audit), "findings": _md5(findings),
            "finding_rows": len(findings), "moves": _md5(moves), "move_rows": len(moves),
            "rows_by_action": counts, "audit_bytes_per_merge": round(int(size[0] if size else 0) / max(merges, 1))}


def run(dsn: str, agent_fox_limit: int | None = None) -> dict[str, Any]:
    """Replay both histories into the database at ``dsn`` (autocommit: one
    transaction per merge, or per batch for agent-fox) and return the digests."""
    out: dict[str, Any] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        n = replay_viper(conn)
        out["spf13/viper"] = digests(conn, "digest-viper", n)
        n = replay_agent_fox(conn, limit=agent_fox_limit)
        out["agent-fox"] = digests(conn, "digest-agent-fox", n)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dsn", required=True, help="a migrated, otherwise empty database")
    ap.add_argument("--agent-fox-limit", type=int, default=None, help="only the last N merges of agent-fox")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        out = run(args.dsn, args.agent_fox_limit)
    except (psycopg.Error, OSError, subprocess.CalledProcessError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(out, indent=2, sort_keys=True))
    else:
        for repo, d in out.items():
            print(f"{repo}: {d['merges']} merges; audit {d['audit']} ({d['audit_rows']} rows); "
                  f"findings {d['findings']} ({d['finding_rows']}); moves {d['moves']} ({d['move_rows']}); "
                  f"audit bytes/merge {d['audit_bytes_per_merge']}; {d['rows_by_action']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
