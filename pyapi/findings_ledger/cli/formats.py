"""The ``schema`` verb: print the JSON Schema of the drift-review or the
findings-file format (:mod:`findings_ledger.formats`), or validate a file
against it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .helpers import user_errors

#: :data:`findings_ledger.formats.NAMES` (the module, and jsonschema, load only when the verb runs).
NAMES = ("drift-review", "findings-file")


@click.command("schema")
@click.argument("name", type=click.Choice(NAMES), default="drift-review")
@click.option("--validate", "target", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="check this file against the schema instead (a drift-review .json, or a findings .md file's "
                   "front matter) and print each problem as '<JSON path>: <message>'")
@user_errors
def schema_command(name: str, target: Path | None) -> None:
    """Print the JSON Schema (draft 2020-12) of NAME: drift-review (the
    {"drift_findings": [...]} JSON) or findings-file (a findings file's
    front matter), resolved_when included."""
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
    for p in problems:
        click.echo(f"{target.name}: {p}")
    if problems:
        raise ValueError(f"{target.name} does not conform to the {name} schema ({len(problems)} problem(s))")
    click.echo(f"{target.name}: conforms to the {name} schema")


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [schema_command]
