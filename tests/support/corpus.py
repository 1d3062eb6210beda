"""Where the labelled corpus of real repository histories is: ``../shared/corpus``
beside the checkout, or ``$LEDGER_CORPUS``."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("LEDGER_CORPUS", ROOT.parent / "shared" / "corpus"))
