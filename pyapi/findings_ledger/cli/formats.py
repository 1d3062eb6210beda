"""The ``schema`` verb: print the JSON Schema of the drift-review or the
findings-file format (:mod:`findings_ledger.formats`), or validate a file
against it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .helpers import connect, dsn_option, user_errors

#: :data:`findings_ledger.formats.NAMES` (the module, and jsonschema, load only when the verb runs).
NAMES = ("drift-review", "findings-file")


@click.command("schema")
@click.argument("name", type=click.Choice(NAMES), default="drift-review")
@click.option("--validate", "target", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="check this file against the schema instead (a drift-review .json, or a findings .md file's "
                   "front matter) and print each problem as '<JSON path>: <message>'; each check (resolved_when) "
                   "also goes through the ledger's own validation, on --dsn")
@dsn_option
@user_errors
def schema_command(name: str, target: Path | None, dsn: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of NAME: drift-review (the
    {"drift_findings": [...]} JSON) or findings-file (a findings file's
    front matter), resolved_when included.

    With --validate FILE: the problems of FILE against the schema, then
    each check the schema accepts is validated by the ledger
    (ledger.validate_check on --dsn, what every write of a finding runs),
    which names what it refuses (a pattern in another regular-expression
    dialect: LD105) and prints 'stored as' when it would store the check
    in another form (a path normalised, \\b written \\y)."""
    import frontmatter
    import yaml

    from .. import formats

    if target is None:
        click.echo(formats.schema_text(name), nl=False)
        return
    try:
        if name == "findings-file":
            document = frontmatter.load(str(target)).metadata
        else:
            document = json.loads(target.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {target}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ValueError(f"{target} cannot be parsed: {' '.join(str(exc).split())}") from None
    problems = formats.validate(name, document)
    flagged = [p.split(": ", 1)[0] for p in problems]
    todo = [(path, check) for path, check in formats.checks(name, document)
            if not any(f == path or f.startswith((path + ".", path + "[")) for f in flagged)]
    notes = []
    if todo:
        from ..errors import LedgerError
        from ..importers import validate_check

        with connect(dsn) as conn:
            for path, check in todo:
                try:
                    stored = validate_check(conn, check, path)
                except LedgerError as exc:
                    problems.append(f"{exc} [{exc.sqlstate}]")
                else:
                    if stored != formats.plain(check):
                        notes.append(f"{path}: stored as {json.dumps(stored, ensure_ascii=False)}")
    for p in problems:
        click.echo(f"{target.name}: {p}")
    for note in notes:
        click.echo(f"{target.name}: {note}")
    if problems:
        raise ValueError(f"{target.name} does not conform to the {name} schema ({len(problems)} problem(s))")
    click.echo(f"{target.name}: conforms to the {name} schema")


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [schema_command]
