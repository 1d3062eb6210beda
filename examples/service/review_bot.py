"""review-bot: files review findings, records merges, builds the prompt.

Plain SQL against the ``ledger`` schema; the database validates, normalises
and supersedes. Every function takes the caller's connection and does not
commit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import psycopg


@dataclass(frozen=True)
class Comment:
    """One review comment: where it points (``path:line`` as reviewers write
    it) and what it says."""

    key: str
    location: str
    text: str
    severity: str = "medium"


def watch_repo(conn: psycopg.Connection[Any], repo: str) -> None:
    """Set up scope ``repo`` once: a merge that touches a file a review
    note points at retires the note. (By default the ledger's path rule
    retires only ``drift`` findings and merely audits other kinds as
    candidates; review notes are kind ``review``.)"""
    conn.execute(
        "INSERT INTO ledger.scope (scope, path_supersede_kinds) VALUES (%s, '{review}') "
        "ON CONFLICT (scope) DO UPDATE SET path_supersede_kinds = EXCLUDED.path_supersede_kinds",
        (repo,),
    )


def file_review(conn: psycopg.Connection[Any], repo: str, comments: Iterable[Comment]) -> int:
    """Store a review's comments as findings (kind ``review``) of scope
    ``repo`` in one multi-row INSERT; returns how many were new. A comment
    already filed under its key is skipped, so a redelivered review has no
    second effect (a plain INSERT of a known key is refused with LD301, and
    ``ON CONFLICT DO NOTHING`` does not help: the ledger checks the key
    before the conflict; ``ledger.report_finding`` is the way to count a
    real re-report)."""
    rows = [(repo, c.key, c.severity, c.text, [c.location]) for c in comments]
    if not rows:
        return 0
    placeholders = ", ".join(["(%s, %s, %s, %s, %s::text[])"] * len(rows))
    cur = conn.execute(
        "INSERT INTO ledger.finding (scope, finding_key, severity, title, paths) "
        "SELECT c.* FROM (VALUES " + placeholders + ") AS c(scope, finding_key, severity, title, paths) "
        "WHERE NOT EXISTS (SELECT 1 FROM ledger.finding f WHERE f.scope = c.scope AND f.finding_key = c.finding_key)",
        [value for row in rows for value in row],
    )
    return cur.rowcount


def on_merged(conn: psycopg.Connection[Any], repo: str, sha: str, files: list[str], node: str | None = None) -> bool:
    """Record a merge the queue reported (maybe twice); True when it was new."""
    cur = conn.execute(
        "INSERT INTO ledger.merge (scope, commit_sha, node_id, paths) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (scope, commit_sha) DO NOTHING",
        (repo, sha, node, files),
    )
    return cur.rowcount == 1


def prompt_notes(conn: psycopg.Connection[Any], repo: str) -> list[str]:
    """The open review notes for the next agent's prompt, most severe first."""
    rows = conn.execute(
        "SELECT severity, title, paths FROM ledger.active_findings(%s)", (repo,)
    ).fetchall()
    return [f"[{severity}] {title} ({', '.join(paths)})" for severity, title, paths in rows]
