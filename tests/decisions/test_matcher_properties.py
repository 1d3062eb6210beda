"""Property-based tests (hypothesis) of the commit-message matcher:

* adding unrelated text never creates a resolution: text that names none of
  the findings' evidence (no key, slug, strong keyword or title word), with
  any resolution verbs, trailers, fences, comments, quotes and punctuation
  it likes, put in a paragraph of its own (a blank line between) before or
  after a message, never makes the merge supersede a finding the message
  alone did not (on the next line without a blank one it is the same
  paragraph, and a verb reaches across wrapped lines);
* a mention never supersedes: a message that names findings' evidence
  (keys, slugs, file names, keywords, titles) in any arrangement but
  contains no resolution verb or trailer supersedes nothing.

Each example is a real merge (ledger.record_merge, hygiene mode 'on', the
definer trigger, the evidence index) in a transaction that is rolled back,
so examples do not interfere and the seeded findings stay active. One
module database; one connection for all examples.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.matching import add, module_conn, module_dsn  # noqa: F401

import findings_ledger as fl

SCOPE = "props"
#: The findings every message is matched against: keys, a slug, strong keywords and titles.
FINDINGS = [
    dict(title="Scheduler leaks goroutines under load", key="F-1"),
    dict(title="Parser drops ECONNRESET_7 silently", key="F-2", keywords=["ECONNRESET_7"]),
    dict(title="Cache warmup ignores tenant quota", slug="cache-warmup-quota"),
    dict(title="Lexer mishandles tabs", key="AUTH-0042", keywords=["lex_tabs"]),
]
#: Every token that is evidence for one of FINDINGS (title words included), lower case.
EVIDENCE = {"f-1", "f-2", "ecconreset_7", "econnreset_7", "cache-warmup-quota", "auth-0042", "lex_tabs",
            "scheduler", "leaks", "goroutines", "under", "load", "parser", "drops", "silently", "cache",
            "warmup", "ignores", "tenant", "quota", "lexer", "mishandles", "tabs"}

VERBS = ["fix", "Fixes", "fixed", "close", "Closes", "closed", "resolve", "Resolves", "resolved", "FIX", "fix:",
         "Fixes:", "Closes:", "Resolves:", "Supersedes:", "Closes-Bug:", "fix(core):", "fix!:"]
#: Words and symbols unrelated to every finding (none is in EVIDENCE).
UNRELATED = ["refactor", "bump", "deps", "typo", "README", "docs", "speed", "up", "the", "a", "this", "issue",
             "bug", "and", "or", "not", "doesn't", "partially", "see", "#123", "v2.1", "x86_64", "CI", "build",
             "lint", "node_modules", "Refs:", "Co-authored-by:", "bob@example.com", ",", ".", ";", "!", "(", ")",
             "[", "]", "`", "```", "<!--", "-->", "> ", "- ", "* ", '"', "'", "&", "+", "/", ":", "=", "..."]
#: Words that name the findings (evidence), as a message would write them.
MENTIONS = ["F-1", "F-2", "f-1", "AUTH-0042", "ECONNRESET_7", "econnreset_7", "lex_tabs", "cache-warmup-quota",
            "2026-01-02-cache-warmup-quota.md", "findings/2026-01-02-cache-warmup-quota.md", "Scheduler", "leaks",
            "goroutines", "under", "load", "Parser", "drops", "silently", "Cache", "warmup", "ignores", "tenant",
            "quota", "Lexer", "mishandles", "tabs"]
BREAKS = [" ", " ", " ", "\n", "\r\n", "\n\n", "\t"]


def words(vocabulary: list[str], min_size: int = 1, max_size: int = 14) -> st.SearchStrategy[str]:
    """Text made of the vocabulary's words, joined by spaces and line breaks."""
    return st.lists(st.tuples(st.sampled_from(vocabulary), st.sampled_from(BREAKS)),
                    min_size=min_size, max_size=max_size).map(lambda ws: "".join(w + b for w, b in ws).strip())


messages = words(VERBS + MENTIONS + UNRELATED + ["F-1, F-2", "F-1 and AUTH-0042"], max_size=16)
unrelated_text = words(VERBS + UNRELATED, max_size=16)
mentions_only = words(MENTIONS + UNRELATED, max_size=20)


def examples(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def seeded(module_conn: psycopg.Connection[Any]) -> Iterator[psycopg.Connection[Any]]:  # noqa: F811
    fl.set_hygiene_mode(module_conn, SCOPE, "on", create=True)
    for f in FINDINGS:
        add(module_conn, SCOPE, f["title"], key=f.get("key"), slug=f.get("slug"), keywords=f.get("keywords", ()),
            kind="drift")
    assert all(w.lower() not in EVIDENCE for w in VERBS + UNRELATED), "UNRELATED must name no finding"
    yield module_conn


def superseded_by(conn: psycopg.Connection[Any], message: str) -> set[int]:
    """The findings a merge with this message supersedes (hygiene mode on),
    through record_merge, rolled back."""
    with conn.transaction(force_rollback=True):
        result = fl.record_merge(conn, SCOPE, "abcdef12", message=message)
        active = {r[0] for r in conn.execute(
            "SELECT id FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL", (SCOPE,))}
    assert set(result.superseded).isdisjoint(active)
    assert len(active) + len(result.superseded) == len(FINDINGS)
    return set(result.superseded)


def test_the_vocabularies_can_resolve(seeded: psycopg.Connection[Any]) -> None:
    """The properties below have teeth: these words do resolve findings."""
    assert len(superseded_by(seeded, "Fixes F-1, F-2 and AUTH-0042")) == 3
    assert len(superseded_by(seeded, "fix: close findings/2026-01-02-cache-warmup-quota.md")) == 1
    assert len(superseded_by(seeded, "Resolves ECONNRESET_7")) == 1


@examples(120)
@given(message=messages, extra=unrelated_text, before=st.booleans(),
       gap=st.sampled_from(["\n\n", "\r\n\r\n", "\n \n", "\n\n\n"]))
def test_adding_unrelated_text_never_creates_a_resolution(
        seeded: psycopg.Connection[Any], message: str, extra: str, before: bool, gap: str) -> None:
    combined = extra + gap + message if before else message + gap + extra
    assert superseded_by(seeded, combined) <= superseded_by(seeded, message), (message, combined)


@examples(120)
@given(message=mentions_only)
def test_a_mention_never_supersedes(seeded: psycopg.Connection[Any], message: str) -> None:
    assert superseded_by(seeded, message) == set(), message
