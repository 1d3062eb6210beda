"""Write the next revision from what changed in sql/ since the last frozen one.

    .venv/bin/python tools/new_revision.py "observed_at on findings"   # or: make revision M="..."
    .venv/bin/python tools/new_revision.py --check      # exit 1 when sql/ has changes no revision holds
    .venv/bin/python tools/new_revision.py --release    # pin the revisions not pinned yet (released.sha256)

The frozen state of an object is its file in the newest revision that holds
it (``migrations/versions/NNNN_name/<same path as in sql/>``), or the earlier
frozen file a revision includes (``\\ir ../0001_baseline/functions/x.sql``
in its upgrade.sql, when sql/ went back to an earlier text), with the
``COMMENT ON`` statements of later revisions' ``comments/<same path>`` files
over it. So a revision holds only the files that changed, each text once: a
one-function change is a revision of about that function's size, and a
downgrade includes the earlier revision's file instead of a second copy.

What is compared and frozen is an object's code, not its prose: the header
(the blank and ``--`` lines before the first statement, which no database
keeps) is left out, and so are changes of whitespace only (indentation, line
breaks; whitespace inside a quoted literal counts). A header-only edit needs
no revision. When only ``COMMENT ON`` statements changed, the revision holds
those statements alone (``comments/<path>``; its downgrade.sql gives back the
earlier ones), not the object's whole file.

upgrade.sql, in this order:

1. removed objects are dropped (functions, views, triggers; a removed table
   is a TODO block), unless a current file creates the same object;
2. changed functions whose arguments (names, types, defaults, OUT) or result
   changed have the old signature dropped (CREATE OR REPLACE cannot change
   those), as do triggers and views renamed inside their file;
3. new and changed files are included in ``sql/install.sql``'s order; a
   changed table or policies.sql is a ``-- TODO(new_revision)`` block with
   the diff, for the ALTER statements only a person can write (a table's
   rows cannot be re-created by its CREATE TABLE; tests/migrations/test_revisions.py
   fails while one is left, and the tool exits 2);
4. privileges.sql (re-runnable: it revokes, then grants exactly) runs last
   whenever grants, tables, views or function signatures changed.

Expression indexes (sql/indexes/) are built outside the transaction, in
``concurrently.sql`` (``DROP INDEX CONCURRENTLY IF EXISTS`` +
``CREATE INDEX CONCURRENTLY``; ``downgrade_concurrently.sql`` restores the
earlier one), and a changed function that an expression index calls gets a
``REINDEX INDEX CONCURRENTLY`` there. downgrade.sql mirrors upgrade.sql: new
objects dropped first (reverse order), then the earlier files of changed
and removed objects restored (install order), then the tables' own changes
(a trigger that names a new column must be restored before the column is
dropped), privileges last.

Known limit: a view whose columns are removed or reordered cannot be
replaced by CREATE OR REPLACE VIEW; the upgrade then fails in the tests
(tests/migrations/test_offline_sql.py), and the revision needs a hand-written DROP
VIEW of it and its dependents.

A released revision (pinned in migrations/released.sha256) never changes;
``--release`` only appends revisions not pinned yet and refuses when a
pinned file changed.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import hashlib
import posixpath
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "pyapi"))

from findings_ledger.migration_ops import collapse_whitespace, includes, without_header  # noqa: E402

TODO = "-- TODO(new_revision)"
DROPPED = "-- dropped: "
COMMENTS = "comments"  # a revision's folder of COMMENT ON-only changes
MAX_REVISION_ID = 32  # alembic's version_num is varchar(32)
SCRIPTS = {"install.sql", "upgrade.sql", "downgrade.sql", "concurrently.sql", "downgrade_concurrently.sql"}
_MODULE_REV = re.compile(r"""^revision = (["'])(?P<rev>[^"']+)\1""", re.MULTILINE)
_MODULE_DOWN = re.compile(r"""^down_revision = (?:(["'])(?P<down>[^"']+)\1|None)""", re.MULTILINE)
_FUNCTION = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?P<name>ledger\.\w+)\s*\(", re.IGNORECASE)
_VIEW = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(?P<name>ledger\.\w+)", re.IGNORECASE)
_TRIGGER = re.compile(r"CREATE\s+TRIGGER\s+(?P<name>\w+)\s.*?\sON\s+(?P<table>ledger\.\w+)", re.IGNORECASE | re.DOTALL)
_INDEX = re.compile(r"CREATE\s+(?P<unique>UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?"
                    r"(?P<name>\w+)", re.IGNORECASE)
_COMMENT_ON = re.compile(r"COMMENT\s+ON\s+(?P<target>.+?)\s+IS\s+(?P<value>NULL\s*;?\s*$)?", re.IGNORECASE | re.DOTALL)
_TABLE = re.compile(r"CREATE\s+TABLE\s+(?P<name>ledger\.\w+)", re.IGNORECASE)
_RETURNS = re.compile(r"\)\s*RETURNS\s+(?P<returns>.+?)\s+(?:LANGUAGE|AS|SET|IMMUTABLE|STABLE|VOLATILE|SECURITY|"
                      r"PARALLEL|STRICT|CALLED|LEAKPROOF|COST|ROWS|WINDOW)\b", re.IGNORECASE | re.DOTALL)
# What a downgrade restores first: what others depend on (a removed file has no
# place in install.sql any more; its kind says where it goes).
_RESTORE_RANK = {"tables": 1, "functions": 2, "views": 2, "indexes": 3, "triggers": 4, "policies.sql": 5}
# Files whose text can simply be run again.
_RERUNNABLE = {"roles.sql", "schema.sql", "privileges.sql"}
# What a removed file's drops wait for: dependents first.
_DROP_ORDER = {"triggers": 0, "indexes": 1, "views": 2, "functions": 3, "tables": 4}


class RevisionError(SystemExit):
    """A one-line error for the command line."""


@dataclass(frozen=True)
class Revision:
    rev: str
    module: Path

    @property
    def directory(self) -> Path:
        return self.module.parent / self.module.stem


def revisions(versions: Path) -> list[Revision]:
    """The revisions under ``versions``, oldest first (one line of history)."""
    by_down: dict[str | None, Revision] = {}
    for module in sorted(versions.glob("*.py")):
        text = module.read_text()
        rev, down = _MODULE_REV.search(text), _MODULE_DOWN.search(text)
        if not rev or not down:
            raise RevisionError(f"{module}: no revision / down_revision line")
        if down["down"] in by_down:
            raise RevisionError(f"{module}: a second revision after {down['down']}: history must be one line")
        by_down[down["down"]] = Revision(rev["rev"], module)
    out: list[Revision] = []
    current = by_down.pop(None, None)
    while current:
        out.append(current)
        current = by_down.pop(current.rev, None)
    if by_down:
        raise RevisionError(f"revisions not on the line of history: {sorted(r.rev for r in by_down.values())}")
    return out


def object_files(directory: Path) -> dict[str, Path]:
    """Every object file below ``directory`` by its path relative to it (the
    scripts at its top, install.sql, upgrade*.sql, downgrade*.sql and
    concurrently.sql, are not objects)."""
    return {p.relative_to(directory).as_posix(): p for p in sorted(directory.rglob("*.sql"))
            if not (p.parent == directory and (p.name in SCRIPTS or p.name.startswith(("upgrade", "downgrade"))))
            and p.relative_to(directory).parts[0] != COMMENTS}


def frozen_state(revs: list[Revision]) -> dict[str, tuple[Revision, Path]]:
    """Each object's newest frozen file, with the revision that holds it."""
    return {rel: (rev, path) for rel, (rev, path, _) in frozen_objects(revs).items()}


def frozen_objects(revs: list[Revision]) -> dict[str, tuple[Revision, Path, list[Path]]]:
    """Each object's newest frozen file, the revision that holds it and the
    ``comments/`` files of the later revisions that changed its ``COMMENT ON``
    statements (oldest first)."""
    by_name = {rev.directory.name: rev for rev in revs}
    state: dict[str, tuple[Revision, Path, list[Path]]] = {}
    for rev in revs:
        for rel, path in object_files(rev.directory).items():
            state[rel] = (rev, path, [])
        upgrade = rev.directory / "upgrade.sql"
        text = upgrade.read_text() if upgrade.exists() else ""
        for target in includes(text):  # a revert to an earlier frozen text
            parts = posixpath.normpath(target).split("/", 2)
            if parts[0] == ".." and len(parts) == 3 and parts[1] in by_name:
                holder = by_name[parts[1]]
                state[parts[2]] = (holder, holder.directory / parts[2], [])
        comments = rev.directory / COMMENTS
        for rel, path in (object_files(comments).items() if comments.is_dir() else ()):
            if rel in state:
                state[rel][2].append(path)
        for line in text.splitlines():
            if line.startswith(DROPPED):
                state.pop(line[len(DROPPED):].strip(), None)
    return state


@dataclass(frozen=True)
class Code:
    """What of an object file a database keeps, as compared: the statements
    other than COMMENT ON, whitespace collapsed, and each COMMENT ON
    statement as written, by its target (``FUNCTION ledger.f(text)``)."""

    rest: tuple[str, ...]
    comments: dict[str, str]

    def same(self, other: Code) -> bool:
        return self.rest == other.rest and _collapsed(self.comments) == _collapsed(other.comments)


def _collapsed(comments: dict[str, str]) -> dict[str, str]:
    return {target: collapse_whitespace(statement) for target, statement in comments.items()}


def code_of(text: str) -> Code:
    """The code of an object file's text: its header and whitespace left out."""
    return _code_of_body(without_header(text))


@functools.cache
def _code_of_body(body_text: str) -> Code:
    """:func:`code_of` of a text without its header; once per distinct text (an
    object unchanged since its last revision has the same text in both)."""
    import sqlparse

    rest, comments = [], {}
    for statement in sqlparse.split(body_text):
        body = without_header(statement).strip()
        match = _COMMENT_ON.match(body)
        if match:
            target = collapse_whitespace(match["target"])
            if match["value"]:  # COMMENT ON ... IS NULL: no comment
                comments.pop(target, None)
            else:
                comments[target] = body if body.endswith(";") else body + ";"
        elif body:
            rest.append(collapse_whitespace(statement))
    return Code(tuple(rest), comments)


def frozen_code(path: Path, overlays: list[Path]) -> Code:
    """The code of a frozen file with the later ``COMMENT ON`` changes over it."""
    base = code_of(path.read_text())
    comments = dict(base.comments)
    for overlay in overlays:
        for target, statement in _comment_statements(overlay.read_text()):
            if statement is None:
                comments.pop(target, None)
            else:
                comments[target] = statement
    return Code(base.rest, comments)


def _comment_statements(text: str) -> list[tuple[str, str | None]]:
    """Each COMMENT ON statement of ``text``: its target and the statement (None: IS NULL)."""
    import sqlparse

    out: list[tuple[str, str | None]] = []
    for statement in sqlparse.split(text):
        body = without_header(statement).strip()
        match = _COMMENT_ON.match(body)
        if match:
            out.append((collapse_whitespace(match["target"]), None if match["value"] else body))
    return out


def comment_changes(old: Code, new: Code) -> tuple[list[str], list[str]]:
    """The COMMENT ON statements that take ``old``'s comments to ``new``'s, and back."""
    up, down = [], []
    old_c, new_c = _collapsed(old.comments), _collapsed(new.comments)
    for target in sorted(set(old_c) | set(new_c)):
        if old_c.get(target) == new_c.get(target):
            continue
        up.append(new.comments.get(target, f"COMMENT ON {target} IS NULL;"))
        down.append(old.comments.get(target, f"COMMENT ON {target} IS NULL;"))
    return up, down


def manifest(sql_dir: Path) -> list[str]:
    """The object files in ``sql/install.sql``'s order."""
    order = includes((sql_dir / "install.sql").read_text())
    files = object_files(sql_dir)
    missing = sorted(set(files) - set(order))
    if missing:
        raise RevisionError(f"{sql_dir / 'install.sql'}: does not include {', '.join(missing)}")
    return order


def strip_comments(text: str) -> str:
    """``text`` without ``--`` comments (outside single quotes)."""
    out, quoted = [], False
    for line in text.splitlines():
        keep = []
        i = 0
        while i < len(line):
            ch = line[i]
            if ch == "'":
                quoted = not quoted
            elif not quoted and line.startswith("--", i):
                break
            keep.append(ch)
            i += 1
        out.append("".join(keep))
    return "\n".join(out)


def _split_args(args: str) -> list[str]:
    out, depth, start, quoted = [], 0, 0, False
    for i, ch in enumerate(args):
        if ch == "'":
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(args[start:i])
            start = i + 1
    out.append(args[start:])
    return [a.strip() for a in out if a.strip()]


@dataclass(frozen=True)
class FunctionHeader:
    signature: str  # ledger.name(type, ...): what DROP FUNCTION takes
    arguments: str  # the whole argument list, names, defaults and modes included
    returns: str


def _argument_list(code: str, start: int) -> tuple[str, int]:
    depth, i, quoted = 1, start, False
    while depth:
        ch = code[i]
        if ch == "'":
            quoted = not quoted
        elif not quoted:
            depth += {"(": 1, ")": -1}.get(ch, 0)
        i += 1
    return code[start:i - 1], i - 1


def function_headers(text: str) -> list[FunctionHeader]:
    """Each function a file creates: its DROP signature (defaults and OUT
    arguments left out), its whole argument list and its result type."""
    code = strip_comments(text)
    headers = []
    for match in _FUNCTION.finditer(code):
        args, end = _argument_list(code, match.end())
        kept = []
        for arg in _split_args(args):
            if re.match(r"OUT\s", arg, re.IGNORECASE):
                continue
            arg = re.split(r"\s+DEFAULT\s+|\s*=\s*", arg, maxsplit=1, flags=re.IGNORECASE)[0]
            kept.append(" ".join(re.sub(r"^(IN|INOUT|VARIADIC)\s+", "", arg, flags=re.IGNORECASE).split()))
        returns = _RETURNS.match(code, end)
        headers.append(FunctionHeader(f"{match['name']}({', '.join(kept)})", " ".join(args.split()),
                                      " ".join(returns["returns"].split()) if returns else ""))
    return headers


def function_signatures(text: str) -> list[str]:
    """``ledger.name(arg, ...)`` of each function a file creates, as DROP FUNCTION takes it."""
    return [h.signature for h in function_headers(text)]


def object_names(rel: str, text: str) -> set[str]:
    """What a file creates, as comparable names (``function ledger.f(text)``, ``trigger _100_x ON ledger.t``...)."""
    kind = rel.split("/")[0]
    code = strip_comments(text)
    if kind == "functions":
        return {f"function {s}" for s in function_signatures(text)}
    patterns = {"views": (_VIEW, "view {name}"), "triggers": (_TRIGGER, "trigger {name} ON {table}"),
                "indexes": (_INDEX, "index {name}"), "tables": (_TABLE, "table {name}")}
    if kind not in patterns:
        return set()
    pattern, form = patterns[kind]
    return {form.format(**m.groupdict()) for m in pattern.finditer(code)}


def drop_statements(rel: str, text: str) -> list[str] | None:
    """What removes what ``text`` (file ``rel``) creates, or None when it
    must be written by hand (tables, policies, roles)."""
    out = []
    for name in sorted(object_names(rel, text)):
        kind, rest = name.split(" ", 1)
        if kind == "table":
            return None
        if kind == "index":
            continue  # indexes are dropped in the concurrently scripts
        out.append(f"DROP {kind.upper()} {rest};")
    return out if out or rel.startswith("indexes/") else None


def index_statements(text: str) -> list[str]:
    """The CREATE INDEX statements of an index file, made CONCURRENTLY,
    each preceded by DROP INDEX CONCURRENTLY IF EXISTS (a failed build
    leaves an INVALID index behind; rerunnable)."""
    import sqlparse

    out = []
    for statement in sqlparse.split(strip_comments(text)):
        statement = statement.strip()
        match = _INDEX.search(statement)
        if not match:
            continue
        create = re.sub(r"^CREATE\s+(UNIQUE\s+)?INDEX\s+(?!CONCURRENTLY)", lambda m: f"CREATE {m[1] or ''}INDEX "
                        "CONCURRENTLY ", statement, count=1, flags=re.IGNORECASE)
        out += [f"DROP INDEX CONCURRENTLY IF EXISTS ledger.{match['name']};", create]
    return out


def _todo(rel: str, why: str, old: str, new: str) -> str:
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), f"frozen/{rel}", f"sql/{rel}", lineterm="")
    body = "\n".join(f"--   {line}" for line in diff)
    return f"{TODO}: {rel}: {why}\n{body}\n"


@dataclass
class Plan:
    upgrade: list[str] = field(default_factory=list)
    downgrade: list[str] = field(default_factory=list)
    concurrently: list[str] = field(default_factory=list)
    downgrade_concurrently: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # relative path -> new text to freeze
    reverts: dict[str, str] = field(default_factory=dict)  # relative path -> earlier frozen file it goes back to
    comments: dict[str, str] = field(default_factory=dict)  # relative path -> its changed COMMENT ON statements
    todos: int = 0

    @property
    def empty(self) -> bool:
        return not (self.files or self.reverts or self.comments or self.upgrade)


def plan(sql_dir: Path, versions: Path) -> Plan:
    """What the next revision must hold to bring the frozen state to ``sql/``."""
    revs = revisions(versions)
    objects = frozen_objects(revs)
    frozen = {rel: (rev, path) for rel, (rev, path, _) in objects.items()}
    current = object_files(sql_dir)
    order = manifest(sql_dir)
    texts = {rel: path.read_text() for rel, path in current.items()}
    result = Plan()
    current_objects = set().union(*(object_names(rel, text) for rel, text in texts.items())) if texts else set()
    every_frozen_file: dict[str, list[tuple[Path, str]]] = {}  # rel -> (file, include path), for reverts
    for rev in revs:
        for rel, path in object_files(rev.directory).items():
            every_frozen_file.setdefault(rel, []).append((path, f"../{rev.directory.name}/{rel}"))

    def revert_to(rel: str, code: Code) -> str | None:
        """The include path of the earliest frozen file of ``rel`` with this code."""
        return next((include for path, include in every_frozen_file.get(rel, ())
                     if path.read_text() == texts[rel] or code_of(path.read_text()).same(code)), None)

    def earlier(rel: str) -> str:
        rev, path = frozen[rel]
        return f"../{path.relative_to(rev.directory.parent).as_posix()}"

    def earlier_includes(rel: str) -> list[str]:
        """What gives back the frozen state of ``rel``: its file, then its later COMMENT ON changes."""
        _, _, overlays = objects[rel]
        return [f"\\ir {earlier(rel)}", *(f"\\ir ../{o.relative_to(versions).as_posix()}" for o in overlays)]

    def old_code(rel: str) -> Code:
        _, path, overlays = objects[rel]
        return frozen_code(path, overlays)

    rerun_privileges = False
    new_drops: list[str] = []  # downgrade: what the new objects need dropped, in install order
    table_downs: list[str] = []  # downgrade: new or changed tables, after the earlier files are back
    restores: list[str] = []  # downgrade: earlier files to include again, in install order
    changed_functions: set[str] = set()
    comment_downs: list[str] = []  # downgrade: the earlier COMMENT ON statements, after the earlier files

    # 1. removed objects
    removed = sorted((r for r in frozen if r not in current), key=lambda r: _DROP_ORDER.get(r.split("/")[0], 9))
    for rel in removed:
        old = frozen[rel][1].read_text()
        if object_names(rel, old) - current_objects == set() and object_names(rel, old):
            result.upgrade.append(f"{DROPPED}{rel}  (its objects now come from another file)")
            restores.append(rel)
            continue
        drops = drop_statements(rel, old)
        if drops is None:
            result.todos += 1
            result.upgrade.append(_todo(rel, "removed; write what drops it", old, ""))
        else:
            result.upgrade.extend(drops)
            if rel.startswith("indexes/"):
                for name in object_names(rel, old):
                    result.concurrently.append(f"DROP INDEX CONCURRENTLY IF EXISTS ledger.{name.split(' ', 1)[1]};")
                result.downgrade_concurrently.extend(index_statements(old))
        result.upgrade.append(f"{DROPPED}{rel}")
        if not rel.startswith("indexes/"):  # a dropped index comes back in downgrade_concurrently.sql
            restores.append(rel)
        rerun_privileges = True

    # 2 + 3. new and changed files, in install order
    for rel in order:
        new, kind = texts[rel], rel.split("/")[0]
        if rel not in frozen:
            rerun_privileges |= kind in ("functions", "tables", "views")
            if kind == "indexes":
                result.files[rel] = without_header(new)
                result.concurrently.extend(index_statements(new))
                result.upgrade.append(f"-- {rel}: built CONCURRENTLY, see concurrently.sql")
                for name in object_names(rel, new):
                    result.downgrade_concurrently.append(
                        f"DROP INDEX CONCURRENTLY IF EXISTS ledger.{name.split(' ', 1)[1]};")
                continue
            result.files[rel] = without_header(new)
            result.upgrade.append(f"\\ir {rel}")
            drops = drop_statements(rel, new)
            if kind == "tables":
                table_downs.extend(f"DROP TABLE {n.split(' ', 1)[1]};" for n in sorted(object_names(rel, new)))
            elif drops is None and rel not in _RERUNNABLE:
                result.todos += 1
                new_drops.append(_todo(rel, "new; write what drops it", "", new))
            elif drops:
                new_drops.extend(drops)
            continue
        old, was, code = frozen[rel][1].read_text(), old_code(rel), code_of(new)
        if was.same(code):
            continue  # the header or whitespace changed, not the code
        if was.rest == code.rest:  # only COMMENT ON statements changed: the revision holds those
            up, down = comment_changes(was, code)
            result.comments[rel] = "\n\n".join(up) + "\n"
            result.upgrade.append(f"\\ir {COMMENTS}/{rel}")
            comment_downs.extend(down)
            continue
        revert = revert_to(rel, code)
        if revert:
            result.reverts[rel] = revert
            include = f"\\ir {revert}"
        else:
            result.files[rel] = without_header(new)
            include = f"\\ir {rel}"
        if kind == "functions":
            old_headers = {h.signature: h for h in function_headers(old)}
            new_headers = {h.signature: h for h in function_headers(new)}
            for sig, header in old_headers.items():
                if new_headers.get(sig) != header:
                    result.upgrade.append(f"DROP FUNCTION {sig};")
                    rerun_privileges = True
            for sig, header in new_headers.items():
                if old_headers.get(sig) != header:
                    new_drops.append(f"DROP FUNCTION {sig};")
                    rerun_privileges = True
            changed_functions |= {sig.split("(")[0] for sig in new_headers}
            result.upgrade.append(include)
            restores.append(rel)
        elif kind == "indexes":
            result.concurrently.extend(index_statements(new))
            result.downgrade_concurrently.extend(index_statements(old))
            result.upgrade.append(f"-- {rel}: rebuilt CONCURRENTLY, see concurrently.sql")
        elif kind in ("views", "triggers"):
            for name in sorted(object_names(rel, old) - object_names(rel, new)):
                result.upgrade.append(f"DROP {name.split(' ', 1)[0].upper()} {name.split(' ', 1)[1]};")
            for name in sorted(object_names(rel, new) - object_names(rel, old)):
                new_drops.append(f"DROP {name.split(' ', 1)[0].upper()} {name.split(' ', 1)[1]};")
            rerun_privileges |= kind == "views"
            result.upgrade.append(include)
            restores.append(rel)
        elif rel == "privileges.sql":
            rerun_privileges = True
        elif rel in _RERUNNABLE:
            result.upgrade.append(include)
            restores.append(rel)
        else:
            result.todos += 2
            result.upgrade.append(_todo(rel, "changed; write the ALTER statements", old, new))
            table_downs.append(_todo(rel, "changed; write the ALTER statements that undo it", new, old))

    # expression indexes over a changed function: their keys may change
    for rel in order:
        if rel.startswith("indexes/") and rel not in result.files:
            text = strip_comments(texts[rel])
            for function in changed_functions:
                if re.search(rf"\b{re.escape(function)}\s*\(", text):
                    for name in sorted(object_names(rel, texts[rel])):
                        statement = f"REINDEX INDEX CONCURRENTLY ledger.{name.split(' ', 1)[1]};"
                        result.concurrently.append(statement)
                        result.downgrade_concurrently.append(statement)

    # 4. privileges last
    if rerun_privileges or "privileges.sql" in result.files or "privileges.sql" in result.reverts:
        if "privileges.sql" in frozen and not old_code("privileges.sql").same(code_of(texts["privileges.sql"])):
            target = result.reverts.get("privileges.sql") or revert_to("privileges.sql",
                                                                         code_of(texts["privileges.sql"]))
            if target:
                result.upgrade.append(f"\\ir {target}")
            else:
                result.files["privileges.sql"] = without_header(texts["privileges.sql"])
                result.upgrade.append("\\ir privileges.sql")
        else:
            result.upgrade.extend(earlier_includes("privileges.sql"))
        restores.append("privileges.sql")

    # downgrade: new objects dropped in reverse install order, then the earlier
    # files (triggers that name a new column in UPDATE OF go back before the
    # column goes), then the tables' own changes, then the privileges
    result.downgrade.extend(reversed(new_drops))
    position = {rel: i for i, rel in enumerate(order)}
    ordered = sorted(dict.fromkeys(restores), key=lambda r: (_RESTORE_RANK.get(r.split("/")[0], 0),
                                                             position.get(r, len(order))))
    for rel in ordered:
        if rel in frozen and rel != "privileges.sql":
            result.downgrade.extend(earlier_includes(rel))
    result.downgrade.extend(comment_downs)
    result.downgrade.extend(reversed(table_downs))
    if "privileges.sql" in ordered and "privileges.sql" in frozen:
        result.downgrade.extend(earlier_includes("privileges.sql"))
    return result


def script(header: str, steps: list[str]) -> str:
    return header + "\n" + "\n".join(steps) + "\n"


def revision_id(number: int, message: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", message.lower()).strip("_") or "change"
    rev_id = f"{number:04d}_{slug}"[:MAX_REVISION_ID].rstrip("_")
    return rev_id


def write_revision(message: str, sql_dir: Path, migrations: Path) -> tuple[Path, Plan]:
    """Write the revision module (alembic's ``revision`` command and
    ``script.py.mako``) and its directory; return the module and the plan."""
    from alembic import command
    from alembic.config import Config

    versions = migrations / "versions"
    revs = revisions(versions)
    rev_id = revision_id(len(revs) + 1, message)
    result = plan(sql_dir, versions)
    if result.empty:
        raise RevisionError("sql/ matches the last frozen revision: nothing to write")
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations))
    cfg.set_main_option("file_template", "%%(rev)s")
    summary = "\n".join([*(f"* {rel}" for rel in result.files),
                         *(f"* {rel} (back to {target})" for rel, target in result.reverts.items()),
                         *(f"* {COMMENTS}/{rel} (its COMMENT ON statements only)" for rel in result.comments)])
    command.revision(cfg, message=f"{message}\n\nFrozen files:\n\n{summary}", rev_id=rev_id)
    directory = versions / rev_id
    directory.mkdir(exist_ok=True)
    for rel, text in result.files.items():
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text(text)
    for rel, text in result.comments.items():
        (directory / COMMENTS / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / COMMENTS / rel).write_text(text)
    (directory / "upgrade.sql").write_text(script(f"-- {rev_id}: {message}\n", result.upgrade))
    (directory / "downgrade.sql").write_text(script(f"-- {rev_id} undone: restores the frozen files it replaced\n",
                                                    result.downgrade))
    if result.concurrently:
        (directory / "concurrently.sql").write_text(script(
            f"-- {rev_id}: run outside a transaction, after upgrade.sql\n", result.concurrently))
    if result.downgrade_concurrently:
        (directory / "downgrade_concurrently.sql").write_text(script(
            f"-- {rev_id} undone: run outside a transaction, before downgrade.sql\n", result.downgrade_concurrently))
    return versions / f"{rev_id}.py", result


def revision_files(rev: Revision) -> list[Path]:
    return [rev.module, *sorted(p for p in rev.directory.rglob("*") if p.is_file() and "__pycache__" not in p.parts)]


def pin_line(migrations: Path, path: Path) -> str:
    return f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(migrations).as_posix()}"


def read_pins(pins: Path) -> dict[str, str]:
    """``released.sha256`` as {path relative to migrations/: sha256}."""
    if not pins.exists():
        return {}
    return {path: digest for digest, path in (line.split("  ", 1) for line in pins.read_text().splitlines() if line)}


def pin_released(migrations: Path) -> Path:
    """Append the revisions not pinned yet to ``released.sha256``; refuse
    when a pinned file changed or went missing."""
    out = migrations / "released.sha256"
    pinned = read_pins(out)
    changed = [p for p, digest in pinned.items()
               if not (migrations / p).is_file() or pin_line(migrations, migrations / p).split("  ")[0] != digest]
    if changed:
        raise RevisionError(f"released revision files changed: {', '.join(changed)}: write a new revision instead")
    lines = [f"{digest}  {path}" for path, digest in pinned.items()]
    for rev in revisions(migrations / "versions"):
        if rev.module.relative_to(migrations).as_posix() in pinned:
            continue
        lines += [pin_line(migrations, path) for path in revision_files(rev)]
    out.write_text("\n".join(lines) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("message", nargs="?", help="what the revision does (its name and docstring)")
    parser.add_argument("--check", action="store_true", help="exit 1 when sql/ differs from the frozen state")
    parser.add_argument("--release", action="store_true", help="pin the revisions not pinned yet")
    parser.add_argument("--sql-dir", type=Path, default=ROOT / "sql")
    parser.add_argument("--migrations", type=Path, default=ROOT / "migrations")
    args = parser.parse_args(argv)
    if args.release:
        print(f"pinned: {pin_released(args.migrations)}")
        return 0
    if args.check:
        result = plan(args.sql_dir, args.migrations / "versions")
        for rel in [*result.files, *result.reverts]:
            print(f"changed since the last revision: sql/{rel}")
        for rel in result.comments:
            print(f"COMMENT ON changed since the last revision: sql/{rel}")
        if not result.empty:
            print("write a revision: make revision M='what it does'")
        return 0 if result.empty else 1
    if not args.message:
        parser.error("say what the revision does: new_revision.py 'observed_at on findings'")
    module, result = write_revision(args.message, args.sql_dir, args.migrations)
    shown = module.relative_to(ROOT) if ROOT in module.parents else module
    print(f"wrote {shown} and its directory: {len(result.files)} frozen file(s), {len(result.reverts)} revert(s), "
          f"{len(result.comments)} COMMENT ON change(s)")
    if result.todos:
        print(f"{result.todos} {TODO} block(s) to write by hand (tables, policies): see upgrade.sql / downgrade.sql")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
