"""Property-based tests (hypothesis) of the line rule of ledger._match_changes
against a model of its documented semantics, written here in Python.

For each anchored finding on a file with hunks, the model computes what the
header of ledger._match_changes says:

* the first hunk, in the list's order, that overlaps the anchored lines
  [first, last] widened by the context (a hunk rewriting old lines a ..
  a+b-1 overlaps when a <= last + context and a+b-1 >= first - context; a
  pure insertion after old line a, b = 0, when first - context <= a < last +
  context): form line, verdict resolution, its @@ in the reason;
* otherwise the shift, the sum of d - b over the hunks with a + max(b, 1) - 1
  < first: form anchor_moved (verdict moved) when it is not 0, anchor_kept
  (verdict kept) when it is, the range shifted and kept within 1 ..
  2147483647;
* for a file the merge deleted, the rename rules (renamed when the hunks keep
  the lines and a file of the same name is added, maybe_renamed, line,
  deleted_file; "the hunks delete the whole file" is every d = 0 with the
  smallest a = 1).

Files with 8 hunks or more in order (old starts and last old lines never
decreasing) are answered by binary searches over arrays; any other list by a
scan of every hunk for each finding: the examples draw both (git-like lists,
shuffled lists, overlapping and repeated hunks, empty lists, numbers up to
2147483647), and the two must agree with the model, and so with each other.
Each example is one transaction, rolled back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.matching import module_conn, module_dsn  # noqa: F401

MAX_LINE = 2147483647
PATH = "src/pkg/a.py"
PATH_B = "src/pkg/b.py"
OTHER = "lib/a.py"  # the same file name, elsewhere: a rename target

Hunk = tuple[int, int, int, int]


def _hit(h: Hunk, first: int, last: int, ctx: int) -> bool:
    a, b = h[0], h[1]
    if b > 0:
        return a <= last + ctx and a + b - 1 >= first - ctx
    return first - ctx <= a < last + ctx


def _model(hunks: list[Hunk], first: int, last: int, ctx: int, deleted: bool, renamed: bool
           ) -> tuple[str, str, list[int] | None, str | None]:
    """(form, verdict, anchor_to, hit as "-a,b +c,d") the documented line rule gives."""
    hit = next((h for h in hunks if _hit(h, first, last, ctx)), None)
    shift = sum(h[3] - h[1] for h in hunks if h[0] + max(h[1], 1) - 1 < first)
    whole = bool(hunks) and all(h[3] == 0 for h in hunks) and min(h[0] for h in hunks) == 1
    keeps = hit is None and len(hunks) > 0
    if deleted:
        if keeps and renamed:
            form = "renamed"
        elif keeps:
            form = "maybe_renamed"
        elif renamed and hit is not None and not whole:
            form = "line"
        elif renamed:
            form = "maybe_renamed"
        else:
            form = "deleted_file"
    elif hit is not None:
        form = "line"
    elif shift != 0:
        form = "anchor_moved"
    else:
        form = "anchor_kept"
    verdict = {"renamed": "moved", "anchor_moved": "moved", "anchor_kept": "kept",
               "maybe_renamed": "candidate"}.get(form, "resolution")
    to = None
    if form in ("renamed", "anchor_moved", "anchor_kept"):
        to = [min(MAX_LINE, max(1, first + shift)), min(MAX_LINE, max(1, last + shift))]
    at = None if hit is None else f"-{hit[0]},{hit[1]} +{hit[2]},{hit[3]}"
    return form, verdict, to, at


LINE = st.one_of(st.integers(1, 120), st.integers(1, MAX_LINE), st.sampled_from([1, 2, MAX_LINE - 1, MAX_LINE]))


@st.composite
def hunk_lists(draw: Any) -> list[Hunk]:
    """A git-like list (in order, apart), a shuffled or overlapping one, or an empty one."""
    kind = draw(st.sampled_from(["git", "git", "git", "shuffled", "overlapping", "empty"]))
    if kind == "empty":
        return []
    n = draw(st.integers(1, 30))
    if kind == "overlapping":
        return [(draw(st.integers(0, 120)), draw(st.integers(0, 6)), draw(st.integers(0, 120)),
                 draw(st.integers(0, 6))) for _ in range(n)]
    out: list[Hunk] = []
    line, new = draw(st.integers(0, 20)), 0
    for _ in range(n):
        line += draw(st.integers(1, 40))
        b, d = draw(st.integers(0, 5)), draw(st.integers(0, 5))
        if b == 0 and d == 0:
            d = 1
        out.append((line, b, max(0, line + new), d))
        new += d - b
        line += max(b, 1) - 1
    if draw(st.booleans()):  # now and then a file that starts with a hunk deleting from line 1
        out[0] = (1, out[0][1] or 1, 0, 0)
    if kind == "shuffled":
        out = draw(st.permutations(out))
    return list(out)


ANCHOR = st.tuples(LINE, st.integers(0, 12)).map(lambda t: (t[0], min(MAX_LINE, t[0] + t[1])))


@pytest.fixture(scope="module")
def conn(module_conn: psycopg.Connection[Any]) -> Iterator[psycopg.Connection[Any]]:  # noqa: F811
    yield module_conn


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hunks=hunk_lists(), hunks_b=hunk_lists(), anchors=st.lists(ANCHOR, min_size=1, max_size=8),
       anchors_b=st.lists(ANCHOR, max_size=6), near=st.lists(st.integers(0, 29), max_size=4),
       ctx=st.integers(0, 5), deleted=st.booleans(), renamed=st.booleans())
def test_the_line_rule_follows_its_model(conn: psycopg.Connection[Any], hunks: list[Hunk], hunks_b: list[Hunk],
                                         anchors: list[tuple[int, int]], anchors_b: list[tuple[int, int]],
                                         near: list[int], ctx: int, deleted: bool, renamed: bool) -> None:
    # anchors near the hunks too, where hits, edges and shifts are
    for i in near:
        if i < len(hunks) and hunks[i][0] > 0:
            anchors.append((hunks[i][0], min(MAX_LINE, hunks[i][0] + (i % 3))))
        if i < len(hunks_b) and hunks_b[i][0] > 0:
            anchors_b.append((hunks_b[i][0], hunks_b[i][0]))
    # a second file of the same merge, with hunks and findings of its own (its
    # arrays follow the first file's: the slices must not read across them)
    cases = [(PATH, first, last) for first, last in anchors] + [(PATH_B, first, last) for first, last in anchors_b]
    with conn.transaction(force_rollback=True):
        conn.execute("SELECT ledger.set_match_policy('line-props', p_create => true)")
        ids = []
        for path, first, last in cases:
            row = conn.execute(
                "INSERT INTO ledger.finding (scope, title, kind, paths, observed_at) "
                "VALUES ('line-props', 'a note', 'review', %s, now() - interval '1 day') RETURNING id",
                ([f"{path}:{first}-{last}"],)).fetchone()
            assert row is not None
            ids.append(int(row[0]))
        got = {r[0]: r[1:] for r in conn.execute(
            "SELECT finding_id, form, verdict, anchor_to, reason, to_path FROM ledger._match_changes("
            "'line-props', %s, %s, %s, %s::jsonb, %s)",
            ([PATH, PATH_B, OTHER] if renamed else [PATH, PATH_B], [OTHER] if renamed else [],
             [PATH] if deleted else [], json.dumps({PATH: hunks, PATH_B: hunks_b}), ctx)).fetchall()}
    assert sorted(got) == ids
    for fid, (path, first, last) in zip(ids, cases, strict=True):
        on_a = path == PATH
        form, verdict, to, at = _model(hunks if on_a else hunks_b, first, last, ctx, deleted and on_a,
                                       renamed and on_a)
        g_form, g_verdict, g_to, g_reason, g_to_path = got[fid]
        assert (g_form, g_verdict, g_to) == (form, verdict, to), (path, first, last, ctx, got[fid])
        if form == "line" and at is not None:
            assert f"at @@ {at} @@" in g_reason
        assert g_to_path == (OTHER if form == "renamed" else None)
