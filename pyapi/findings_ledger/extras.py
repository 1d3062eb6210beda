"""The optional parts of findings-ledger and the packages each needs.

``pip install findings-ledger`` installs the core: ``import findings_ledger``
and the migrations, over psycopg, alembic, SQLAlchemy and sqlparse. The
extras (pyproject.toml, ``[project.optional-dependencies]``) add the rest:

* ``formats``: the findings-file and drift-review importers
  (:mod:`findings_ledger.importers`), SARIF import and export
  (:mod:`findings_ledger.sarif`) and the labelled-corpus evaluation:
  python-frontmatter, PyYAML, jsonschema, fastjsonschema;
* ``cli``: the ``findings-ledger`` command (:mod:`findings_ledger.cli`):
  click and rich, and the ``formats`` extra;
* ``mcp``, ``embedded``, ``pytest``: the MCP server, PostgreSQL binaries
  from PyPI, the pytest fixtures.

:func:`missing` tells which of an extra's packages are absent, without
importing them; :func:`require` turns that into the :class:`ImportError` a
user reads.
"""

from __future__ import annotations

import importlib.util

#: extra -> the top-level modules of the packages it installs.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "formats": ("frontmatter", "yaml", "jsonschema", "fastjsonschema"),
    "cli": ("click", "rich", "frontmatter", "yaml", "jsonschema", "fastjsonschema"),
}


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` (a key of :data:`EXTRA_MODULES`) that cannot
    be imported here, in :data:`EXTRA_MODULES` order; ``[]`` when all can.
    Nothing is imported (``importlib.util.find_spec``)."""
    return [m for m in EXTRA_MODULES[extra] if importlib.util.find_spec(m) is None]


def require(extra: str, what: str) -> None:
    """Raise :class:`ImportError` (``name``: the first missing module) saying
    that ``what`` needs ``extra`` and how to install it, when one of the
    extra's modules is missing; return None otherwise."""
    absent = missing(extra)
    if absent:
        raise ImportError(
            f"{what} needs the {extra!r} extra (missing: {', '.join(absent)}): pip install 'findings-ledger[{extra}]'",
            name=absent[0],
        )
