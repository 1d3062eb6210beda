"""Every example the README and docs/ show with output runs from the checkout as shown.

In the Markdown, a fenced block right after ``<!-- source-of: FILE -->`` must
be FILE's full text, and a fenced block right after ``<!-- output-of: EXAMPLE -->``
must be a contiguous run of lines of what EXAMPLE really prints; within a
page, the blocks of one example must come in the order it prints them, and
the last block of a ``psql -a`` example (which echoes every statement) must
end where its output ends. EXAMPLE is a file of docs/examples/ or
``findings-ledger demo``; ``EXAMPLES`` says how each one runs. Each runs on a
fresh database migrated to head (the plugin's ``ledger_dsn_factory``), except
the README's quickstart.sql and quickstart.py, which share one, in the
README's order. Only volatile values are normalised: timestamps and the
demo's scope suffix. docs/testing.md describes the convention."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from findings_ledger.testing.schema_dump import client_binary

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
EXAMPLES_DIR = ROOT / "docs" / "examples"
BIN = Path(sys.executable).parent
# seconds; the limit only stops a hung example and measures nothing: cli.sh starts the CLI 15 times,
# which takes minutes on a loaded 2-core machine
EXAMPLE_TIMEOUT = 1200
CLI = str(BIN / "findings-ledger") if (BIN / "findings-ledger").exists() else "findings-ledger"

# How each example runs, as the docs tell a reader to run it (from the checkout,
# LEDGER_DSN set); for psql, ``-d DSN`` is added.
EXAMPLES: dict[str, list[str]] = {
    "docs/examples/quickstart.sql": ["psql", "-X", "-v", "ON_ERROR_STOP=1", "-f", "docs/examples/quickstart.sql"],
    "docs/examples/quickstart.py": ["python", "docs/examples/quickstart.py"],
    "docs/examples/service.sql": ["psql", "-X", "-v", "ON_ERROR_STOP=1", "-f", "docs/examples/service.sql"],
    "docs/examples/paths.sql": ["psql", "-X", "-a", "-f", "docs/examples/paths.sql"],
    "docs/examples/matching.sql": ["psql", "-X", "-v", "ON_ERROR_STOP=1", "-f", "docs/examples/matching.sql"],
    "docs/examples/file_states.sql": ["psql", "-X", "-a", "-f", "docs/examples/file_states.sql"],
    "docs/examples/lifecycle.sql": ["psql", "-X", "-a", "-f", "docs/examples/lifecycle.sql"],
    "docs/examples/claims.sql": ["psql", "-X", "-a", "-f", "docs/examples/claims.sql"],
    "docs/examples/claims.py": ["python", "docs/examples/claims.py"],
    "docs/examples/security.sql": ["psql", "-X", "-a", "-f", "docs/examples/security.sql"],
    "docs/examples/cli.sh": ["bash", "docs/examples/cli.sh"],
    "docs/examples/scaling_readiness.sql": ["psql", "-X", "-v", "ON_ERROR_STOP=1", "-f",
                                            "docs/examples/scaling_readiness.sql"],
    "docs/examples/mcp_session.py": ["python", "docs/examples/mcp_session.py"],
    "findings-ledger demo": ["findings-ledger", "demo"],
}
# Examples that run on the database an earlier one wrote (the README's order).
SHARED_DATABASE = {"docs/examples/quickstart.py": "docs/examples/quickstart.sql"}

MARKER = re.compile(r"^<!--\s*(source-of|output-of):\s*(.+?)\s*-->\s*$")
FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
# What a block of output looks like: a psql row count, a psql error, a shell prompt.
LOOKS_LIKE_OUTPUT = re.compile(r"^(\(\d+ rows?\)|psql:\S+: (ERROR|WARNING)|\$ \S)", re.M)
VOLATILE = [
    (re.compile(r"\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\b"), "YYYY-MM-DD HH:MM:SS"),
    (re.compile(r"\b(demo-07_nightshift_standalone_cli-)\d{8}T\d{6}Z-[0-9a-f]+"), r"\1YYYYMMDDTHHMMSSZ-xxxxxx"),
]

@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    kind: str | None  # "source-of", "output-of" or None (no marker)
    target: str | None
    text: str

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

def fenced_blocks(page: Path) -> list[Block]:
    """Every top-level fenced block of ``page`` with the marker before it, if any."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: tuple[str, str] | None = None
    i = 0
    while i < len(lines):
        marker = MARKER.match(lines[i])
        fence = FENCE.match(lines[i].lstrip())
        if marker:
            pending = (marker.group(1), marker.group(2))
        elif fence:
            opener = fence.group(1)
            closer = re.compile(re.escape(opener[0]) + "{" + str(len(opener)) + ",}")
            start = i
            i += 1
            body: list[str] = []
            while i < len(lines) and not closer.fullmatch(lines[i].strip()):
                body.append(lines[i])
                i += 1
            # an indented fence (inside a list item) carries its indentation on every line
            indent = len(lines[start]) - len(lines[start].lstrip())
            text = "\n".join(line[indent:] if line[:indent].strip() == "" else line for line in body)
            kind, target = pending or (None, None)
            blocks.append(Block(page, start + 1, kind, target, text))
            pending = None
        elif lines[i].strip() and pending is not None:
            raise AssertionError(f"{page.relative_to(ROOT)}:{i + 1}: a marker must be followed by a fenced block")
        i += 1
    return blocks

BLOCKS = [block for page in PAGES for block in fenced_blocks(page)]

def normalised_lines(text: str) -> list[str]:
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines

def environment(dsn: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG") and k not in ("COLUMNS", "LINES")}
    env.update(
        LEDGER_DSN=dsn,
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
        LC_ALL="C.UTF-8",
        PGCLIENTENCODING="UTF8",
    )
    return env

def run_example(name: str, dsn: str) -> str:
    argv = list(EXAMPLES[name])
    if argv[0] == "psql":
        argv = [client_binary("psql"), "-d", dsn, *argv[1:]]
    elif argv[0] == "python":
        argv[0] = sys.executable
    elif argv[0] == "findings-ledger":
        argv[0] = CLI
    proc = subprocess.run(
        argv, cwd=ROOT, env=environment(dsn), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, timeout=EXAMPLE_TIMEOUT,
    )  # fmt: skip
    assert proc.returncode == 0, f"{' '.join(EXAMPLES[name])} exited {proc.returncode}:\n{proc.stdout}"
    return proc.stdout

def find_in_order(shown: list[str], output: list[str], start: int) -> int:
    """Index just past the first occurrence of ``shown`` in ``output`` at or after ``start``, or -1."""
    for i in range(start, len(output) - len(shown) + 1):
        if output[i : i + len(shown)] == shown:
            return i + len(shown)
    return -1

def test_every_marker_names_a_known_example_and_every_example_is_shown() -> None:
    for block in BLOCKS:
        if block.kind == "output-of":
            assert block.target in EXAMPLES, f"{block.where()}: no such example {block.target!r} in EXAMPLES"
        if block.kind == "source-of":
            assert (ROOT / str(block.target)).is_file(), f"{block.where()}: no such file {block.target!r}"
    shown = {block.target for block in BLOCKS if block.kind == "output-of"}
    assert sorted(set(EXAMPLES) - shown) == [], "examples whose output no page shows"
    files = {str(p.relative_to(ROOT)) for p in EXAMPLES_DIR.iterdir() if p.is_file()}
    assert sorted(files - set(EXAMPLES)) == [], "files in docs/examples/ that no test runs"

def test_each_example_names_the_command_the_docs_run_it_with() -> None:
    for name, argv in EXAMPLES.items():
        if name.startswith("docs/examples/") and argv[0] == "psql":
            assert " ".join(argv) in (ROOT / name).read_text(encoding="utf-8"), f"{name}: header must say how it runs"

def test_every_block_that_shows_output_is_an_example() -> None:
    unmarked = [b.where() for b in BLOCKS if b.kind is None and LOOKS_LIKE_OUTPUT.search(b.text)]
    assert unmarked == [], "blocks that show output without an <!-- output-of: ... --> marker"

def test_source_blocks_show_the_files_as_they_are() -> None:
    for block in BLOCKS:
        if block.kind == "source-of":
            text = (ROOT / str(block.target)).read_text(encoding="utf-8")
            shown = normalised_lines(block.text)
            assert shown == normalised_lines(text), f"{block.where()} differs from {block.target}"

@pytest.mark.parametrize("name", list(EXAMPLES))
def test_the_output_shown_is_the_real_output(name: str, ledger_dsn_factory: Callable[[], str]) -> None:
    dsn = ledger_dsn_factory()
    if name in SHARED_DATABASE:
        run_example(SHARED_DATABASE[name], dsn)
    output = normalised_lines(run_example(name, dsn))
    blocks = [b for b in BLOCKS if b.kind == "output-of" and b.target == name]
    assert blocks
    position, page = 0, blocks[0].page
    for block in blocks:
        if block.page != page:
            position, page = 0, block.page
        shown = normalised_lines(block.text)
        assert shown, f"{block.where()}: empty output block"
        found = find_in_order(shown, output, position)
        if found < 0:
            anywhere = find_in_order(shown, output, 0)
            hint = "it appears, but before the previous block" if anywhere >= 0 else "it is not in the output"
            raise AssertionError(
                f"{block.where()}: the block shown for {name} is not what it prints ({hint}).\n"
                f"--- shown\n" + "\n".join(shown) + "\n--- real output\n" + "\n".join(output)
            )
        position = found
    if "-a" in EXAMPLES[name]:
        # a psql -a example is shown through its last statement: a reader sees every one's outcome
        last = normalised_lines(blocks[-1].text)
        assert output[-len(last):] == last, (
            f"{blocks[-1].where()}: the output shown for {name} stops before its end; the rest:\n"
            + "\n".join(output[position:]))

def test_the_readme_is_a_short_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250

def test_the_readme_links_resolve() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not re.match(r"[a-z]+://", target):
            assert (ROOT / target).exists(), f"README.md links to missing {target}"
