"""Write the next revision from what changed in sql/ since the last frozen one.

    .venv/bin/python tools/new_revision.py "observed_at on findings"   # or: make revision M="..."
    .venv/bin/python tools/new_revision.py --check      # exit 1 when sql/ has changes no revision holds

What is compared is catalog objects, not files. Both sides are read with
PostgreSQL's own grammar (pglast, libpg_query) and replayed statement by
statement into the same model: sql/ as ``sql/install.sql`` includes it, and
the frozen state as the revisions build it (every revision's upgrade.sql,
its ``\\ir`` includes expanded, then its concurrently.sql, in order; a
frozen file a revision holds but does not include, a table whose ALTER
statements were written by hand or an index built in concurrently.sql, is
the state of its objects). An object is known by its identity, whatever
file it sits in:

* a function by its name and input argument types (``ledger.f(text,
  integer)``: argument names, defaults, type modifiers and OUT arguments
  left out, types named one way: ``int4`` and ``int`` are ``integer``);
  its definition (arguments, result, language, body) apart from its
  attributes (SET, volatility, SECURITY, PARALLEL, COST, ROWS, STRICT,
  LEAKPROOF);
* a trigger or a policy by table and name; a view, a table, an index by name
  (a table's definition is its CREATE TABLE and the other statements of its
  file that name it, such as seed rows);
* a comment by its target (``COLUMN ledger.t.c``), a grant by object, role,
  privilege and column;
* a DO block (roles.sql) by its dollar-quote tag, the schema by name, any
  other statement of an object file by its text.

A statement written in a revision's own script rather than in a frozen file
counts where it changes such an object (a CREATE, DROP, ALTER FUNCTION,
COMMENT ON, GRANT or REVOKE); a data step, a DO block or an
ALTER TABLE there does not (a table's state is its frozen file).

So a file moved into a folder or renamed, or an object moved between files,
is no change. Nor is a header edit or a change of whitespace: the comment
lines before a statement are not part of it, a parse tree has no layout, and
a function body is compared with each run of whitespace outside its quoted
literals collapsed.

The revision holds the smallest true delta of each object:

1. a removed object is dropped (dependents first: triggers and policies,
   indexes in concurrently.sql, views, functions; a removed table is a
   TODO block);
2. a function whose arguments (names, defaults, OUT) or result changed has
   its old definition dropped (CREATE OR REPLACE cannot change those), as
   does a changed policy;
3. a new or changed definition is frozen and included, in sql/'s order: the
   object's statements and its COMMENT ON statements in a file named by the
   object, not by its sql/ path (``functions/<name>.sql``,
   ``triggers/<table>__<name>.sql``, ``views/``, ``indexes/``, ``tables/``,
   ``policies/<table>__<name>.sql``, ``other/``), or, when sql/ went back to
   an earlier definition, that earlier frozen file included instead. A new
   table's file holds its new indexes too. A changed table is a
   ``-- TODO(new_revision)`` block with the diff, for the ALTER statements
   only a person can write (a table's rows cannot be re-created by its
   CREATE TABLE; tests/migrations/test_revisions.py fails while one is left,
   and the tool exits 2); its new definition is frozen but not included;
4. then what the definitions leave to do, found by replaying steps 1 to 3 on
   the frozen state and comparing with sql/: ``ALTER FUNCTION
   ledger.f(args) <attributes>`` for each function whose attributes alone
   differ (one line per function), ``COMMENT ON`` for each comment, and the
   REVOKE and GRANT statements of exactly the privileges that differ (a new
   function's default EXECUTE for PUBLIC included). sql/access/privileges.sql stays
   the one re-runnable list of grants; a revision holds only the delta.

downgrade.sql mirrors it: new objects dropped (reverse order), the earlier
definitions included from the frozen files that hold them (a file that
defines other objects too is not included: the object's statements are
written out instead), the tables' TODO blocks, then the ALTER FUNCTION,
COMMENT ON, REVOKE and GRANT statements that take the result back to the
frozen state (a definition included from an earlier revision gets back the
attributes later ALTERs gave it). The tool replays both scripts before it
writes them and, unless a TODO block is left, refuses to write one that
would not build the definitions of its end state.

Expression indexes are built outside the transaction, in
``concurrently.sql`` (``DROP INDEX CONCURRENTLY IF EXISTS`` +
``CREATE INDEX CONCURRENTLY``; ``downgrade_concurrently.sql`` restores the
earlier one), and a function whose body or SET settings changed and that
an index expression calls gets a ``REINDEX INDEX CONCURRENTLY`` there (its
results, so the index's keys, may differ).

Revisions 0001 to 0035 are read as they are: their frozen files named by
sql/ path, ``comments/<path>`` files
of COMMENT ON changes and ``privileges.sql`` run again whole are statements
like any others to the replay (their ``-- dropped:`` lines are comments; the
DROP statements beside them count). An object no statement can drop (a DO
block removed from sql/) is a ``-- forgotten: <object>`` line, which the
replay reads.

Known limit: a view whose columns are removed or reordered cannot be
replaced by CREATE OR REPLACE VIEW; the upgrade then fails in the tests
(tests/migrations/test_offline_sql.py), and the revision needs a hand-written DROP
VIEW of it and its dependents.

A released revision (pinned in migrations/released.sha256) never changes.
The revisions after the last released one are not pinned: a release folds
them into one and pins that (``make release``, tools/release.py, which
plans the fold with :func:`plan` and writes the pins with
:func:`pin_line`).
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "pyapi"))

from findings_ledger.migration_ops import (  # noqa: E402
    STOP_ON_ERROR,
    collapse_whitespace,
    included,
    revision_guard,
    without_header,
)

TODO = "-- TODO(new_revision)"
FORGOTTEN = "-- forgotten: "  # an object no statement drops (a DO block removed from sql/): the state forgets it
COMMENTS = "comments"  # the folder of an earlier revision's COMMENT ON-only changes
MAX_REVISION_ID = 32  # alembic's version_num is varchar(32)
SCRIPTS = {"install.sql", "upgrade.sql", "downgrade.sql", "concurrently.sql", "downgrade_concurrently.sql"}
_MODULE_REV = re.compile(r"""^revision = (["'])(?P<rev>[^"']+)\1""", re.MULTILINE)
_MODULE_DOWN = re.compile(r"""^down_revision = (?:(["'])(?P<down>[^"']+)\1|None)""", re.MULTILINE)
_INDEX = re.compile(r"CREATE\s+(?P<unique>UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?"
                    r"(?P<name>\w+)", re.IGNORECASE)


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


# ---------------------------------------------------------------------------
# Statements, as PostgreSQL's own grammar (libpg_query, through pglast) reads them


@dataclass(frozen=True)
class Statement:
    """One statement of a file: its text (from its first token to its ``;``,
    so the comment lines before it are left out), its parse tree, and the
    file it came from (``NNNN_name/functions/f.sql`` under migrations/versions/,
    a path under sql/, or None for a statement written in a revision's script)."""

    text: str
    node: Any
    source: str | None


@functools.cache
def _parse(text: str) -> tuple[tuple[str, Any], ...]:
    from pglast import parse_sql
    from pglast.parser import ParseError

    try:
        raw = parse_sql(text)
    except ParseError as exc:
        raise RevisionError(f"cannot parse: {exc}") from None
    out = []
    for stmt in raw:
        # pglast gives the locations in characters of ``text`` (libpg_query's
        # byte offsets converted), so a header with non-ASCII text is sliced right
        start = stmt.stmt_location or 0
        body = text[start:start + (stmt.stmt_len or len(text) - start)]
        out.append((without_header(body).strip() + ";", stmt.stmt))
    return tuple(out)


def parse(text: str, source: str | None, where: str = "") -> list[Statement]:
    """The statements of ``text`` (no psql meta-command in it)."""
    try:
        return [Statement(body, node, source) for body, node in _parse(text)]
    except RevisionError as exc:
        raise RevisionError(f"{where or source}: {exc}") from None


def script_statements(path: Path, root: Path, rel_to: Path | None, texts: dict[Path, str] | None = None,
                      _seen: tuple[Path, ...] = ()) -> list[Statement]:
    """The statements a psql script runs, its ``\\ir`` includes expanded (as
    psql resolves them, relative to the including file), each statement with
    the file it came from relative to ``rel_to`` (None: the script's own
    lines). ``texts`` gives files not written yet."""
    texts = texts or {}
    path = Path(posixpath.normpath(path.as_posix()))
    if path in _seen:
        raise RevisionError(f"{path}: includes itself")
    text = texts[path] if path in texts else path.read_text()
    own = None if not _seen else (path.relative_to(rel_to).as_posix() if rel_to else str(path))
    out: list[Statement] = []
    chunk: list[str] = []

    def flush() -> None:
        if "".join(chunk).strip():
            out.extend(parse("".join(chunk), own, str(path)))
        chunk.clear()

    for line in text.splitlines(keepends=True):
        if line.strip() == STOP_ON_ERROR:
            continue  # psql's setting, not a statement
        target = included(line)
        if target is None:
            chunk.append(line)
            continue
        flush()
        out.extend(script_statements(path.parent / target, root, rel_to, texts, (*_seen, path)))
    flush()
    return out


# ---------------------------------------------------------------------------
# Names: an object's identity, whatever file it is in

_TYPE_NAMES = {"int4": "integer", "int8": "bigint", "int2": "smallint", "bool": "boolean", "float8": "double precision",
               "float4": "real", "varchar": "character varying", "bpchar": "character"}


def type_name(node: Any) -> str:
    """A type as a function's identity takes it: no modifiers, ``pg_catalog``
    left out, PostgreSQL's internal names as SQL spells them."""
    names = [n.sval for n in node.names]
    if names[0] == "pg_catalog" and len(names) == 2:
        names = names[1:]
    name = ".".join(names)
    name = _TYPE_NAMES.get(name, name)
    return name + "[]" * len(node.arrayBounds or ())


def _qualified(parts: Any) -> str:
    return ".".join(p.sval for p in parts)


def _relation(range_var: Any) -> str:
    return f"{range_var.schemaname}.{range_var.relname}" if range_var.schemaname else range_var.relname


_IDENTITY_MODES = {"i", "b", "v", "d"}  # IN, INOUT, VARIADIC, default: OUT and TABLE are not part of it


def function_signature(name: str, parameters: Any) -> str:
    """``ledger.f(text, integer)``: the name and the argument types of the
    input arguments, as DROP, ALTER, COMMENT ON and GRANT take them."""
    types = [type_name(p.argType) for p in parameters or () if p.mode.value in _IDENTITY_MODES]
    return f"{name}({', '.join(types)})"


def _with_args(node: Any) -> str:
    """The signature of an ObjectWithArgs (``ledger.f(p_x text)`` as written)."""
    return f"{_qualified(node.objname)}({', '.join(type_name(t) for t in node.objargs or ())})"


def _deparse(node: Any) -> str:
    from pglast.stream import RawStream

    return RawStream()(node)


# ---------------------------------------------------------------------------
# Function attributes: what ALTER FUNCTION changes without the body

_ATTRIBUTES = ("volatility", "security", "parallel", "strict", "leakproof", "cost", "rows")
_ATTRIBUTE_WORDS = {
    "volatility": lambda v: v.upper(),
    "security": lambda v: "SECURITY DEFINER" if v else "SECURITY INVOKER",
    "parallel": lambda v: f"PARALLEL {v.upper()}",
    "strict": lambda v: "STRICT" if v else "CALLED ON NULL INPUT",
    "leakproof": lambda v: "LEAKPROOF" if v else "NOT LEAKPROOF",
    "cost": lambda v: f"COST {v:g}",
    "rows": lambda v: f"ROWS {v:g}",
}


def _value(node: Any) -> Any:
    for attr in ("sval", "boolval", "ival", "fval"):
        if hasattr(node, attr):
            value = getattr(node, attr)
            return float(value) if attr == "fval" else value
    raise RevisionError(f"unexpected option value {node}")


def _setting(node: Any) -> str:
    """The value of ``SET name = value`` as it is written back (identifiers
    bare, other strings quoted, numbers as they are)."""
    out = []
    for arg in node.args or ():
        value = arg.val
        if hasattr(value, "sval"):
            text = value.sval
            out.append(text if re.fullmatch(r"[a-z_][a-z0-9_$]*", text) else "'" + text.replace("'", "''") + "'")
        else:
            out.append(str(_value(value)))
    return ", ".join(out)


def _apply_actions(attrs: dict[str, Any], actions: Any) -> None:
    for option in actions or ():
        name = option.defname
        if name == "set":
            var = option.arg
            settings = dict(attrs["set"])
            kind = var.kind.name
            if kind == "VAR_SET_VALUE":
                settings[var.name] = _setting(var)
            elif kind == "VAR_RESET":
                settings.pop(var.name, None)
            elif kind == "VAR_RESET_ALL":
                settings = {}
            else:
                raise RevisionError(f"SET {var.name}: only SET name = value and RESET are supported")
            attrs["set"] = tuple(settings.items())
        elif name in _ATTRIBUTES:
            value = _value(option.arg)
            attrs[name] = float(value) if name in ("cost", "rows") else value


def _function_attributes(node: Any) -> tuple[dict[str, Any], str, bool]:
    """A CREATE FUNCTION's attributes (every one, defaults filled in), its
    language and whether it returns a set."""
    options = {o.defname: o for o in node.options or ()}
    language = str(_value(options["language"].arg)).lower() if "language" in options else "sql"
    returns_set = bool(node.returnType and node.returnType.setof) or any(
        p.mode.value == "t" for p in node.parameters or ())
    attrs: dict[str, Any] = {"volatility": "volatile", "security": False, "parallel": "unsafe", "strict": False,
                             "leakproof": False, "cost": 1.0 if language in ("c", "internal") else 100.0,
                             "rows": 1000.0 if returns_set else 0.0, "set": ()}
    _apply_actions(attrs, node.options)
    return attrs, language, returns_set


def attribute_actions(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The ALTER FUNCTION actions that take attributes ``old`` to ``new``."""
    out = [_ATTRIBUTE_WORDS[name](new[name]) for name in _ATTRIBUTES if old[name] != new[name]]
    before, after = dict(old["set"]), dict(new["set"])
    for name in sorted(set(before) | set(after)):
        if name not in after:
            out.append(f"RESET {name}")
        elif before.get(name) != after[name]:
            out.append(f"SET {name} = {after[name]}")
    return out


# ---------------------------------------------------------------------------
# The state a replay of statements builds: objects, comments, grants


@dataclass
class Obj:
    """One catalog object as its statements define it."""

    key: str  # "function ledger.f(text)", "trigger _100_x ON ledger.t", "table ledger.t", ...
    kind: str
    name: str  # the file name a frozen definition gets (without .sql)
    code: Any  # what is compared: the definition without its attributes (functions)
    texts: list[str]  # the statements that define it, as written
    source: str | None  # the file they came from
    parent: str | None = None  # the table of a trigger, index or policy
    attrs: dict[str, Any] | None = None  # functions: the attributes now
    shape: Any = None  # functions: arguments and result (a change needs DROP FUNCTION)
    signature: str = ""  # functions: ledger.f(text)
    references: str = ""  # text searched for calls of changed functions (indexes)


@dataclass
class State:
    objects: dict[str, Obj] = field(default_factory=dict)
    comments: dict[str, tuple[str | None, str, str]] = field(default_factory=dict)  # target -> (owner, value, text)
    grants: set[tuple[str, str, str, str]] = field(default_factory=set)  # (object, grantee, privilege, column)
    # every definition a frozen file gave an object: key -> [(code, source)] (for reverts)
    history: dict[str, list[tuple[Any, str]]] = field(default_factory=dict)
    # the objects each file defines
    defines: dict[str, list[str]] = field(default_factory=dict)

    def copy(self) -> State:
        """A state to replay a revision's scripts on (it records no history)."""
        import copy

        return State({k: copy.copy(v) for k, v in self.objects.items()}, dict(self.comments), set(self.grants))

    # -- objects

    def define(self, obj: Obj, statement: Statement, inline: bool) -> None:
        existing = self.objects.get(obj.key)
        if existing is None and obj.kind == "function":
            self.grants.add((f"FUNCTION {obj.signature}", "PUBLIC", "EXECUTE", ""))
        self.objects[obj.key] = obj
        if statement.source and not inline:
            self.history.setdefault(obj.key, []).append((obj.code, statement.source))
            keys = self.defines.setdefault(statement.source, [])
            if obj.key not in keys:
                keys.append(obj.key)

    def drop(self, key: str) -> None:
        obj = self.objects.pop(key, None)
        if obj is None:
            return
        for child in [k for k, o in self.objects.items() if o.parent == key]:
            self.drop(child)
        self.comments = {t: c for t, c in self.comments.items() if c[0] != key}
        grant_object = _grant_object(obj)
        self.grants = {g for g in self.grants if g[0] != grant_object}

    def relation(self, name: str) -> str:
        """The key of relation ``name``: a view if there is one of that name, else a table."""
        return f"view {name}" if f"view {name}" in self.objects else f"table {name}"

    # -- the replay

    def apply(self, statement: Statement, inline: bool = False) -> None:
        """Apply one statement. ``inline``: written in a revision's script
        rather than in an object file, where only what changes a modelled
        object counts (data changes and hand-written ALTER TABLEs do not: a
        table's state is its frozen file)."""
        node = statement.node
        kind = type(node).__name__
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(statement, node, inline)
        elif not inline:
            relation = getattr(node, "relation", None)
            table = self.objects.get(f"table {_relation(relation)}") if relation is not None else None
            if table is not None and table.source == statement.source:
                table.texts = [*table.texts, statement.text]  # seed rows, ALTER TABLE: part of the table's definition
                table.code = (*table.code, _deparse(node))
            else:
                digest = hashlib.sha256(_deparse(node).encode()).hexdigest()[:12]
                self.define(Obj(f"statement {digest}", "statement", f"statement_{digest}", _deparse(node),
                                [statement.text], statement.source), statement, inline)

    def _on_CreateFunctionStmt(self, st: Statement, node: Any, inline: bool) -> None:
        name = _qualified(node.funcname)
        attrs, language, _ = _function_attributes(node)
        options = {o.defname: o for o in node.options or ()}
        body = tuple(collapse_whitespace(_value(s)) for s in options["as"].arg) if "as" in options else (
            collapse_whitespace(_deparse(node.sql_body)) if node.sql_body else ())
        params = tuple((p.mode.value, p.name, type_name(p.argType), _deparse(p.defexpr) if p.defexpr else None)
                       for p in node.parameters or ())
        returns = _deparse(node.returnType) if node.returnType else ""
        others = tuple(sorted((n, _deparse(o)) for n, o in options.items()
                              if n not in (*_ATTRIBUTES, "set", "as", "language")))
        shape = (params, returns)
        signature = function_signature(name, node.parameters)
        self.define(Obj(f"function {signature}", "function", name.split(".")[-1], (shape, language, body, others),
                        [st.text], st.source, attrs=attrs, shape=shape, signature=signature), st, inline)

    def _on_AlterFunctionStmt(self, st: Statement, node: Any, inline: bool) -> None:
        obj = self.objects.get(f"function {_with_args(node.func)}")
        if obj is None:
            raise RevisionError(f"{st.source or 'a revision script'}: ALTER FUNCTION of an unknown function: {st.text}")
        obj.attrs = dict(obj.attrs or {})
        _apply_actions(obj.attrs, node.actions)

    def _on_CreateTrigStmt(self, st: Statement, node: Any, inline: bool) -> None:
        table = _relation(node.relation)
        self.define(Obj(f"trigger {node.trigname} ON {table}", "trigger", f"{node.relation.relname}__{node.trigname}",
                        _deparse(node), [st.text], st.source, parent=f"table {table}"), st, inline)

    def _on_ViewStmt(self, st: Statement, node: Any, inline: bool) -> None:
        name = _relation(node.view)
        node.replace = True
        self.define(Obj(f"view {name}", "view", node.view.relname, _deparse(node), [st.text], st.source), st, inline)

    def _on_CreateStmt(self, st: Statement, node: Any, inline: bool) -> None:
        name = _relation(node.relation)
        if f"table {name}" in self.objects:  # a new definition: what its dropped columns had goes with them
            columns = {e.colname for e in node.tableElts or () if hasattr(e, "colname")}
            self.comments = {t: c for t, c in self.comments.items()
                             if not (t.startswith(f"COLUMN {name}.") and t.rsplit(".", 1)[1] not in columns)}
            self.grants = {g for g in self.grants if not (g[0] == f"TABLE {name}" and g[3] and g[3] not in columns)}
        self.define(Obj(f"table {name}", "table", node.relation.relname, (_deparse(node),), [st.text], st.source),
                    st, inline)

    def _on_IndexStmt(self, st: Statement, node: Any, inline: bool) -> None:
        table = _relation(node.relation)
        schema = f"{node.relation.schemaname}." if node.relation.schemaname else ""
        key = f"index {schema}{node.idxname}"
        if node.if_not_exists and key in self.objects:
            return
        node.concurrent = False
        node.if_not_exists = False
        self.define(Obj(key, "index", node.idxname, _deparse(node), [st.text], st.source, parent=f"table {table}",
                        references=st.text), st, inline)

    def _on_CreatePolicyStmt(self, st: Statement, node: Any, inline: bool) -> None:
        table = _relation(node.table)
        self.define(Obj(f"policy {node.policy_name} ON {table}", "policy", f"{node.table.relname}__{node.policy_name}",
                        _deparse(node), [st.text], st.source, parent=f"table {table}"), st, inline)

    def _on_CreateSchemaStmt(self, st: Statement, node: Any, inline: bool) -> None:
        node.if_not_exists = True
        self.define(Obj(f"schema {node.schemaname}", "schema", f"schema_{node.schemaname}", _deparse(node),
                        [st.text], st.source), st, inline)

    def _on_DoStmt(self, st: Statement, node: Any, inline: bool) -> None:
        if inline:
            return  # a revision's own data step
        tag = re.match(r"DO\s+\$(\w*)\$", st.text, re.IGNORECASE)
        code = collapse_whitespace(next(_value(a.arg) for a in node.args if a.defname == "as"))
        name = tag[1] if tag and tag[1] else hashlib.sha256(code.encode()).hexdigest()[:12]
        self.define(Obj(f"do {name}", "do", f"do_{name}", code, [st.text], st.source), st, inline)

    def _on_DropStmt(self, st: Statement, node: Any, inline: bool) -> None:
        kind = node.removeType.name[len("OBJECT_"):].lower()
        for target in node.objects:
            if kind in ("function", "procedure"):
                self.drop(f"function {_with_args(target)}")
            elif kind in ("trigger", "policy"):
                names = [p.sval for p in target]
                self.drop(f"{kind} {names[-1]} ON {'.'.join(names[:-1])}")
            elif kind in ("table", "view", "index"):
                self.drop(f"{kind} {_qualified(target)}")
            elif kind == "schema":
                self.drop(f"schema {target.sval}")

    def _on_CommentStmt(self, st: Statement, node: Any, inline: bool) -> None:
        kind = node.objtype.name[len("OBJECT_"):]
        obj = node.object
        if kind in ("FUNCTION", "PROCEDURE"):
            target = _with_args(obj)
            owner: str | None = f"function {target}"
        elif kind in ("TRIGGER", "POLICY"):
            names = [p.sval for p in obj]
            target = f"{names[-1]} ON {'.'.join(names[:-1])}"
            owner = f"{kind.lower()} {target}"
        elif kind == "COLUMN":
            names = [p.sval for p in obj]
            target = ".".join(names)
            owner = self.relation(".".join(names[:-1]))
        elif kind in ("TABLE", "VIEW", "INDEX"):
            target = _qualified(obj)
            owner = f"{kind.lower()} {target}"
        else:
            target = obj.sval if hasattr(obj, "sval") else _qualified(obj)
            owner = f"{kind.lower()} {target}" if kind == "SCHEMA" else None
        full = f"{kind} {target}"
        if node.comment is None:
            self.comments.pop(full, None)
        else:
            self.comments[full] = (owner, node.comment, st.text)

    def _on_GrantStmt(self, st: Statement, node: Any, inline: bool) -> None:
        kind = node.objtype.name[len("OBJECT_"):]
        if node.targtype.name == "ACL_TARGET_ALL_IN_SCHEMA":
            schemas = [s.sval for s in node.objects]
            prefix = {"TABLE": "TABLE ", "SEQUENCE": "SEQUENCE ", "FUNCTION": "FUNCTION "}[kind]
            if node.is_grant:
                objects = [_grant_object(o) for o in self.objects.values()
                           if _grant_object(o).startswith(prefix) and any(
                               _grant_object(o).startswith(f"{prefix}{s}.") for s in schemas)]
            else:
                objects = sorted({g[0] for g in self.grants
                                  if any(g[0].startswith(f"{prefix}{s}.") for s in schemas)})
        elif kind in ("FUNCTION", "PROCEDURE"):
            objects = [f"FUNCTION {_with_args(o)}" for o in node.objects]
        elif kind == "SCHEMA":
            objects = [f"SCHEMA {o.sval}" for o in node.objects]
        else:
            objects = [f"{kind} {_relation(o)}" for o in node.objects]
        grantees = ["PUBLIC" if g.roletype.name == "ROLESPEC_PUBLIC" else g.rolename for g in node.grantees]
        privileges = [(p.priv_name.upper(), [c.sval for c in p.cols or ()]) for p in node.privileges or ()]
        for target in objects:
            for grantee in grantees:
                if node.is_grant:
                    wanted = privileges or [(p, []) for p in _ALL[target.split(" ", 1)[0]]]
                    for privilege, columns in wanted:
                        for column in columns or [""]:
                            self.grants.add((target, grantee, privilege, column))
                elif not privileges:
                    self.grants = {g for g in self.grants if g[:2] != (target, grantee)}
                else:
                    for privilege, columns in privileges:
                        self.grants = {g for g in self.grants if not (
                            g[:3] == (target, grantee, privilege) and (not columns or g[3] in columns))}


_ALL = {"TABLE": ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"),
        "FUNCTION": ("EXECUTE",), "SCHEMA": ("USAGE", "CREATE"), "SEQUENCE": ("USAGE", "SELECT", "UPDATE")}


def _grant_object(obj: Obj) -> str:
    """How GRANT names ``obj`` (``FUNCTION ledger.f(text)``, ``TABLE ledger.t``)."""
    if obj.kind == "function":
        return f"FUNCTION {obj.signature}"
    if obj.kind in ("table", "view"):
        return f"TABLE {obj.key.split(' ', 1)[1]}"
    if obj.kind == "schema":
        return f"SCHEMA {obj.key.split(' ', 1)[1]}"
    return f"{obj.kind.upper()} {obj.key}"


def grant_statements(old: set[tuple[str, str, str, str]], new: set[tuple[str, str, str, str]]) -> list[str]:
    """The REVOKE and GRANT statements that take grants ``old`` to ``new``:
    exactly the privileges that differ (revokes first: revoking a table
    privilege revokes that privilege's column grants too, given back after)."""
    revoke = old - new
    after = {g for g in old if not any(r[:3] == g[:3] and r[3] == "" for r in revoke)} - revoke
    grant = new - after

    def statements(rows: set[tuple[str, str, str, str]], verb: str, word: str) -> list[str]:
        by_privilege: dict[tuple[str, str, str], list[str]] = {}
        for target, grantee, privilege, column in rows:
            by_privilege.setdefault((target, privilege, column), []).append(grantee)
        merged: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}
        for (target, privilege, column), grantees in by_privilege.items():
            merged.setdefault((target, privilege, tuple(sorted(grantees))), []).append(column)
        out = []
        for (target, privilege, roles), columns in sorted(merged.items()):
            cols = sorted(c for c in columns if c)
            what = f"{privilege} ({', '.join(cols)})" if cols else privilege
            out.append(f"{verb} {what} ON {target} {word} {', '.join(roles)};")
        return out

    return statements(revoke, "REVOKE", "FROM") + statements(grant, "GRANT", "TO")


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def comment_statements(old: State, new: State) -> list[tuple[str, str]]:
    """(target, COMMENT ON statement) for each comment that differs between
    the two states: the statement as ``new``'s file wrote it, or ``IS NULL``."""
    out = []
    for target in sorted(set(old.comments) | set(new.comments)):
        before, after = old.comments.get(target), new.comments.get(target)
        if (before and before[1]) == (after and after[1]):
            continue
        out.append((target, after[2] if after else f"COMMENT ON {target} IS NULL;"))
    return out


# ---------------------------------------------------------------------------
# The two states compared: sql/ and the frozen revisions


def sql_state(sql_dir: Path) -> State:
    """What ``sql/install.sql`` builds, object by object."""
    state = State()
    for statement in script_statements(sql_dir / "install.sql", sql_dir, sql_dir):
        state.apply(statement)
    return state


def frozen_state(revs: list[Revision]) -> State:
    """What the revisions build, object by object: each revision's
    upgrade.sql (its includes expanded) and concurrently.sql replayed in
    order, then the frozen files it holds but does not include (a table
    whose ALTER statements were written by hand, an index built in
    concurrently.sql): those are the state of their objects."""
    state = State()
    for rev in revs:
        versions = rev.directory.parent
        seen: set[str] = set()
        for name in ("upgrade.sql", "concurrently.sql"):
            path = rev.directory / name
            if not path.exists():
                continue
            for statement in script_statements(path, versions, versions):
                if statement.source:
                    seen.add(statement.source)
                state.apply(statement, inline=statement.source is None)
        for rel, path in object_files(rev.directory).items():
            source = f"{rev.directory.name}/{rel}"
            if source not in seen:
                for statement in parse(path.read_text(), source):
                    state.apply(statement)
        text = (rev.directory / "upgrade.sql").read_text() if (rev.directory / "upgrade.sql").exists() else ""
        for line in text.splitlines():
            if line.startswith(FORGOTTEN):
                state.drop(line[len(FORGOTTEN):].strip())
    return state


def differences(old: State, new: State) -> list[str]:
    """What differs between two states, one line each (empty: the same)."""
    out = []
    for key in new.objects:
        if key not in old.objects:
            out.append(f"new: {key}")
        elif old.objects[key].code != new.objects[key].code:
            out.append(f"changed: {key}")
        elif old.objects[key].attrs != new.objects[key].attrs:
            out.append(f"attributes changed: {key}")
    out += [f"removed: {key}" for key in old.objects if key not in new.objects]
    out += [f"COMMENT ON changed: {target}" for target, _ in comment_statements(old, new)]
    out += [f"grant changed: {statement}" for statement in grant_statements(old.grants, new.grants)]
    return out


# ---------------------------------------------------------------------------
# The revision

# What a removal drops first (dependents), and what a downgrade restores first.
_DROP_RANK = {"trigger": 0, "policy": 0, "index": 1, "view": 2, "function": 3, "table": 4}
_RESTORE_RANK = {"schema": 0, "do": 0, "table": 1, "function": 2, "view": 2, "statement": 2, "index": 3,
                 "trigger": 4, "policy": 5}
_FOLDER = {"function": "functions", "view": "views", "table": "tables", "index": "indexes", "trigger": "triggers",
           "policy": "policies", "schema": "other", "do": "other", "statement": "other"}


def _todo(what: str, why: str, old: str, new: str) -> str:
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), f"frozen: {what}", f"sql/: {what}", lineterm="")
    body = "\n".join(f"--   {line}" for line in diff)
    return f"{TODO}: {what}: {why}\n{body}\n"


def index_statements(texts: list[str]) -> list[str]:
    """The CREATE INDEX statements made CONCURRENTLY, each preceded by DROP
    INDEX CONCURRENTLY IF EXISTS (a failed build leaves an INVALID index
    behind; rerunnable)."""
    out = []
    for statement in texts:
        match = _INDEX.search(statement)
        if not match:
            continue
        create = re.sub(r"^CREATE\s+(UNIQUE\s+)?INDEX\s+(?!CONCURRENTLY)", lambda m: f"CREATE {m[1] or ''}INDEX "
                        "CONCURRENTLY ", statement, count=1, flags=re.IGNORECASE)
        out += [f"DROP INDEX CONCURRENTLY IF EXISTS ledger.{match['name']};", create]
    return out


@dataclass
class Plan:
    upgrade: list[str] = field(default_factory=list)
    downgrade: list[str] = field(default_factory=list)
    concurrently: list[str] = field(default_factory=list)
    downgrade_concurrently: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # frozen file (path in the revision) -> text
    reverts: dict[str, str] = field(default_factory=dict)  # object key -> earlier frozen file it goes back to
    changes: list[str] = field(default_factory=list)  # what differs, one line each
    alters: int = 0  # ALTER FUNCTION statements
    comments: int = 0  # COMMENT ON statements
    grants: int = 0  # GRANT and REVOKE statements
    todos: int = 0

    @property
    def empty(self) -> bool:
        return not self.changes


def plan(sql_dir: Path, versions: Path) -> Plan:
    """What the next revision must hold to bring the frozen state to ``sql/``."""
    frozen = frozen_state(revisions(versions))
    target = sql_state(sql_dir)
    result = Plan(changes=differences(frozen, target))
    if result.empty:
        return result
    order = list(target.objects)
    frozen_order = list(frozen.objects)
    removed = [k for k in frozen.objects if k not in target.objects]
    added = [k for k in target.objects if k not in frozen.objects]
    changed = [k for k in target.objects if k in frozen.objects and frozen.objects[k].code != target.objects[k].code]
    new_tables = {k for k in added if target.objects[k].kind == "table"}
    names: set[str] = set()

    def file_name(obj: Obj) -> str:
        base = f"{_FOLDER[obj.kind]}/{obj.name}"
        rel, n = f"{base}.sql", 1
        while rel in names:
            n += 1
            rel = f"{base}__{n}.sql"
        names.add(rel)
        return rel

    def own_comments(state: State, keys: set[str]) -> list[str]:
        return [text for target_, (owner, _, text) in state.comments.items() if owner in keys]

    def freeze(obj: Obj, with_children: bool = False) -> str:
        """Write ``obj``'s definition (and its comments) as a frozen file; its path."""
        texts = list(obj.texts)
        keys = {obj.key}
        if obj.kind == "trigger":
            table = obj.key.split(" ON ", 1)[1]
            texts.insert(0, f"DROP TRIGGER IF EXISTS {obj.key.split(' ')[1]} ON {table};")
        if with_children:
            for child in order:  # its indexes: built in the transaction, the table being empty
                if target.objects[child].parent == obj.key and child in added and target.objects[child].kind == "index":
                    texts.extend(target.objects[child].texts)
                    keys.add(child)
        rel = file_name(obj)
        result.files[rel] = "\n\n".join([*texts, *own_comments(target, keys)]) + "\n"
        return rel

    def clean(source: str, key: str) -> bool:
        """Whether including ``source`` defines ``key`` and nothing else."""
        return frozen.defines.get(source) == [key]

    def revert_to(key: str) -> str | None:
        """The earliest frozen file that defines ``key`` as sql/ does now, alone."""
        code = target.objects[key].code
        return next((source for c, source in frozen.history.get(key, ()) if c == code and clean(source, key)), None)

    def restore(key: str) -> list[str]:
        """What gives back ``key``'s frozen definition: its frozen file, or its
        statements when that file holds other objects too."""
        obj = frozen.objects[key]
        if obj.source and "/" in obj.source and clean(obj.source, key):
            return [f"\\ir ../{obj.source}"]
        texts = list(obj.texts)
        if obj.kind == "trigger":
            texts.insert(0, f"DROP TRIGGER IF EXISTS {key.split(' ')[1]} ON {key.split(' ON ', 1)[1]};")
        return texts

    def drop_statement(obj: Obj) -> str | None:
        if obj.kind == "function":
            return f"DROP FUNCTION {obj.signature};"
        if obj.kind in ("trigger", "policy", "view"):
            return f"DROP {obj.kind.upper()} {obj.key.split(' ', 1)[1]};"
        return None

    new_drops: list[str] = []  # downgrade: what the new objects need dropped, in sql/ order
    table_downs: list[str] = []  # downgrade: new or changed tables, after the earlier definitions are back
    restores: list[str] = []  # downgrade: objects whose frozen definition comes back
    reindex: set[str] = set()  # functions whose body changed: expression indexes over them are rebuilt

    # 1. removed objects, dependents first
    for key in sorted(removed, key=lambda k: (_DROP_RANK.get(frozen.objects[k].kind, 9), -frozen_order.index(k))):
        obj = frozen.objects[key]
        if obj.parent in removed:
            restores.append(key)  # dropped with its table
            continue
        statement = drop_statement(obj)
        if obj.kind == "index":
            result.concurrently.append(f"DROP INDEX CONCURRENTLY IF EXISTS {key.split(' ', 1)[1]};")
            result.downgrade_concurrently.extend(index_statements(obj.texts))
            continue
        if obj.kind == "table":
            result.todos += 1
            result.upgrade.append(_todo(key, "removed; write what drops it", "\n".join(obj.texts), ""))
        elif statement:
            result.upgrade.append(statement)
        else:
            result.upgrade.append(f"{FORGOTTEN}{key}")
        restores.append(key)

    # 2. functions whose arguments or result changed: CREATE OR REPLACE cannot change those
    for key in changed:
        obj, was = target.objects[key], frozen.objects[key]
        if obj.kind == "function" and obj.shape != was.shape:
            result.upgrade.append(f"DROP FUNCTION {was.signature};")
            new_drops.append(f"DROP FUNCTION {obj.signature};")
        elif obj.kind == "policy":
            result.upgrade.append(drop_statement(was) or "")
            new_drops.append(drop_statement(obj) or "")

    # 3. new and changed definitions, in sql/ order
    for key in order:
        if key not in added and key not in changed:
            continue
        obj = target.objects[key]
        if obj.kind == "index" and obj.parent in new_tables:
            continue  # frozen with its table
        if obj.kind == "function" and key in changed:
            reindex.add(obj.signature.split("(")[0])
        if obj.kind == "index":
            rel = freeze(obj)
            result.concurrently.extend(index_statements(obj.texts))
            result.upgrade.append(f"-- {rel}: built CONCURRENTLY, see concurrently.sql")
            if key in changed:
                result.downgrade_concurrently.extend(index_statements(frozen.objects[key].texts))
            else:
                result.downgrade_concurrently.append(f"DROP INDEX CONCURRENTLY IF EXISTS {key.split(' ', 1)[1]};")
            continue
        if obj.kind == "table":
            if key in added:
                result.upgrade.append(f"\\ir {freeze(obj, with_children=True)}")
                table_downs.append(f"DROP TABLE {key.split(' ', 1)[1]};")
            else:
                freeze(obj)
                old, new = "\n\n".join(frozen.objects[key].texts), "\n\n".join(obj.texts)
                result.todos += 2
                result.upgrade.append(_todo(key, "changed; write the ALTER statements", old, new))
                table_downs.append(_todo(key, "changed; write the ALTER statements that undo it", new, old))
            continue
        earlier = revert_to(key) if key in changed else None
        if earlier:
            result.reverts[key] = earlier
            result.upgrade.append(f"\\ir ../{earlier}")
        else:
            result.upgrade.append(f"\\ir {freeze(obj)}")
        if key in changed:
            restores.append(key)
        elif obj.kind not in ("do", "schema", "statement"):
            new_drops.append(drop_statement(obj) or "")

    # expression indexes over a function whose body or settings changed: their keys may change
    reindex |= {target.objects[k].signature.split("(")[0] for k in order
                if k in frozen.objects and target.objects[k].kind == "function"
                and (target.objects[k].attrs or {}).get("set") != (frozen.objects[k].attrs or {}).get("set")}
    for key in order:
        obj = target.objects[key]
        if obj.kind == "index" and key not in added and key not in changed:
            for function in sorted(reindex):
                if re.search(rf"\b{re.escape(function)}\s*\(", strip_comments(obj.references)):
                    statement = f"REINDEX INDEX CONCURRENTLY {key.split(' ', 1)[1]};"
                    result.concurrently.append(statement)
                    result.downgrade_concurrently.append(statement)

    # 4. what the definitions left to do: attributes, comments, grants
    def finish(start: State, steps: list[str], concurrent: list[str], goal: State, what: str,
               dropped: tuple[str, ...] = ()) -> list[str]:
        """Replay ``steps`` and ``concurrent`` on ``start`` and return the ALTER
        FUNCTION, COMMENT ON, REVOKE and GRANT statements that take the result
        to ``goal`` (a comment on an index ``concurrent`` builds goes there).
        ``dropped``: tables a TODO block drops."""
        state = start.copy()
        for key in dropped:
            state.drop(key)
        directory = versions / "_next"
        texts = {directory / rel: text for rel, text in result.files.items()}
        texts[directory / what] = "\n".join(s for s in steps if not s.startswith(TODO)) + "\n"
        for statement in script_statements(directory / what, versions, versions, texts):
            state.apply(statement, inline=statement.source is None)
        for statement in parse("\n".join(concurrent), None, f"{what}: CONCURRENTLY"):
            state.apply(statement, inline=True)
        out = []
        for key in (goal if what == "upgrade.sql" else state).objects:  # in sql/'s order both ways
            obj, now = goal.objects.get(key), state.objects.get(key)
            if obj is None:
                continue
            if obj.kind == "function" and now is not None and now.attrs != obj.attrs:
                actions = attribute_actions(now.attrs or {}, obj.attrs or {})
                out.append(f"ALTER FUNCTION {obj.signature} {' '.join(actions)};")
        built = {f"ledger.{m['name']}" for s in concurrent if (m := _INDEX.search(s))}
        comments = comment_statements(state, goal)
        out += [text for target_, text in comments if not (target_.startswith("INDEX ") and target_[6:] in built)]
        concurrent.extend(text for target_, text in comments if target_.startswith("INDEX ") and target_[6:] in built)
        grants = grant_statements(state.grants, goal.grants)
        if not result.todos:  # what the revision builds is what it says (tables aside: their TODO blocks)
            def code(s: State, k: str) -> Any:
                return s.objects[k].code if k in s.objects else None

            wrong = [k for k in set(goal.objects) | set(state.objects) if code(goal, k) != code(state, k)
                     and not (k not in goal.objects and state.objects[k].kind in ("do", "statement", "schema"))]
            if wrong:
                raise RevisionError(f"{what} would not build {', '.join(sorted(wrong))} as it should: "
                                    "write this revision by hand")
        if what == "upgrade.sql":
            result.alters = sum(s.startswith("ALTER FUNCTION") for s in out)
            result.comments, result.grants = len(comments), len(grants)
        return out + grants

    removed_tables = tuple(k for k in removed if frozen.objects[k].kind == "table")
    result.upgrade.extend(finish(frozen, result.upgrade, result.concurrently, target, "upgrade.sql", removed_tables))

    # downgrade: new objects dropped in reverse sql/ order, then the earlier
    # definitions (triggers that name a new column in UPDATE OF go back before
    # the column goes), then the tables' own changes, then what is left
    result.downgrade.extend(d for d in reversed(new_drops) if d)
    for key in sorted(dict.fromkeys(restores), key=lambda k: (_RESTORE_RANK.get(frozen.objects[k].kind, 9),
                                                                frozen_order.index(k))):
        if frozen.objects[key].kind == "index":
            continue
        if frozen.objects[key].kind == "table" and key in target.objects:
            continue  # its TODO block
        result.downgrade.extend(restore(key))
    result.downgrade.extend(reversed(table_downs))
    result.downgrade.extend(finish(target, result.downgrade, result.downgrade_concurrently, frozen, "downgrade.sql"))
    return result


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
                         *(f"* {key} (back to {source})" for key, source in result.reverts.items())]) or "none"
    deltas = (f"{result.alters} ALTER FUNCTION, {result.comments} COMMENT ON, {result.grants} GRANT/REVOKE "
              "statement(s) in upgrade.sql")
    command.revision(cfg, message=f"{message}\n\nFrozen files:\n\n{summary}\n\n{deltas}.", rev_id=rev_id)
    directory = versions / rev_id
    directory.mkdir(exist_ok=True)
    for rel, text in result.files.items():
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text(text)
    down = revs[-1].rev if revs else None
    guard = [revision_guard(rev_id, down)] if down else []
    (directory / "upgrade.sql").write_text(script(f"-- {rev_id}: {message}\n", [*guard, *result.upgrade]))
    (directory / "downgrade.sql").write_text(script(f"-- {rev_id} undone: the frozen state before it\n",
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("message", nargs="?", help="what the revision does (its name and docstring)")
    parser.add_argument("--check", action="store_true", help="exit 1 when sql/ differs from the frozen state")
    parser.add_argument("--sql-dir", type=Path, default=ROOT / "sql")
    parser.add_argument("--migrations", type=Path, default=ROOT / "migrations")
    args = parser.parse_args(argv)
    if args.check:
        result = plan(args.sql_dir, args.migrations / "versions")
        for change in result.changes:
            print(f"since the last revision: {change}")
        if not result.empty:
            print("write a revision: make revision M='what it does'")
        return 0 if result.empty else 1
    if not args.message:
        parser.error("say what the revision does: new_revision.py 'observed_at on findings'")
    module, result = write_revision(args.message, args.sql_dir, args.migrations)
    shown = module.relative_to(ROOT) if ROOT in module.parents else module
    print(f"wrote {shown} and its directory: {len(result.files)} frozen file(s), {len(result.reverts)} revert(s), "
          f"{result.alters} ALTER FUNCTION, {result.comments} COMMENT ON, {result.grants} GRANT/REVOKE")
    if result.todos:
        print(f"{result.todos} {TODO} block(s) to write by hand (tables): see upgrade.sql / downgrade.sql")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
