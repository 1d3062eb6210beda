"""Property (hypothesis): recording a history of merges in one statement,
a multi-row INSERT or a COPY, decides exactly what recording the same
merges one by one decides, in every hygiene mode (on, dry, off).

A history is a few findings (keys, slugs, strong keywords, titles, file and
directory paths) and a sequence of merges whose messages name them with
and without resolution verbs, revert earlier merges ("This reverts commit
<sha>."), name commits that were never recorded, and touch the findings'
files, files inside their directories and unrelated files. Each way writes
into its own database (created once for the test), and every example writes
the same scopes in the same order into all four, so the generated ids
agree and every finding, merge and audit row is compared as a whole: ids,
actions, rules, evidence, reasons (which name finding ids) and details.
Only wall-clock values are left out (superseded_at is compared as set or
not). The findings themselves go in the same way as the merges (single
INSERTs, one multi-row INSERT, one COPY).

The merge trigger is a statement-level trigger that skips the merges that
cannot decide anything, so a fourth way checks that skip: the findings go in
one by one, the merges with session_replication_role = replica (no trigger)
and then ledger.reconcile decides every merge in id order through
ledger._apply_merge and ledger._apply_revert, skipping none. All four must
agree.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.touch_policy import retire_drift_on_touch

MODES = ("on", "dry", "off")
WHEN = datetime(2026, 6, 24, 16, 0, tzinfo=timezone.utc)

FILES = ["src/app.py", "src/loader.py", "src/pkg/util.py", "docs/guide.md", "README.md", "tests/test_app.py"]
DIRS = ["src/", "src/pkg/", "docs/", "tests/"]
UNRELATED_FILES = ["src/new.py", "src/pkg/new_mod.py", "docs/new.md", "CHANGELOG.md", "Makefile"]
TITLES = ["Loader drops tenant quota", "Parser leaks file handles", "Cache warmup ignores config",
          "App registers night-shift", "Docs mention the old CLI", "Retry loop never backs off"]
SLUGS = ["loader-quota", "parser-leak", "cache-warmup"]
KEYWORDS = ["ERR_QUOTA_7", "parse_config", "backoff_ms"]
VERBS = ["Fixes", "fix:", "Closes", "closed", "Resolves", "resolve", "Supersedes:", "Refs", "see", "not fixing",
         "partially fixes", "doesn't fix"]
UNRELATED_WORDS = ["Refactor", "the", "loader", "and", "bump", "deps", "typo", "in", "docs", ",", ".", "\n",
                   "\n\n", "`", "```", "> ", "- "]


@dataclass(frozen=True)
class Finding:
    key: str | None
    title: str
    kind: str
    severity: str
    paths: list[str]
    slug: str | None
    keywords: list[str]


@dataclass(frozen=True)
class Merge:
    sha: str
    node_id: str | None
    message: str
    paths: list[str]
    branch: str | None


def sha(i: int) -> str:
    return f"{0xc0ffee00 + i:08x}"


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Finding], list[Merge]]:
    n_findings = draw(st.integers(1, 7))
    slugs = iter(draw(st.permutations(SLUGS)))
    findings = []
    for i in range(n_findings):
        paths = draw(st.lists(st.sampled_from(FILES + DIRS), max_size=3, unique=True))
        findings.append(Finding(
            key=draw(st.sampled_from([f"F-{i + 1}", f"F-{i + 1}", None])),
            title=draw(st.sampled_from(TITLES)) + ("" if draw(st.booleans()) else f" ({i})"),
            kind=draw(st.sampled_from(["drift", "review", "bug"])),
            severity=draw(st.sampled_from(["high", "medium", "low"])),
            paths=paths,
            slug=next(slugs, None) if draw(st.booleans()) else None,
            keywords=draw(st.lists(st.sampled_from(KEYWORDS), max_size=2, unique=True)),
        ))
    names = ([f.key for f in findings if f.key] + [f.slug for f in findings if f.slug]
             + [k for f in findings for k in f.keywords] + [f.title for f in findings]
             + [f"findings/2026-01-02-{f.slug}.md" for f in findings if f.slug])
    n_merges = draw(st.integers(1, 9))
    merges = []
    for i in range(n_merges):
        pieces = draw(st.lists(st.one_of(
            st.sampled_from(VERBS), st.sampled_from(UNRELATED_WORDS), st.sampled_from(names),
            # a revert of any merge of the history (earlier, later or itself), or of a commit never recorded
            st.integers(0, n_merges).map(lambda k: f"\n\nThis reverts commit {sha(k)}."),
        ), max_size=8))
        paths = draw(st.lists(st.sampled_from(FILES + UNRELATED_FILES), max_size=4, unique=True))
        merges.append(Merge(
            sha=sha(i),
            node_id=draw(st.sampled_from([f"group-{i}", None])),
            message=" ".join(pieces),
            paths=paths,
            branch=draw(st.sampled_from([None, None, "main", "refs/heads/feature"])),
        ))
    return findings, merges


FINDING_COLUMNS = "scope, finding_key, kind, severity, title, paths, slug, strong_keywords, observed_at"
# observed before every merge of the histories, so causality lets each merge decide
OBSERVED_AT = "2026-01-01 00:00:00+00"
MERGE_COLUMNS = "scope, commit_sha, node_id, message, paths, merged_at, branch"


def finding_row(scope: str, f: Finding) -> tuple[Any, ...]:
    return (scope, f.key, f.kind, f.severity, f.title, f.paths, f.slug, f.keywords, OBSERVED_AT)


def merge_row(scope: str, i: int, m: Merge) -> tuple[Any, ...]:
    return (scope, m.sha, m.node_id, m.message, m.paths, WHEN + timedelta(minutes=i), m.branch)


def placeholders(n_rows: int, n_columns: int) -> str:
    return ", ".join(["(" + ", ".join(["%s"] * n_columns) + ")"] * n_rows)


def write_one_by_one(conn: psycopg.Connection[Any], scope: str, findings: list[Finding], merges: list[Merge]) -> None:
    for f in findings:
        conn.execute(f"INSERT INTO ledger.finding ({FINDING_COLUMNS}) VALUES ({placeholders(1, 9)[1:-1]})",
                     finding_row(scope, f))
    for i, m in enumerate(merges):
        conn.execute(f"INSERT INTO ledger.merge ({MERGE_COLUMNS}) VALUES ({placeholders(1, 7)[1:-1]})",
                     merge_row(scope, i, m))


def write_multirow(conn: psycopg.Connection[Any], scope: str, findings: list[Finding], merges: list[Merge]) -> None:
    conn.execute(f"INSERT INTO ledger.finding ({FINDING_COLUMNS}) VALUES {placeholders(len(findings), 9)}",
                 [v for f in findings for v in finding_row(scope, f)])
    conn.execute(f"INSERT INTO ledger.merge ({MERGE_COLUMNS}) VALUES {placeholders(len(merges), 7)}",
                 [v for i, m in enumerate(merges) for v in merge_row(scope, i, m)])


def write_copy(conn: psycopg.Connection[Any], scope: str, findings: list[Finding], merges: list[Merge]) -> None:
    with conn.cursor() as cur:
        with cur.copy(f"COPY ledger.finding ({FINDING_COLUMNS}) FROM STDIN") as copy:
            for f in findings:
                copy.write_row(finding_row(scope, f))
        with cur.copy(f"COPY ledger.merge ({MERGE_COLUMNS}) FROM STDIN") as copy:
            for i, m in enumerate(merges):
                copy.write_row(merge_row(scope, i, m))


def write_reconciled(conn: psycopg.Connection[Any], scope: str, findings: list[Finding], merges: list[Merge]) -> None:
    """Findings one by one; merges without triggers, then ledger.reconcile
    decides every one of them (no merge skipped)."""
    for f in findings:
        conn.execute(f"INSERT INTO ledger.finding ({FINDING_COLUMNS}) VALUES ({placeholders(1, 9)[1:-1]})",
                     finding_row(scope, f))
    with conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        for i, m in enumerate(merges):
            conn.execute(f"INSERT INTO ledger.merge ({MERGE_COLUMNS}) VALUES ({placeholders(1, 7)[1:-1]})",
                         merge_row(scope, i, m))
    conn.execute("SELECT count(*) FROM ledger.reconcile(%s)", (scope,))


WAYS: dict[str, Callable[..., None]] = {"one by one": write_one_by_one, "multi-row INSERT": write_multirow,
                                         "COPY": write_copy, "replica + reconcile": write_reconciled}


def _without_clock(detail: Any) -> Any:
    if isinstance(detail, dict):
        return {k: (v is not None if k == "superseded_at" else _without_clock(v)) for k, v in detail.items()}
    if isinstance(detail, list):
        return [_without_clock(v) for v in detail]
    return detail


def state(conn: psycopg.Connection[Any], scope: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the scope, ids included, wall-clock values left out."""
    findings = conn.execute(
        "SELECT id, finding_key, kind, severity, title, paths, slug, strong_keywords, superseded_at IS NOT NULL, "
        "superseded_by, superseded_by_merge_id, supersede_rule, report_count, reopen_count "
        "FROM ledger.finding WHERE scope = %s ORDER BY id", (scope,)).fetchall()
    merges = conn.execute(
        "SELECT id, commit_sha, node_id, message, paths, merged_at, processed, branch "
        "FROM ledger.merge WHERE scope = %s ORDER BY id", (scope,)).fetchall()
    audit = [row[:-1] + (_without_clock(row[-1]),) for row in conn.execute(
        "SELECT id, finding_id, merge_id, action, rule, evidence, actor, reason, detail "
        "FROM ledger.supersession WHERE scope = %s ORDER BY id", (scope,)).fetchall()]
    return {"finding": findings, "merge": merges, "audit": audit}


@dataclass
class Ledgers:
    """One database per way; example n writes scopes h<n>-on, -dry, -off into each."""

    conns: dict[str, psycopg.Connection[Any]]
    counter: Iterator[int]

    def align_ids(self) -> None:
        """Start every id sequence at the same value in all four databases,
        so that ids agree even after an example that failed half-way."""
        for table in ("finding", "merge", "supersession"):
            seq = f"pg_get_serial_sequence('ledger.{table}', 'id')"
            last = max(c.execute(f"SELECT last_value FROM pg_sequences WHERE schemaname || '.' || sequencename = "
                                 f"{seq}").fetchone()[0] or 0 for c in self.conns.values())
            for c in self.conns.values():
                c.execute(f"SELECT setval({seq}, %s)", ((last // 1000 + 1) * 1000,))

    def record(self, findings: list[Finding], merges: list[Merge]) -> dict[str, dict[str, Any]]:
        n = next(self.counter)
        self.align_ids()
        for conn in self.conns.values():  # statistics of the earlier examples' rows, as autovacuum keeps them
            conn.execute("ANALYZE ledger.finding, ledger.merge")
        states: dict[str, dict[str, Any]] = {}
        for way, write in WAYS.items():
            conn = self.conns[way]
            for mode in MODES:
                scope = f"h{n}-{mode}"
                conn.execute("SELECT ledger.set_hygiene_mode(%s, %s, p_create => true)", (scope, mode))
                retire_drift_on_touch(conn, scope)  # the path rule as such on the drift findings
                write(conn, scope, findings, merges)
            states[way] = {mode: state(conn, f"h{n}-{mode}") for mode in MODES}
        return states


@pytest.fixture()
def ledgers(ledger_dsn_factory: Callable[[], str]) -> Iterator[Ledgers]:
    conns = {way: psycopg.connect(ledger_dsn_factory(), autocommit=True) for way in WAYS}
    try:
        yield Ledgers(conns, itertools.count())
    finally:
        for conn in conns.values():
            conn.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories())
def test_one_statement_decides_what_one_row_at_a_time_decides(
    ledgers: Ledgers, history: tuple[list[Finding], list[Merge]]
) -> None:
    findings, merges = history
    states = ledgers.record(findings, merges)
    single = states["one by one"]
    for way in ("multi-row INSERT", "COPY", "replica + reconcile"):
        for mode in MODES:
            for table in ("finding", "merge", "audit"):
                assert states[way][mode][table] == single[mode][table], f"{way}, hygiene {mode}: {table} rows differ"
    # hygiene off decides nothing; dry supersedes nothing
    assert single["off"]["audit"] == []
    assert not any(row[8] for row in single["dry"]["finding"])


def test_the_histories_have_teeth(ledgers: Ledgers) -> None:
    """A history the generator can draw supersedes by path and by message,
    reverts a merge and names an unknown commit, the same way in all four."""
    findings = [Finding("F-1", TITLES[0], "drift", "high", ["src/loader.py"], "loader-quota", ["ERR_QUOTA_7"]),
                Finding("F-2", TITLES[1], "review", "medium", ["docs/"], None, []),
                Finding(None, TITLES[2], "bug", "low", [], None, ["parse_config"])]
    merges = [Merge(sha(0), "group-0", "Refactor the loader", ["src/loader.py"], None),
              Merge(sha(1), None, "Fixes parse_config", ["docs/new.md"], "main"),
              Merge(sha(2), "group-2", f"Revert\n\nThis reverts commit {sha(0)}.", [], None),
              Merge(sha(3), None, f"Refs F-1\n\nThis reverts commit {sha(9)}.", [], None)]
    states = ledgers.record(findings, merges)
    actions = [(row[3], row[4]) for row in states["one by one"]["on"]["audit"]]
    assert ("superseded", "path") in actions and ("superseded", "keyword") in actions
    assert ("reopened", "revert") in actions and ("revert_unknown", "revert") in actions
    assert ("mention", "key") in actions
    for way in ("multi-row INSERT", "COPY", "replica + reconcile"):
        assert states[way] == states["one by one"]
