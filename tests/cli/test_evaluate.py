"""``findings-ledger evaluate``: a labelled corpus replayed through the real
schema (a fresh migrated database), precision and recall per rule and per
policy. The hand-made cases of tests/corpus always run; a slice of the real
corpus (../shared/corpus, never copied into the project) runs when it is
there."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner, Result
from support.corpus import CORPUS

from findings_ledger import evaluate as ev
from findings_ledger.cli import evaluate as evaluate_cli
from findings_ledger.cli import main

ROOT = Path(__file__).resolve().parents[2]
HANDMADE = ROOT / "tests" / "corpus"
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason=f"the labelled corpus is not at {CORPUS} (../shared/corpus next to the checkout, or $LEDGER_CORPUS)",
)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env={"COLUMNS": "200"})


@pytest.fixture
def scratch_names(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the scratch databases this test's ``evaluate`` runs create. The
    cluster is shared with the other workers, whose runs make scratch databases of
    their own at any moment, so a test checks its own, never a count of them all."""
    names: list[str] = []
    real = evaluate_cli.scratch_database

    @contextmanager
    def recorded(dsn: str) -> Iterator[str]:
        with real(dsn) as target:
            names.append(psycopg.conninfo.conninfo_to_dict(target)["dbname"])
            yield target

    monkeypatch.setattr(evaluate_cli, "scratch_database", recorded)
    return names


def assert_dropped(dsn: str, names: list[str]) -> None:
    assert names and all(n.startswith("ledger_evaluate_") for n in names), names
    with psycopg.connect(dsn) as conn:
        left = conn.execute("SELECT datname FROM pg_database WHERE datname = ANY(%s)", (names,)).fetchall()
    assert left == []


def assert_user_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.output


def outcomes(result: ev.Evaluation, policy: str) -> dict[str, tuple[str | None, str | None]]:
    """finding id -> (short superseding sha, rule) under ``policy``."""
    return {o.finding.id.rsplit("-", 1)[1]: ((o.superseded_by or "")[1:4] or None, o.rule)
            for o in result.outcomes if o.policy == policy}


# --- the hand-made cases: every rule the real corpus has no case for ----------------


def test_the_hand_made_cases(ledger_conn: psycopg.Connection[Any]) -> None:
    corpora = ev.load_corpus(HANDMADE)
    retire = ev.Policy("default, touch retire", {"touch": "retire", "touch_kind": "drift"})
    result = ev.evaluate(ledger_conn, corpora, [*ev.POLICIES, retire])
    default = outcomes(result, "default")
    assert {k: v for k, v in default.items() if k not in ("001", "008")} == {
        "002": ("00a", "key"),  # "Fixes F-42."; not "Refs F-42" nor "Does not fix F-42 yet"
        "003": ("00c", "keyword"),  # "Fixes ECONNRESET_POOL."; not "Handle ECONNRESET_POOL in ..."
        "004": (None, None),  # kind drift without a check: the shipped touch mode flags, never retires
        "005": (None, None),
        "006": (None, None),  # kind todo: the default path rule only records candidates
        "007": (None, None),
    }
    # the path rule as such (touch retire for kind drift): expects present / absent
    by_path = outcomes(result, "default, touch retire")
    assert by_path["004"] == ("007", "path: added (present)")  # the scaffold adds files under packages/nightshift/
    assert by_path["005"] == ("009", "path: deleted (absent)")  # the deletion, not the reformatting before it
    assert {k: v for k, v in by_path.items() if k not in ("004", "005")} == {
        k: v for k, v in default.items() if k not in ("004", "005")}
    every_kind = outcomes(result, "kinds *")
    # the anchor moves down 5 lines with the insertion above it, is kept by the edit below it,
    # and retires at the rewrite (line_context 0)
    assert every_kind["007"] == ("00a", "path: line anchor")
    # a rename deletes the old path: the anchored TODO in it retires there, before its fix
    # (a hard negative; the corpus labels follow the line into the renamed file)
    assert every_kind["006"] == ("005", "path: file deleted")
    # findings without a line anchor: the file-level rule retires them at the first edit
    assert every_kind["002"] == every_kind["003"] == ("002", "path: file")
    # with 3 lines of context, the edit one line below the moved anchor retires it
    assert outcomes(result, "kinds *, line_context 3")["007"] == ("006", "path: line anchor")
    # without hunks, the first edit of the file retires the TODO: a hard negative
    assert outcomes(result, "kinds *, no hunks")["007"] == ("002", "path: file")
    line, no_hunks = result.tally("kinds *", "todo"), result.tally("kinds *, no hunks", "todo")
    assert (line.tp, line.fp, line.fp_hard) == (1, 1, 1)
    assert (no_hunks.tp, no_hunks.fp, no_hunks.fp_hard) == (0, 2, 2)
    # present and absent never depend on hunks
    assert outcomes(result, "default, no hunks")["004"] == outcomes(result, "default")["004"]
    flags = ledger_conn.execute(
        "SELECT count(*) FROM ledger.supersession a JOIN ledger.finding f ON f.id = a.finding_id "
        "WHERE a.action = 'flagged' AND f.kind = 'drift'").fetchone()
    assert flags is not None and flags[0] > 0


def test_commit_prose_as_people_write_it(ledger_conn: psycopg.Connection[Any]) -> None:
    result = ev.evaluate(ledger_conn, ev.load_corpus(HANDMADE), [ev.POLICIES[0]])
    default = outcomes(result, "default")
    # "Fixes Login fails on Safari 15" names a narrower problem; "Fix login fails on Safari" the finding
    assert default["001"] == ("008", "title")
    # a wrapped sentence whose slug is broken at a hyphen across the line end
    assert default["008"] == ("00d", "slug")
    assert result.false_retirements("default") == []


def test_shared_scopes_give_the_figures_of_one_scope_per_finding(ledger_conn: psycopg.Connection[Any]) -> None:
    corpora = ev.load_corpus(HANDMADE)
    policies = [ev.POLICIES[0], ev.POLICIES[2]]
    shared = ev.evaluate(ledger_conn, corpora, policies, run_id="shared")
    alone = ev.evaluate(ledger_conn, corpora, policies, isolated=True, run_id="alone")
    assert shared.isolated_reruns == 0 and alone.isolated_reruns == len(corpora[0].findings) * len(policies)
    assert [(o.policy, o.finding.id, o.superseded_by, o.rule) for o in shared.outcomes] == [
        (o.policy, o.finding.id, o.superseded_by, o.rule) for o in alone.outcomes]


# --- the real corpus ----------------------------------------------------------------------


@needs_corpus
def test_a_slice_of_the_real_corpus(ledger_conn: psycopg.Connection[Any]) -> None:
    # spf13/cobra's first 260 commits: 10 TODO/FIXME lines, 5 fixed in the slice, 54 hard negatives
    corpora = [c.head(260) for c in ev.load_corpus(CORPUS, ["spf13/cobra"])]
    policies = [p for p in ev.POLICIES if p.name in ("default", "kinds *", "kinds *, no hunks")]
    result = ev.evaluate(ledger_conn, corpora, policies)
    # no false retirement under the shipped policy
    assert result.false_retirements("default") == []
    line = result.tally("kinds *", "todo")
    file_level = result.tally("kinds *, no hunks", "todo")
    assert (line.findings, line.resolved) == (10, 5)
    # the line anchor retires at the fix, never on a hard negative; touching the file does
    assert (line.tp, line.fp) == (5, 0)
    assert file_level.fp_hard > 0 and file_level.tp < line.tp


@needs_corpus
def test_the_default_policy_never_retires_a_deprecation_note_early(ledger_conn: psycopg.Connection[Any]) -> None:
    # encode/httpx's first 100 commits: 11 findings, one deprecation note edited in the changelog.
    # A named finding is filed without its note's place (CHANGELOG.md:line, where it was written, not
    # what it is about); filed there, the line rule retires it at the commit that edits the note
    # (b9db5e149ea7 'Fix typo in 0.14.0 changelog' retires encode__httpx-004).
    corpora = [c.head(100) for c in ev.load_corpus(CORPUS, ["encode/httpx"])]
    at_note = next(p for p in ev.POLICIES if p.at_note)
    result = ev.evaluate(ledger_conn, corpora, [ev.POLICIES[0], at_note])
    assert [o.finding.id for o in result.false_retirements("default")] == []
    wrong = {o.finding.id: o.superseded_by[:12] for o in result.false_retirements(at_note.name)}
    assert wrong == {"encode__httpx-004": "b9db5e149ea7"}
    assert {o.rule for o in result.false_retirements(at_note.name)} == {"path: line anchor"}


def test_a_named_finding_is_filed_at_what_it_is_about() -> None:
    corpus = ev.load_corpus(HANDMADE)[0]
    named = next(f for f in corpus.findings if f.case == "named")
    todo = next(f for f in corpus.findings if f.case == "todo")
    assert named.paths and named.ledger_paths() == list(named.paths)
    assert todo.ledger_paths() == [f"{todo.path}:{todo.line}"]
    bare = dataclasses.replace(named, paths=None, line=12)
    assert bare.ledger_paths() == [] and bare.ledger_paths(at_note=True) == [f"{named.path}:12"]


def test_a_slice_is_labelled_as_of_its_new_head() -> None:
    corpus = ev.load_corpus(HANDMADE)[0]
    cut = corpus.head(9)
    assert len(cut.commits) == 9 and len(cut.findings) == 8
    labels = {f.id[-3:]: f.label for f in cut.findings}
    assert labels["001"].resolved_by == corpus.commits[7].sha  # fixed at commit 8: kept
    assert labels["002"].resolved_by is None  # fixed at commit 10: open in the slice
    assert labels["007"].touched_not_resolved == (corpus.commits[1].sha, corpus.commits[5].sha)


# --- the command line -------------------------------------------------------------------


def _subset(tmp_path: Path, keep: set[str], relabel: dict[str, str] | None = None) -> Path:
    """The hand-made corpus with only the findings ``keep`` (by number), some relabelled."""
    data = json.loads((HANDMADE / "findings-ledger__handmade.json").read_text(encoding="utf-8"))
    data["findings"] = [f for f in data["findings"] if f["id"][-3:] in keep]
    for f in data["findings"]:
        if f["id"][-3:] in (relabel or {}):
            f["label"]["resolved_by"] = (relabel or {})[f["id"][-3:]]
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "findings-ledger__handmade.json").write_text(json.dumps(data), encoding="utf-8")
    return d


def test_evaluate_prints_the_table_and_writes_the_doc_block(ledger_dsn: str, tmp_path: Path,
                                                           scratch_names: list[str]) -> None:
    doc = tmp_path / "page.md"
    doc.write_text("# Page\n\n<!-- evaluate:begin -->\nold\n<!-- evaluate:end -->\n\nAfter.\n", encoding="utf-8")
    corpus = _subset(tmp_path, {"002", "004", "005", "007"})
    result = run("evaluate", str(corpus), "--dsn", ledger_dsn, "--policy", "default", "--policy", "kinds *",
                 "--write-doc", str(doc), "--check")
    assert result.exit_code == 0, result.output
    assert "1 repositories, 13 commits, 4 findings, 2 policies" in result.stdout
    assert "path: line anchor" in result.stdout
    text = doc.read_text(encoding="utf-8")
    assert "old" not in text and text.endswith("<!-- evaluate:end -->\n\nAfter.\n")
    # 002 by its key; 004 and 005 (kind drift, no check) are flagged by the shipped touch mode, never retired
    assert "| default | named | all | 3 | 3 | 1 | 0 (0) | 0 | 2 | 100% | 33% |" in text
    assert " s\n" not in text  # no timing in the doc: rerunning changes nothing
    markdown = run("evaluate", str(corpus), "--dsn", ledger_dsn, "--policy", "default", "--markdown")
    assert markdown.stdout.startswith("| policy | case | rule |")
    assert_dropped(ledger_dsn, scratch_names)  # the scratch databases are gone


def test_check_fails_on_a_false_retirement_under_the_default_policy(ledger_dsn: str, tmp_path: Path) -> None:
    # label the key rule's finding as fixed by a later commit: "Fixes F-42." becomes a false retirement
    corpus = _subset(tmp_path, {"002"}, relabel={"002": "000d" + "0" * 36})
    result = run("evaluate", str(corpus), "--dsn", ledger_dsn, "--policy", "default", "--check")
    assert "false retirement under 'default': findings-ledger__handmade-002 by 000a00000000" in result.stdout
    assert_user_error(result, "the 'default' policy retired 1 finding(s) at a commit other than its fix")


def test_evaluate_mistakes_are_one_line(ledger_dsn: str, tmp_path: Path, scratch_names: list[str]) -> None:
    assert_user_error(run("evaluate", str(tmp_path / "nope"), "--dsn", ledger_dsn), "does not exist", "nope")
    assert_user_error(run("evaluate", str(tmp_path), "--dsn", ledger_dsn), "holds no *.json file")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x__y.json").write_text("{not json", encoding="utf-8")
    assert_user_error(run("evaluate", str(bad), "--dsn", ledger_dsn), "x__y.json", "not JSON")
    data = json.loads((HANDMADE / "findings-ledger__handmade.json").read_text(encoding="utf-8"))
    data["findings"][1]["label"]["resolved_by"] = "0001" + "0" * 36  # the first commit: not after observed_sha
    (bad / "x__y.json").write_text(json.dumps(data), encoding="utf-8")
    assert_user_error(run("evaluate", str(bad), "--dsn", ledger_dsn), "x__y.json", "findings[1]",
                      "handmade-002", "resolved_by")
    del data["commits"][3]["message"]
    (bad / "x__y.json").write_text(json.dumps(data), encoding="utf-8")
    assert_user_error(run("evaluate", str(bad), "--dsn", ledger_dsn), "commits[3]", "lacks 'message'")
    assert_user_error(run("evaluate", str(HANDMADE), "--dsn", ledger_dsn, "--policy", "nope"),
                      "unknown policy 'nope'")
    assert_user_error(run("evaluate", str(HANDMADE), "--dsn", ledger_dsn, "--repo", "a/b"), "no file for 'a/b'")
    # rows the ledger refuses are named by file and commit or finding, and nothing is left behind
    data = json.loads((HANDMADE / "findings-ledger__handmade.json").read_text(encoding="utf-8"))
    data["commits"][2]["changes"][0]["path"] = "/etc/passwd"
    (bad / "x__y.json").write_text(json.dumps(data), encoding="utf-8")
    assert_user_error(run("evaluate", str(bad), "--dsn", ledger_dsn, "--policy", "default"), "x__y.json",
                      "commit 0003" + "0" * 36, "/etc/passwd", "LD001")
    data = json.loads((HANDMADE / "findings-ledger__handmade.json").read_text(encoding="utf-8"))
    data["findings"][0]["paths"] = ["../outside.py"]
    (bad / "x__y.json").write_text(json.dumps(data), encoding="utf-8")
    assert_user_error(run("evaluate", str(bad), "--dsn", ledger_dsn, "--policy", "default"), "x__y.json",
                      "finding findings-ledger__handmade-001", "LD001")
    assert_dropped(ledger_dsn, scratch_names)
    doc = tmp_path / "nomarkers.md"
    doc.write_text("# no markers\n", encoding="utf-8")
    assert_user_error(run("evaluate", str(HANDMADE), "--dsn", ledger_dsn, "--policy", "default",
                          "--write-doc", str(doc)), "no <!-- evaluate:begin -->")


def test_the_corpus_is_read_where_it_is_never_copied() -> None:
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True)
    names = {Path(p).name for p in tracked.stdout.splitlines()}
    assert not names & {"encode__httpx.json", "spf13__cobra.json", "spf13__viper.json", "sqlalchemy__alembic.json"}
