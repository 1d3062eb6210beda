"""Measured decisions on a drift case: a drift reviewer's findings of real
specs replayed over the real history of the repository they were written
for, through the real writers (``findings-ledger evaluate``).

**A drift case** is a directory holding ``drift.json`` and ``repo.bundle``
(the format of ``../shared/corpus/agent-fox-dev__agent-fox-v2/README.md``):
``line`` (the commits of the history, oldest first), ``specs`` (each with
its ``spec_sha`` and task ``groups`` of commits) and ``findings`` (the
reviewer's ``severity``, ``description``, ``spec_ref``, ``artifact_ref``,
the spec commit as ``observed_sha``, the check ``resolved_when`` and the
label ``resolved_by`` / ``touched_not_resolved``). :func:`load_drift_case`
raises :class:`~findings_ledger.evaluate.CorpusError` naming the file and
the field for anything it cannot use.

**How it replays** (:func:`evaluate_drift`): the bundle is cloned into a
temporary directory; the line is read once with :mod:`findings_ledger.gitlog`
(the reader of ``replay-git``: paths, added and deleted with directories,
hunks). Per policy, one fresh scope: the line is recorded with
:func:`findings_ledger.gitlog.replay` from the first spec commit on, and
right after each spec commit that spec's findings are imported with
:func:`findings_ledger.importers.import_drift_json` from a drift review
written as the reviewer writes it (``{"drift_findings": [...]}``), dated
with the spec commit's committer time (``--observed-at-commit``). The scope
stops taking merges once every finding is retired.

**What is counted**, per finding, from the commit that superseded it and its
label: *at the fix* (superseded by ``resolved_by``), *early* (superseded
before it, or superseded while the label says it is still true at the end
of the line: a live finding hidden from every later prompt), *late*
(superseded after its fix: a stale finding kept), *never* (a labelled fix,
never superseded), *kept* (still true and never superseded: right).
Precision = at fix / superseded; recall = at fix / labelled fixes. At
every prompt read (:meth:`DriftCase.read_points`: before the first commit of
each task group of every spec) the stale share of what the scope's prompt
carries, and per finding whether it left the prompts at the first read
after its fix (:meth:`DriftEvaluation.at_first_read`).

**The read-time verifier** (policies with ``verify``): at each prompt read
the scope's drift prompt text (``ledger.read_prompt_text``) is read, and
each entry shown as possibly resolved gets a verdict through
``ledger.verify_finding`` from :func:`oracle_verdict`, which answers from
the labels: an oracle, never wrong, so the rows measure the loop (what
reaches the verifier, when, how many verdicts), not a model.
:func:`drift_targets` says whether the targets of those rows hold.

The baselines: *Option A* (retire on the first touch of the artifact: the
findings filed at their file without a line anchor) goes through the ledger
like the others; *Option C* (keep only the findings of the last N task
groups) drops every finding of a spec at the first commit of its group N,
a rule of the prompt builder that needs no replay.
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from . import gitlog, importers, queries
from .decisions import set_match_policy
from .evaluate import CorpusError
from .findings import possibly_resolved, read_prompt_text, verify_finding

CASE_FILE = "drift.json"
BUNDLE = "repo.bundle"
#: Merges per replayed batch, the first included: a batch's file-state
#: requests are answered after it, so the batches are those the figures in
#: docs/decision-quality.md were measured with.
REPLAY_BATCH = 500


@dataclass(frozen=True)
class DriftFinding:
    id: str
    spec: str
    severity: str
    description: str
    spec_ref: str
    artifact_ref: str
    observed_sha: str
    resolved_when: Any
    resolved_by: str | None
    touched_not_resolved: tuple[str, ...]

    def entry(self, *, anchored: bool = True, checks: bool = False) -> dict[str, Any]:
        """The drift-review entry as the reviewer writes it; ``anchored=False``
        drops the ``:line`` of ``artifact_ref``; ``checks`` adds ``resolved_when``."""
        artifact = self.artifact_ref if anchored else re.sub(r":\d+(-\d+)?$", "", self.artifact_ref)
        out: dict[str, Any] = {"severity": self.severity, "description": self.description,
                               "spec_ref": self.spec_ref, "artifact_ref": artifact}
        if checks and self.resolved_when is not None:
            out["resolved_when"] = self.resolved_when
        return out


@dataclass(frozen=True)
class Spec:
    spec: str
    sha: str
    groups: tuple[tuple[str, tuple[str, ...]], ...]  # (group, commit shas)


@dataclass(frozen=True)
class DriftCase:
    name: str
    source: Path
    line: tuple[str, ...]
    specs: tuple[Spec, ...]
    findings: tuple[DriftFinding, ...]

    def index(self) -> dict[str, int]:
        return {sha: i for i, sha in enumerate(self.line)}

    def read_points(self) -> list[int]:
        """Where a coder prompt is built: the line positions of the first
        commit of every task group of every spec, distinct, in line order.
        The prompt read at position ``i`` sees the merges before it
        (``line[:i]``), not the group's own commit."""
        index = self.index()
        return sorted({index[commits[0]] for s in self.specs for _, commits in s.groups
                       if commits and commits[0] in index})


@dataclass(frozen=True)
class DriftPolicy:
    """How the case is replayed: ``settings`` for :func:`set_match_policy`;
    ``anchored`` files each finding at its ``artifact_ref`` as written
    (with its ``:line``), else at the file; ``checks`` imports the
    reviewer's ``resolved_when``; ``max_groups`` (Option C) replaces the
    replay by the prompt rule "only the last N task groups"; ``verify``
    adds a read-time verifier: at each prompt read (:meth:`DriftCase.read_points`)
    it reads the scope's drift prompt and gives every finding shown as
    possibly resolved a verdict through :func:`findings_ledger.verify_finding`,
    decided from the labels (:func:`oracle_verdict`: an oracle, not a model)."""

    name: str
    settings: dict[str, Any] = field(default_factory=dict)
    anchored: bool = True
    checks: bool = False
    max_groups: int | None = None
    verify: bool = False


#: The verifier named in the audit of the read-time oracle's verdicts.
ORACLE = "evaluate-oracle"

#: The policies compared on a drift case, the shipped default first.
DRIFT_POLICIES: tuple[DriftPolicy, ...] = (
    DriftPolicy("default (spec commit's date)"),
    DriftPolicy("Option A: retire on first touch", {"touch": "retire", "touch_kind": "drift"}, anchored=False),
    DriftPolicy("Option C: last 2 task groups", max_groups=2),
    DriftPolicy("Option C: last 3 task groups", max_groups=3),
    DriftPolicy("checks (resolved_when), default touch", checks=True),
    DriftPolicy("--touch retire", {"touch": "retire", "touch_kind": "drift"}),
    DriftPolicy("--touch recheck (no verifier)", {"touch": "recheck", "touch_kind": "drift"}),
    DriftPolicy("--touch flag", {"touch": "flag", "touch_kind": "drift"}),
    DriftPolicy("checks + --touch recheck", {"touch": "recheck", "touch_kind": "drift"}, checks=True),
    DriftPolicy("checks + --touch flag", {"touch": "flag", "touch_kind": "drift"}, checks=True),
    DriftPolicy("default + verifier at each prompt read (oracle)", verify=True),
    DriftPolicy("checks + verifier at each prompt read (oracle)", checks=True, verify=True),
)

#: The verdicts a verifier gives (``ledger.verify_finding``).
VERDICTS = ("resolved", "still_true")

#: Audit actions counted as work for someone: file-state requests a writer
#: answers from git, recheck requests a verifier must answer, flags a
#: prompt builder shows.
WORK_ACTIONS = ("check_requested", "recheck_requested", "flagged")


def _need(obj: Any, key: str, kind: type | tuple[type, ...], where: str, *, optional: bool = False) -> Any:
    if not isinstance(obj, dict):
        raise CorpusError(f"{where} is not an object")
    value = obj.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind):
        raise CorpusError(f"{where}.{key} {value!r} is missing or of the wrong type")
    return value


def is_drift_case(directory: Path) -> bool:
    return (directory / CASE_FILE).is_file() and (directory / BUNDLE).is_file()


def find_drift_cases(corpus: str | Path) -> list[Path]:
    """The drift-case directories directly under ``corpus`` (name order)."""
    d = Path(corpus)
    return sorted(p for p in d.iterdir() if p.is_dir() and is_drift_case(p)) if d.is_dir() else []


def load_drift_case(directory: str | Path) -> DriftCase:
    d = Path(directory)
    p = d / CASE_FILE
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CorpusError(f"{p}: cannot be read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorpusError(f"{p}: not JSON: {exc}") from None
    try:
        line = tuple(_need(raw, "line", list, "the file"))
        index = {sha: i for i, sha in enumerate(line)}
        specs = []
        for i, s in enumerate(_need(raw, "specs", list, "the file")):
            where = f"specs[{i}]"
            sha = _need(s, "spec_sha", str, where)
            if sha not in index:
                raise CorpusError(f"{where}.spec_sha {sha!r} is not in line")
            groups = tuple((str(_need(g, "group", (str, int), f"{where}.groups[{j}]")),
                            tuple(_need(c, "sha", str, f"{where}.groups[{j}].commits[{k}]")
                                  for k, c in enumerate(_need(g, "commits", list, f"{where}.groups[{j}]"))))
                           for j, g in enumerate(_need(s, "groups", list, where)))
            specs.append(Spec(_need(s, "spec", str, where), sha, groups))
        findings = []
        for i, f in enumerate(_need(raw, "findings", list, "the file")):
            where = f"findings[{i}]"
            label = _need(f, "label", dict, where)
            observed = _need(f, "observed_sha", str, where)
            resolved = _need(label, "resolved_by", str, f"{where}.label", optional=True)
            if observed not in index or (resolved is not None and index.get(resolved, -1) <= index[observed]):
                raise CorpusError(f"{where}: observed_sha / label.resolved_by are not in line in order")
            findings.append(DriftFinding(
                id=_need(f, "id", str, where), spec=_need(f, "spec", str, where),
                severity=_need(f, "severity", str, where), description=_need(f, "description", str, where),
                spec_ref=_need(f, "spec_ref", str, where), artifact_ref=_need(f, "artifact_ref", str, where),
                observed_sha=observed, resolved_when=f.get("resolved_when"), resolved_by=resolved,
                touched_not_resolved=tuple(label.get("touched_not_resolved") or ())))
    except CorpusError as exc:
        raise CorpusError(f"{p}: {exc}") from None
    known = {s.spec for s in specs}
    stray = next((f for f in findings if f.spec not in known), None)
    if stray is not None:
        raise CorpusError(f"{p}: finding {stray.id}: spec {stray.spec!r} is not one of specs")
    return DriftCase(d.name, d, line, tuple(specs), tuple(findings))


# --- replaying ------------------------------------------------------------------


@dataclass(frozen=True)
class DriftOutcome:
    policy: str
    finding: DriftFinding
    superseded_by: str | None
    rule: str | None
    work: tuple[tuple[str, int], ...] = ()  # (audit action, count) of WORK_ACTIONS
    verdicts: tuple[str, ...] = ()  # the read-time verifier's verdicts on it, in order


@dataclass
class DriftEvaluation:
    case: DriftCase
    policies: tuple[DriftPolicy, ...]
    outcomes: list[DriftOutcome] = field(default_factory=list)
    merges_written: int = 0
    seconds: float = 0.0

    def work(self, policy: str) -> dict[str, int]:
        out = dict.fromkeys(WORK_ACTIONS, 0)
        for o in self.outcomes:
            if o.policy == policy:
                for action, n in o.work:
                    out[action] += n
        return out

    def prompt_chars(self, policy: str) -> tuple[int, int, int]:
        """Over the first commit of every task group of every spec (where a
        coder prompt is built): the characters of the spec's findings still
        in the prompt (their descriptions), of them stale (the label's fix
        is at or before that commit), and the characters of live findings
        hidden (retired while still true at that commit)."""
        index = self.case.index()
        kept = stale = hidden = 0
        by_spec: dict[str, list[DriftOutcome]] = {}
        for o in self.outcomes:
            if o.policy == policy:
                by_spec.setdefault(o.finding.spec, []).append(o)
        for spec in self.case.specs:
            for _, commits in spec.groups:
                if not commits or commits[0] not in index:
                    continue
                at = index[commits[0]]
                for o in by_spec.get(spec.spec, ()):
                    fixed = o.finding.resolved_by is not None and index[o.finding.resolved_by] < at
                    gone = o.superseded_by is not None and index[o.superseded_by] < at
                    size = len(o.finding.description)
                    if not gone:
                        kept += size
                        stale += size if fixed else 0
                    elif not fixed:
                        hidden += size
        return kept, stale, hidden

    def stale_shares(self, policy: str) -> list[tuple[int, int, int]]:
        """At every prompt read (:meth:`DriftCase.read_points`): the line
        position, the description characters of the scope's findings the
        prompt carries (filed before it, not retired by a merge before it:
        what the coder reads after the verifier's verdicts, which judge
        merges before the read) and of them stale (the label's fix is a
        merge before the read)."""
        index = self.case.index()
        mine = [o for o in self.outcomes if o.policy == policy]
        out = []
        for at in self.case.read_points():
            chars = stale = 0
            for o in mine:
                if index[o.finding.observed_sha] >= at:
                    continue
                if o.superseded_by is not None and index[o.superseded_by] < at:
                    continue
                size = len(o.finding.description)
                chars += size
                if o.finding.resolved_by is not None and index[o.finding.resolved_by] < at:
                    stale += size
            out.append((at, chars, stale))
        return out

    def first_reads(self, policy: str) -> int:
        """How many findings left the prompts at the first read after their fix (:meth:`at_first_read`)."""
        return sum(1 for o in self.outcomes if o.policy == policy and self.at_first_read(o))

    def verdicts(self, policy: str) -> dict[str, int]:
        """The read-time verifier's verdicts under ``policy``: how many of each."""
        out = dict.fromkeys(VERDICTS, 0)
        for o in self.outcomes:
            if o.policy == policy:
                for v in o.verdicts:
                    out[v] += 1
        return out

    def verdicts_unflagged(self, policy: str) -> int:
        """Verdicts given on a finding no merge had flagged (0 when the verifier
        is asked only about touched findings, as it should be)."""
        return sum(len(o.verdicts) for o in self.outcomes
                   if o.policy == policy and o.verdicts and not dict(o.work).get("flagged"))

    def verdict(self, o: DriftOutcome) -> str:
        """``fix``, ``early``, ``late``, ``never`` or ``kept`` (see the module docstring)."""
        index = self.case.index()
        fix = o.finding.resolved_by
        if o.superseded_by is None:
            return "kept" if fix is None else "never"
        if fix is None or index[o.superseded_by] < index[fix]:
            return "early"
        return "fix" if o.superseded_by == fix else "late"

    def at_first_read(self, o: DriftOutcome) -> bool:
        """Whether ``o`` left the prompts at the first prompt read after its
        fix: retired by the fix or a later merge, with no prompt read between
        them (no prompt carried it while stale). A verdict retires a finding
        by the latest touch its prompt showed, which may be a later merge
        than the fix when several touched it between two reads."""
        fix = o.finding.resolved_by
        if o.superseded_by is None or fix is None:
            return False
        index = self.case.index()
        at, by = index[fix], index[o.superseded_by]
        return at <= by and not any(at < r <= by for r in self.case.read_points())

    def counts(self, policy: str) -> dict[str, int]:
        out = dict.fromkeys(("fix", "early", "late", "never", "kept"), 0)
        for o in self.outcomes:
            if o.policy == policy:
                out[self.verdict(o)] += 1
        return out


def clone_bundle(case: DriftCase, into: Path) -> Path:
    """``git clone`` the case's bundle into ``into`` (no checkout)."""
    target = into / "repo"
    proc = subprocess.run(["git", "clone", "-q", "--no-checkout", str(case.source / BUNDLE), str(target)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise CorpusError(f"{case.source / BUNDLE}: git clone failed: {proc.stderr.strip()}")
    return target


def read_line(repo: Path, case: DriftCase) -> list[gitlog.GitMerge]:
    """The line's commits as ``replay-git`` reads them."""
    return list(gitlog.GitHistory(repo, list(case.line)))


def _option_c(case: DriftCase, policy: DriftPolicy) -> list[DriftOutcome]:
    assert policy.max_groups is not None
    specs = {s.spec: s for s in case.specs}
    out = []
    for f in case.findings:
        groups = dict(specs[f.spec].groups)
        dropped = groups.get(str(policy.max_groups))
        out.append(DriftOutcome(policy.name, f, dropped[0] if dropped else None, "last groups" if dropped else None))
    return out


def oracle_verdict(finding: DriftFinding, latest_touch: str, index: dict[str, int]) -> str:
    """The read-time oracle: ``resolved`` when the label's fix is at or
    before the latest touch the prompt shows for the finding, else
    ``still_true``. It answers from the labels, so it is right by
    construction: it measures the loop (what reaches the verifier, what a
    verdict changes), not a model."""
    fix = finding.resolved_by
    return "resolved" if fix is not None and index[fix] <= index[latest_touch] else "still_true"


def _verify_at_read(conn: psycopg.Connection[Any], scope: str, case: DriftCase, by_id: dict[int, DriftFinding],
                    verdicts: dict[str, list[str]]) -> None:
    """One prompt read: the scope's drift prompt text (``ledger.read_prompt_text``);
    every finding it shows as possibly resolved gets the oracle's verdict
    through ``ledger.verify_finding``."""
    index = case.index()
    by_prefix = {sha[:12]: sha for sha in case.line}
    for shown in possibly_resolved(read_prompt_text(conn, scope, kinds=["drift"]).prompt):
        f = by_id[shown.finding_id]
        latest = by_prefix[shown.commit_sha[:12]]
        verdict = oracle_verdict(f, latest, index)
        fix = f.resolved_by
        if verdict == "resolved":
            evidence = f"oracle (labels): fixed by {fix}, at or before the latest touch shown {latest}"
        elif fix is not None:
            evidence = f"oracle (labels): fixed only by {fix}, after the latest touch shown {latest}"
        else:
            evidence = f"oracle (labels): still true at the end of the line, after the latest touch shown {latest}"
        verify_finding(conn, shown.finding_id, verdict, evidence, ORACLE)
        verdicts.setdefault(f.id, []).append(verdict)


def _replay(conn: psycopg.Connection[Any], scope: str, repo: Path, case: DriftCase,
            merges: Sequence[gitlog.GitMerge], policy: DriftPolicy, workdir: Path,
            progress: Callable[[int], None] | None) -> tuple[list[DriftOutcome], int]:
    set_match_policy(conn, scope, create=True, **policy.settings)
    index = case.index()
    by_spec: dict[str, list[DriftFinding]] = {}
    for f in case.findings:
        by_spec.setdefault(f.spec, []).append(f)
    # where the replay stops: after each spec commit (its review is imported),
    # and with a verifier before each prompt read
    imports: dict[int, list[Spec]] = {}
    for s in case.specs:
        if s.spec in by_spec:
            imports.setdefault(index[s.sha] + 1, []).append(s)
    reads = set(case.read_points()) if policy.verify else set()
    stops = sorted(set(imports) | reads)
    ids: dict[str, int] = {}
    by_id: dict[int, DriftFinding] = {}
    verdicts: dict[str, list[str]] = {}
    written = 0
    pos = min(imports) if imports else len(merges)
    n = 0
    while pos < len(merges):
        for spec in imports.get(pos, ()):
            findings = by_spec[spec.spec]
            review = workdir / f"{scope}-{n}.json"
            n += 1
            review.write_text(json.dumps({"drift_findings": [
                f.entry(anchored=policy.anchored, checks=policy.checks) for f in findings]}), encoding="utf-8")
            report = importers.import_drift_json(conn, scope, review,
                                                 observed_at=importers.commit_time(repo, spec.sha))
            if report.skipped:
                raise CorpusError(f"{case.source}: the ledger refuses {report.skipped[0].name}: "
                                  f"{report.skipped[0].reason}")
            keys = {importers.drift_key(f.entry(anchored=policy.anchored)): f for f in findings}
            if len(keys) != len(findings):
                raise CorpusError(f"{case.source}: two findings of spec {spec.spec} share their drift key")
            for item in report.imported:
                f = keys[item.finding.finding_key or ""]
                ids[f.id] = item.finding.id
                by_id[item.finding.id] = f
        if pos in reads and ids:
            _verify_at_read(conn, scope, case, by_id, verdicts)
        if len(ids) == len(case.findings) and conn.execute(
                queries.EVALUATE_ANY_ACTIVE, {"scope": scope}).fetchone() is None:
            break
        end = min([pos + REPLAY_BATCH, len(merges), *(s for s in stops if s > pos)])
        done = gitlog.replay(conn, scope, merges[pos:end], repo=repo, batch_size=REPLAY_BATCH,
                             first_batch=REPLAY_BATCH)
        written += len(done)
        if progress is not None:
            progress(len(done))
        pos = end
    rows = conn.execute(queries.EVALUATE_RESULTS, {"ids": list(ids.values())}).fetchall()
    results = {r[0]: (r[1], r[2]) for r in rows}
    work: dict[int, list[tuple[str, int]]] = {}
    for fid, action, count in conn.execute(
            "SELECT finding_id, action, count(*) FROM ledger.supersession WHERE scope = %s "
            "AND action = ANY(%s) GROUP BY 1, 2 ORDER BY 1, 2", (scope, list(WORK_ACTIONS))):
        work.setdefault(fid, []).append((action, int(count)))
    return [DriftOutcome(policy.name, f, *results[ids[f.id]], tuple(work.get(ids[f.id], ())),
                         tuple(verdicts.get(f.id, ())))
            for f in case.findings], written


def evaluate_drift(
    conn: psycopg.Connection[Any],
    case: DriftCase,
    policies: Sequence[DriftPolicy] = DRIFT_POLICIES,
    *,
    merges: Sequence[gitlog.GitMerge] | None = None,
    repo: Path | None = None,
    progress: Callable[[int], None] | None = None,
    run_id: str | None = None,
    connect: Callable[[], psycopg.Connection[Any]] | None = None,
    jobs: int = 1,
) -> DriftEvaluation:
    """Replay ``case`` under each of ``policies`` on ``conn`` (autocommit, a
    migrated scratch database). ``repo`` and ``merges``: a clone of the
    bundle and its line as :func:`read_line` reads it (else cloned and read
    here, in a temporary directory removed afterwards). With ``jobs`` > 1
    and ``connect`` (a new autocommit connection to the same database), the
    policies replay ``jobs`` at a time on their own connections (disjoint
    scopes; the same outcomes, in policy order)."""
    started = time.monotonic()
    token = run_id or secrets.token_hex(3)
    ev = DriftEvaluation(case, tuple(policies))
    with tempfile.TemporaryDirectory(prefix="ledger-drift-") as tmp:
        work = Path(tmp)
        if repo is None:
            repo = clone_bundle(case, work)
        if merges is None:
            merges = read_line(repo, case)
        line = merges

        def one(i: int, policy: DriftPolicy, c: psycopg.Connection[Any]) -> tuple[list[DriftOutcome], int]:
            if policy.max_groups is not None:
                return _option_c(case, policy), 0
            assert repo is not None
            return _replay(c, f"eval-{token}-drift-p{i}", repo, case, line, policy, work, progress)

        if jobs > 1 and connect is not None:
            from concurrent.futures import ThreadPoolExecutor

            def pooled(args: tuple[int, DriftPolicy]) -> tuple[list[DriftOutcome], int]:
                with connect() as c:
                    return one(args[0], args[1], c)

            with ThreadPoolExecutor(max_workers=jobs) as pool:
                parts = list(pool.map(pooled, enumerate(policies)))
        else:
            parts = [one(i, policy, conn) for i, policy in enumerate(policies)]
        for outcomes, n in parts:
            ev.outcomes.extend(outcomes)
            ev.merges_written += n
    ev.seconds = time.monotonic() - started
    return ev


def total_merges(case: DriftCase, policies: Sequence[DriftPolicy] = DRIFT_POLICIES) -> int:
    """An upper bound of the merges :func:`evaluate_drift` writes (for a progress bar)."""
    index = case.index()
    first = min((index[s.sha] for s in case.specs), default=len(case.line))
    return (len(case.line) - first - 1) * sum(1 for p in policies if p.max_groups is None)


# --- the report -----------------------------------------------------------------


DRIFT_HEADERS = ["policy", "at the fix", "early (still true)", "late", "never retired", "kept (still true)",
                 "precision", "recall", "prompt chars (stale)", "live chars hidden", "file-state requests",
                 "rechecks", "flags", "verdicts (resolved, still true)", "stale share at reads (max, mean)",
                 "at the first read after the fix (precision, recall)"]


def _pct(num: int, den: int) -> str:
    return f"{num / den:.0%}" if den else "–"


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def stale_share(ev: DriftEvaluation, policy: str) -> tuple[float, float]:
    """The largest and the mean share of stale characters over the prompt reads."""
    shares = [_ratio(stale, chars) for _, chars, stale in ev.stale_shares(policy)]
    return (max(shares), sum(shares) / len(shares)) if shares else (0.0, 0.0)


def drift_rows(ev: DriftEvaluation) -> Iterator[list[str]]:
    fixes = sum(1 for f in ev.case.findings if f.resolved_by is not None)
    for p in ev.policies:
        c = ev.counts(p.name)
        w = ev.work(p.name)
        kept, stale, hidden = ev.prompt_chars(p.name)
        retired = c["fix"] + c["early"] + c["late"]
        v = ev.verdicts(p.name)
        top, mean = stale_share(ev, p.name)
        first = ev.first_reads(p.name)
        yield [p.name, str(c["fix"]), str(c["early"]), str(c["late"]), str(c["never"]), str(c["kept"]),
               _pct(c["fix"], retired), _pct(c["fix"], fixes), f"{kept:,} ({stale:,})", f"{hidden:,}",
               str(w["check_requested"]), str(w["recheck_requested"]), str(w["flagged"]),
               f"{v['resolved'] + v['still_true']} ({v['resolved']}, {v['still_true']})" if p.verify else "–",
               f"{top:.1%}, {mean:.1%}", f"{first} ({_pct(first, retired)}, {_pct(first, fixes)})"]


@dataclass(frozen=True)
class Target:
    """One target of the read-time verification loop on a drift case, and whether it holds."""

    policy: str
    what: str
    measured: str
    holds: bool


def drift_targets(ev: DriftEvaluation) -> list[Target]:
    """The targets of the verifier rows present in ``ev``: with the checks,
    precision and recall at least 97% and no prompt read more than 10%
    stale; without them, recall at least 95% with verdicts asked only for
    findings a merge flagged. Precision and recall are taken at read time
    (a finding right when it left the prompts at the first read after its
    fix, :meth:`DriftEvaluation.at_first_read`: what a read-time loop can
    do); the figures at the labelled commit are shown beside them."""
    fixes = sum(1 for f in ev.case.findings if f.resolved_by is not None)
    out = []
    for p in ev.policies:
        if not p.verify:
            continue
        c = ev.counts(p.name)
        retired = c["fix"] + c["early"] + c["late"]
        first = ev.first_reads(p.name)

        def shown(num: int, den: int, strict: int) -> str:
            return f"{_pct(num, den)} at read time ({_pct(strict, den)} at the labelled commit)"

        if p.checks:
            top, _ = stale_share(ev, p.name)
            out.append(Target(p.name, "precision >= 97%", shown(first, retired, c["fix"]),
                              retired > 0 and _ratio(first, retired) >= 0.97))
            out.append(Target(p.name, "recall >= 97%", shown(first, fixes, c["fix"]),
                              fixes > 0 and _ratio(first, fixes) >= 0.97))
            out.append(Target(p.name, "no prompt read more than 10% stale", f"max {top:.1%}", top <= 0.10))
        else:
            v = ev.verdicts(p.name)
            asked = v["resolved"] + v["still_true"]
            off = ev.verdicts_unflagged(p.name)
            out.append(Target(p.name, "recall >= 95%", shown(first, fixes, c["fix"]),
                              fixes > 0 and _ratio(first, fixes) >= 0.95))
            out.append(Target(p.name, "verdicts asked only for flagged findings",
                              f"{asked} verdicts, {off} on unflagged findings", off == 0))
    return out


def drift_targets_text(ev: DriftEvaluation) -> str:
    """The targets as lines: ``target (policy): what: measured: holds yes|no``."""
    return "".join(f"target ({t.policy}): {t.what}: {t.measured}: holds {'yes' if t.holds else 'no'}\n"
                   for t in drift_targets(ev))


def drift_markdown(ev: DriftEvaluation) -> str:
    lines = ["| " + " | ".join(DRIFT_HEADERS) + " |", "|" + "|".join("---" for _ in DRIFT_HEADERS) + "|"]
    for row in drift_rows(ev):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    return "\n".join(lines) + "\n"


def drift_summary(ev: DriftEvaluation, *, timing: bool = True) -> str:
    fixes = sum(1 for f in ev.case.findings if f.resolved_by is not None)
    return (f"drift case {ev.case.name}: {len(ev.case.line)} commits, {len(ev.case.specs)} specs, "
            f"{len(ev.case.findings)} findings ({fixes} labelled fixes), {len(ev.policies)} policies: "
            f"{ev.merges_written} merges written"
            + (f", {ev.seconds:.0f} s" if timing else ""))
