"""Reading a prompt text back: the entries ``ledger.read_prompt_text`` shows
as possibly resolved, as the agent that reads the prompt sees them.

A flagged finding's block in the prompt text ends with one line per touch
shown, oldest first::

    possibly resolved by <sha, 12 digits> (<subject>): verify with ledger.verify_finding(<id>, ...)

and, when more merges touched it than the prompt lists, one line counting
them. :func:`possibly_resolved` returns, per flagged finding, its id and the
latest touch shown: what a verifier judges (``ledger.verify_finding``
supersedes by that touch). The demo's scripted agent and evaluate's
read-time oracle read prompts through it. Pure text: no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: a finding's block begins with "[<severity>] <title> (finding <id>)"
_HEADER = re.compile(r"^\[[^\]\n]*\] .* \(finding (\d+)\)$")
#: a touch line (the subject is the merge's first line, so it holds no newline)
_TOUCH = re.compile(
    r"^possibly resolved by ([0-9a-f]{4,64})(?: \((.*)\))?: verify with ledger\.verify_finding\((\d+), "
    r"'resolved' \| 'still_true', evidence, verifier\)$")


@dataclass(frozen=True)
class PromptTouch:
    """A finding a prompt text shows as possibly resolved, and the latest touch it shows."""

    finding_id: int
    #: the merge's commit sha as shown (its first 12 hex digits)
    commit_sha: str
    subject: str | None
    #: how many touch lines the prompt shows for the finding
    touches_shown: int


def possibly_resolved(prompt: str) -> list[PromptTouch]:
    """The flagged findings of ``prompt`` (a ``ledger.read_prompt_text``
    text) in prompt order, each with the latest touch shown. A touch line
    counts only inside the block of the finding it names, so a description
    that quotes such a line does not make another finding look flagged."""
    current: int | None = None
    out: dict[int, PromptTouch] = {}
    for line in prompt.splitlines():
        header = _HEADER.match(line)
        if header:
            current = int(header.group(1))
            continue
        touch = _TOUCH.match(line)
        if touch and current is not None and int(touch.group(3)) == current:
            shown = out[current].touches_shown + 1 if current in out else 1
            out[current] = PromptTouch(current, touch.group(1), touch.group(2), shown)
    return list(out.values())
