"""Print frozen copies of sql/ sources for pasting into a new revision.

    python tools/freeze_sql.py sql/functions/a.sql sql/triggers/t.sql > /tmp/frozen.py

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


if __name__ == "__main__":
    print(frozen(sys.argv[1:]))
