"""Databases at a revision a release folded away.

At a release, the revisions landed since the previous release are folded
into one revision (``tools/release.py``, docs/dba.md "Releases and folded
revisions"). The revisions it replaced leave the normal chain; they are
kept, frozen, in ``migrations/replaced/<version>.tar.xz``, with
``migrations/replaced/<version>.json`` beside it:

* ``fold``: the revision that replaces them, ``from``: the released
  revision they start from, ``replaced``: their ids, oldest first;
* ``catalog``: the folded state, ``{object: digest}`` as :func:`catalog`
  reads it.

A database at the newest replaced revision has the folded state: it is
stamped forward to the fold once :func:`catalog` of it equals the
manifest's (otherwise :class:`FoldRefused` names the first object that
differs, and nothing changes). A database at an older replaced revision is
first upgraded through the archived revisions (unpacked into a temporary
alembic directory with this package's ``env.py``), then checked and
stamped the same way. :func:`findings_ledger.migrate` does both;
``alembic upgrade`` on such a database refuses with one line saying to run
``findings-ledger migrate``.

Nothing here is imported by ``import findings_ledger``: the migration path
imports it when it needs it.
"""

from __future__ import annotations

import json
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from .revisions import migrations_dir


def _privileges(acl: str, default: str, owner: str) -> str:
    """SQL: the privileges of an ACL column as sorted ``grantee:privilege`` text (``*``: grantable),
    NULL read as ``default``, the owner's own left out."""
    return (f"(SELECT string_agg(g, ',' ORDER BY g) FROM (SELECT CASE WHEN x.grantee = 0 THEN 'PUBLIC' "
            f"ELSE x.grantee::regrole::text END || ':' || x.privilege_type || "
            f"CASE WHEN x.is_grantable THEN '*' ELSE '' END AS g "
            f"FROM aclexplode(CASE WHEN cardinality(coalesce({acl}, {default})) > 0 "
            f"THEN coalesce({acl}, {default}) END) x "
            f"WHERE x.grantee <> {owner}) y)")

#: one row per catalog object of the ``ledger`` schema (alembic's version table left out):
#: its identity and an md5 of what defines it (definition, attributes, privileges, comment);
#: privileges are read as (grantee, privilege) pairs, sorted, the owner's left out and a NULL ACL
#: read as its default, so neither the order of the grants nor the owning role counts; NOT NULL
#: is the column's ``attnotnull`` (PostgreSQL 18 also lists it in pg_constraint, named by the
#: table and column it was first made for, which a renamed column keeps)
CATALOG = """
WITH ns AS (SELECT 'ledger'::regnamespace AS oid)
SELECT 'relation ' || c.oid::regclass::text,
       md5(concat_ws('|', c.relkind, c.relrowsecurity, c.relforcerowsecurity,
                     {acl_c_relacl},
                     obj_description(c.oid, 'pg_class'),
                     CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END))
  FROM pg_class c, ns
 WHERE c.relnamespace = ns.oid AND c.relkind IN ('r', 'p', 'v', 'm') AND c.relname <> 'alembic_version'
UNION ALL
SELECT 'column ' || a.attrelid::regclass::text || '.' || quote_ident(a.attname),
       md5(concat_ws('|', format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity, a.attgenerated,
                     pg_get_expr(d.adbin, d.adrelid), a.attcollation,
                     {acl_a_attacl},
                     col_description(a.attrelid, a.attnum)))
  FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid
  CROSS JOIN ns
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE c.relnamespace = ns.oid AND c.relkind IN ('r', 'p', 'v', 'm') AND c.relname <> 'alembic_version'
   AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'constraint ' || k.conrelid::regclass::text || '.' || quote_ident(k.conname),
       md5(concat_ws('|', pg_get_constraintdef(k.oid), k.convalidated, obj_description(k.oid, 'pg_constraint')))
  FROM pg_constraint k, ns
 WHERE k.connamespace = ns.oid AND k.conrelid <> 0 AND k.conrelid <> coalesce(to_regclass('ledger.alembic_version'), 0)
   AND k.contype <> 'n'
UNION ALL
SELECT 'index ' || i.indexrelid::regclass::text,
       md5(concat_ws('|', pg_get_indexdef(i.indexrelid), i.indisvalid, obj_description(i.indexrelid, 'pg_class')))
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid CROSS JOIN ns
 WHERE c.relnamespace = ns.oid AND i.indrelid <> coalesce(to_regclass('ledger.alembic_version'), 0)
UNION ALL
SELECT 'function ' || p.oid::regprocedure::text,
       md5(concat_ws('|', pg_get_functiondef(p.oid),
                     {acl_p_proacl},
                     obj_description(p.oid, 'pg_proc')))
  FROM pg_proc p, ns
 WHERE p.pronamespace = ns.oid AND p.prokind IN ('f', 'p', 'w')
UNION ALL
SELECT 'trigger ' || quote_ident(t.tgname) || ' ON ' || t.tgrelid::regclass::text,
       md5(concat_ws('|', pg_get_triggerdef(t.oid), t.tgenabled, obj_description(t.oid, 'pg_trigger')))
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid CROSS JOIN ns
 WHERE c.relnamespace = ns.oid AND NOT t.tgisinternal
UNION ALL
SELECT 'policy ' || quote_ident(p.polname) || ' ON ' || p.polrelid::regclass::text,
       md5(concat_ws('|', p.polcmd, p.polpermissive,
                     (SELECT string_agg(r::regrole::text, ',' ORDER BY r::regrole::text) FROM unnest(p.polroles) r),
                     pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)))
  FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid CROSS JOIN ns
 WHERE c.relnamespace = ns.oid
UNION ALL
SELECT 'type ' || t.oid::regtype::text,
       md5(concat_ws('|', t.typtype, format_type(t.typbasetype, t.typtypmod),
                     (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum e
                       WHERE e.enumtypid = t.oid)))
  FROM pg_type t, ns
 WHERE t.typnamespace = ns.oid AND t.typtype IN ('e', 'd')
UNION ALL
SELECT 'schema ledger',
       md5(concat_ws('|', {acl_n_nspacl},
                     obj_description(n.oid, 'pg_namespace')))
  FROM pg_namespace n, ns WHERE n.oid = ns.oid
""".format(
    acl_c_relacl=_privileges("c.relacl", "acldefault('r', c.relowner)", "c.relowner"),
    acl_a_attacl=_privileges("a.attacl", "NULL::aclitem[]", "c.relowner"),
    acl_p_proacl=_privileges("p.proacl", "acldefault('f', p.proowner)", "p.proowner"),
    acl_n_nspacl=_privileges("n.nspacl", "acldefault('n', n.nspowner)", "n.nspowner"))


class FoldRefused(RuntimeError):
    """A database at a replaced revision whose catalog is not the folded
    state: stamping it forward would record a schema it does not have.
    The message is one line naming the first object that differs."""


@dataclass(frozen=True)
class Fold:
    """One release's fold: ``migrations/replaced/<version>.json``."""

    version: str
    fold: str
    start: str  # the released revision the replaced ones start from
    replaced: tuple[str, ...]
    catalog: dict[str, str]
    archive: Path

    @property
    def newest(self) -> str:
        return self.replaced[-1]


def catalog(conn: psycopg.Connection[Any]) -> dict[str, str]:
    """The ``ledger`` schema's catalog, ``{object: digest}`` (:data:`CATALOG`)."""
    return dict(sorted(conn.execute(CATALOG).fetchall()))


def difference(expected: dict[str, str], actual: dict[str, str]) -> str | None:
    """The first object (in name order) that differs between two catalogs,
    with how: ``missing``, ``unexpected`` or ``differs``; None when equal."""
    for name in sorted(set(expected) | set(actual)):
        if name not in actual:
            return f"{name} (missing)"
        if name not in expected:
            return f"{name} (unexpected)"
        if expected[name] != actual[name]:
            return f"{name} (differs)"
    return None


def folds(directory: Path | None = None) -> list[Fold]:
    """Every fold this findings-ledger ships, oldest release first."""
    replaced = (directory or migrations_dir()) / "replaced"
    out = []
    for manifest in sorted(replaced.glob("*.json")) if replaced.is_dir() else ():
        data = json.loads(manifest.read_text(encoding="utf-8"))
        out.append(Fold(data["version"], data["fold"], data["from"], tuple(data["replaced"]), data["catalog"],
                        manifest.with_suffix(".tar.xz")))
    return out


def fold_of(revision: str | None, directory: Path | None = None) -> Fold | None:
    """The fold that replaced ``revision``, or None when it is not a replaced revision."""
    return next((f for f in folds(directory) if revision in f.replaced), None)


def replaced_message(revision: str, fold: Fold) -> str:
    """The one line for a database at a replaced revision under ``alembic upgrade``."""
    return (f"the database is at {revision}, a revision release {fold.version} folded into {fold.fold}: "
            "run `findings-ledger migrate` (or `make migrate`), which upgrades it through the archived "
            "revisions and stamps it forward (docs/dba.md, \"Releases and folded revisions\")")


def frozen_file(revision: str, path: str, directory: Path | None = None) -> str:
    """The text of ``path`` (e.g. ``functions/read_prompt_findings.sql``)
    as ``revision`` froze it: from ``migrations/versions/<revision>/`` when
    the revision is shipped, else from the archive of the release that
    folded it. Raises :class:`LookupError` naming the revision and the path
    when neither holds the file."""
    source = directory or migrations_dir()
    shipped = source / "versions" / revision / path
    if (source / "versions" / revision).is_dir():
        if not shipped.is_file():
            raise LookupError(f"{revision}/{path} is not in {source / 'versions'}")
        return shipped.read_text(encoding="utf-8")
    fold = fold_of(revision, source)
    if fold is None:
        raise LookupError(f"{revision} is neither a shipped revision nor one a release folded away")
    with tarfile.open(fold.archive, "r:xz") as archive:
        try:
            member = archive.extractfile(f"{revision}/{path}")
        except KeyError:
            member = None
        if member is None:
            raise LookupError(f"{revision}/{path} is not in {fold.archive}")
        return member.read().decode("utf-8")


@contextmanager
def archived_chain(fold: Fold) -> Iterator[Path]:
    """A temporary alembic script directory: this package's ``env.py`` and
    ``script.py.mako``, the shipped revisions up to ``fold.start``, and the
    archived revisions that the fold replaced."""
    source = fold.archive.parent.parent
    with tempfile.TemporaryDirectory(prefix="findings-ledger-replaced-") as tmp:
        root = Path(tmp)
        shutil.copy(source / "env.py", root / "env.py")
        shutil.copy(source / "script.py.mako", root / "script.py.mako")
        versions = root / "versions"
        versions.mkdir()
        chain = _chain(source / "versions")
        for rev in chain[:chain.index(fold.start) + 1]:
            shutil.copy(source / "versions" / f"{rev}.py", versions / f"{rev}.py")
            if (source / "versions" / rev).is_dir():
                shutil.copytree(source / "versions" / rev, versions / rev)
        with tarfile.open(fold.archive, "r:xz") as archive:
            extract_archive(archive, versions)
        yield root


def extract_archive(archive: tarfile.TarFile, target: Path) -> None:
    """Unpack ``archive`` (a release's archive of replaced revisions, or any
    tarball of files) below ``target``. Every member is checked first: a
    member that is not a regular file or a directory, or whose path leads
    outside ``target``, is :class:`FoldRefused` naming it, and nothing is
    unpacked. Then tarfile's ``data`` filter is applied where this Python
    has it (3.11.4 and 3.12 on)."""
    for member in archive.getmembers():
        path = (target / member.name).resolve()
        if not path.is_relative_to(target.resolve()) or not (member.isfile() or member.isdir()):
            raise FoldRefused(f"{archive.name!r}: unexpected member {member.name!r}")
    if hasattr(tarfile, "data_filter"):
        archive.extractall(target, filter="data")
    else:  # Python before 3.10.12 / 3.11.4: the members are checked above
        archive.extractall(target)  # noqa: S202


def _chain(versions: Path) -> list[str]:
    """The revision ids under ``versions``, oldest first (down_revision lines)."""
    import ast
    import re

    by_down: dict[str | None, str] = {}
    for module in versions.glob("*.py"):
        text = module.read_text(encoding="utf-8")
        rev = re.search(r"^revision\s*=\s*(.+)$", text, re.MULTILINE)
        down = re.search(r"^down_revision\s*=\s*(.+)$", text, re.MULTILINE)
        if rev and down:
            by_down[ast.literal_eval(down[1].strip())] = ast.literal_eval(rev[1].strip())
    out, current = [], by_down.get(None)
    while current:
        out.append(current)
        current = by_down.get(current)
    return out


def _frozen_view(fold: Fold, relation: str) -> str | None:
    """The ``CREATE OR REPLACE VIEW`` statement of view ``relation``
    (``ledger.name``) as the fold's shipped revisions leave it: the newest
    upgrade file defining it, from ``fold.fold`` back to the first revision;
    None when no file does."""
    import re

    source = fold.archive.parent.parent / "versions"
    chain = _chain(source)
    if fold.fold not in chain:
        return None
    pattern = re.compile(rf"^CREATE OR REPLACE VIEW {re.escape(relation)}\s.*?;[ \t]*$", re.M | re.S)
    for rev in reversed(chain[:chain.index(fold.fold) + 1]):
        directory = source / rev
        for path in sorted(directory.rglob("*.sql")) if directory.is_dir() else ():
            if not path.name.startswith("downgrade"):
                found = pattern.search(path.read_text(encoding="utf-8"))
                if found:
                    return found.group(0)
    return None


def _same_view(conn: psycopg.Connection[Any], fold: Fold, name: str, digest: str | None) -> bool:
    """Whether catalog object ``name`` (``relation ledger.<view>``, digest
    ``digest`` here) is the fold's view although the digests differ: a
    view's digest hangs on the server's deparser (``pg_get_viewdef`` prints
    the same view differently from one PostgreSQL major to the next, and the
    manifest was computed on the release's), so the fold's own definition is
    put in its place in a savepoint that is rolled back, and the view is the
    fold's when that leaves its digest unchanged."""
    statement = _frozen_view(fold, name.removeprefix("relation "))
    if statement is None or digest is None:
        return False
    try:
        with conn.transaction(force_rollback=True):
            conn.execute(statement.encode())
            return catalog(conn).get(name) == digest
    except psycopg.Error:
        return False


def check_and_stamp(conn: psycopg.Connection[Any], fold: Fold) -> None:
    """At ``fold.newest``: refuse (:class:`FoldRefused`) unless the catalog is
    the folded state, else record the fold as the database's revision. A
    view whose digest differs is compared by definition (:func:`_same_view`)."""
    actual = catalog(conn)
    for name in sorted(set(fold.catalog) & set(actual)):
        if (name.startswith("relation ") and fold.catalog[name] != actual[name]
                and _same_view(conn, fold, name, actual[name])):
            actual[name] = fold.catalog[name]
    different = difference(fold.catalog, actual)
    if different:
        raise FoldRefused(f"the database at {fold.newest} differs from release {fold.version}'s folded state at "
                          f"{different}: nothing was stamped (docs/dba.md, \"Releases and folded revisions\")")
    updated = conn.execute("UPDATE ledger.alembic_version SET version_num = %s WHERE version_num = %s",
                           (fold.fold, fold.newest)).rowcount
    if updated != 1:
        raise FoldRefused(f"the database is no longer at {fold.newest}: nothing was stamped")


def upgrade_replaced(dsn: str, revision: str, fold: Fold, wait: str,
                     locked_out: Callable[[], BaseException]) -> None:
    """Bring a database at a replaced ``revision`` to ``fold.fold``: the
    archived revisions up to the newest replaced one (none when it is
    there), then :func:`check_and_stamp`, all on one connection holding the
    migration lock (waited for up to ``wait``, then ``locked_out()`` is
    raised: :func:`findings_ledger.migration_ops.acquire_lock`). ``revision`` is the version the caller read before the
    lock: the version is read again under it, and when it is no longer a
    revision ``fold`` replaced (another ``migrate`` brought the database to
    the fold, or beyond, meanwhile) nothing is done here."""
    import sqlalchemy as sa
    from alembic import command
    from alembic.config import Config

    from .migration_ops import lock_session
    from .revisions import read_revision

    engine = sa.create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(dsn),
                              poolclass=sa.pool.NullPool)
    # a session lock, tried outside any open transaction (another run's CREATE INDEX CONCURRENTLY
    # would wait for one); the archived chain's run takes it again on this same connection
    with engine.connect() as conn, lock_session(conn, wait, locked_out):
        raw = conn.connection.driver_connection
        assert isinstance(raw, psycopg.Connection)
        at = read_revision(raw)
        raw.commit()
        if at not in fold.replaced:
            return
        if at != fold.newest:
            with archived_chain(fold) as root:
                cfg = Config()
                cfg.set_main_option("script_location", str(root))
                cfg.attributes["connection"] = conn
                cfg.attributes["ledger_replaced_chain"] = True
                command.upgrade(cfg, fold.newest)
            conn.commit()
        try:
            check_and_stamp(raw, fold)
            raw.commit()
        except BaseException:
            raw.rollback()
            raise
