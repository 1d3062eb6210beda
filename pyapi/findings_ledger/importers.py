"""Importers: findings files and drift reviews into the ledger.

Two input formats, each row going through ``ledger.import_finding`` (one
SQL call per finding, the same triggers as any INSERT):

* **a findings directory** in the design record's format (ADR-010):
  files ``YYYY-MM-DD-<slug>.md`` with YAML front matter, read with
  python-frontmatter. Fields: ``title``, ``description`` (else the body),
  the stable id as ``id`` / ``finding_id`` / ``issue_id`` / ``key`` /
  ``uid`` (first present wins), ``kind``, ``severity``, ``source_bot`` (or
  ``source``), ``strong_keywords``, ``tags`` and ``paths`` (lists, or
  comma-separated strings; a path may carry a line anchor, ``src/a.py:42``
  or ``src/a.py:40-48``), ``expects`` (``change``, ``present``,
  ``absent``), ``task_group`` (else ``node_id``/``node``, the reporting
  node such as ``07_nightshift_standalone_cli:0``) and when the problem was
  observed: ``observed_at``, else ``created``, else ``date``, else the file
  name's ``YYYY-MM-DD`` (see *Dates* below). The slug comes from the file name. Only the
  directory's own ``*.md`` files are read (not subdirectories); a file whose
  name is not ``YYYY-MM-DD-<slug>.md``, that cannot be parsed, or that the
  ledger rejects is reported by name and skipped, and the others are
  imported;
* **the drift-review JSON** of the drift-review scenario's system:
  ``{"drift_findings": [{"severity", "description", "spec_ref",
  "artifact_ref"}]}``. Each entry becomes a finding of kind ``drift`` whose
  title is the description's first line, whose path is ``artifact_ref``
  and whose key is ``drift-`` + 12 hex digits of the SHA-256 of (spec_ref,
  artifact_ref, description), so a re-import finds it again; ``spec_ref``
  is kept as the tag ``spec:<spec_ref>``. An entry may say what it expects
  of its path (``"expects": "present"`` for "X does not exist",
  ``"absent"`` for "X still exists"; default ``change``), and when and for
  which task group it was observed: ``observed_at`` / ``created_at`` /
  ``timestamp`` and ``task_group`` / ``node_id``, on the entry or at the top
  level of the file (the entry wins).

*Dates.* A timestamp with a time and no offset is UTC; a bare date
(``2026-06-24``, or the file name's) means the end of that day in UTC
(``23:59:59.999999``): the latest moment the finding can have been observed,
so no path rule of a merge of that day or earlier retires it; the finding is
written with ``observed_at_precision = 'day'``, so a merge later that day
whose message names the finding's own key or slug with a resolution verb
still passes the causality gate (a commit cannot name a finding that did
not exist yet).

*Checks.* ``resolved_when`` (a drift-review entry's field, a findings
file's front matter key) is passed to the ledger as the finding's check;
the ledger validates it (see docs/checks.md). A value that is
not a date is reported as the file's error and the file is skipped.
``observed_at=`` of :func:`import_findings` (the CLI's ``--observed-at`` or
``--observed-at-commit``, :func:`commit_time`) is the moment of every
finding that carries no date of its own; a drift-review entry left without
any date is listed in :attr:`ImportReport.undated` (it is observed now, so
a replay of earlier history can retire none of them).

Re-importing creates no duplicates: a finding is identified by its key,
else by its slug, and is refreshed when active, left alone when retired
(see ``ledger.import_finding``). Every file is imported in its own
savepoint, so one bad file never undoes the others; nothing here commits.
A file holding text PostgreSQL cannot store (a NUL character, a lone
surrogate: :func:`findings_ledger.formats.unstorable`) anywhere, a drift
review's top level or any entry included, is skipped whole before any of
it is written, its report naming the entry (``<file>#drift_findings[<i>]``)
and the JSON path.

:func:`workspace_scope` derives a collision-free scope key from a workspace
directory (``ledger.workspace_scope``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import Any

import frontmatter
import psycopg
import yaml
from psycopg.rows import class_row

from . import formats, queries
from .errors import LedgerError, checked_arguments, string_list, translate
from .models import ImportedFile, ImportedFinding, ImportReport, SkippedFile

FILE_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})-(.+)\.md$")
ID_FIELDS = ("id", "finding_id", "issue_id", "key", "uid")
#: Front matter fields that say when the finding was observed, first present wins.
DATE_FIELDS = ("observed_at", "created", "date")
#: Drift-review fields (on the entry, else at the top level) that say when it was observed.
DRIFT_DATE_FIELDS = ("observed_at", "created_at", "timestamp")
#: Fields that name the task group (or the reporting node), first present wins.
GROUP_FIELDS = ("task_group", "node_id", "node")


@checked_arguments
def import_finding(
    conn: psycopg.Connection[Any],
    scope: str,
    title: str | None,
    *,
    description: str | None = None,
    paths: Sequence[str] = (),
    kind: str = "review",
    severity: str = "medium",
    finding_key: str | None = None,
    source: str | None = None,
    slug: str | None = None,
    strong_keywords: Sequence[str] = (),
    tags: Sequence[str] = (),
    observed_at: datetime | None = None,
    expects: str | None = None,
    task_group: str | None = None,
    resolved_when: Any = None,
    observed_at_precision: str | None = None,
) -> ImportedFinding:
    """Insert or refresh one finding (``ledger.import_finding``), identified by
    ``finding_key``, else ``slug``. ``observed_at`` (None: now), ``expects``
    (None: ``change``), ``task_group``, ``resolved_when`` (the check: a
    JSON-able value, validated by the ledger) and ``observed_at_precision``
    (``instant``, or ``day``: only the day of ``observed_at`` is known) as
    in ``ledger.finding``. Raises ``PathRejected`` (LD001),
    ``ValueRequired`` (LD002), ``ValueInvalid`` (LD003), ``ValueTooLong``
    (LD004), ``KeywordRejected`` (LD101), ``SlugRejected`` (LD102),
    ``DuplicateFindingSlug`` (23505: the slug belongs to another finding)."""
    params = {
        "scope": scope,
        "title": title,
        "description": description,
        "paths": string_list(paths, "paths"),
        "kind": kind,
        "severity": severity,
        "finding_key": finding_key,
        "source": source,
        "slug": slug,
        "strong_keywords": string_list(strong_keywords, "strong_keywords"),
        "tags": string_list(tags, "tags"),
        "observed_at": observed_at,
        "expects": expects,
        "task_group": task_group,
        "resolved_when": None if resolved_when is None else json.dumps(resolved_when),
        "observed_at_precision": observed_at_precision,
    }
    with translate(conn), conn.cursor(row_factory=class_row(ImportedFinding)) as cur:
        cur.execute(queries.IMPORT_FINDING, params)
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
def validate_check(conn: psycopg.Connection[Any], check: Any, field: str = "resolved_when") -> Any:
    """A finding's check (``resolved_when``, a JSON-able value) as the ledger
    would store it (``ledger.validate_check``, the validation the finding
    trigger runs on every write): paths normalised, patterns in another
    regular-expression dialect rewritten to ARE. ``field`` names the check in
    the messages (``$.drift_findings[2].resolved_when``). Writes nothing.
    Raises ``PathRejected`` (LD001), ``ValueInvalid`` (LD003),
    ``ValueTooLong`` (LD004), ``PatternDialect`` (LD105)."""
    with translate(), conn.cursor() as cur:
        cur.execute(queries.VALIDATE_CHECK, {"check": None if check is None else json.dumps(check), "field": field})
        row = cur.fetchone()
    assert row is not None
    return row[0]


@checked_arguments
def workspace_scope(conn: psycopg.Connection[Any], directory: str | os.PathLike[str]) -> str:
    """The scope key of a workspace directory (``ledger.workspace_scope``):
    ``/a/b-c`` -> ``-a-b%2Dc``, ``/a/b/c`` -> ``-a-b-c``. The directory is
    made absolute (``os.path.abspath``: ``..`` and trailing ``/`` resolved
    lexically, symlinks kept) first. Raises ``ValueRequired`` (LD002)."""
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.WORKSPACE_SCOPE, {"directory": os.path.abspath(os.fspath(directory))})
        row = cur.fetchone()
    assert row is not None
    return str(row[0])


def _strings(value: Any) -> list[str]:
    """A front matter list field: a YAML list, or a comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v is not None]
    return [str(value)]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def parse_observed(value: Any, field_name: str) -> datetime | None:
    """A date or timestamp from front matter or JSON as an aware datetime (see
    *Dates* in the module docstring); None stays None. Raises ``ValueError``
    naming ``field_name`` and the value."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        return datetime.combine(value, time.max, tzinfo=timezone.utc)
    elif isinstance(value, str):
        text = value.strip()
        try:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
                return datetime.combine(date.fromisoformat(text), time.max, tzinfo=timezone.utc)
            parsed = datetime.fromisoformat(re.sub(r"[zZ]$", "+00:00", text))
        except ValueError:
            raise ValueError(f"{field_name} {value!r} is not a date or an ISO 8601 timestamp") from None
    else:
        raise ValueError(f"{field_name} {value!r} is not a date or an ISO 8601 timestamp")
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def is_day(value: Any) -> bool:
    """Whether an observed value is a bare date (only its day is known)."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return True
    return isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()) is not None


def _jsonable(value: Any) -> Any:
    """A front-matter value as JSON would have it (YAML dates become ISO strings)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return value


def _first(meta: dict[str, Any], names: Sequence[str]) -> tuple[str, Any]:
    """The first of ``names`` with a value in ``meta``: (name, value), else (names[0], None)."""
    return next(((n, meta[n]) for n in names if meta.get(n) not in (None, "")), (names[0], None))


def read_finding_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Parse one ``YYYY-MM-DD-<slug>.md`` findings file into the keyword
    arguments of :func:`import_finding` (without ``scope``). Raises
    ``ValueError`` naming the problem when the name or the front matter
    cannot be read."""
    p = Path(path)
    m = FILE_NAME.match(p.name)
    if not m:
        raise ValueError("the name is not YYYY-MM-DD-<slug>.md")
    try:
        post = frontmatter.load(str(p))
    except UnicodeDecodeError:
        raise ValueError("the file is not UTF-8 text") from None
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        reason = " ".join(str(exc).split())
        raise ValueError(f"front matter cannot be parsed: {type(exc).__name__}: {reason}") from exc
    meta = post.metadata
    if not isinstance(meta, dict):
        raise ValueError("front matter is not a mapping")
    problem = formats.unstorable(meta) or formats.unstorable(post.content, "the body")
    if problem is not None:
        raise ValueError(problem)
    body = post.content.strip()
    key = next((meta[f] for f in ID_FIELDS if meta.get(f) not in (None, "")), None)
    title = meta.get("title")
    if title in (None, "") and body:
        heading = re.search(r"^#+\s+(.+)$", body, re.M)
        title = heading.group(1).strip() if heading else None
    description = meta.get("description")
    if description in (None, ""):
        description = body or None
    date_field, observed = _first(meta, DATE_FIELDS)
    observed_at = (parse_observed(observed, date_field) if observed is not None
                   else parse_observed(m.group(1), "the file name's date"))
    return {
        "title": _text(title),
        "description": _text(description),
        "finding_key": _text(key),
        "kind": _text(meta.get("kind")) or "review",
        "severity": _text(meta.get("severity")) or "medium",
        "source": _text(meta.get("source_bot", meta.get("source"))),
        "slug": m.group(2),
        "strong_keywords": _strings(meta.get("strong_keywords")),
        "tags": _strings(meta.get("tags")),
        "paths": _strings(meta.get("paths")),
        "observed_at": observed_at,
        "expects": _text(meta.get("expects")),
        "task_group": _text(_first(meta, GROUP_FIELDS)[1]),
        "resolved_when": _jsonable(meta.get("resolved_when")),
        "observed_at_precision": "day" if is_day(observed if observed is not None else m.group(1)) else None,
    }


def _dated_in_front_matter(path: Path) -> bool:
    """Whether the front matter of ``path`` (already read once) gives a date."""
    meta = frontmatter.load(str(path)).metadata
    return _first(meta, DATE_FIELDS)[1] is not None


def _import_one(conn: psycopg.Connection[Any], scope: str, name: str, fields: dict[str, Any],
                report: ImportReport) -> None:
    try:
        with conn.transaction():
            report.imported.append(ImportedFile(name, import_finding(conn, scope, **fields)))
    except LedgerError as exc:
        report.skipped.append(SkippedFile(name, f"{exc} [{exc.sqlstate}]"))


def import_findings_dir(conn: psycopg.Connection[Any], scope: str, directory: str | os.PathLike[str],
                        report: ImportReport | None = None, *, task_group: str | None = None,
                        observed_at: datetime | None = None, observed_day: bool = False) -> ImportReport:
    """Import every ``*.md`` file of ``directory`` (not its subdirectories)
    in name order; see the module docstring. ``task_group`` is the group of
    the files that do not name one; ``observed_at`` the moment of those whose
    front matter gives no date (instead of the file name's date)."""
    report = report if report is not None else ImportReport()
    for p in sorted(Path(directory).glob("*.md")):
        if p.is_file():
            import_findings_file(conn, scope, p, report, task_group=task_group, observed_at=observed_at,
                                 observed_day=observed_day)
    return report


def import_findings_file(conn: psycopg.Connection[Any], scope: str, path: str | os.PathLike[str],
                         report: ImportReport | None = None, *, task_group: str | None = None,
                         observed_at: datetime | None = None, observed_day: bool = False) -> ImportReport:
    """Import one findings file (``YYYY-MM-DD-<slug>.md``); ``observed_at``:
    the moment when its front matter gives no date (else the file name's date)."""
    report = report if report is not None else ImportReport()
    p = Path(path)
    try:
        fields = read_finding_file(p)
    except (OSError, ValueError) as exc:
        report.skipped.append(SkippedFile(p.name, str(exc)))
        return report
    if observed_at is not None and not _dated_in_front_matter(p):
        fields["observed_at"] = observed_at
        fields["observed_at_precision"] = "day" if observed_day else None
    fields["task_group"] = fields["task_group"] or task_group
    _import_one(conn, scope, p.name, fields, report)
    return report


def drift_key(entry: dict[str, Any]) -> str:
    """The stable key of a drift-review entry: ``drift-`` + 12 hex digits of
    SHA-256 over spec_ref, artifact_ref and description."""
    material = "\0".join(str(entry.get(k) or "") for k in ("spec_ref", "artifact_ref", "description"))
    return "drift-" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:12]


def import_drift_json(conn: psycopg.Connection[Any], scope: str, path: str | os.PathLike[str],
                      report: ImportReport | None = None, *, task_group: str | None = None,
                      observed_at: datetime | None = None, observed_day: bool = False) -> ImportReport:
    """Import a drift review ``{"drift_findings": [...]}`` (the drift-review scenario); see
    the module docstring. An unreadable file is reported as skipped; each
    bad entry is reported as ``<file>#drift_findings[<i>]``. ``observed_at``
    is the moment of the entries that carry no date (on the entry or at
    the top level); entries left without one are listed in
    ``report.undated``."""
    report = report if report is not None else ImportReport()
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        report.skipped.append(SkippedFile(p.name, "not a drift review: the file is not UTF-8 text"))
        return report
    except json.JSONDecodeError as exc:
        report.skipped.append(SkippedFile(
            p.name, f"not a drift review: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"))
        return report
    except OSError as exc:
        report.skipped.append(SkippedFile(p.name, f"cannot be read: {exc.strerror or exc}"))
        return report
    entries = data.get("drift_findings") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        got = (f"drift_findings is {_json_type(entries)}" if isinstance(data, dict) and "drift_findings" in data
               else "no drift_findings" if isinstance(data, dict) else f"{_json_type(data)}")
        report.skipped.append(SkippedFile(
            p.name, f'not a drift review: expected an object {{"drift_findings": [...]}}, got {got}'))
        return report
    problem = formats.unstorable(data)
    if problem is not None:
        # refused whole, before anything of it is written
        entry = re.match(r"\$\.drift_findings\[(\d+)\]", problem)
        report.skipped.append(SkippedFile(f"{p.name}#drift_findings[{entry[1]}]" if entry else p.name,
                                          f"{problem}; nothing of {p.name} imported"))
        return report
    top = {k: v for k, v in data.items() if k != "drift_findings"}
    for i, entry in enumerate(entries):
        name = f"{p.name}#drift_findings[{i}]"
        if not isinstance(entry, dict):
            report.skipped.append(SkippedFile(name, "entry is not an object"))
            continue
        date_field, observed = _first(entry, DRIFT_DATE_FIELDS)
        if observed is None:
            date_field, observed = _first(top, DRIFT_DATE_FIELDS)
        try:
            entry_observed = parse_observed(observed, date_field)
        except ValueError as exc:
            report.skipped.append(SkippedFile(name, str(exc)))
            continue
        precision = "day" if observed is not None and is_day(observed) else None
        if entry_observed is None:
            entry_observed = observed_at
            precision = "day" if observed_day and observed_at is not None else None
            if observed_at is None:
                report.undated.append(name)
        description = _text(entry.get("description"))
        first_line = description.strip().splitlines()[0].strip() if description and description.strip() else None
        title = first_line if first_line is None or len(first_line) <= 1000 else first_line[:999] + "…"
        spec_ref = _text(entry.get("spec_ref"))
        artifact = _text(entry.get("artifact_ref"))
        fields = {
            "title": title,
            "description": description if description and description.strip() != title else None,
            "finding_key": drift_key(entry),
            "kind": "drift",
            "severity": _text(entry.get("severity")) or "medium",
            "source": "drift-review",
            "paths": [artifact] if artifact else [],
            "tags": [f"spec:{spec_ref}"] if spec_ref else [],
            "observed_at": entry_observed,
            "observed_at_precision": precision,
            "resolved_when": entry.get("resolved_when"),
            "expects": _text(entry.get("expects")),
            "task_group": _text(_first(entry, GROUP_FIELDS)[1] or _first(top, GROUP_FIELDS)[1]) or task_group,
        }
        _import_one(conn, scope, name, fields, report)
    return report


def _json_type(value: Any) -> str:
    """The JSON type of a parsed value, for messages: ``an array``, ``a string``, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    for kind, name in ((dict, "an object"), (list, "an array"), (str, "a string"), ((int, float), "a number")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


@checked_arguments
def import_findings(conn: psycopg.Connection[Any], scope: str, source: str | os.PathLike[str], *,
                    task_group: str | None = None, observed_at: datetime | None = None,
                    observed_day: bool = False) -> ImportReport:
    """Import ``source``: a findings directory, one ``.md`` findings file, or
    a drift-review ``.json`` file; ``task_group`` is the group of the
    findings that do not name one, ``observed_at`` (aware) the moment of
    those that carry no date of their own (see *Dates*; ``observed_day``:
    only its day is known, ``observed_at_precision = 'day'``). Raises
    ``FileNotFoundError`` when it does not exist."""
    p = Path(source)
    if p.is_dir():
        return import_findings_dir(conn, scope, p, task_group=task_group, observed_at=observed_at,
                                   observed_day=observed_day)
    if not p.exists():
        raise FileNotFoundError(f"no such file or directory: {p}")
    if p.suffix.lower() == ".json":
        return import_drift_json(conn, scope, p, task_group=task_group, observed_at=observed_at,
                                 observed_day=observed_day)
    return import_findings_file(conn, scope, p, task_group=task_group, observed_at=observed_at,
                                observed_day=observed_day)


def commit_time(repo: str | os.PathLike[str], sha: str) -> datetime:
    """The committer date of commit ``sha`` in git repository ``repo``
    (``git show -s --format=%cI``), aware. Raises ``ValueError`` naming the
    commit and the repository when git cannot resolve it."""
    import subprocess

    if not sha or sha.startswith("-"):
        raise ValueError(f"invalid commit {sha!r}: give a commit id or a revision such as HEAD or v1.0")
    proc = subprocess.run(["git", "-C", os.fspath(repo), "show", "-s", "--no-show-signature", "--format=%cI",
                           f"{sha}^{{commit}}", "--"], capture_output=True, text=True)
    if proc.returncode != 0:
        reason = "; ".join(line.strip() for line in proc.stderr.splitlines() if line.strip())
        raise ValueError(f"commit {sha!r} cannot be read in {os.fspath(repo)}: {reason}")
    return datetime.fromisoformat(proc.stdout.strip())
