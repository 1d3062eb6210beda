"""``python -m findings_ledger.cli``: the same as the ``findings-ledger`` command."""

from . import main

main(prog_name="findings-ledger")
