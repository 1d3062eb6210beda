"""Property-based tests (hypothesis) of path normalisation and matching:
normalize_path is idempotent and never produces a path it would
reject; normalize_paths (with its fast path for already-normal arrays)
agrees with element-wise normalize_path; the merge trigger's path rule
(ledger._match_changes) agrees with a straightforward
reference implementation of the directory-prefix rule.

Each example is a database round trip or two, so example counts are modest.
One connection serves all examples of a test (examples do not interfere:
each uses its own scope), hence the suppressed function-scoped-fixture check.
"""

from __future__ import annotations

import itertools
import re

import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def examples(n: int) -> settings:
    """Settings of a DB-backed property: n examples, no deadline (round trips
    on a shared machine), one connection for all examples."""
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# Segments chosen to hit every rule: '.', '..', empty, white space at either
# end, line suffixes, drive letters, backslashes, control characters, the
# letter v (once trimmed as a "vertical tab"), non-ASCII text.
SEGMENTS = [
    "a", "b", "src", "v", "vv", "v.py", "a.py", ".hidden", "...", ".", "..", "", " ", " a", "a ", "f v",
    "x:1", ":12", ":1:2", "C:", "c:", "é", "日本", "\\", "a\\b", "\t", "\x0b", "\x01", "\x7f", "a\u00a0",
]
PREFIXES = ["", "", "./", "/", " ", "\\", "C:", "\t", "v"]
SUFFIXES = ["", "", "/", ":3", ":3:4", ":1:2:3", " ", "\n", "/ ", " :5", "v", "\x0b"]

raw_paths = st.one_of(
    st.builds(
        lambda p, segs, s: p + "/".join(segs) + s,
        st.sampled_from(PREFIXES),
        st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=5),
        st.sampled_from(SUFFIXES),
    ),
    st.text(alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=12),
)

LD001_ONLY = "LD001"


def normalize(conn: psycopg.Connection, raw: str) -> str | None:
    """normalize_path(raw), or None when it is rejected (which must be LD001)."""
    try:
        row = conn.execute("SELECT ledger.normalize_path(%s)", (raw,)).fetchone()
    except psycopg.Error as exc:
        assert exc.sqlstate == LD001_ONLY, (raw, exc.sqlstate, str(exc))
        return None
    assert row is not None
    return row[0]


WS = " \t\r\n\f\x0b"  # what the ledger trims: ASCII white space only
NOT_NORMAL = re.compile(rf"^[{WS}/\\]|[\\\x01-\x1f\x7f]|//|(^|/)\.\.?(/|$)|:[0-9]+$|^[A-Za-z]:(/|$)|[{WS}]$")


def looks_normal(path: str) -> bool:
    """The documented normal form, written independently of the SQL."""
    return bool(path) and len(path) <= 4096 and NOT_NORMAL.search(path) is None


@examples(150)
@given(raw=raw_paths)
def test_normalize_path_is_idempotent_and_output_is_accepted(ledger_conn: psycopg.Connection, raw: str) -> None:
    once = normalize(ledger_conn, raw)
    if once is None:
        return
    assert looks_normal(once), (raw, once)
    assert normalize(ledger_conn, once) == once, (raw, once)


def first_occurrences(values: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


@examples(80)
@given(raws=st.lists(raw_paths, min_size=1, max_size=6))
def test_normalize_paths_agrees_with_elementwise_normalize_path(
    ledger_conn: psycopg.Connection, raws: list[str]
) -> None:
    singles = [normalize(ledger_conn, r) for r in raws]
    try:
        row = ledger_conn.execute("SELECT ledger.normalize_paths(%s)", (raws,)).fetchone()
    except psycopg.Error as exc:
        assert exc.sqlstate == LD001_ONLY
        bad = [i for i, s in enumerate(singles) if s is None]
        assert bad, (raws, "normalize_paths rejected an array normalize_path accepts element by element")
        if len(bad) == 1:
            assert f"paths[{bad[0] + 1}]" in exc.diag.message_primary
        return
    assert None not in singles, (raws, singles)
    assert row == (first_occurrences([s for s in singles if s is not None]),)


@examples(60)
@given(raws=st.lists(raw_paths, min_size=1, max_size=8))
def test_fast_path_returns_normal_arrays_unchanged(ledger_conn: psycopg.Connection, raws: list[str]) -> None:
    """Arrays that are already normal and distinct take the regex fast path;
    it must give exactly what the slow path gives (the same array)."""
    normal = first_occurrences([n for n in (normalize(ledger_conn, r) for r in raws) if n is not None])
    if not normal:
        return
    assert ledger_conn.execute("SELECT ledger.normalize_paths(%s)", (normal,)).fetchone() == (normal,)


# --- matching ------------------------------------------------------------------------------------

NAMES = ["a", "b", "c.py", "d.md", "v"]
files = st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map("/".join)
dirs = st.lists(st.sampled_from(NAMES[:2] + ["v"]), min_size=1, max_size=2).map(lambda s: "/".join(s) + "/")
finding_paths = st.lists(st.one_of(files, dirs), min_size=0, max_size=3)
_scopes = itertools.count()


def reference_match(finding: list[str], touched: list[str]) -> bool:
    """A finding path matches a touched path when it is the same file, or a
    directory reference ('x/') that the touched path starts with."""
    return any(fp == t or (fp.endswith("/") and t.startswith(fp)) for fp in finding for t in touched)


@examples(60)
@given(findings=st.lists(finding_paths, min_size=1, max_size=6), touched=st.lists(st.one_of(files, dirs), max_size=4))
def test_the_trigger_path_rule_agrees_with_reference(
    ledger_conn: psycopg.Connection, findings: list[list[str]], touched: list[str]
) -> None:
    scope = f"prop-{next(_scopes)}"
    with ledger_conn.cursor() as cur:
        ids = []
        for paths in findings:
            cur.execute("INSERT INTO ledger.finding (scope, title, kind, paths) VALUES (%s, 'f', 'drift', %s) "
                        "RETURNING id, paths", (scope, paths))
            ids.append(cur.fetchone())
        touched_norm = first_occurrences(touched)
        # the merge trigger's path rule (_match_changes) for a plain merge (no added/deleted/hunks)
        cur.execute("SELECT DISTINCT finding_id FROM ledger._match_changes(%s, %s, NULL, NULL, NULL, 0)",
                    (scope, touched_norm))
        by_trigger = {r[0] for r in cur.fetchall()}
    expected = {fid for fid, paths in ids if reference_match(paths, touched_norm)}
    assert by_trigger == expected, (findings, touched)


def reference_keys(touched: list[str]) -> set[str]:
    """Each touched path and each of its ancestor directories with a
    trailing '/', written independently of the SQL."""
    keys = set(touched)
    for t in touched:
        parts = t.rstrip("/").split("/")
        keys.update("/".join(parts[:n]) + "/" for n in range(1, len(parts)))
    return keys


@examples(80)
@given(raws=st.lists(raw_paths, max_size=8))
def test_path_keys_are_every_path_and_its_ancestor_directories(ledger_conn: psycopg.Connection,
                                                               raws: list[str]) -> None:
    """ledger._path_keys, the statement trigger's probe of finding_path, is
    the reference key set of normalised touched paths (repeats allowed: the
    btree probe of = ANY removes them)."""
    touched = first_occurrences([n for n in (normalize(ledger_conn, r) for r in raws) if n is not None])
    row = ledger_conn.execute("SELECT ledger._path_keys(%s)", (touched,)).fetchone()
    assert row is not None
    assert set(row[0]) == reference_keys(touched)
    assert ledger_conn.execute("SELECT ledger._path_keys(NULL), ledger._path_keys('{}')").fetchone() == ([], [])


def test_the_path_keys_are_built_once_per_merge(ledger_conn: psycopg.Connection) -> None:
    """The merge trigger (which merges can decide something) and the path rule
    (ledger._match_changes) each build a merge's keys once and probe
    ledger.finding_path with them as a value: a call of ledger._path_keys
    inside the probing query runs once per row wherever the planner reads
    finding_path sequentially (a small or new ledger; 2,000 calls a merge
    for a scope of 2,000 findings)."""
    ledger_conn.execute("INSERT INTO ledger.finding (scope, kind, title, paths) "
                        "SELECT 'keys-once', 'review', 'finding ' || g, ARRAY['src/f' || (g % 20) || '.py'] "
                        "  FROM generate_series(1, 200) AS g")
    with ledger_conn.transaction(force_rollback=True):
        ledger_conn.execute("SET LOCAL track_functions = 'all'")
        ledger_conn.execute("SET LOCAL enable_indexscan = off")
        ledger_conn.execute("SET LOCAL enable_bitmapscan = off")  # finding_path read sequentially

        def calls() -> int:
            row = ledger_conn.execute("SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions "
                                      "WHERE schemaname = 'ledger' AND funcname = '_path_keys'").fetchone()
            return int(row[0])
        before = calls()
        ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) "
                            "VALUES ('keys-once', 'abcd1234', '{src/f7.py,docs/x.md}')")
        assert calls() - before == 2  # tg_merge__supersede once, ledger._match_changes once
        audited = ledger_conn.execute("SELECT count(*) FROM ledger.supersession a JOIN ledger.merge m "
                                      "ON m.id = a.merge_id WHERE m.commit_sha = 'abcd1234'").fetchone()
        assert audited == (10,)  # the ten findings on src/f7.py, each audited (candidate: kind review)
