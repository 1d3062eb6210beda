"""The ``findings-ledger`` console script's entry point: :func:`main`.

The command line (:mod:`findings_ledger.cli`) needs the ``cli`` extra
(click, rich and the formats). Installed without it, the command prints one
``error:`` line naming the extra and exits 1 instead of a traceback.
"""

from __future__ import annotations

import sys

from . import extras


def main() -> None:
    """Run the ``findings-ledger`` click group, or, when a package of the
    ``cli`` extra is missing, print ``error: ...`` on stderr and exit 1."""
    try:
        extras.require("cli", "the findings-ledger command")
    except ImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    from .cli import main as group

    group()
