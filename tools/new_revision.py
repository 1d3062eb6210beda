"""Write the next revision from what changed in sql/ since the last frozen one.

    .venv/bin/python tools/new_revision.py "observed_at on findings"   # or: make revision M="..."
    .venv/bin/python tools/new_revision.py --check      # exit 1 when sql/ has changes no revision holds
    .venv/bin/python tools/new_revision.py --release    # pin every revision in migrations/released.sha256

The frozen state of an object is its file in the newest revision directory
that holds it (``migrations/versions/NNNN_name/<same path as in sql/>``), so a
revision holds only the files that changed: a one-function change is a
revision of about that function's size. ``upgrade.sql`` includes the new
files in ``sql/install.sql``'s order; ``downgrade.sql`` includes the earlier
revisions' frozen files (``\\ir ../0001_baseline/functions/x.sql``), never a
second copy.

What is generated, by kind (the directory of the file in sql/):

* functions/: ``\\ir`` (CREATE OR REPLACE); when the argument types change,
  the old signature is dropped first (and the new one on downgrade);
* views/, triggers/ (DROP IF EXISTS + CREATE), roles.sql, schema.sql,
  privileges.sql: ``\\ir`` (re-runnable by design);
* indexes/: DROP INDEX IF EXISTS, then ``\\ir``;
* new objects of any kind: ``\\ir`` on upgrade, DROP on downgrade;
* removed objects: DROP on upgrade (recorded as ``-- dropped: <path>``),
  ``\\ir`` of the earlier file on downgrade;
* a changed table, a changed policies.sql, a removed table: written as
  ``-- TODO(new_revision)`` blocks holding the diff, for ALTER statements
  written by hand (a table's rows cannot be re-created by its CREATE
  TABLE). tests/test_revisions.py fails while a TODO block is left, and the
  tool exits 2 to say so.

A released revision (listed in migrations/released.sha256) never changes;
tests/test_revisions.py checks every pinned hash.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TODO = "-- TODO(new_revision)"
DROPPED = "-- dropped: "
_INCLUDE = re.compile(r"^\\ir\s+(\S+)\s*$", re.MULTILINE)
_MODULE_REV = re.compile(r"""^revision = (["'])(?P<rev>[^"']+)\1""", re.MULTILINE)
_MODULE_DOWN = re.compile(r"""^down_revision = (?:(["'])(?P<down>[^"']+)\1|None)""", re.MULTILINE)
_FUNCTION = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?P<name>ledger\.\w+)\s*\(", re.IGNORECASE)
_VIEW = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(?P<name>ledger\.\w+)", re.IGNORECASE)
_TRIGGER = re.compile(r"CREATE\s+TRIGGER\s+(?P<name>\w+)\s.*?\sON\s+(?P<table>ledger\.\w+)", re.IGNORECASE | re.DOTALL)
_INDEX = re.compile(r"CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>\w+)",
                    re.IGNORECASE)
_TABLE = re.compile(r"CREATE\s+TABLE\s+(?P<name>ledger\.\w+)", re.IGNORECASE)
# Files whose text can simply be run again.
_RERUNNABLE = {"roles.sql", "schema.sql", "privileges.sql"}


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
    """Every object file below ``directory`` by its path relative to it
    (``install.sql``, ``upgrade.sql`` and ``downgrade.sql`` are scripts, not objects)."""
    skip = {"install.sql", "upgrade.sql", "downgrade.sql", "concurrently.sql", "downgrade_concurrently.sql"}
    return {p.relative_to(directory).as_posix(): p for p in sorted(directory.rglob("*.sql"))
            if p.relative_to(directory).as_posix() not in skip}


def frozen_state(revs: list[Revision]) -> dict[str, tuple[Revision, Path]]:
    """Each object's newest frozen file, with the revision that holds it."""
    state: dict[str, tuple[Revision, Path]] = {}
    for rev in revs:
        for rel, path in object_files(rev.directory).items():
            state[rel] = (rev, path)
        upgrade = rev.directory / "upgrade.sql"
        for line in upgrade.read_text().splitlines() if upgrade.exists() else []:
            if line.startswith(DROPPED):
                state.pop(line[len(DROPPED):].strip(), None)
    return state


def manifest(sql_dir: Path) -> list[str]:
    """The object files in ``sql/install.sql``'s order."""
    order = _INCLUDE.findall((sql_dir / "install.sql").read_text())
    files = object_files(sql_dir)
    missing = sorted(set(files) - set(order))
    if missing:
        raise RevisionError(f"{sql_dir / 'install.sql'}: does not include {', '.join(missing)}")
    return order


def _split_args(args: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(args[start:i])
            start = i + 1
    out.append(args[start:])
    return [a.strip() for a in out if a.strip()]


def function_signatures(text: str) -> list[str]:
    """``ledger.name(arg, ...)`` of each function a file creates, defaults
    and OUT arguments left out: the form DROP FUNCTION takes."""
    sigs = []
    for match in _FUNCTION.finditer(text):
        depth, i = 1, match.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        args = []
        for arg in _split_args(text[match.end():i - 1]):
            arg = re.split(r"\s+DEFAULT\s+|\s*=\s*", arg, maxsplit=1, flags=re.IGNORECASE)[0]
            if re.match(r"OUT\s", arg, re.IGNORECASE):
                continue
            args.append(" ".join(re.sub(r"^(IN|INOUT|VARIADIC)\s+", "", arg, flags=re.IGNORECASE).split()))
        sigs.append(f"{match['name']}({', '.join(args)})")
    return sigs


def drop_statement(rel: str, text: str) -> str | None:
    """The statement that removes what ``text`` (file ``rel``) creates, or
    None when it must be written by hand."""
    kind = rel.split("/")[0]
    if kind == "functions":
        return "\n".join(f"DROP FUNCTION {sig};" for sig in function_signatures(text)) or None
    if kind == "views" and (m := _VIEW.search(text)):
        return f"DROP VIEW {m['name']};"
    if kind == "triggers" and (m := _TRIGGER.search(text)):
        return f"DROP TRIGGER {m['name']} ON {m['table']};"
    if kind == "indexes" and (m := _INDEX.search(text)):
        return f"DROP INDEX ledger.{m['name']};"
    return None


def _todo(rel: str, why: str, old: str, new: str) -> str:
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), f"frozen/{rel}", f"sql/{rel}", lineterm="")
    body = "\n".join(f"--   {line}" for line in diff)
    return f"{TODO}: {rel}: {why}\n{body}\n"


@dataclass
class Plan:
    upgrade: list[str]
    downgrade: list[str]
    files: dict[str, str]  # relative path -> new text to freeze
    todos: int = 0

    @property
    def empty(self) -> bool:
        return not self.files and not self.upgrade


def plan(sql_dir: Path, versions: Path, new_dir_name: str) -> Plan:
    """What the next revision must hold to bring the frozen state to ``sql/``."""
    revs = revisions(versions)
    frozen = frozen_state(revs)
    current = object_files(sql_dir)
    order = manifest(sql_dir)
    up: list[str] = []
    down: list[str] = []
    files: dict[str, str] = {}
    todos = 0

    def earlier(rel: str) -> str:
        rev, _ = frozen[rel]
        return f"\\ir ../{rev.directory.name}/{rel}"

    for rel in order:
        new = current[rel].read_text()
        kind = rel.split("/")[0]
        if rel not in frozen:
            files[rel] = new
            up.append(f"\\ir {rel}")
            drop = drop_statement(rel, new)
            if drop is None and rel not in _RERUNNABLE:
                todos += 1
                down.append(_todo(rel, "new; write what drops it", "", new))
            elif drop:
                down.append(drop)
            continue
        old = frozen[rel][1].read_text()
        if old == new:
            continue
        files[rel] = new
        if kind == "functions":
            old_sigs, new_sigs = function_signatures(old), function_signatures(new)
            gone = [s for s in old_sigs if s not in new_sigs]
            added = [s for s in new_sigs if s not in old_sigs]
            up.extend(f"DROP FUNCTION {s};" for s in gone)
            up.append(f"\\ir {rel}")
            down.extend(f"DROP FUNCTION {s};" for s in added)
            down.append(earlier(rel))
        elif kind == "indexes":
            name = _INDEX.search(old)
            up.append(f"DROP INDEX IF EXISTS ledger.{name['name'] if name else '?'};\n\\ir {rel}")
            name = _INDEX.search(new)
            down.append(f"DROP INDEX IF EXISTS ledger.{name['name'] if name else '?'};\n{earlier(rel)}")
        elif kind in ("views", "triggers") or rel in _RERUNNABLE:
            up.append(f"\\ir {rel}")
            down.append(earlier(rel))
        else:
            todos += 2
            up.append(_todo(rel, "changed; write the ALTER statements", old, new))
            down.append(_todo(rel, "changed; write the ALTER statements that undo it", new, old))
    for rel in reversed([r for r in frozen if r not in current]):
        old = frozen[rel][1].read_text()
        drop = drop_statement(rel, old)
        if drop is None:
            todos += 1
            up.append(_todo(rel, "removed; write what drops it", old, ""))
        else:
            up.append(drop)
        up.append(f"{DROPPED}{rel}")
        down.insert(0, earlier(rel))
    down.reverse()
    return Plan(up, down, files, todos)


def script(header: str, steps: list[str]) -> str:
    return header + "\n" + "\n".join(steps) + "\n"


def write_revision(message: str, sql_dir: Path, migrations: Path) -> tuple[Path, Plan]:
    """Write the revision module (alembic's ``revision`` command and
    ``script.py.mako``) and its directory; return the module and the plan."""
    from alembic import command
    from alembic.config import Config

    versions = migrations / "versions"
    revs = revisions(versions)
    slug = re.sub(r"[^a-z0-9]+", "_", message.lower()).strip("_")[:40] or "change"
    rev_id = f"{len(revs) + 1:04d}_{slug}"
    result = plan(sql_dir, versions, rev_id)
    if result.empty:
        raise RevisionError("sql/ matches the last frozen revision: nothing to write")
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations))
    cfg.set_main_option("file_template", "%%(rev)s")
    summary = "\n".join(f"* {rel}" for rel in result.files)
    command.revision(cfg, message=f"{message}\n\nFrozen files:\n\n{summary}", rev_id=rev_id)
    directory = versions / rev_id
    for rel, text in result.files.items():
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text(text)
    (directory / "upgrade.sql").write_text(script(f"-- {rev_id}: {message}\n", result.upgrade))
    (directory / "downgrade.sql").write_text(script(f"-- {rev_id} undone: restores the frozen files it replaced\n",
                                                    result.downgrade))
    return versions / f"{rev_id}.py", result


def revision_files(rev: Revision) -> list[Path]:
    return [rev.module, *sorted(p for p in rev.directory.rglob("*") if p.is_file())]


def pin_released(migrations: Path) -> Path:
    """Write ``released.sha256`` (sha256sum format) for every file of every revision."""
    lines = []
    for rev in revisions(migrations / "versions"):
        for path in revision_files(rev):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            lines.append(f"{digest}  {path.relative_to(migrations).as_posix()}")
    out = migrations / "released.sha256"
    out.write_text("\n".join(lines) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("message", nargs="?", help="what the revision does (its name and docstring)")
    parser.add_argument("--check", action="store_true", help="exit 1 when sql/ differs from the frozen state")
    parser.add_argument("--release", action="store_true", help="pin every revision in migrations/released.sha256")
    parser.add_argument("--sql-dir", type=Path, default=ROOT / "sql")
    parser.add_argument("--migrations", type=Path, default=ROOT / "migrations")
    args = parser.parse_args(argv)
    if args.release:
        print(f"pinned: {pin_released(args.migrations)}")
        return 0
    if args.check:
        result = plan(args.sql_dir, args.migrations / "versions", "next")
        for rel in result.files:
            print(f"changed since the last revision: sql/{rel}")
        if not result.empty:
            print("write a revision: make revision M='what it does'")
        return 0 if result.empty else 1
    if not args.message:
        parser.error("say what the revision does: new_revision.py 'observed_at on findings'")
    module, result = write_revision(args.message, args.sql_dir, args.migrations)
    print(f"wrote {module.relative_to(ROOT) if ROOT in module.parents else module} and its directory:"
          f" {len(result.files)} frozen file(s)")
    if result.todos:
        print(f"{result.todos} {TODO} block(s) to write by hand (tables, policies): see upgrade.sql / downgrade.sql")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
