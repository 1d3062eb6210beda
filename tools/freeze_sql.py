"""Print frozen copies of sql/ sources for pasting into a new revision.

    python tools/freeze_sql.py sql/functions/a.sql sql/triggers/t.sql > /tmp/frozen.py
    python tools/freeze_sql.py --refresh migrations/versions/NNNN_x.py sql/functions/a.sql

--refresh is only for a revision that has not landed on main yet: a landed
revision is immutable, and a change to its functions is a new revision.

A revision must never read a live sql/ file (its history would change when
the file does); this prints each file's current text as a Python raw string
constant, in the order given, ready to paste into the revision and pass to
findings_ledger.migration_ops.run_sql. tests/test_sql_sources.py fails when
the migrated database and sql/ disagree, which is the reminder to run this.
"""

from __future__ import annotations

import sys
from pathlib import Path


def frozen(paths: list[str]) -> str:
    out = ["FROZEN_SQL = ["]
    for p in paths:
        text = Path(p).read_text()
        if "'''" in text:
            raise SystemExit(f"{p}: contains ''' and cannot be frozen as a raw string")
        out.append(f"    # {p}\n    r'''\n{text.rstrip()}\n''',")
    out.append("]")
    return "\n".join(out)


def refresh(revision: str, paths: list[str]) -> None:
    """Replace, in a revision that has NOT landed yet, the frozen copies of
    ``paths`` with their current text (the blocks headed ``# <path>``)."""
    rev = Path(revision)
    text = rev.read_text()
    for p in paths:
        head = f"    # {p}\n    r'''\n"
        start = text.find(head)
        if start < 0:
            raise SystemExit(f"{revision}: no frozen copy of {p}")
        body_start = start + len(head)
        end = text.index("\n''',", body_start)
        text = text[:body_start] + Path(p).read_text().rstrip() + text[end:]
    rev.write_text(text)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--refresh"]:
        refresh(sys.argv[2], sys.argv[3:])
    else:
        print(frozen(sys.argv[1:]))
