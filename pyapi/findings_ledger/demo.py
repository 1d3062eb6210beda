"""The drift-review scenario, replayed through the ledger: the data and the
replay behind ``findings-ledger demo`` (which prints the report, see
:mod:`findings_ledger.cli.demo`).

Session 20260624_165149_e74eca, spec 07 (nightshift_standalone_cli): a
group-0 drift review reported 12 findings about the state before the work
started, and all 12 (3,356 characters) were injected into every coder prompt
from group 2 to group 7, long after most of them were fixed. Here the same
story runs through the ledger: the 12 drift findings (our own texts, modelled
on the scenario's evidence), then one merge per task group 2..7 touching what
that group changed. Before each group's merge lands we ask the database what
that group's prompt would carry.

Every figure in the report comes from the database: the counts and
characters from ``ledger.finding`` (without the ledger: every drift finding
of the spec, as the scenario's system injects them) and from
``ledger.active_findings`` (with it), the reasons from ``ledger.read_audit``.
A finding's prompt text is its title, a newline and its description (see
:meth:`findings_ledger.models.ActiveFinding.prompt_text`); the report's
queries (``DEMO_*`` in :mod:`findings_ledger.queries`) count exactly that.

Not imported by the runtime API (``import findings_ledger``): the CLI and
the tests use it.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import psycopg
from psycopg.rows import class_row

from . import merges, queries
from .findings import active_findings, add_finding, possibly_resolved, read_prompt_text, verify_finding
from .models import ActiveFinding

SPEC = "07_nightshift_standalone_cli"
REVIEW_NODE = f"{SPEC}:0"


@dataclass(frozen=True)
class DriftFinding:
    """One finding of the group-0 drift review (scenario input)."""

    key: str
    severity: str
    title: str
    description: str
    paths: tuple[str, ...] = ()
    #: what resolves it: a change to its paths (default), the path appearing
    #: ("does not exist": present) or going away ("still exists": absent)
    expects: str = "change"
    #: the check the reviewer writes (``resolved_when``), where the scenario's
    #: data can decide it: a path appearing or going away, which a merge's
    #: ``added`` and ``deleted`` settle; a check on a file's text would need
    #: file contents the scenario does not have, so those findings have none
    resolved_when: dict[str, Any] | None = None
    #: the scenario's known truth: the group whose merge resolves it (None:
    #: still true after group 7). Only the scripted agent reads it, to give
    #: its verdicts; the ledger never sees it.
    resolved_by_group: int | None = None


@dataclass(frozen=True)
class GroupMerge:
    """The merge a task group landed (scenario input): what it changed, and
    of that what it added and deleted. A rename lists both sides, as the
    git reader does: its old path deleted, its new path added."""

    group: int
    message: str
    paths: tuple[str, ...]
    added: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()

    @property
    def node_id(self) -> str:
        return f"{SPEC}:{self.group}"

    @property
    def commit_sha(self) -> str:
        return hashlib.sha1(f"{SPEC} group {self.group}".encode()).hexdigest()


# The group-0 drift review: the state before any group ran. Paths are written
# the way reviewers write them (a directory ends with '/', a ':line' suffix);
# the database normalises them. F01, F02, F04 and F07 carry a check a merge's
# added and deleted paths decide (they retire by themselves at their fix);
# the others, about a file's text, have none: a touch flags them, and the
# next group's agent verifies them. F12 names no file, so no merge touches
# it: it stays active, as it should.
FINDINGS: tuple[DriftFinding, ...] = (
    DriftFinding(
        "F01",
        "high",
        "The packages/nightshift/ directory does not exist.",
        "Spec 07 makes night-shift a workspace package of its own under packages/nightshift/, with its own "
        "pyproject.toml, a nightshift module and tests. None of that layout exists; the code still lives "
        "inside the af package, and every later task group builds on this layout (spec 07, section 2).",
        ("packages/nightshift/",),
        "present",
        resolved_when={"path_exists": "packages/nightshift/"},
        resolved_by_group=3,
    ),
    DriftFinding(
        "F02",
        "high",
        "packages/af/af/nightshift.py still exists in the repository.",
        "The night-shift implementation is still a module of the af CLI. The spec moves it out of af "
        "entirely; after the move af must neither import nor ship it, and its wheel must not contain it.",
        ("packages/af/af/nightshift.py",),
        "absent",
        resolved_when={"path_absent": "packages/af/af/nightshift.py"},
        resolved_by_group=2,
    ),
    DriftFinding(
        "F03",
        "high",
        "packages/af/af/app.py imports and registers night-shift.",
        "app.py imports the nightshift module and adds it to the Typer app under the name 'night-shift' "
        "(around line 88), so `af night-shift` is still a subcommand. The spec removes the registration "
        "and the import together.",
        ("./packages/af/af/app.py:88",),
        resolved_by_group=2,
    ),
    DriftFinding(
        "F04",
        "medium",
        "Night-shift tests have not been migrated.",
        "The night-shift tests sit in packages/af/tests/test_nightshift.py and drive the code through the "
        "af CLI runner. They belong to the new package and must call the standalone `nightshift` entry "
        "point instead; the shared fixtures they use from af's conftest.py must move with them.",
        ("packages/af/tests/test_nightshift.py",),
        resolved_when={"all": [{"path_absent": "packages/af/tests/test_nightshift.py"},
                               {"path_exists": "packages/nightshift/tests/"}]},
        resolved_by_group=5,
    ),
    DriftFinding(
        "F05",
        "medium",
        "Root pyproject.toml is missing nightshift workspace entries.",
        "[tool.uv.workspace] members and [tool.uv.sources] list af only, so the new package is neither a "
        "workspace member nor installable from the repository root with `uv sync`; af would also keep resolving "
        "the old module.",
        ("pyproject.toml",),
        resolved_by_group=3,
    ),
    DriftFinding(
        "F06",
        "medium",
        "uv.lock has no entry for the nightshift package.",
        "Once the package exists, `uv sync --locked` in CI fails until the lock file is regenerated with "
        "the new workspace member and committed in the same change as the workspace entry.",
        ("uv.lock",),
        resolved_by_group=3,
    ),
    DriftFinding(
        "F07",
        "medium",
        "There is no standalone CLI entry module.",
        "Nothing defines packages/nightshift/nightshift/cli.py or a `nightshift` console script, so the "
        "spec's `nightshift run` and `nightshift status` commands have nowhere to live. The entry point "
        "belongs in the new package's pyproject.toml.",
        ("packages/nightshift/nightshift/cli.py",),
        "present",
        resolved_when={"path_exists": "packages/nightshift/nightshift/cli.py"},
        resolved_by_group=4,
    ),
    DriftFinding(
        "F08",
        "low",
        "Night-shift reads its settings through af.config.",
        "nightshift.py calls af.config.load_settings() and reads the [af.night_shift] table. The standalone "
        "tool needs its own loader and a [nightshift] table; af.config must stop knowing about it, while the old "
        "table keeps being read for one release.",
        ("packages/af/af/config.py",),
        resolved_by_group=4,
    ),
    DriftFinding(
        "F09",
        "low",
        "CI does not run the night-shift tests on their own.",
        "The workflow runs pytest for packages/af only. Once the tests move to the new package nothing in "
        "CI runs them, and a broken nightshift would still merge green. Add a job or a matrix entry for the "
        "package.",
        (".github/workflows/ci.yml",),
        resolved_by_group=5,
    ),
    DriftFinding(
        "F10",
        "medium",
        "docs/cli.md documents `af night-shift` as an af subcommand.",
        "The CLI reference lists night-shift under af with its options and examples. It must describe the "
        "standalone `nightshift` command and send af users there; its examples must use the new flags.",
        ("docs/cli.md",),
        resolved_by_group=6,
    ),
    DriftFinding(
        "F11",
        "low",
        "The README quick start still runs `af night-shift`.",
        "The quick-start section shows `af night-shift --since 1d`. Anyone who follows it after the change "
        "gets 'No such command' and no hint where the command went. Show `nightshift run --since 1d` instead.",
        ("README.md",),
    ),
    DriftFinding(
        "F12",
        "low",
        "No migration note for users of `af night-shift`.",
        "Nothing tells existing users that `af night-shift` is going away, which command replaces it, or "
        "that its settings move to a [nightshift] table. The spec asks for a note users will find before "
        "they upgrade, kept for at least one release. The release notes and the af changelog are "
        "where upgraders look first.",
    ),
)

# One merge per task group, touching what the group changed.
MERGES: tuple[GroupMerge, ...] = (
    GroupMerge(
        2,
        "Remove night-shift from the af CLI",
        ("packages/af/af/nightshift.py", "packages/af/af/app.py", "packages/af/af/__init__.py"),
        deleted=("packages/af/af/nightshift.py",),
    ),
    GroupMerge(
        3,
        "Scaffold packages/nightshift and add it to the workspace",
        (
            "packages/nightshift/pyproject.toml",
            "packages/nightshift/README.md",
            "packages/nightshift/nightshift/__init__.py",
            "pyproject.toml",
            "uv.lock",
        ),
        added=(
            "packages/nightshift/pyproject.toml",
            "packages/nightshift/README.md",
            "packages/nightshift/nightshift/__init__.py",
        ),
    ),
    GroupMerge(
        4,
        "Standalone nightshift CLI with its own settings loader",
        (
            "packages/nightshift/nightshift/cli.py",
            "packages/nightshift/nightshift/engine.py",
            "packages/nightshift/nightshift/settings.py",
            "packages/af/af/config.py",
        ),
        added=(
            "packages/nightshift/nightshift/cli.py",
            "packages/nightshift/nightshift/engine.py",
            "packages/nightshift/nightshift/settings.py",
        ),
    ),
    GroupMerge(
        5,
        "Move the night-shift tests into the new package",
        (
            "packages/af/tests/test_nightshift.py",  # renamed to the next path: both sides
            "packages/nightshift/tests/test_cli.py",
            "packages/nightshift/tests/conftest.py",
            ".github/workflows/ci.yml",
        ),
        added=("packages/nightshift/tests/test_cli.py", "packages/nightshift/tests/conftest.py"),
        deleted=("packages/af/tests/test_nightshift.py",),
    ),
    GroupMerge(6, "Document the standalone nightshift command", ("docs/cli.md", "docs/nightshift.md"),
               added=("docs/nightshift.md",)),
    GroupMerge(7, "Release notes and version bump", ("CHANGELOG.md", "packages/nightshift/pyproject.toml")),
)


@dataclass(frozen=True)
class PromptFigures:
    """Drift findings one prompt carries: all of them (no ledger) and the active ones."""

    all_findings: int
    all_chars: int
    active_findings: int
    active_chars: int

    @property
    def saved_chars(self) -> int:
        return self.all_chars - self.active_chars


@dataclass(frozen=True)
class StoredFinding:
    """A drift finding as the database stored it, with its prompt characters."""

    finding_key: str | None
    severity: str
    title: str
    paths: list[str]
    chars: int
    resolved_when: Any


@dataclass(frozen=True)
class MergeDecision:
    """One audit row of a group's merge, with the finding it concerns."""

    action: str
    rule: str | None
    evidence: str | None
    finding_key: str | None
    title: str
    finding_path: str | None
    touched_path: str | None
    commit_sha: str
    node_id: str | None
    superseded_by: str | None


@dataclass(frozen=True)
class FlaggedEntry:
    """A "possibly resolved" entry of a prompt text: the finding and the latest touch shown."""

    finding_key: str
    commit_sha: str
    subject: str | None


@dataclass(frozen=True)
class Verdict:
    """What the scripted agent answered about a flagged entry, through
    ``ledger.verify_finding``, and the audit row the ledger wrote."""

    finding_key: str
    verdict: str
    evidence: str
    audit_action: str
    audit_rule: str | None


@dataclass(frozen=True)
class PromptRead:
    """One read of the prompt text (``ledger.read_prompt_text``): its size,
    the entries it shows as possibly resolved, the agent's verdicts on them."""

    text: str
    included_count: int
    included_chars: int
    flagged: list[FlaggedEntry]
    verdicts: list[Verdict]


@dataclass(frozen=True)
class GroupReport:
    """One task group: what its prompt carried and what its agent answered,
    then what its merge decided."""

    group: int
    node_id: str
    prompt: PromptFigures
    read: PromptRead
    merge_id: int
    commit_sha: str
    message: str
    decisions: list[MergeDecision]


@dataclass(frozen=True)
class DemoReport:
    """The whole replay: the scope, the review's findings as stored, one report
    per group, the state after the last merge (and the read of a next prompt)."""

    scope: str
    findings: list[StoredFinding]
    groups: list[GroupReport]
    after_last: PromptFigures
    after_read: PromptRead
    still_active: list[ActiveFinding]


def default_scope(now: datetime | None = None) -> str:
    """A fresh scope name per run, so reruns and shared servers are safe."""
    now = now or datetime.now(timezone.utc)
    return f"demo-{SPEC}-{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def prompt_figures(conn: psycopg.Connection[Any], scope: str) -> PromptFigures:
    """The drift findings a prompt built now would carry, from the database."""
    with conn.cursor(row_factory=class_row(PromptFigures)) as cur:
        cur.execute(queries.DEMO_PROMPT_FIGURES, {"scope": scope})
        row = cur.fetchone()
    assert row is not None
    return row


def merge_decisions(conn: psycopg.Connection[Any], scope: str, merge_id: int) -> list[MergeDecision]:
    """The audit rows of one merge, joined with their findings."""
    with conn.cursor(row_factory=class_row(MergeDecision)) as cur:
        cur.execute(queries.DEMO_MERGE_DECISIONS, {"scope": scope, "merge_id": merge_id})
        return cur.fetchall()


#: The scripted agent, as named in the audit of its verdicts.
AGENT = "demo-scripted-agent"


def scripted_verdict(key: str, commit_sha: str) -> tuple[str, str]:
    """The scripted agent's verdict on finding ``key`` shown as possibly
    resolved by ``commit_sha`` (a merge of :data:`MERGES`, in full or
    abbreviated), and its evidence: decided from the scenario's known truth
    (:attr:`DriftFinding.resolved_by_group`), as a real agent would decide
    by reading the code at that merge. ``resolved`` when the finding's
    resolving group is that merge's group or an earlier one."""
    truth = {f.key: f.resolved_by_group for f in FINDINGS}[key]
    group = next(m.group for m in MERGES if m.commit_sha.startswith(commit_sha))
    if truth is not None and truth <= group:
        return "resolved", f"scripted (the scenario's truth): group {truth}'s merge resolved {key}"
    return "still_true", f"scripted (the scenario's truth): {key} still holds after group {group}'s merge"


def read_and_verify(conn: psycopg.Connection[Any], scope: str, keys: dict[str, int]) -> PromptRead:
    """Read the scope's drift prompt text (``ledger.read_prompt_text``) and
    give a verdict on every entry it shows as possibly resolved
    (:func:`findings_ledger.findings.possibly_resolved`), through
    ``ledger.verify_finding``."""
    got = read_prompt_text(conn, scope, kinds=["drift"])
    by_id = {fid: key for key, fid in keys.items()}
    flagged = [FlaggedEntry(by_id[t.finding_id], t.commit_sha, t.subject) for t in possibly_resolved(got.prompt)]
    verdicts = []
    for e in flagged:
        verdict, evidence = scripted_verdict(e.finding_key, e.commit_sha)
        audit = verify_finding(conn, keys[e.finding_key], verdict, evidence, AGENT)
        verdicts.append(Verdict(e.finding_key, verdict, evidence, audit.action, audit.rule))
    return PromptRead(got.prompt, got.included_count, got.included_chars, flagged, verdicts)


def run_scenario(conn: psycopg.Connection[Any], scope: str) -> DemoReport:
    """Replay the drift-review scenario into ``scope`` (which must be new or
    empty) under the shipped policy, and return the figures read back from
    the database.

    Before each group's merge, the group's agent reads the prompt text
    (``ledger.read_prompt_text``) and gives each entry shown as possibly
    resolved a scripted verdict (:func:`scripted_verdict`) through
    ``ledger.verify_finding``. Uses the caller's connection (autocommit
    recommended: each finding, merge and verdict is then its own
    transaction, as in the scenario's system). Raises ``ValueError`` when
    the scope already holds findings or merges.
    """
    row = conn.execute(queries.DEMO_SCOPE_IS_EMPTY, {"scope": scope}).fetchone()
    if not (row and row[0]):
        raise ValueError(f"scope {scope!r} already holds findings or merges: the demo needs a fresh scope")
    keys: dict[str, int] = {}
    for f in FINDINGS:
        added = add_finding(
            conn,
            scope,
            f.title,
            description=f.description,
            paths=f.paths,
            kind="drift",
            severity=f.severity,
            finding_key=f.key,
            source=REVIEW_NODE,
            expects=f.expects,
            resolved_when=f.resolved_when,
        )
        keys[f.key] = added.id
    groups = []
    for m in MERGES:
        prompt = prompt_figures(conn, scope)  # what group m.group's coder is told
        read = read_and_verify(conn, scope, keys)
        result = merges.record_merge(conn, scope, m.commit_sha, m.paths, message=m.message, node_id=m.node_id,
                                  added=m.added, deleted=m.deleted)
        groups.append(
            GroupReport(
                group=m.group,
                node_id=m.node_id,
                prompt=prompt,
                read=read,
                merge_id=result.merge_id,
                commit_sha=m.commit_sha,
                message=m.message,
                decisions=merge_decisions(conn, scope, result.merge_id),
            )
        )
    after = prompt_figures(conn, scope)
    after_read = read_and_verify(conn, scope, keys)
    with conn.cursor(row_factory=class_row(StoredFinding)) as cur:
        cur.execute(queries.DEMO_REVIEW_FINDINGS, {"scope": scope})
        stored = cur.fetchall()
    return DemoReport(
        scope=scope,
        findings=stored,
        groups=groups,
        after_last=after,
        after_read=after_read,
        still_active=active_findings(conn, scope),
    )
