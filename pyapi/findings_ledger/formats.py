"""JSON Schemas of the formats the importers read, shipped as package data
(``findings_ledger/schemas/*.json``, JSON Schema draft 2020-12):

* ``drift-review``: the drift-review JSON (``{"drift_findings": [...]}``),
  each entry with its optional ``resolved_when`` check;
* ``findings-file``: the YAML front matter of a ``YYYY-MM-DD-<slug>.md``
  findings file (YAML dates read as ISO strings).

``findings-ledger schema NAME`` prints one; :func:`validate` checks a
document against it with the ``jsonschema`` library and returns every
problem as ``<JSON path>: <message>`` (the ledger's own validation on write
stays the authority: it also bounds a check's depth and size and compiles
its patterns).

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


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return value


def validate(name: str, document: Any) -> list[str]:
    """Every problem of ``document`` against schema ``name``, as
    ``<JSON path>: <message>`` lines in path order; [] when it conforms."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema(name))
    errors = sorted(validator.iter_errors(_plain(document)), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{e.json_path}: {e.message}" for e in errors]


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
