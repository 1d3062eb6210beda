"""How revisions execute their frozen SQL files, identically online and
offline.

A revision is a module ``migrations/versions/NNNN_name.py`` and a directory
``migrations/versions/NNNN_name/`` beside it holding ``upgrade.sql``,
``downgrade.sql`` and the frozen object files they include. Both scripts are
plain psql scripts: a DBA runs them with ``psql -f`` (from any directory:
``\\ir`` includes are relative to the including file). The module calls
:func:`run_revision_file`, which expands the ``\\ir`` includes the way psql
resolves them (a line holding only ``\\ir FILE``, FILE optionally in single
quotes; revision files use no other meta-command, and none inside a
dollar-quoted body) and hands the text to :func:`run_sql`.

Online, the text goes to the driver unparsed (``no_parameters``: psycopg
sees no placeholders); offline (``alembic upgrade --sql``) it is written to
the script verbatim. Neither path runs it through SQLAlchemy's ``text()``,
which would treat ``:name`` as a bind parameter and double ``%`` signs.

A revision never reads a live ``sql/`` file: an include that leaves
``migrations/versions/`` is an error, so a revision's text cannot change when
``sql/`` does.

This module is part of the migration history's machinery: keep it backwards
compatible, since every revision imports it.
"""

from __future__ import annotations

import re
from pathlib import Path

from alembic import op

# psql's include-relative meta-command, alone on its line.
INCLUDE = re.compile(r"^\\ir\s+(?:'(?P<quoted>[^']+)'|(?P<path>\S+))\s*$")
# Any other psql meta-command at the start of a line: not supported here, since
# alembic would not run it the way psql does.
_META = re.compile(r"^\\[a-zA-Z]")


class RevisionFileError(RuntimeError):
    """A revision's SQL file is missing, includes a file outside
    ``migrations/versions/``, or uses a psql meta-command other than ``\\ir``."""


def included(line: str) -> str | None:
    """The file a ``\\ir`` line includes, or None for any other line."""
    match = INCLUDE.match(line.rstrip("\n"))
    return (match["quoted"] or match["path"]) if match else None


def includes(text: str) -> list[str]:
    """The files a psql script includes, in order."""
    return [target for line in text.splitlines() if (target := included(line)) is not None]


def expand_includes(path: Path, root: Path | None = None, _seen: tuple[Path, ...] = ()) -> str:
    """The text of psql script ``path`` with every ``\\ir FILE`` line replaced
    by FILE's expanded text (relative to the including file's directory, as
    psql resolves it). Every file must lie under ``root`` (default: the
    ``versions`` directory two levels up, i.e. the revision's own tree and
    its siblings). Raises :class:`RevisionFileError`.
    """
    path = path.resolve()
    root = (root or path.parent.parent).resolve()
    if root not in path.parents:
        raise RevisionFileError(
            f"{path}: outside {root}: a revision includes only frozen files of migrations/versions/"
        )
    if path in _seen:
        raise RevisionFileError(f"{path}: includes itself ({' -> '.join(map(str, _seen))})")
    if not path.is_file():
        raise RevisionFileError(f"{path}: no such file")
    out: list[str] = []
    for number, line in enumerate(path.read_text().splitlines(keepends=True), 1):
        target = included(line)
        if target is not None:
            text = expand_includes(path.parent / target, root, (*_seen, path))
            out.append(text if text.endswith("\n") else text + "\n")
        elif _META.match(line):
            raise RevisionFileError(f"{path}:{number}: only \\ir is supported in revision files: {line.strip()}")
        else:
            out.append(line)
    return "".join(out)


def run_sql(sql: str) -> None:
    """Execute ``sql`` (one or more complete statements, each ending in ``;``)."""
    ctx = op.get_context()
    if ctx.as_sql:
        ctx.impl.static_output(sql.strip() + "\n")
    else:
        op.get_bind().exec_driver_sql(sql, execution_options={"no_parameters": True})


def _statements(sql: str) -> list[str]:
    """The statements of a script, split the way psql splits them
    (sqlparse: quotes, comments and dollar quoting respected), comments and
    empty statements dropped."""
    import sqlparse

    out = []
    for statement in sqlparse.split(sql):
        code = sqlparse.format(statement, strip_comments=True).strip()
        if code and code != ";":
            out.append(code)
    return out


def run_concurrently(script: Path, root: Path) -> None:
    """Run each statement of ``script`` on its own, outside the revision's
    transaction (``CREATE INDEX CONCURRENTLY`` cannot run inside one)."""
    with op.get_context().autocommit_block():
        for statement in _statements(expand_includes(script, root=root)):
            run_sql(statement)


def run_revision_file(module_file: str, name: str) -> None:
    """Run ``name`` (``upgrade.sql`` or ``downgrade.sql``) of the revision
    whose module is ``module_file`` (pass ``__file__``): the directory of the
    same name beside the module, includes expanded.

    When the directory holds ``concurrently.sql``, its statements run after
    ``upgrade.sql``, each outside a transaction; ``downgrade_concurrently.sql``
    runs the same way before ``downgrade.sql``.
    """
    module = Path(module_file)
    directory = module.parent / module.stem
    concurrent = directory / ("concurrently.sql" if name == "upgrade.sql" else "downgrade_concurrently.sql")
    if name == "downgrade.sql" and concurrent.exists():
        run_concurrently(concurrent, module.parent)
    run_sql(expand_includes(directory / name, root=module.parent))
    if name == "upgrade.sql" and concurrent.exists():
        run_concurrently(concurrent, module.parent)


def without_header(text: str) -> str:
    """``text`` from its first statement on: the leading lines that are blank
    or ``--`` comments (an object file's header, which no database keeps) left out."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() and not line.lstrip().startswith("--"):
            return "".join(lines[i:])
    return ""


def collapse_whitespace(text: str) -> str:
    """``text`` with each run of whitespace outside single-quoted literals as
    one space, and none at either end: two texts that differ only in
    indentation, line breaks or blank lines are equal. A quote inside a ``--``
    comment opens no literal; whitespace inside a literal is kept."""
    out: list[str] = []
    quoted = comment = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quoted:
            out.append(ch)
            quoted = ch != "'"
        elif ch.isspace():
            j = i
            while j < n and text[j].isspace():
                comment = comment and text[j] != "\n"
                j += 1
            out.append(" ")
            i = j
            continue
        else:
            out.append(ch)
            if not comment:
                if ch == "'":
                    quoted = True
                elif text.startswith("--", i):
                    comment = True
        i += 1
    return "".join(out).strip()
