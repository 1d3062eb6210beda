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
"""

from __future__ import annotations

import json
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
    ``<JSON path>: <message>`` lines in path order; [] when it conforms."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema(name))
    errors = sorted(validator.iter_errors(plain(document)), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{e.json_path}: {e.message}" for e in errors]


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
