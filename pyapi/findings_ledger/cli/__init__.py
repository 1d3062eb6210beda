"""The ``findings-ledger`` command line: the click group :func:`main` (the
console script's entry point) and the registration of every verb.

One module per verb group, each exporting ``COMMANDS``; this module imports
them and adds their commands to the group, never the other way round:

* :mod:`.findings`: ``migrate``, ``active``, ``audit``, ``hygiene-mode``, ``replay-git``, ``export``;
* :mod:`.matching`: ``import-findings``, ``policy``, ``hygiene``;
* :mod:`.lifecycle`: ``history``, ``dismiss``, ``restore``, ``prompt``, ``verify``;
* :mod:`.security`: ``reconcile``, ``scope-rls``;
* :mod:`.demo`: ``demo``;
* :mod:`.evaluate`: ``evaluate`` (precision and recall on a labelled corpus);
* :mod:`.formats`: ``schema`` (the JSON Schemas of the importers' formats).

What they share (``--dsn``, the console, one ``error:`` line and exit 1 for a
user mistake) is in :mod:`.helpers`.
"""

from __future__ import annotations

import os

import click

from . import demo, evaluate, findings, formats, lifecycle, matching, security
from .helpers import LedgerGroup, console


@click.group(cls=LedgerGroup)
@click.version_option(package_name="findings-ledger")
def main() -> None:
    """Findings that retire themselves when merges land."""
    # piped output (CI logs, files): $COLUMNS, else 120 columns, so tables do not wrap; set on every
    # invocation, since the console outlives one (several invocations in one process, as in tests)
    if not console.is_terminal:
        columns = os.environ.get("COLUMNS", "")
        console.width = int(columns) if columns.isdigit() and int(columns) > 0 else 120


for _module in (findings, matching, lifecycle, security, demo, evaluate, formats):
    for _command in _module.COMMANDS:
        main.add_command(_command)
