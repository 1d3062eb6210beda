"""The plan of the anchor-versus-hunks comparison in ledger._match_changes.

A file's hunks in order (as git writes them) and 8 or more of them are read
once per merge, into arrays, whatever the number of findings anchored on the
file; each anchored finding is then two binary searches. Hunks in another
order are compared with each anchored finding once (a LATERAL subquery per
pair). Before the subquery, the comparison was a grouped join whose CTE row
estimates let PostgreSQL 17 and 18 plan a nested loop that read every pair's
hunks again for each pair (0.4 s instead of 17 ms for 100 anchors and 100
hunks on 18). The plans are read with auto_explain (log_nested_statements,
log_analyze: row and loop counts, not times); tests never time anything.
PostgreSQL 13 to 16 happened to plan the old query well, so there the test
passes with it too: the compat run on 18 (make test-compat) is the one that
would catch it coming back.
"""

from __future__ import annotations

import random
import re

import psycopg
import pytest
from psycopg.types.json import Jsonb
from support.plans import load_auto_explain, nested_plans

FILE = "src/hot/file.py"
ANCHORS = 30
HUNKS = 20
#: the node that reads a file's hunks, with its row and loop counts (log_timing off)
SCAN = r"Function Scan on jsonb_array_elements h\w* .*?\(actual rows=([0-9.]+) loops=([0-9]+)\)"


@pytest.mark.parametrize("order", ["git", "shuffled"])
def test_each_anchored_finding_reads_its_files_hunks_once(ledger_conn: psycopg.Connection, order: str) -> None:
    load_auto_explain(ledger_conn)
    ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, severity, paths) "
        "SELECT 'hunkplan', 'anchored finding ' || g, 'drift', 'medium', ARRAY[%s || ':' || (10 * g + 5)] "
        "  FROM generate_series(0, %s - 1) AS g", (FILE, ANCHORS))
    first = 10 * ANCHORS + 100  # below every anchor: none overlaps, each is kept
    hunks = [[first + 3 * k, 1, first + 3 * k, 1] for k in range(HUNKS)]
    if order == "shuffled":
        random.Random(7).shuffle(hunks)
    with ledger_conn.transaction(force_rollback=True), \
            nested_plans(ledger_conn, lambda text: "jsonb_array_elements(v_hunks -> " in text,
                         "auto_explain.log_analyze = on", "auto_explain.log_timing = off") as plans:
        for k in range(8):  # past the custom plans: the session's generic plan too
            ledger_conn.execute(
                "INSERT INTO ledger.merge (scope, commit_sha, paths, message, hunks) "
                "VALUES ('hunkplan', %s, %s, 'Edit the tail of the file', %s)",
                (f"{0xabc000 + k:x}", [FILE], Jsonb({FILE: hunks})))
        # drift's shipped touch mode flag: a touch away from the lines is flagged,
        # its deciding piece still the line rule's anchor_kept
        kept = ledger_conn.execute("SELECT count(*) FROM ledger.supersession WHERE scope = 'hunkplan' "
                                   "AND action = 'flagged' AND detail -> 'pieces' -> 0 ->> 'form' = 'anchor_kept'"
                                   ).fetchone()
    assert kept == (8 * ANCHORS,)  # every anchor compared with every hunk, each merge
    # per merge: the statement that reads the files into arrays, and the matching query
    assert len(plans) == 16
    read = [sum(float(r) * int(lo) for r, lo in re.findall(SCAN, plan)) for plan in plans]
    for plan in plans:
        for rows, loops in re.findall(SCAN, plan):
            assert int(loops) <= ANCHORS, plan  # once per pair, not once per pair per pair
            assert float(rows) * int(loops) <= ANCHORS * HUNKS, plan
    if order == "git":
        # the hunks read once per merge (the arrays), never per pair
        assert sorted(read) == [0.0] * 8 + [float(HUNKS)] * 8, read
    else:
        # read once to find them out of order, then once by each pair, in the matching query
        assert sorted(read) == [float(HUNKS)] * 8 + [float(ANCHORS * HUNKS)] * 8, read
