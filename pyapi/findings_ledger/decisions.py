"""Message-matching policy.

The matching itself lives in PostgreSQL (``ledger._message_tokens``,
``ledger._match_message``, ``ledger._merge_decisions``, trigger
``_200_supersede``); this module only sets a scope's policy. The dry-run
preview of a replay (what replaying a git history would retire, changing
nothing) is :func:`findings_ledger.gitlog.preview_replay`, next to the git
reader it needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.rows import class_row

from . import queries
from .errors import checked_arguments, string_list, translate
from .models import MatchPolicy


@checked_arguments
def set_match_policy(
    conn: psycopg.Connection[Any],
    scope: str,
    *,
    enabled_rules: Sequence[str] | None = None,
    path_supersede_kinds: Sequence[str] | None = None,
    slug_mention_resolves: bool | None = None,
    default_branch: str | None = None,
    line_context: int | None = None,
    create: bool = False,
    touch: str | None = None,
    touch_kind: str | None = None,
) -> MatchPolicy:
    """Set ``scope``'s matching policy (``ledger.set_match_policy``); None
    leaves a setting unchanged, ``default_branch=""`` clears it;
    ``line_context``: lines of context around a finding's anchor (0-1000);
    ``touch``: what a resolving touch does to findings without a check
    (``retire``, ``recheck``, ``flag``; ``""`` back to the default) for
    ``touch_kind`` (None: every kind without its own entry).
    An unknown scope raises ``NotFound`` (LD005) unless ``create=True``.
    Returns the stored policy. Raises ``ValueRequired`` (LD002),
    ``ValueInvalid`` (LD003, e.g. an unknown rule), ``ValueTooLong`` (LD004)."""
    params = {
        "scope": scope,
        "enabled_rules": string_list(enabled_rules, "enabled_rules", optional=True),
        "path_supersede_kinds": string_list(path_supersede_kinds, "path_supersede_kinds", optional=True),
        "slug_mention_resolves": slug_mention_resolves,
        "default_branch": default_branch,
        "line_context": line_context,
        "create": create,
        "touch": touch,
        "touch_kind": touch_kind,
    }
    with translate(conn), conn.cursor(row_factory=class_row(MatchPolicy)) as cur:
        cur.execute(queries.SET_MATCH_POLICY, params)
        row = cur.fetchone()
    assert row is not None
    return row
