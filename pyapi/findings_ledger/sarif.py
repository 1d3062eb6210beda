"""SARIF 2.1.0 in and out: a static analyser's run as a re-analysis, and the
ledger's findings as a SARIF log.

**In** (:func:`import_sarif`, ``findings-ledger import-findings run.sarif``).
The file is parsed with :mod:`json` and validated against the OASIS SARIF
2.1.0 JSON Schema shipped with the package (``schemas/sarif-schema-2.1.0.json``,
:mod:`jsonschema`; nothing is fetched at run time); then each run of the log
becomes one call of ``ledger.replace_findings`` with the run's tool
(``tool.driver.name``) and category (``automationDetails.id`` up to its last
``/``, SARIF's category; NULL without one): the run's results are the
complete new set of that tool and category, so a fingerprint not reported
again is retired (rule ``reanalysis``), a re-reported one stays the same
finding and takes its new line anchor (audit ``anchor_moved``), a new one is
added, and ``baselineState`` is passed on (``absent``: not present). Each
result becomes an element:

* ``finding_key``: ``sarif-`` + 24 hex digits of SHA-256 over the analysis
  source (``tool`` or ``tool/category``), the rule id, the path and the
  result's ``partialFingerprints`` (else its ``fingerprints``), code
  scanning's identity of an alert (a later result with the same rule, path
  and fingerprints is a true duplicate: imported once, a line in the run's
  ``warnings``); else a stable hash of
  the rule id, the path and the region's snippet: ``region.snippet.text``,
  else the region's lines read from the file under ``root``, else the
  message; such computed keys are numbered by occurrence, as code scanning
  numbers its line hashes, so two identical lines stay two findings);
* ``title``: ``<ruleId>: <first line of the message>`` (a run of
  findings-ledger's own export: the message's first paragraph, the title
  it was exported from, and the rest its description); ``description``:
  the whole message (``message.text``, else the rule's ``messageStrings``
  entry with its ``{0}`` arguments filled in);
* ``suppression``: from ``suppressions`` (semgrep's ``# nosemgrep`` is kind
  ``inSource``): the one deciding the result's state, ``{kind, status,
  justification}``; accepted (every suppression accepted, a status absent
  is accepted) makes the result not present, so its finding is not added
  or is retired by the re-analysis, the suppression in the audit;
  ``underReview`` and ``rejected`` leave it an active finding;
* ``severity``: from ``level`` (else the rule's default level, else
  ``warning``): error -> high, warning -> medium, note -> low, none -> info;
* ``paths``: the first location's physical artifact, relative to ``root``,
  with its lines: ``src/a.py:10-12`` from ``region.startLine``..``endLine``
  (the ledger keeps them as the finding's anchor);
* ``kind``: ``analysis``; ``source``: the analysis source.

Results of kind ``pass`` or ``notApplicable`` are not problems and are left
out. Bad input raises :class:`SarifRejected` (a ``ValueError``, one line
naming the file and the JSON path) before anything is written: a file over
``max_bytes``, not UTF-8 or not JSON, text PostgreSQL cannot store (a NUL
character or a lone surrogate, escaped as backslash-u 0000 or d800), a
version other than 2.1.0, a log
the schema rejects, a result without a physical location, a location
outside ``root`` (``..``, an absolute URI elsewhere, ``file://`` of another
host, a scheme other than ``file``, an absolute path in a git repository
below ``root``), two runs of one tool and category, more than ``max_results``
results. All runs of a file are imported in one transaction (a savepoint
inside the caller's): an error of the ledger's or an interruption leaves
every previous set as it was.

**Out** (:func:`export_sarif`, ``findings-ledger export SCOPE --format
sarif``): one run of driver ``findings-ledger`` holding the scope's active
findings (and with ``include_retired`` the superseded and dismissed ones,
``baselineState: "absent"``), valid against the same schema.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import psycopg
from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from . import formats, queries
from .errors import checked_arguments, translate
from .models import ReviewResult

#: The SARIF version this module reads and writes.
VERSION = "2.1.0"
#: The schema's URI, written as the ``$schema`` of an exported log.
SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: A file larger than this (bytes) is refused before it is read.
MAX_BYTES = 64 * 1024 * 1024
#: A file of this size (bytes) or more is validated by the compiled schema first (:func:`validate`).
FAST_VALIDATION_BYTES = 1024 * 1024
#: More results than this in one file are refused.
MAX_RESULTS = 100_000
#: The finding kind of an imported result.
KIND = "analysis"
#: The driver of :func:`export_sarif`'s run; a run of it imported again is read back as the findings it holds
#: (its rule id is the finding's kind, not a rule to put in front of the title).
EXPORT_DRIVER = "findings-ledger"
LEVEL_SEVERITY = {"error": "high", "warning": "medium", "note": "low", "none": "info"}
SEVERITY_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "none"}
_SKIPPED_KINDS = frozenset({"pass", "notApplicable"})
_SNIPPET_FILE_BYTES = 4 * 1024 * 1024


class SarifRejected(ValueError):
    """A SARIF file that cannot be imported: the message is one line naming
    the file and the JSON path (``$.runs[0].results[3].locations``)."""


@dataclass(frozen=True)
class SarifRun:
    """One run of a SARIF log, read: its ``tool``, ``category`` (None: none),
    ``review_run`` (the run's id in the audit), ``findings`` (the elements of
    ``ledger.replace_findings``), where it was in the file (``index``) and
    ``warnings``: one line per result read but not imported (a true
    duplicate: the same rule, file and fingerprints as an earlier result),
    and ``kind``, the re-analysed kind: ``analysis``, or None for the
    ledger's own log, whose elements carry their kinds."""

    index: int
    tool: str
    category: str | None
    review_run: str
    findings: list[dict[str, Any]]
    warnings: tuple[str, ...] = ()
    kind: str | None = KIND


@dataclass(frozen=True)
class SarifImport:
    """What importing one run did: the run and the counts of its re-analysis."""

    run: SarifRun
    result: ReviewResult
    anchors_moved: int


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The OASIS SARIF 2.1.0 JSON Schema shipped with the package."""
    text = resources.files("findings_ledger").joinpath("schemas/sarif-schema-2.1.0.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft4Validator

    return Draft4Validator(schema())


@lru_cache(maxsize=1)
def _fast_validator() -> Any:
    """The schema compiled to Python by :mod:`fastjsonschema` (once per
    process, about a second), formats not checked, as :func:`_validator`
    checks none: a callable raising ``fastjsonschema.JsonSchemaException``."""
    import fastjsonschema

    return fastjsonschema.compile(schema(), use_formats=False)


def validate(log: Any, name: str = "SARIF log", *, size: int = 0) -> None:
    """Raise :class:`SarifRejected` unless ``log`` is a SARIF 2.1.0 log the
    schema accepts; the message names the first (most relevant) error's JSON
    path. A log of ``size`` bytes from :data:`FAST_VALIDATION_BYTES` on is
    first validated by the compiled schema (:func:`_fast_validator`, some ten
    times faster than :mod:`jsonschema` on a large log); a log it refuses,
    and every smaller log, by :mod:`jsonschema`, whose verdict and best error
    decide."""
    if not isinstance(log, dict):
        raise SarifRejected(f"{name}: not a SARIF log: the top level is not a JSON object")
    version = log.get("version")
    if version != VERSION:
        raise SarifRejected(f"{name}: $.version: unknown SARIF version {version!r} (this reads {VERSION})")
    if size >= FAST_VALIDATION_BYTES:
        import fastjsonschema

        try:
            _fast_validator()(log)
            return
        except fastjsonschema.JsonSchemaException:
            pass  # jsonschema names the error below
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(log))
    if error is not None:
        message = " ".join(error.message.split())
        if len(message) > 200:
            message = message[:197] + "..."
        raise SarifRejected(f"{name}: {error.json_path}: invalid SARIF: {message}")


def load(path: str | os.PathLike[str], *, max_bytes: int = MAX_BYTES) -> Any:
    """The parsed and validated SARIF log at ``path``; raises
    :class:`SarifRejected` (over ``max_bytes``, not UTF-8, not JSON, text
    PostgreSQL cannot store, not a valid SARIF 2.1.0 log) or ``OSError``."""
    p = Path(path)
    size = p.stat().st_size
    if size > max_bytes:
        raise SarifRejected(f"{p.name}: {size} bytes, over the limit of {max_bytes} bytes for a SARIF file")
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SarifRejected(f"{p.name}: not a SARIF log: the file is not UTF-8 text") from None
    try:
        log = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SarifRejected(
            f"{p.name}: not a SARIF log: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise SarifRejected(f"{p.name}: not a SARIF log: the JSON is nested too deeply") from None
    problem = formats.unstorable(log)
    if problem is not None:
        raise SarifRejected(f"{p.name}: {problem}")
    validate(log, p.name, size=size)
    return log


def category_of(automation_id: str | None) -> tuple[str | None, str | None]:
    """SARIF's ``automationDetails.id`` as (category, instance): the part up
    to the last ``/`` is the category, the rest the run's instance id
    (``"nightly/2026-12-02"`` -> ``("nightly", "2026-12-02")``; ``"x"`` ->
    ``(None, "x")``)."""
    if not automation_id:
        return None, None
    category, slash, instance = automation_id.rpartition("/")
    if not slash:
        return None, automation_id
    return category.rstrip("/") or None, instance or None


def _message(result: Mapping[str, Any], rule: Mapping[str, Any] | None) -> str:
    message = result.get("message") or {}
    text = message.get("text") or message.get("markdown")
    if text is None and rule is not None and message.get("id"):
        entry = (rule.get("messageStrings") or {}).get(message["id"]) or {}
        text = entry.get("text") or entry.get("markdown")
    if text is None:
        return str(message.get("id") or "")
    args = [str(a) for a in message.get("arguments") or []]
    return re.sub(r"\{(\d+)\}", lambda m: args[int(m.group(1))] if int(m.group(1)) < len(args) else m.group(0),
                  str(text))


def _rule(run: Mapping[str, Any], result: Mapping[str, Any]) -> Mapping[str, Any] | None:
    rules = ((run.get("tool") or {}).get("driver") or {}).get("rules") or []
    index = result.get("ruleIndex", (result.get("rule") or {}).get("index", -1))
    if isinstance(index, int) and 0 <= index < len(rules):
        rule: Mapping[str, Any] = rules[index]
        return rule
    rule_id = result.get("ruleId") or (result.get("rule") or {}).get("id")
    return next((r for r in rules if r.get("id") == rule_id), None)


def _base_uri(run: Mapping[str, Any], base_id: str | None, where: str, depth: int = 0) -> str | None:
    """The absolute URI a ``uriBaseId`` stands for (``originalUriBaseIds``), or None when unknown."""
    if base_id is None:
        return None
    bases = run.get("originalUriBaseIds") or {}
    base = bases.get(base_id)
    if base is None or depth > 10:
        return None
    uri = str(base.get("uri") or "")
    parent = _base_uri(run, base.get("uriBaseId"), where, depth + 1)
    if parent is not None and not urlsplit(uri).scheme:
        uri = parent.rstrip("/") + "/" + uri
    return uri


def _producer_root(producer_root: str | os.PathLike[str] | None) -> str | None:
    """The producer's checkout as an absolute POSIX path without a trailing
    ``/`` (a path or a ``file:`` URI), or None."""
    if producer_root is None:
        return None
    text = os.fspath(producer_root)
    parts = urlsplit(text)
    if parts.scheme.lower() == "file":
        text = unquote(parts.path)
    if not text.startswith("/"):
        raise SarifRejected(f"producer root {os.fspath(producer_root)!r}: not an absolute path or file: URI")
    return posixpath.normpath(text).rstrip("/") or "/"


def _under(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` (both absolute and normalised), or None outside it."""
    if path == root:
        return ""
    prefix = root.rstrip("/") + "/"
    return path[len(prefix):] if path.startswith(prefix) else None


def repository_path(uri: str, root: Path, *, base: str | None = None, where: str = "uri",
                    producer_root: str | os.PathLike[str] | None = None) -> str:
    """A location's URI as a path relative to ``root``. A relative URI (after
    its ``uriBaseId`` base, when that is known) is relative to ``root``; a
    base that is the file system's root (``file:///``, as trivy writes) with
    a relative URI under it is dropped, the URI relative to ``root``.
    ``file:`` URIs of this host (no host or ``localhost``) and absolute
    paths must lie under ``producer_root`` (the checkout the log was made in,
    a path or ``file:`` URI, when given: the path is relative to it) or under
    ``root``; one under ``root`` inside a git repository below ``root``
    (``root`` a parent of the repository) is refused, since its path would
    name no file of that repository. Raises :class:`SarifRejected` naming
    ``where`` for ``..`` leaving the repository, another host, another
    scheme, an absolute path outside both roots, or a root above the
    repository."""
    if base is not None:
        if urlsplit(uri).scheme or uri.startswith("/"):
            pass  # an absolute URI ignores its base
        elif urlsplit(base).scheme.lower() == "file" and urlsplit(base).netloc in ("", "localhost") \
                and unquote(urlsplit(base).path).strip("/") == "":
            pass  # file:/// as the base: the URI is relative to the repository
        else:
            uri = base.rstrip("/") + "/" + uri
    parts = urlsplit(uri)
    if parts.scheme and parts.scheme.lower() != "file" and len(parts.scheme) > 1:
        raise SarifRejected(f"{where}: {uri!r} is not a file in the repository (scheme {parts.scheme}:)")
    if parts.scheme.lower() == "file":
        if parts.netloc not in ("", "localhost"):
            raise SarifRejected(f"{where}: {uri!r} is a file of another host ({parts.netloc})")
        absolute = unquote(parts.path)
    else:
        absolute = unquote(parts.path if not parts.query and not parts.fragment else uri)
    root_text = os.path.normpath(os.path.abspath(root)).replace(os.sep, "/")
    if absolute.startswith("/"):
        normal = posixpath.normpath(absolute)
        producer = _producer_root(producer_root)
        relative = _under(normal, producer) if producer is not None else None
        if relative is None:
            relative = _under(normal, root_text)
            if relative is None:
                elsewhere = f" or the producer root {producer}" if producer is not None else ""
                raise SarifRejected(f"{where}: {uri!r} is outside the repository {root_text}{elsewhere}")
            nested = _repository_below(root_text, relative)
            if nested is not None:
                raise SarifRejected(
                    f"{where}: {uri!r} lies in the git repository {nested}, below the root {root_text}: its path "
                    f"would be stored as {relative!r}, which no merge of that repository names (give --root {nested})")
    else:
        relative = os.path.normpath(absolute).replace(os.sep, "/") if absolute else ""
        if relative == ".." or relative.startswith("../") or PurePosixPath(relative).is_absolute():
            raise SarifRejected(f"{where}: {uri!r} leaves the repository (..)")
    if relative in ("", "."):
        raise SarifRejected(f"{where}: {uri!r} names the repository itself, not a file")
    return relative


def _repository_below(root_text: str, relative: str) -> str | None:
    """The top directory of a git work tree (``.git`` present) between ``root_text``
    (a directory that is not one itself) and the file ``relative`` under it, else None."""
    if os.path.exists(os.path.join(root_text, ".git")):
        return None
    parts = relative.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        candidate = os.path.join(root_text, *parts[:i])
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
    return None


def _snippet(region: Mapping[str, Any], root: Path, path: str) -> str | None:
    """The region's text: ``region.snippet.text``, else its lines read from
    the file (whitespace at both ends of each line dropped), else None."""
    snippet = (region.get("snippet") or {}).get("text")
    if snippet is not None:
        return "\n".join(line.strip() for line in str(snippet).splitlines())
    start = region.get("startLine")
    if not isinstance(start, int):
        return None
    end = region.get("endLine", start)
    file = root / path
    try:
        if not file.is_file() or file.stat().st_size > _SNIPPET_FILE_BYTES:
            return None
        lines = file.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    if start > len(lines):
        return None
    return "\n".join(line.strip() for line in lines[start - 1:max(start, end)])


def _suppression(suppressions: Any) -> dict[str, str] | None:
    """The suppression deciding a result's state, as ``replace_findings``
    reads it ({kind, status, justification}), or None without any: SARIF's
    rule, a result is suppressed when every suppression is accepted (a
    status absent is accepted); one rejected, else one under review, decides
    otherwise."""
    if not suppressions:
        return None
    for status in ("rejected", "underReview", "accepted"):
        chosen = next((x for x in suppressions if x.get("status", "accepted") == status), None)
        if chosen is not None:
            break
    else:  # pragma: no cover - the schema allows only these three statuses
        return None
    out = {"kind": str(chosen["kind"]), "status": status}
    if chosen.get("justification"):
        out["justification"] = str(chosen["justification"])
    return out


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def read_run(run: Mapping[str, Any], index: int, root: Path, *, name: str, file_digest: str,
             producer_root: str | os.PathLike[str] | None = None) -> SarifRun:
    """One run of a validated log as a :class:`SarifRun` (see the module docstring)."""
    tool = str(run["tool"]["driver"]["name"])
    own = tool == EXPORT_DRIVER
    automation = run.get("automationDetails") or {}
    category, instance = category_of(automation.get("id"))
    source = tool + (f"/{category}" if category else "")
    review_run = str(automation.get("guid") or instance or f"{source}@{file_digest[:12]}")[:200]
    if tool == EXPORT_DRIVER:
        return _read_own_run(run, index, root, name=name, tool=tool, category=category, review_run=review_run,
                             producer_root=producer_root)
    findings: list[dict[str, Any]] = []
    warnings: list[str] = []
    seen: dict[str, int] = {}
    occurrences: dict[str, int] = {}
    for i, result in enumerate(run.get("results") or []):
        where = f"{name}: $.runs[{index}].results[{i}]"
        if result.get("kind", "fail") in _SKIPPED_KINDS:
            continue
        rule = _rule(run, result)
        rule_id = result.get("ruleId") or (result.get("rule") or {}).get("id") or (rule or {}).get("id")
        locations = result.get("locations") or []
        physical = next((loc.get("physicalLocation") for loc in locations if loc.get("physicalLocation")), None)
        if physical is None:
            raise SarifRejected(f"{where}.locations: a result without a physical location")
        artifact = physical.get("artifactLocation") or {}
        if "uri" not in artifact and isinstance(artifact.get("index"), int):
            artifacts = run.get("artifacts") or []
            if 0 <= artifact["index"] < len(artifacts):
                artifact = {**(artifacts[artifact["index"]].get("location") or {}), **artifact}
        if not artifact.get("uri"):
            raise SarifRejected(f"{where}.locations[0].physicalLocation.artifactLocation: no uri")
        path = repository_path(str(artifact["uri"]), root,
                               base=_base_uri(run, artifact.get("uriBaseId"), where),
                               where=f"{where}.locations[0].physicalLocation.artifactLocation.uri",
                               producer_root=producer_root)
        region = physical.get("region") or {}
        start = region.get("startLine")
        anchored = path
        if isinstance(start, int) and start >= 1:
            end = region.get("endLine", start)
            anchored = f"{path}:{start}-{max(start, end)}" if end != start else f"{path}:{start}"
        text = _message(result, rule)
        fingerprints = result.get("partialFingerprints") or result.get("fingerprints")
        if fingerprints:
            # code scanning's identity: the rule, the file and the fingerprints (a line hash is shared by two
            # rules on one line and by one rule on two identical files)
            material = json.dumps(sorted(fingerprints.items()), ensure_ascii=False)
            ident = "\0".join((str(rule_id or ""), path, material))
            if ident in seen:
                field = "partialFingerprints" if result.get("partialFingerprints") else "fingerprints"
                warnings.append(f"{where}.{field}: rule {rule_id!r} in {path!r} with {material} repeats result "
                                f"{seen[ident]} of the run: imported once")
                continue
            seen[ident] = i
            key = "sarif-" + _digest(source, ident)[:24]
        else:
            snippet = _snippet(region, root, path)
            material = "\0".join((str(rule_id or ""), path, snippet if snippet is not None else text))
            occurrences[material] = occurrences.get(material, 0) + 1
            key = "sarif-" + _digest(source, material, str(occurrences[material]))[:24]
        level = result.get("level") or ((rule or {}).get("defaultConfiguration") or {}).get("level") or "warning"
        first_line = next((line.strip() for line in text.splitlines() if line.strip()), "") or "(no message)"
        if own:
            # findings-ledger's export: the rule is the finding's kind, the message its title and
            # description (export_sarif)
            title, _, rest = text.partition("\n\n")
            title, description = title.strip() or first_line, rest.strip() or None
        else:
            title = f"{rule_id}: {first_line}" if rule_id else first_line
            description = text if text.strip() and text.strip() != first_line else None
        element: dict[str, Any] = {
            "finding_key": key,
            "title": title if len(title) <= 1000 else title[:999] + "…",
            "description": description,
            "severity": LEVEL_SEVERITY.get(str(level), "medium"),
            "paths": [anchored],
            "kind": KIND,
        }
        if result.get("baselineState"):
            element["baseline_state"] = result["baselineState"]
        suppression = _suppression(result.get("suppressions"))
        if suppression is not None:
            element["suppression"] = suppression
        findings.append(element)
    return SarifRun(index=index, tool=tool, category=category, review_run=review_run, findings=findings,
                    warnings=tuple(warnings))


def _read_own_run(run: Mapping[str, Any], index: int, root: Path, *, name: str, tool: str, category: str | None,
                  review_run: str, producer_root: str | os.PathLike[str] | None) -> SarifRun:
    """A run of the ledger's own export (driver ``findings-ledger``) read back
    as the findings it was written from: the key from
    ``partialFingerprints.findingKey``, the kind from ``ruleId``, the title
    and description from the message (split at its first blank line), the
    severity from ``properties.severity``, every location's path (a
    directory's ``/`` kept) with its region's lines; a result without a
    location is a finding without paths."""
    findings: list[dict[str, Any]] = []
    for i, result in enumerate(run.get("results") or []):
        where = f"{name}: $.runs[{index}].results[{i}]"
        key = (result.get("partialFingerprints") or {}).get("findingKey")
        if not key:
            raise SarifRejected(f"{where}.partialFingerprints: no findingKey in a log of {EXPORT_DRIVER}")
        title, _, description = _message(result, None).partition("\n\n")
        properties = result.get("properties") or {}
        level = result.get("level") or "warning"
        paths = []
        for j, location in enumerate(result.get("locations") or []):
            physical = location.get("physicalLocation") or {}
            uri = (physical.get("artifactLocation") or {}).get("uri")
            if not uri:
                raise SarifRejected(f"{where}.locations[{j}].physicalLocation.artifactLocation: no uri")
            path = repository_path(str(uri), root, producer_root=producer_root,
                                   where=f"{where}.locations[{j}].physicalLocation.artifactLocation.uri")
            if str(uri).endswith("/"):
                path += "/"
            region = physical.get("region") or {}
            start = region.get("startLine")
            if isinstance(start, int) and start >= 1:
                end = max(start, region.get("endLine", start))
                path += f":{start}-{end}" if end != start else f":{start}"
            paths.append(path)
        element: dict[str, Any] = {
            "finding_key": str(key),
            "title": title,
            "description": description or None,
            "severity": str(properties.get("severity") or LEVEL_SEVERITY.get(str(level), "medium")),
            "paths": paths,
            "kind": str(result.get("ruleId") or KIND),
        }
        if result.get("baselineState"):
            element["baseline_state"] = result["baselineState"]
        findings.append(element)
    return SarifRun(index=index, tool=tool, category=category, review_run=review_run, findings=findings, kind=None)


def read_sarif(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None,
               max_bytes: int = MAX_BYTES, max_results: int = MAX_RESULTS,
               producer_root: str | os.PathLike[str] | None = None) -> list[SarifRun]:
    """The runs of the SARIF log at ``path``, read and checked (see the module
    docstring); ``root`` is the repository the locations are relative to
    (None: the current directory); ``producer_root`` the checkout the log
    was made in (a path or ``file:`` URI: a CI job's), whose absolute URIs
    are relative to it. Raises :class:`SarifRejected`."""
    p = Path(path)
    log = load(p, max_bytes=max_bytes)
    total = sum(len(r.get("results") or []) for r in log["runs"])
    if total > max_results:
        raise SarifRejected(f"{p.name}: $.runs: {total} results, over the limit of {max_results}")
    digest = _digest(p.read_bytes().decode("utf-8-sig"))
    base = Path(root) if root is not None else Path.cwd()
    producer = _producer_root(producer_root)
    runs = [read_run(run, i, base, name=p.name, file_digest=digest, producer_root=producer)
            for i, run in enumerate(log["runs"])]
    seen: dict[tuple[str, str | None], int] = {}
    for run in runs:
        ident = (run.tool, run.category)
        if ident in seen:
            raise SarifRejected(f"{p.name}: $.runs[{run.index}]: a second run of tool {run.tool!r} and category "
                                f"{run.category!r} (the first is $.runs[{seen[ident]}])")
        seen[ident] = run.index
    return runs


def watch_client(conn: psycopg.Connection[Any]) -> None:
    """For the rest of the caller's transaction, have the backend check every
    second that the client is still connected (``client_connection_check_interval``,
    PostgreSQL 14 and later; nothing on 13): an import whose client died is
    rolled back within a second and releases the scope's lock, instead of
    running on to its end. A ``statement_timeout`` the caller sets bounds
    the import the same way (one statement per run)."""
    if conn.info.server_version >= 140000:
        with conn.cursor() as cur:
            cur.execute(queries.WATCH_CLIENT)


def replace_run(conn: psycopg.Connection[Any], scope: str, run: SarifRun, *,
                actor: str | None = None) -> SarifImport:
    """One run as a re-analysis of ``scope`` (``ledger.replace_findings`` with
    its tool and category). Raises the ledger's typed errors."""
    params = {"scope": scope, "kind": run.kind, "review_run": run.review_run, "findings": Jsonb(run.findings),
              "actor": actor, "tool": run.tool, "category": run.category}
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.REPLACE_ANALYSIS, params)
        row = cur.fetchone()
    assert row is not None
    return SarifImport(run=run, result=ReviewResult(*row[:6]), anchors_moved=row[6])


@checked_arguments
def import_sarif(conn: psycopg.Connection[Any], scope: str, path: str | os.PathLike[str], *,
                 root: str | os.PathLike[str] | None = None, actor: str | None = None,
                 max_bytes: int = MAX_BYTES, max_results: int = MAX_RESULTS,
                 producer_root: str | os.PathLike[str] | None = None) -> list[SarifImport]:
    """Import the SARIF log at ``path`` into ``scope``: each run replaces the
    previous set of its tool and category (see the module docstring), all
    runs in one transaction (a savepoint when ``conn`` is in one already),
    in which the backend watches for the client's death (:func:`watch_client`).
    Raises :class:`SarifRejected` before anything is written, and the
    ledger's typed errors (nothing of the file written)."""
    runs = read_sarif(path, root=root, max_bytes=max_bytes, max_results=max_results, producer_root=producer_root)
    with conn.transaction():
        watch_client(conn)
        return [replace_run(conn, scope, run, actor=actor) for run in runs]


@dataclass(frozen=True)
class ExportedFinding:
    """A finding as :func:`export_sarif` reads it."""

    id: int
    finding_key: str | None
    kind: str
    severity: str
    title: str
    description: str | None
    paths: list[str]
    anchors: dict[str, list[int]] | None
    source: str | None
    state: str


@checked_arguments
def export_sarif(conn: psycopg.Connection[Any], scope: str, *, include_retired: bool = False) -> dict[str, Any]:
    """The findings of ``scope`` as a SARIF 2.1.0 log (a dict for
    :func:`json.dumps`): the active ones, and with ``include_retired`` the
    superseded and dismissed ones too (``baselineState: "absent"``). One run
    of driver ``findings-ledger``; each result's ``ruleId`` is the finding's
    kind, its message the title (and description), its level from the
    severity, its locations the finding's paths (with their anchored lines as
    the region), ``partialFingerprints.findingKey`` the finding key (else
    its id). Two statements in the caller's transaction (the scope's check,
    then the read). Raises ``NotFound`` (LD005) for an unknown scope."""
    with translate(conn), conn.cursor(row_factory=class_row(ExportedFinding)) as cur:
        cur.execute(queries.CHECK_SCOPE_KNOWN, {"scope": scope})
        cur.execute(queries.EXPORT_FINDINGS, {"scope": scope, "include_retired": include_retired})
        rows = cur.fetchall()
    from importlib.metadata import PackageNotFoundError, version

    try:
        tool_version = version("findings-ledger")
    except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
        tool_version = "0"
    kinds = sorted({f.kind for f in rows})
    results = [_result(f, kinds.index(f.kind)) for f in rows]
    return {
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": EXPORT_DRIVER,
                "version": tool_version,
                "informationUri": "https://pypi.org/project/findings-ledger/",
                "rules": [{"id": k, "shortDescription": {"text": f"a finding of kind {k}"}} for k in kinds],
            }},
            "automationDetails": {"id": f"findings-ledger/{scope}"},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def _result(f: ExportedFinding, rule_index: int) -> dict[str, Any]:
    text = f.title if not f.description else f"{f.title}\n\n{f.description}"
    locations = []
    for path in f.paths:
        physical: dict[str, Any] = {"artifactLocation": {"uri": quote(path, safe="/")}}
        lines = (f.anchors or {}).get(path)
        if lines:
            physical["region"] = {"startLine": lines[0], "endLine": lines[1]}
        locations.append({"physicalLocation": physical})
    result: dict[str, Any] = {
        "ruleId": f.kind,
        "ruleIndex": rule_index,
        "level": SEVERITY_LEVEL.get(f.severity, "warning"),
        "message": {"text": text},
        "partialFingerprints": {"findingKey": f.finding_key or f"id:{f.id}"},
        "properties": {"findingId": f.id, "severity": f.severity, "state": f.state,
                       **({"source": f.source} if f.source else {})},
    }
    if locations:
        result["locations"] = locations
    if f.state != "active":
        result["baselineState"] = "absent"
    return result


def write_sarif(log: Mapping[str, Any], out: Any) -> None:
    """Write ``log`` as JSON (two-space indent, UTF-8 text) to the text stream ``out``."""
    json.dump(log, out, indent=2, ensure_ascii=False)
    out.write("\n")


def is_sarif_path(path: str | os.PathLike[str]) -> bool:
    """Whether a file name says SARIF: ``*.sarif`` or ``*.sarif.json``."""
    name = Path(path).name.lower()
    return name.endswith(".sarif") or name.endswith(".sarif.json")


__all__: Sequence[str] = (
    "SarifImport", "SarifRejected", "SarifRun", "export_sarif", "import_sarif", "read_sarif", "validate",
)
