"""JSON Schemas of the formats the importers read, shipped as package data
(``findings_ledger/schemas/*.json``, JSON Schema draft 2020-12):

* ``drift-review``: the drift-review JSON (``{"drift_findings": [...]}``),
  each entry with its optional ``resolved_when`` check;
* ``findings-file``: the YAML front matter of a ``YYYY-MM-DD-<slug>.md``
  findings file (YAML dates read as ISO strings).

``findings-ledger schema NAME`` prints one; :func:`validate` checks a
document against it with the ``jsonschema`` library and returns every
problem as ``<JSON path>: <message>``; :func:`checks` lists the checks of a
document, which ``findings-ledger schema --validate`` then gives to the
ledger's own validation (``ledger.validate_check``, what every write runs:
it also bounds a check's depth and size, rewrites or refuses patterns of
another regular-expression dialect and compiles them).

:func:`unstorable` finds the first text of a parsed document that
PostgreSQL cannot store (a NUL character, a lone surrogate), so that an
importer refuses the document before it writes anything.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from functools import cache
from importlib import resources
from typing import Any

#: The schema names, in the order ``findings-ledger schema`` lists them.
NAMES = ("drift-review", "findings-file")


@cache
def schema(name: str) -> dict[str, Any]:
    """The schema ``name`` (one of :data:`NAMES`) as a dict. Raises ``ValueError`` for another name."""
    if name not in NAMES:
        raise ValueError(f"unknown schema {name!r}; the schemas are: {', '.join(NAMES)}")
    text = resources.files("findings_ledger").joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def schema_text(name: str) -> str:
    """The schema as the package ships it (indented JSON)."""
    return json.dumps(schema(name), indent=2) + "\n"


def plain(value: Any) -> Any:
    """``value`` as JSON has it: YAML dates and times become ISO 8601 strings, keys strings."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return value


def validate(name: str, document: Any) -> list[str]:
    """Every problem of ``document`` against schema ``name``, as
    ``<JSON path>: <message>`` lines in path order; [] when it conforms.

    The messages are the importer's: a ``resolved_when`` check is described
    as the ledger's ``ledger._check_resolved_when`` describes it (one problem
    per check: ``unknown key 'file_exists' (expected path_exists, ...)``,
    ``5 is not a path string``, at the JSON path of the part at fault), and
    every value is shown as JSON, never as a Python repr."""
    import jsonschema

    data = plain(document)
    validator = jsonschema.Draft202012Validator(schema(name))
    problems: dict[str, str] = {}
    described: dict[str, bool] = {}  # per check: whether check_problem found what the schema refuses
    for e in validator.iter_errors(data):
        parts = list(e.absolute_path)
        if "resolved_when" in parts:
            # the check is described as the ledger describes it, once, at the part at fault
            cut = parts.index("resolved_when") + 1
            value = data
            for p in parts[:cut]:
                value = value[p]
            check_path = _json_path_of(parts[:cut])
            if check_path not in described:
                found = check_problem(value, check_path)
                described[check_path] = found is not None
                if found is not None:
                    problems.setdefault(found[0], found[1])
            if described[check_path]:
                continue
            # what only the schema refuses (an empty path): its most relevant error, in the same words
            while e.validator in ("oneOf", "anyOf") and e.context:
                e = max(e.context, key=lambda c: len(list(c.absolute_path)))  # the branch that got deepest
        problems.setdefault(e.json_path, _message(e))
    return [f"{path}: {message}" for path, message in sorted(problems.items(), key=lambda kv: _path_key(kv[0]))]


def _json_path_of(parts: list[Any]) -> str:
    path = "$"
    for p in parts:
        path = f"{path}[{p}]" if isinstance(p, int) else _json_path(path, str(p))
    return path


def _path_key(path: str) -> list[Any]:
    """A JSON path's sort key: member names as text, array indexes as numbers."""
    return [(1, int(p), "") if p.isdigit() else (0, 0, p) for p in re.findall(r"[^.\[\]]+", path)]


def _json_type(value: Any) -> str:
    """How the ledger names the JSON type of ``value`` (``jsonb_typeof``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def jsonb_text(value: Any, limit: int = 200) -> str:
    """``value`` as PostgreSQL writes a ``jsonb`` (``{"a": 1, "bb": [1, 2]}``: an object's
    keys shortest first, then in byte order), cut to ``limit`` characters as the ledger's
    messages cut it."""
    def text(v: Any) -> str:
        if isinstance(v, dict):
            keys = sorted(v, key=lambda k: (len(str(k).encode()), str(k).encode()))
            return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)}: {text(v[k])}" for k in keys) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(text(x) for x in v) + "]"
        return json.dumps(v, ensure_ascii=False)
    return text(value)[:limit]


_CHECK_KEYS = ("path_exists", "path_absent", "file_contains", "file_lacks", "all", "any")


def check_problem(check: Any, path: str, depth: int = 1) -> tuple[str, str] | None:
    """The first problem of a ``resolved_when`` check as ``(JSON path, message)`` in the words
    of ``ledger._check_resolved_when`` (the same order of tests), or None. The ledger's
    normalisation of paths and compilation of patterns are not repeated here."""
    if depth > 8:
        return path, "the check is nested deeper than 8 levels"
    if not isinstance(check, dict) or len(check) != 1:
        return path, (f"{jsonb_text(check)} is not one of {{\"path_exists\": ...}}, {{\"path_absent\": ...}}, "
                      "{\"file_contains\": {...}}, {\"file_lacks\": {...}}, {\"all\": [...]}, {\"any\": [...]} "
                      "(exactly one key)")
    key, value = next(iter(check.items()))
    part = f"{path}.{key}"
    if key in ("path_exists", "path_absent"):
        if not isinstance(value, str):
            return part, f"{jsonb_text(value)} is not a path string"
        return None
    if key in ("file_contains", "file_lacks"):
        if not isinstance(value, dict) or set(value) != {"path", "pattern"}:
            return part, f"{jsonb_text(value)} is not {{\"path\": \"<file>\", \"pattern\": \"<regex>\"}}"
        if not isinstance(value["path"], str):
            return f"{part}.path", f"{jsonb_text(value['path'])} is not a path string"
        if not isinstance(value["pattern"], str) or value["pattern"] == "":
            return f"{part}.pattern", f"{jsonb_text(value['pattern'])} is not a non-empty regular expression string"
        if len(value["pattern"]) > 1000:
            return f"{part}.pattern", f"{len(value['pattern'])} characters, at most 1000 are accepted"
        return None
    if key in ("all", "any"):
        if not isinstance(value, list) or not value:
            return part, f"{jsonb_text(value)} is not a non-empty array of checks"
        if len(value) > 64:
            return part, f"{len(value)} checks, at most 64 are accepted"
        for i, child in enumerate(value):
            found = check_problem(child, f"{part}[{i}]", depth + 1)
            if found is not None:
                return found
        return None
    return path, f"unknown key {key!r} (expected path_exists, path_absent, file_contains, file_lacks, all or any)"


def _message(error: Any) -> str:
    """A jsonschema error in the ledger's words, values as JSON."""
    value = error.instance
    if error.validator == "type":
        wanted = error.validator_value
        return f"expected {'an' if wanted in ('object', 'array', 'integer') else 'a'} {wanted}, got " \
               f"{_json_type(value)} {jsonb_text(value)}"
    if error.validator == "minLength" and isinstance(value, str):
        return f"expected a non-empty string, got {jsonb_text(value)}"
    if error.validator == "enum":
        return f"{jsonb_text(value)} is not one of {', '.join(jsonb_text(v) for v in error.validator_value)}"
    if error.validator == "required":
        missing = next((k for k in error.validator_value if isinstance(value, dict) and k not in value), "?")
        return f"{missing} is required"
    if error.validator == "additionalProperties" and isinstance(value, dict):
        known = list(error.schema.get("properties", {}))
        extra = next((k for k in value if k not in known), "?")
        return f"unknown key {extra!r} (expected {', '.join(known)})"
    return " ".join(error.message.split())


#: A character PostgreSQL text cannot hold (U+0000), or a UTF-16 surrogate, which only a
#: ``\uD800``-style JSON escape or YAML escape without its pair can put into a Python string.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _json_path(path: str, key: str) -> str:
    """``path`` followed by the member ``key``, as jsonschema writes JSON paths (``$.a.b``,
    ``$['a b']``)."""
    return f"{path}.{key}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else f"{path}[{key!r}]"


def _problem(text: str, where: str = "") -> str:
    """What makes ``text`` unstorable, ``where`` (`` in the key 'k'``) after its name."""
    char = _UNSTORABLE.search(text)
    assert char is not None
    code = ord(char.group())
    if code == 0:
        return f"a NUL character (U+0000){where}, which PostgreSQL text cannot store"
    return (f"a lone surrogate (U+{code:04X}){where}, not a Unicode character "
            "(half of a UTF-16 pair without the other half)")


def unstorable(value: Any, path: str = "$") -> str | None:
    """The first text of ``value`` (a parsed JSON or YAML document: its strings and its
    mappings' keys, depth first in document order) that PostgreSQL cannot store, as
    ``<JSON path>: <what it holds>`` (``$.drift_findings[1].description: a NUL character
    (U+0000), ...``; a key as ``$.entry: ... in the key 'k\\x00'``); None when every text
    can be stored."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if _UNSTORABLE.search(item):
                return f"{where}: {_problem(item)}"
        elif isinstance(item, dict):
            children = []
            for key, child in item.items():
                if isinstance(key, str) and _UNSTORABLE.search(key):
                    return f"{where}: {_problem(key, f' in the key {key!r}')}"
                children.append((_json_path(where, str(key)), child))
            stack.extend(reversed(children))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed([(f"{where}[{i}]", child) for i, child in enumerate(item)]))
    return None


def checks(name: str, document: Any) -> list[tuple[str, Any]]:
    """The checks (``resolved_when`` values) of ``document`` in format
    ``name``, each with its JSON path (``$.drift_findings[2].resolved_when``,
    ``$.resolved_when``), in document order; what is not where the format
    puts a check is left out."""
    document = plain(document)
    if name == "findings-file":
        has = isinstance(document, dict) and document.get("resolved_when") is not None
        return [("$.resolved_when", document["resolved_when"])] if has else []
    entries = document.get("drift_findings") if isinstance(document, dict) else None
    return [(f"$.drift_findings[{i}].resolved_when", e["resolved_when"]) for i, e in enumerate(entries or [])
            if isinstance(entries, list) and isinstance(e, dict) and e.get("resolved_when") is not None]
