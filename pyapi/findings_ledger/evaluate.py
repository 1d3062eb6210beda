"""Measured precision: replay a labelled corpus of real git histories through
the real schema and count, per rule and per policy, the right and wrong
retirements (``findings-ledger evaluate CORPUS``, ``make evaluate``).

**The corpus** is a directory of ``owner__name.json`` files (the format of
``../shared/corpus/README.md``): each holds a repository's first-parent
commits, oldest first, with their committer dates, full messages and changes
(``path``, ``status`` ``A|M|D|R``, ``old_path`` for ``R``, ``-U0`` hunks),
and labelled findings (``id``, ``case``, ``title``, ``description``,
``kind``, ``path``, ``line``, ``observed_sha``, ``observed_at``, ``key``,
``slug``, ``strong_keywords``, ``label``: ``resolved_by`` (a sha or null),
``touched_not_resolved`` (shas), ``mentioned_not_resolved`` (``{sha,
reason}``, optional)). A finding may also say ``expects`` (``change``, the
default, ``present`` or ``absent``) and ``paths`` (a list: what the finding
is about, see below). Files are read in name order;
:func:`load_corpus` raises :class:`CorpusError` naming the file and the
field for anything it cannot use.

**How it replays** (:func:`evaluate`), per policy and per repository: one
fresh scope with the policy set; the commits are recorded as merges in
order (sha, committed_at as merged_at, message, paths with both sides of a
rename, added and deleted from the statuses, the hunks keyed by the path the
old line numbers refer to), written with ``COPY`` in batches, so every row
goes through the merge triggers exactly as a service's rows do. Right after
the commit a finding was observed at, the finding is written (a plain
``INSERT``: title, description, kind, its paths, key, slug, strong
keywords, expects, observed_at). **Its paths** (:meth:`CorpusFinding.ledger_paths`)
are what it is about: its ``paths`` when it has them; else, for a ``todo``
finding, ``path:line`` (an anchored path: that line is the problem); else
none, because a ``named`` finding's ``path`` and ``line`` are where its note
was written (the README's case B: a deprecation note in ``CHANGELOG.md``),
not what it is about: filed there, every edit of the changelog would retire
it (the policy ``touch retire, named filed at their note`` replays them so, to
show it). Findings of one
repository share the scope because they do not interact, with one
exception the ledger reports itself: evidence that names two active
findings is ``ambiguous`` for both. Every finding that was ever part of an
ambiguous decision, or that shares its key or slug with another finding,
is therefore replayed again alone, in a scope of its own, from its
observed commit on (``isolated=True`` does that for every finding: slower,
the same figures). A scope stops taking merges once all its findings are
retired. Strong keywords the ledger refuses (``LD101``: not one distinctive
token) are left out of that finding and listed in the result.

**What is counted**: a finding is retired correctly (TP) when it is
superseded by exactly its ``resolved_by`` commit; any other superseding
commit is a false retirement (FP: before the fix, on a hard negative, on a
finding that is still open, or after a missed fix); a labelled fix that did
not retire it is a miss (FN). Precision = TP / (TP + FP), recall = TP /
labelled fixes, per case, per policy, and per rule (the ``rule`` of the
superseding decision; the path rule split by the form of its deciding
piece: line anchor, file, file deleted, added, deleted, see
:data:`PATH_FORMS`).
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg

from . import queries
from .decisions import set_match_policy
from .errors import KeywordRejected, LedgerError, translate

#: Merges per COPY.
BATCH_SIZE = 500
_SHA = re.compile(r"^[0-9a-f]{7,64}$")
_STATUSES = {"A", "M", "D", "R", "C", "T"}


class CorpusError(ValueError):
    """A corpus file or directory that cannot be used (names the file and the field)."""


@dataclass(frozen=True)
class Change:
    path: str
    status: str
    old_path: str | None
    hunks: tuple[tuple[int, int, int, int], ...]


@dataclass(frozen=True)
class Commit:
    sha: str
    committed_at: datetime
    message: str
    changes: tuple[Change, ...]

    @property
    def paths(self) -> list[str]:
        """Touched paths, both sides of a rename."""
        out: list[str] = []
        for c in self.changes:
            if c.old_path:
                out.append(c.old_path)
            out.append(c.path)
        return list(dict.fromkeys(out))

    @property
    def added(self) -> list[str]:
        return list(dict.fromkeys(c.path for c in self.changes if c.status in ("A", "R", "C")))

    @property
    def deleted(self) -> list[str]:
        return list(dict.fromkeys(
            (c.old_path or c.path) for c in self.changes if c.status in ("D", "R")))

    def hunks(self) -> dict[str, list[list[int]]]:
        """``ledger.merge.hunks``: keyed by the path the old line numbers refer to."""
        out: dict[str, list[list[int]]] = {}
        for c in self.changes:
            out.setdefault(c.old_path or c.path, []).extend(list(h) for h in c.hunks)
        return out


@dataclass(frozen=True)
class Label:
    resolved_by: str | None
    reason: str
    touched_not_resolved: tuple[str, ...]
    mentioned_not_resolved: tuple[str, ...]


@dataclass(frozen=True)
class CorpusFinding:
    id: str
    case: str
    title: str
    description: str | None
    kind: str
    path: str
    line: int | None
    observed_sha: str
    observed_at: datetime
    key: str | None
    slug: str | None
    strong_keywords: tuple[str, ...]
    expects: str
    label: Label
    paths: tuple[str, ...] | None = None

    @property
    def anchored_path(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def ledger_paths(self, at_note: bool = False) -> list[str]:
        """The paths the finding is filed with: ``paths`` when the corpus
        gives them; a ``todo`` line anchored where it is (``path:line``);
        otherwise none (a ``named`` finding's ``path`` is where its note
        was written), unless ``at_note``, which files it there."""
        if self.paths is not None:
            return list(self.paths)
        if self.case == "todo" or at_note:
            return [self.anchored_path]
        return []


@dataclass(frozen=True)
class Corpus:
    """One repository's labelled history (one ``owner__name.json``)."""

    repository: str
    source: Path
    commits: tuple[Commit, ...]
    findings: tuple[CorpusFinding, ...]

    def index(self) -> dict[str, int]:
        return {c.sha: i for i, c in enumerate(self.commits)}

    def head(self, n: int) -> Corpus:
        """The history cut after its first ``n`` commits, labelled as of its
        new head: a fix after the cut leaves the finding open, and findings
        observed after the cut are left out."""
        kept = {c.sha for c in self.commits[:n]}
        findings = []
        for f in self.findings:
            if f.observed_sha not in kept:
                continue
            lab = f.label
            findings.append(replace(f, label=Label(
                lab.resolved_by if lab.resolved_by in kept else None,
                lab.reason if lab.resolved_by in kept else f"not resolved within the first {n} commits",
                tuple(t for t in lab.touched_not_resolved if t in kept),
                tuple(m for m in lab.mentioned_not_resolved if m in kept))))
        return replace(self, commits=self.commits[:n], findings=tuple(findings))


@dataclass(frozen=True)
class Policy:
    """A scope policy to replay under: ``settings`` go to
    :func:`findings_ledger.set_match_policy`; ``hunks=False`` records the
    merges without hunks (the file-level rule); ``at_note=True`` files a
    finding without ``paths`` at its ``path:line`` whatever its case
    (:meth:`CorpusFinding.ledger_paths`)."""

    name: str
    settings: dict[str, Any] = field(default_factory=dict)
    hunks: bool = True
    at_note: bool = False


#: The policies ``evaluate`` compares, the shipped default first.
POLICIES: tuple[Policy, ...] = (
    Policy("default"),
    Policy("default, no hunks", hunks=False),
    Policy("kinds *", {"path_supersede_kinds": ["*"]}),
    Policy("kinds *, line_context 3", {"path_supersede_kinds": ["*"], "line_context": 3}),
    Policy("kinds *, no hunks", {"path_supersede_kinds": ["*"]}, hunks=False),
    Policy("slug mentions resolve", {"slug_mention_resolves": True}),
    Policy("touch retire, named filed at their note", {"touch": "retire", "touch_kind": "drift"}, at_note=True),
)

#: How the path rule's deciding piece (audit ``detail.pieces[].form``) is shown.
PATH_FORMS = {
    "line": "path: line anchor",
    "path": "path: file",
    "deleted_file": "path: file deleted",
    "added": "path: added (present)",
    "deleted": "path: deleted (absent)",
}


# --- reading the corpus ---------------------------------------------------------


def _parse_time(value: Any, where: str) -> datetime:
    if not isinstance(value, str):
        raise CorpusError(f"{where} {value!r} is not an ISO 8601 timestamp")
    try:
        parsed = datetime.fromisoformat(re.sub(r"[zZ]$", "+00:00", value))
    except ValueError:
        raise CorpusError(f"{where} {value!r} is not an ISO 8601 timestamp") from None
    if parsed.tzinfo is None:
        raise CorpusError(f"{where} {value!r} has no UTC offset")
    return parsed


def _need(obj: Any, key: str, kind: type | tuple[type, ...], where: str, *, optional: bool = False) -> Any:
    if not isinstance(obj, dict):
        raise CorpusError(f"{where} is not an object")
    if key not in obj:
        if optional:
            return None
        raise CorpusError(f"{where} lacks {key!r}")
    value = obj[key]
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise CorpusError(f"{where}.{key} {value!r} is not {_kind_name(kind)}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", list: "a list", dict: "an object"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _commit(raw: Any, where: str) -> Commit:
    sha = _need(raw, "sha", str, where)
    if not _SHA.match(sha):
        raise CorpusError(f"{where}.sha {sha!r} is not a hex commit id")
    where = f"{where} ({sha[:12]})"
    changes = []
    for j, ch in enumerate(_need(raw, "changes", list, where)):
        cw = f"{where}.changes[{j}]"
        status = _need(ch, "status", str, cw)
        if status not in _STATUSES:
            raise CorpusError(f"{cw}.status {status!r} is not one of A, M, D, R")
        hunks = []
        for k, h in enumerate(_need(ch, "hunks", list, cw)):
            if not (isinstance(h, list) and len(h) == 4 and all(isinstance(x, int) and not isinstance(x, bool)
                                                                and x >= 0 for x in h)):
                raise CorpusError(f"{cw}.hunks[{k}] {h!r} is not [old_start, old_count, new_start, new_count]")
            hunks.append(tuple(h))
        old = _need(ch, "old_path", str, cw, optional=True)
        if status == "R" and not old:
            raise CorpusError(f"{cw} is a rename without old_path")
        changes.append(Change(_need(ch, "path", str, cw), status, old, tuple(hunks)))  # type: ignore[arg-type]
    return Commit(sha, _parse_time(_need(raw, "committed_at", str, where), f"{where}.committed_at"),
                  _need(raw, "message", str, where), tuple(changes))


def _finding(raw: Any, where: str, index: dict[str, int]) -> CorpusFinding:
    fid = _need(raw, "id", str, where)
    where = f"{where} ({fid})"
    label_raw = _need(raw, "label", dict, where)
    lw = f"{where}.label"
    if "resolved_by" not in label_raw:
        raise CorpusError(f"{lw} lacks 'resolved_by'")
    observed = _need(raw, "observed_sha", str, where)
    if observed not in index:
        raise CorpusError(f"{where}.observed_sha {observed!r} is not one of the file's commits")
    resolved = _need(label_raw, "resolved_by", str, lw, optional=True)
    if resolved is not None and (resolved not in index or index[resolved] <= index[observed]):
        raise CorpusError(f"{lw}.resolved_by {resolved!r} is not a commit after observed_sha")
    touched = _need(label_raw, "touched_not_resolved", list, lw, optional=True) or []
    mentioned = _need(label_raw, "mentioned_not_resolved", list, lw, optional=True) or []
    mentioned_shas = []
    for k, m in enumerate(mentioned):
        mentioned_shas.append(_need(m, "sha", str, f"{lw}.mentioned_not_resolved[{k}]"))
    line = _need(raw, "line", int, where, optional=True)
    if line is not None and line < 1:
        raise CorpusError(f"{where}.line {line!r} is not a line number (1-based)")
    keywords = _need(raw, "strong_keywords", list, where, optional=True) or []
    if not all(isinstance(k, str) for k in keywords):
        raise CorpusError(f"{where}.strong_keywords {keywords!r} is not a list of strings")
    expects = _need(raw, "expects", str, where, optional=True) or "change"
    paths = _need(raw, "paths", list, where, optional=True)
    if paths is not None and not all(isinstance(p, str) for p in paths):
        raise CorpusError(f"{where}.paths {paths!r} is not a list of strings")
    return CorpusFinding(
        id=fid,
        case=_need(raw, "case", str, where),
        title=_need(raw, "title", str, where),
        description=_need(raw, "description", str, where, optional=True),
        kind=_need(raw, "kind", str, where),
        path=_need(raw, "path", str, where),
        line=line,
        observed_sha=observed,
        observed_at=_parse_time(_need(raw, "observed_at", str, where), f"{where}.observed_at"),
        key=_need(raw, "key", str, where, optional=True),
        slug=_need(raw, "slug", str, where, optional=True),
        strong_keywords=tuple(keywords),
        expects=expects,
        paths=None if paths is None else tuple(paths),
        label=Label(resolved, str(label_raw.get("reason") or ""), tuple(str(t) for t in touched),
                    tuple(mentioned_shas)),
    )


def load_corpus_file(path: str | Path) -> Corpus:
    """One corpus file. Raises :class:`CorpusError` naming the file and field."""
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CorpusError(f"{p}: cannot be read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorpusError(f"{p}: not JSON: {exc}") from None
    try:
        repository = _need(raw, "repository", str, "the file")
        commits = tuple(_commit(c, f"commits[{i}]") for i, c in enumerate(_need(raw, "commits", list, "the file")))
        if not commits:
            raise CorpusError("commits is empty")
        index = {c.sha: i for i, c in enumerate(commits)}
        if len(index) != len(commits):
            raise CorpusError("commits lists a sha twice")
        findings = tuple(_finding(f, f"findings[{i}]", index)
                         for i, f in enumerate(_need(raw, "findings", list, "the file")))
    except CorpusError as exc:
        raise CorpusError(f"{p}: {exc}") from None
    ids = Counter(f.id for f in findings)
    twice = [i for i, n in ids.items() if n > 1]
    if twice:
        raise CorpusError(f"{p}: finding id {twice[0]!r} is used twice")
    return Corpus(repository, p, commits, findings)


def load_corpus(directory: str | Path, only: Sequence[str] = ()) -> list[Corpus]:
    """Every ``*.json`` file of ``directory`` (name order), or only those whose
    repository (``owner/name``) or file name is in ``only``. Raises
    :class:`CorpusError` for a missing directory, no corpus file, or a file
    it cannot use."""
    d = Path(directory)
    if not d.is_dir():
        raise CorpusError(f"corpus directory {str(d)!r} does not exist" if not d.exists()
                          else f"corpus {str(d)!r} is not a directory")
    files = sorted(p for p in d.glob("*.json") if p.is_file())
    if only:
        wanted = set(only)
        files = [p for p in files if p.name in wanted or p.stem in wanted or p.stem.replace("__", "/") in wanted]
        missing = wanted - {p.name for p in files} - {p.stem for p in files} - {
            p.stem.replace("__", "/") for p in files}
        if missing:
            raise CorpusError(f"corpus {str(d)!r} has no file for {sorted(missing)[0]!r}")
    if not files:
        raise CorpusError(f"corpus directory {str(d)!r} holds no *.json file")
    return [load_corpus_file(p) for p in files]


# --- replaying ------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What the ledger did with one corpus finding under one policy."""

    policy: str
    repository: str
    finding: CorpusFinding
    superseded_by: str | None
    rule: str | None
    isolated: bool
    dropped_keywords: tuple[str, ...] = ()

    @property
    def correct(self) -> bool:
        return self.superseded_by is not None and self.superseded_by == self.finding.label.resolved_by

    @property
    def false_retirement(self) -> bool:
        return self.superseded_by is not None and not self.correct

    def verdict(self, index: dict[str, int]) -> str:
        """``fix`` (superseded by its labelled fix), ``early`` (superseded
        before it, or while still true at the end: a live finding hidden),
        ``late`` (after its fix: a stale finding kept), ``never`` (a labelled
        fix, never superseded) or ``kept`` (open and never superseded);
        ``index``: the commit positions of its repository."""
        fix = self.finding.label.resolved_by
        if self.superseded_by is None:
            return "kept" if fix is None else "never"
        if fix is None or index[self.superseded_by] < index[fix]:
            return "early"
        return "fix" if self.superseded_by == fix else "late"

    @property
    def on_hard_negative(self) -> bool:
        lab = self.finding.label
        return self.false_retirement and (self.superseded_by in lab.touched_not_resolved
                                          or self.superseded_by in lab.mentioned_not_resolved)


@dataclass(frozen=True)
class Tally:
    """Counts for one (policy, case[, rule]) row: ``fp`` = ``early`` +
    ``late`` (retired at another commit than the fix), ``fn`` = labelled
    fixes not retired at the fix (retired early, late, or ``never``)."""

    findings: int
    resolved: int
    tp: int
    fp: int
    fp_hard: int
    early: int = 0
    late: int = 0
    never: int = 0

    @property
    def fn(self) -> int:
        return self.resolved - self.tp

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / self.resolved if self.resolved else None


@dataclass
class Evaluation:
    """Every outcome, and how the run went."""

    policies: tuple[Policy, ...]
    corpora: list[Corpus]
    outcomes: list[Outcome] = field(default_factory=list)
    merges_written: int = 0
    isolated_reruns: int = 0
    seconds: float = 0.0

    def cases(self) -> list[str]:
        return sorted({f.case for c in self.corpora for f in c.findings})

    def tally(self, policy: str, case: str | None = None, rule: str | None = None) -> Tally:
        """Counts over ``policy``'s outcomes, optionally of one case; with
        ``rule``, TP and FP count only the retirements by that rule."""
        rows = [o for o in self.outcomes if o.policy == policy and (case is None or o.finding.case == case)]
        hit = [o for o in rows if rule is None or o.rule == rule]
        verdicts = Counter(o.verdict(self._index(o.repository)) for o in hit)
        return Tally(
            findings=len(rows),
            resolved=sum(1 for o in rows if o.finding.label.resolved_by is not None),
            tp=sum(1 for o in hit if o.correct),
            fp=sum(1 for o in hit if o.false_retirement),
            fp_hard=sum(1 for o in hit if o.on_hard_negative),
            early=verdicts["early"],
            late=verdicts["late"],
            never=verdicts["never"],
        )

    def _index(self, repository: str) -> dict[str, int]:
        cache = self.__dict__.setdefault("_indexes", {})
        if repository not in cache:
            corpus = next(c for c in self.corpora if c.repository == repository)
            cache[repository] = corpus.index()
        return cache[repository]

    def rules(self, policy: str, case: str | None = None) -> list[str]:
        return sorted({o.rule for o in self.outcomes if o.policy == policy and o.rule
                       and (case is None or o.finding.case == case)})

    def false_retirements(self, policy: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.policy == policy and o.false_retirement]

    def dropped_keywords(self) -> dict[str, tuple[str, ...]]:
        return {o.finding.id: o.dropped_keywords for o in self.outcomes if o.dropped_keywords}


def _copy_merges(conn: psycopg.Connection[Any], scope: str, commits: Sequence[Commit], hunks: bool) -> None:
    """COPY ``commits`` into ``scope`` (each row through the merge triggers);
    a row the ledger refuses raises :class:`CorpusError` naming the commit."""
    try:
        with translate(conn), conn.cursor() as cur, cur.copy(queries.EVALUATE_COPY_MERGES) as copy:
            for c in commits:
                copy.write_row((
                    scope, c.sha, c.message, c.paths, c.committed_at, c.added, c.deleted,
                    json.dumps(c.hunks()) if hunks else None,
                ))
    except LedgerError as exc:
        context = getattr(getattr(exc.__cause__, "diag", None), "context", None) or ""
        line = re.search(r"COPY merge, line (\d+)", context)
        where = f"commit {commits[int(line.group(1)) - 1].sha}" if line else "a commit"
        raise CorpusError(f"{where}: the ledger refuses it: {exc} [{exc.sqlstate}]") from exc


def _insert_finding(conn: psycopg.Connection[Any], scope: str, f: CorpusFinding,
                    at_note: bool = False) -> tuple[int, tuple[str, ...]]:
    """Write ``f`` (its paths: :meth:`CorpusFinding.ledger_paths`); returns
    its id and the strong keywords the ledger refused (left out). Anything
    else it refuses raises :class:`CorpusError`."""
    try:
        return _insert_checked(conn, scope, f, f.ledger_paths(at_note))
    except KeywordRejected:
        raise
    except LedgerError as exc:
        raise CorpusError(f"finding {f.id}: the ledger refuses it: {exc} [{exc.sqlstate}]") from exc


def _insert_checked(conn: psycopg.Connection[Any], scope: str, f: CorpusFinding,
                    paths: list[str]) -> tuple[int, tuple[str, ...]]:
    keywords = list(f.strong_keywords)
    dropped: list[str] = []
    params = {
        "scope": scope, "title": f.title, "description": f.description, "kind": f.kind,
        "paths": paths, "finding_key": f.key, "slug": f.slug, "observed_at": f.observed_at,
        "expects": f.expects, "source": f"corpus:{f.id}",
    }
    try:
        with translate(conn), conn.transaction():
            row = conn.execute(queries.EVALUATE_INSERT_FINDING, {**params, "strong_keywords": keywords}).fetchone()
    except KeywordRejected:
        for kw in f.strong_keywords:
            try:
                with translate(conn), conn.transaction() as tx:
                    conn.execute(queries.EVALUATE_INSERT_FINDING, {
                        **params, "finding_key": None, "slug": None, "strong_keywords": [kw]})
                    raise psycopg.Rollback(tx)
            except KeywordRejected:
                dropped.append(kw)
        keywords = [k for k in keywords if k not in dropped]
        with translate(conn), conn.transaction():
            row = conn.execute(queries.EVALUATE_INSERT_FINDING, {**params, "strong_keywords": keywords}).fetchone()
    assert row is not None
    return int(row[0]), tuple(dropped)


@dataclass
class _Run:
    """One scope's replay: the findings written so far (corpus id -> ledger id)."""

    scope: str
    ids: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _replay(conn: psycopg.Connection[Any], scope: str, corpus: Corpus, policy: Policy,
            findings: Sequence[CorpusFinding], start: int, batch_size: int,
            progress: Callable[[int], None] | None) -> tuple[_Run, int]:
    """Replay ``corpus.commits[start:]`` into a fresh ``scope``, writing each
    of ``findings`` right after its observed commit. Returns the run and the
    number of merges written."""
    if policy.settings:
        set_match_policy(conn, scope, create=True, **policy.settings)
    index = corpus.index()
    at: dict[int, list[CorpusFinding]] = {}
    for f in findings:
        at.setdefault(index[f.observed_sha], []).append(f)
    run = _Run(scope)
    written = 0
    batch: list[Commit] = []
    last = max(at) if at else -1

    def flush() -> None:
        nonlocal written
        if batch:
            _copy_merges(conn, scope, batch, policy.hunks)
            written += len(batch)
            if progress is not None:
                progress(len(batch))
            batch.clear()

    for i in range(start, len(corpus.commits)):
        batch.append(corpus.commits[i])
        if i not in at and len(batch) < batch_size:
            continue
        flush()
        for f in at.get(i, ()):
            run.ids[f.id], run.dropped[f.id] = _insert_finding(conn, scope, f, policy.at_note)
        if i >= last and not _any_active(conn, scope):
            break  # every finding is retired: later merges change nothing
    flush()
    return run, written


def _any_active(conn: psycopg.Connection[Any], scope: str) -> bool:
    return conn.execute(queries.EVALUATE_ANY_ACTIVE, {"scope": scope}).fetchone() is not None


def _rule(rule: str | None, form: str | None) -> str | None:
    """The rule as reported: the path rule split by the form of its deciding piece."""
    if rule == "path" and form:
        return PATH_FORMS.get(form, f"path: {form}")
    return rule


def _results(conn: psycopg.Connection[Any], run: _Run) -> dict[str, tuple[str | None, str | None]]:
    rows = conn.execute(queries.EVALUATE_RESULTS, {"ids": list(run.ids.values())}).fetchall()
    by_id = {r[0]: (r[1], _rule(r[2], r[3])) for r in rows}
    return {fid: by_id[lid] for fid, lid in run.ids.items()}


def _ambiguous(conn: psycopg.Connection[Any], run: _Run) -> set[str]:
    rows = conn.execute(queries.EVALUATE_AMBIGUOUS, {"scope": run.scope}).fetchall()
    hit = {r[0] for r in rows}
    return {fid for fid, lid in run.ids.items() if lid in hit}


def _colliding(findings: Iterable[CorpusFinding]) -> set[str]:
    """Findings whose key or slug another finding of the same file also uses."""
    out: set[str] = set()
    for attr in ("key", "slug"):
        seen: dict[str, list[str]] = {}
        for f in findings:
            value = getattr(f, attr)
            if value:
                seen.setdefault(value.lower(), []).append(f.id)
        out.update(i for ids in seen.values() if len(ids) > 1 for i in ids)
    return out


def evaluate(
    conn: psycopg.Connection[Any],
    corpora: Sequence[Corpus],
    policies: Sequence[Policy] = POLICIES,
    *,
    isolated: bool = False,
    batch_size: int = BATCH_SIZE,
    progress: Callable[[int], None] | None = None,
    run_id: str | None = None,
    connect: Callable[[], psycopg.Connection[Any]] | None = None,
    jobs: int = 1,
) -> Evaluation:
    """Replay ``corpora`` under each of ``policies`` (see the module
    docstring) on ``conn``, an autocommit connection to a migrated database
    whose scopes ``eval-<run_id>-...`` are free (a scratch database: the
    replay writes thousands of merges). ``progress`` is called with the
    number of merges of each batch written. With ``jobs`` > 1 and
    ``connect`` (a new autocommit connection to the same database), the
    policies are replayed ``jobs`` at a time, each on its own connection
    (they use disjoint scopes; the outcomes are the same, in the same order).
    Raises ValueError when the
    connection runs with ``session_replication_role`` other than origin
    (``options=-c session_replication_role=replica`` in the DSN): the
    ledger's triggers would not fire, nothing would be retired, and the
    figures would be 0% for a reason that is not the matcher's."""
    role = conn.execute("SELECT current_setting('session_replication_role')").fetchone()
    if role is not None and role[0] != "origin":
        raise ValueError(
            f"session_replication_role is {role[0]!r} on this connection (options in the DSN or PGOPTIONS?): "
            "the ledger's triggers would not fire and nothing would be retired; connect without it"
        )
    started = time.monotonic()
    token = run_id or secrets.token_hex(3)
    ev = Evaluation(tuple(policies), list(corpora))

    def one(p_index: int, policy: Policy, c: psycopg.Connection[Any]) -> tuple[list[Outcome], int, int]:
        part = Evaluation((policy,), list(corpora))
        for corpus in corpora:
            base = f"eval-{token}-p{p_index}-{corpus.repository}"
            alone = {f.id for f in corpus.findings} if isolated else _colliding(corpus.findings)
            shared = [f for f in corpus.findings if f.id not in alone]
            try:
                results, dropped = _replay_corpus(c, part, base, corpus, policy, alone, shared, batch_size,
                                                  progress)
            except CorpusError as exc:
                raise CorpusError(f"{corpus.source}: {exc}") from exc
            for f in corpus.findings:
                sha, rule = results[f.id]
                part.outcomes.append(Outcome(policy.name, corpus.repository, f, sha, rule, f.id in alone,
                                             dropped.get(f.id, ())))
        return part.outcomes, part.merges_written, part.isolated_reruns

    if jobs > 1 and connect is not None and len(policies) > 1:
        from concurrent.futures import ThreadPoolExecutor

        def pooled(args: tuple[int, Policy]) -> tuple[list[Outcome], int, int]:
            with connect() as c:
                return one(args[0], args[1], c)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            parts = list(pool.map(pooled, enumerate(policies)))
    else:
        parts = [one(i, policy, conn) for i, policy in enumerate(policies)]
    for outcomes, merges, reruns in parts:
        ev.outcomes.extend(outcomes)
        ev.merges_written += merges
        ev.isolated_reruns += reruns
    ev.seconds = time.monotonic() - started
    return ev


def _replay_corpus(conn: psycopg.Connection[Any], ev: Evaluation, base: str, corpus: Corpus, policy: Policy,
                   alone: set[str], shared: list[CorpusFinding], batch_size: int,
                   progress: Callable[[int], None] | None,
                   ) -> tuple[dict[str, tuple[str | None, str | None]], dict[str, tuple[str, ...]]]:
    """One corpus under one policy: the shared scope, then the findings replayed alone
    (``alone`` grows by the ones found ambiguous)."""
    results: dict[str, tuple[str | None, str | None]] = {}
    dropped: dict[str, tuple[str, ...]] = {}
    index = corpus.index()
    if shared:
        start = min(index[f.observed_sha] for f in shared)
        run, n = _replay(conn, base, corpus, policy, shared, start, batch_size, progress)
        ev.merges_written += n
        results.update(_results(conn, run))
        dropped.update(run.dropped)
        alone |= _ambiguous(conn, run)
    for f in corpus.findings:
        if f.id not in alone:
            continue
        run, n = _replay(conn, f"{base}-{f.id}", corpus, policy, [f], index[f.observed_sha], batch_size,
                         progress)
        ev.merges_written += n
        ev.isolated_reruns += 1
        results.update(_results(conn, run))
        dropped.update(run.dropped)
    return results, dropped


def total_merges(corpora: Sequence[Corpus], policies: Sequence[Policy] = POLICIES) -> int:
    """An upper bound of the merges :func:`evaluate` writes without reruns (for a progress bar)."""
    n = 0
    for corpus in corpora:
        if corpus.findings:
            index = corpus.index()
            n += len(corpus.commits) - min(index[f.observed_sha] for f in corpus.findings)
    return n * len(policies)


# --- the report -----------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def table_rows(ev: Evaluation) -> Iterator[list[str]]:
    """The report's rows: per policy and case, the totals, then one row per
    rule that retired anything. Columns: policy, case, rule, findings,
    labelled fixes, TP (retired at the fix), retired early (while still
    true; of them on hard negatives), retired late (after the fix), never
    retired (a fix that retired nothing), precision, recall."""
    for policy in ev.policies:
        for case in ev.cases():
            t = ev.tally(policy.name, case)
            yield [policy.name, case, "all", str(t.findings), str(t.resolved), str(t.tp),
                   f"{t.early} ({t.fp_hard})", str(t.late), str(t.never), _pct(t.precision), _pct(t.recall)]
            for rule in ev.rules(policy.name, case):
                r = ev.tally(policy.name, case, rule)
                yield ["", "", rule, "", "", str(r.tp), f"{r.early} ({r.fp_hard})", str(r.late), "",
                       _pct(r.precision), _pct(r.recall)]


HEADERS = ["policy", "case", "rule", "findings", "fixes", "TP (at the fix)", "early (hard neg.)", "late",
           "never", "precision", "recall"]


def markdown(ev: Evaluation) -> str:
    """The table as GitHub-flavoured Markdown, with the run's totals under it."""
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "|".join("---" for _ in HEADERS) + "|"]
    for row in table_rows(ev):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    return "\n".join(lines) + "\n"


def summary(ev: Evaluation, *, timing: bool = True) -> str:
    """One line: what was replayed (and, with ``timing``, how long it took)."""
    findings = sum(len(c.findings) for c in ev.corpora)
    commits = sum(len(c.commits) for c in ev.corpora)
    return (f"{len(ev.corpora)} repositories, {commits} commits, {findings} findings, {len(ev.policies)} policies: "
            f"{ev.merges_written} merges written, {ev.isolated_reruns} findings replayed alone"
            + (f", {ev.seconds:.0f} s" if timing else ""))
