"""The revisions this findings-ledger ships and the one a database is at:
the lowest layer of the runtime API, read by :mod:`findings_ledger.api` (which
re-exports :func:`migrations_dir` and :func:`shipped_revisions`) and by
:func:`findings_ledger.errors.translate` (whether a database is really behind
head). Neither alembic nor the rest of the package is imported."""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path
from typing import Any

import psycopg


def migrations_dir() -> Path:
    """Directory of the alembic revisions shipped with this checkout/package."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_migrations", here.parent.parent / "migrations"):
        if (candidate / "env.py").exists():
            return candidate
    raise FileNotFoundError("findings-ledger migrations not found next to the package")


@functools.lru_cache(maxsize=1)
def shipped_revisions() -> tuple[frozenset[str], frozenset[str]]:
    """(every revision, the heads) of the revisions shipped with this
    findings-ledger, read from the modules' ``revision`` and
    ``down_revision`` lines without importing alembic (cheap enough for
    every command-line verb)."""
    revs: set[str] = set()
    downs: set[str] = set()
    for module in (migrations_dir() / "versions").glob("*.py"):
        text = module.read_text()
        rev = re.search(r"^revision\s*=\s*(.+)$", text, re.MULTILINE)
        down = re.search(r"^down_revision\s*=\s*(.+)$", text, re.MULTILINE)
        if rev is None:
            continue
        revs.add(ast.literal_eval(rev[1].split("#")[0].strip()))
        value = ast.literal_eval(down[1].split("#")[0].strip()) if down else None
        downs.update(value if isinstance(value, (tuple, list)) else ([value] if value else []))
    return frozenset(revs), frozenset(revs - downs)


@functools.lru_cache(maxsize=1)
def replaced_revisions() -> frozenset[str]:
    """The revisions the releases of this findings-ledger folded away (the
    ``replaced`` lists of ``migrations/replaced/*.json``): a database at one
    is behind, as :func:`findings_ledger.folds.fold_of` is not None for it."""
    replaced = migrations_dir() / "replaced"
    out: set[str] = set()
    for manifest in sorted(replaced.glob("*.json")) if replaced.is_dir() else ():
        out.update(json.loads(manifest.read_text(encoding="utf-8"))["replaced"])
    return frozenset(out)


def read_revision(conn: psycopg.Connection[Any]) -> str | None:
    """The revision the database of ``conn`` is at (``ledger.alembic_version``),
    or None when it has no ledger schema yet."""
    row = conn.execute("SELECT to_regclass('ledger.alembic_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return None
    version = conn.execute("SELECT version_num FROM ledger.alembic_version").fetchone()
    return version[0] if version else None
