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


def configure(conn: psycopg.Connection[Any], repo: str) -> None:
    """Once per repository: a merge that touches a path retires the review
    notes on it (the ledger's default policy retires only ``drift`` findings
    by path; review notes would otherwise only be recorded as candidates)."""
    conn.execute("SELECT FROM ledger.set_match_policy(p_scope => %s, p_path_supersede_kinds => '{*}')", (repo,))


def file_review(conn: psycopg.Connection[Any], repo: str, comments: Iterable[Comment]) -> int:
    """Store a review's comments as findings of scope ``repo`` in one
    multi-row INSERT; returns how many were new (a comment already filed
    under its key is skipped: a plain INSERT of a key the ledger already has
    is refused with LD301, so those rows are left out, and ON CONFLICT covers
    a concurrent filing of the same new key)."""
    comments = list(comments)
    if not comments:
        return 0
    cur = conn.execute(
        "INSERT INTO ledger.finding (scope, finding_key, severity, title, paths) "
        "SELECT %(repo)s, c.key, c.sev, c.title, ARRAY[c.loc] "
        "FROM unnest(%(keys)s::text[], %(sevs)s::text[], %(titles)s::text[], %(locs)s::text[]) "
        "AS c(key, sev, title, loc) "
        "WHERE NOT EXISTS (SELECT FROM ledger.finding f WHERE f.scope = %(repo)s AND f.finding_key = c.key) "
        "ON CONFLICT (scope, finding_key) DO NOTHING",
        {"repo": repo, "keys": [c.key for c in comments], "sevs": [c.severity for c in comments],
         "titles": [c.text for c in comments], "locs": [c.location for c in comments]},
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
