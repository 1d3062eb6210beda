"""The one tokeniser (ledger._tokenise) and the one key builder
(ledger._token_keys) against the definitions they replaced: the pre-filter's
keys (ledger._message_probe_keys), its answer (ledger._message_may_match),
the matcher's tokens (ledger._message_tokens) and its evidence
(ledger._match_message) must be exactly what the earlier definitions give
(the keys as a set: a key now repeats when its words do),
on every commit message of the labelled corpus and on hypothesis-generated
messages.

The earlier definitions are read from the revisions that froze them (landed
revisions never change) and installed, renamed into the schema ledger_ref of
this module's database, so each comparison runs both on the same message
and the same findings. The hypothesis messages are also held against the
Python reference tokeniser of tests/decisions/test_message_prefilter.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.corpus import CORPUS
from support.matching import add, module_conn, module_dsn  # noqa: F401
from test_matcher_properties import FINDINGS as PROPERTY_FINDINGS
from test_matcher_properties import messages as property_messages
from test_message_prefilter import MESSAGE_PARTS, PIECES, _reference_keys

import findings_ledger as fl
from findings_ledger import folds

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ROOT / "migrations" / "versions"
#: The definitions before the one tokeniser, as the newest revision holding each froze it.
FROZEN = {
    "_message_probe_keys": "0018_prefilter_splits_tokens",
    "_message_may_match": "0018_prefilter_splits_tokens",
    "_message_tokens": "0025_no_verb_on_a_non_resolving",
    "_match_message": "0020_task_transitions_one_helper",
}
#: Helpers the earlier definitions call that the ledger no longer has, installed beside them.
DROPPED = {
    "_scoped_evidence_keys": "0020_task_transitions_one_helper",
}
SCOPES = ("prefilter", "props", "corpus")


def _frozen(revision: str, path: str) -> str:
    """A revision's frozen file: under migrations/versions/, or in the archive of
    the release that folded the revision (migrations/replaced/)."""
    return folds.frozen_file(revision, path, VERSIONS.parent)

#: Every output of both sides for a batch of messages in every scope (the
#: tokens, which have no scope, in the first: null in the others), each side
#: computed once.
OUTPUTS = """
SELECT m, s,
       ARRAY(SELECT DISTINCT k FROM unnest(ledger._message_probe_keys(s, m)) AS k ORDER BY k) AS keys,
       ARRAY(SELECT DISTINCT k FROM unnest(ledger_ref._message_probe_keys(s, m)) AS k ORDER BY k) AS ref_keys,
       ledger._message_may_match(s, m) AS may, ledger_ref._message_may_match(s, m) AS ref_may,
       ARRAY(SELECT x::text FROM ledger._match_message(s, m) AS x ORDER BY 1) AS evidence,
       ARRAY(SELECT x::text FROM ledger_ref._match_message(s, m) AS x ORDER BY 1) AS ref_evidence,
       CASE WHEN o = 1 THEN ARRAY(SELECT t::text FROM ledger._message_tokens(m) AS t ORDER BY t.seg, t.pos)
       END AS tokens,
       CASE WHEN o = 1 THEN ARRAY(SELECT t::text FROM ledger_ref._message_tokens(m) AS t ORDER BY t.seg, t.pos)
       END AS ref_tokens,
       CASE WHEN o = 1 THEN (SELECT (t.tokens, t.gaps)::text FROM ledger._tokenise(normalize(m, NFC), true) AS t)
       END AS tokenised,
       CASE WHEN o = 1 THEN (SELECT (coalesce(array_agg(r[2] ORDER BY o), '{}'),
                                     coalesce(array_agg(r[1] ORDER BY o), '{}'))::text
                               FROM regexp_matches(normalize(m, NFC), ledger._token_regex(true), 'g')
                                    WITH ORDINALITY AS x(r, o))
       END AS ref_tokenised
  FROM unnest(%(m)s::text[]) AS m, unnest(%(s)s::text[]) WITH ORDINALITY AS u(s, o)
"""
#: The messages where anything differs, in a table of OUTPUTS' columns.
DIFFERING = """
SELECT m, s FROM {table}
 WHERE keys IS DISTINCT FROM ref_keys OR may IS DISTINCT FROM ref_may OR evidence IS DISTINCT FROM ref_evidence
    OR tokens IS DISTINCT FROM ref_tokens OR tokenised IS DISTINCT FROM ref_tokenised
"""
#: One query compares every output for a batch of messages and returns the messages where anything differs.
DIFFERENCES = f"WITH o AS MATERIALIZED ({OUTPUTS}) {DIFFERING.format(table='o')}"
#: How much of it there was in the scope 'corpus': keys, tokens and pieces of evidence the new definitions gave.
SIZES = """
SELECT sum(cardinality(keys)), sum(cardinality(tokens)), sum(cardinality(evidence)), count(*) FILTER (WHERE may)
  FROM corpus_outputs WHERE s = 'corpus'
"""


def _install_reference(conn: psycopg.Connection[Any]) -> None:
    conn.execute("DROP SCHEMA IF EXISTS ledger_ref CASCADE")
    conn.execute("CREATE SCHEMA ledger_ref")
    names = "|".join({**FROZEN, **DROPPED})
    for name, revision in {**FROZEN, **DROPPED}.items():
        text = _frozen(revision, f"functions/{name}.sql")
        conn.execute(re.sub(rf"\bledger\.({names})\(", r"ledger_ref.\1(", text))


def _corpus_messages(tmp: Path) -> list[str]:
    """Every commit message of the corpus: the JSON histories and every commit of the drift case's bundle."""
    messages = []
    for path in sorted(CORPUS.glob("*.json")):
        messages += [c["message"] for c in json.loads(path.read_text(encoding="utf-8"))["commits"]]
    for bundle in sorted(CORPUS.glob("*/repo.bundle")):
        repo = tmp / bundle.parent.name
        subprocess.run(["git", "clone", "--quiet", "--bare", str(bundle), str(repo)], check=True)
        out = subprocess.run(["git", "-C", str(repo), "log", "--all", "--format=%B%x00"], check=True,
                             capture_output=True, text=True).stdout
        messages += [m.removeprefix("\n") for m in out.split("\x00")[:-1]]
    return messages


def _corpus_findings(conn: psycopg.Connection[Any], messages: list[str]) -> int:
    """Findings of the scope 'corpus' that the corpus's own messages name: for
    every 25th message, its first identifier-like token as the key and the
    first four words of its subject as the title, so that keys, titles, verbs
    and mentions of real messages meet real findings."""
    made = 0
    for i, message in enumerate(messages[::25]):
        subject = message.strip().split("\n", 1)[0]
        words = re.findall(r"[A-Za-z][A-Za-z0-9]+", subject)
        key = next(iter(re.findall(r"\b[A-Za-z][A-Za-z0-9]*[-_.][A-Za-z0-9][A-Za-z0-9_.-]*\b", message)), None)
        if len(words) < 4:
            continue
        try:
            add(conn, "corpus", " ".join(words[:4]), key=f"{key}" if key and i % 2 else None)
            made += 1
        except psycopg.Error:  # a title or key the ledger refuses: not this test's concern
            continue
    return made


@pytest.fixture(scope="module")
def reference(module_conn: psycopg.Connection[Any]) -> Iterator[psycopg.Connection[Any]]:  # noqa: F811
    _install_reference(module_conn)
    fl.add_finding(module_conn, "prefilter", "Login fails on Safari", finding_key="F-42", kind="drift")
    fl.add_finding(module_conn, "prefilter", "Cache stale", kind="drift")
    fl.add_finding(module_conn, "prefilter", "Heartbeat lost", kind="drift", finding_key="heartbeat-loss")
    module_conn.execute("UPDATE ledger.finding SET slug = 'heartbeat-loss', strong_keywords = '{ERR_X}' "
                        "WHERE scope = 'prefilter' AND finding_key = 'heartbeat-loss'")
    fl.add_finding(module_conn, "prefilter", "\u00c5ngstr\u00f6m units wrong everywhere", finding_key="\u00c5-1",
                   kind="drift")
    for f in PROPERTY_FINDINGS:
        add(module_conn, "props", f["title"], key=f.get("key"), slug=f.get("slug"), keywords=f.get("keywords", ()))
    yield module_conn


def _differences(conn: psycopg.Connection[Any], messages: list[str], scopes: tuple[str, ...] = SCOPES
                 ) -> list[tuple[str, str]]:
    return conn.execute(DIFFERENCES, {"m": messages, "s": list(scopes)}).fetchall()


def test_the_reference_is_the_earlier_code(reference: psycopg.Connection[Any]) -> None:
    """The frozen files are the earlier definitions, and they differ from
    today's: the comparisons below compare two different bodies."""
    for name in FROZEN:
        old, new = reference.execute(
            "SELECT (SELECT prosrc FROM pg_proc WHERE oid = %s::regproc), "
            "(SELECT prosrc FROM pg_proc WHERE oid = %s::regproc)", (f"ledger_ref.{name}", f"ledger.{name}")).fetchone()
        assert old and new
        if name != "_message_may_match":  # unchanged: it calls the (new) probe keys
            assert old != new, name
    assert "ledger_ref._message_tokens(" in reference.execute(
        "SELECT prosrc FROM pg_proc WHERE oid = 'ledger_ref._match_message'::regproc").fetchone()[0]


def test_the_same_outputs_on_a_few_messages(reference: psycopg.Connection[Any]) -> None:
    """Each construct by hand, and the comparison has teeth: these messages match."""
    messages = ["Fixes F-42", "see heart-\n  beat now",
                "Resolves heartbeat-\nloss and findings/\n2026-01-02-heartbeat-loss.md",
                "fix(core)!: close F-42, F-43 and \u212b-1", "Login fails on Safari 15\n\nRefs: F-42", "",
                "`F-42` <!-- x -->", "Revert \"Fixes F-42\"\n\nThis reverts commit abc1234.", "a.-b ..c. d.e-f",
                "Fixes the\r\nCache stale bug"]
    assert _differences(reference, messages) == []
    found = reference.execute("SELECT count(*) FROM unnest(%s::text[]) AS m, ledger._match_message('prefilter', m)",
                              (messages,)).fetchone()[0]
    assert found >= 8


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.one_of(MESSAGE_PARTS, st.sampled_from(PIECES)), max_size=24))
def test_the_same_outputs_on_generated_messages(reference: psycopg.Connection[Any], parts: list[str]) -> None:
    """Pieces of the pre-filter's property test (evidence, every construct of
    the segmenter, token-class edges, any characters): the same keys, answer,
    tokens and evidence as before, and the tokeniser's tokens, separators,
    norms and joined forms are the Python reference's."""
    message = "".join(parts)
    assert _differences(reference, [message]) == [], message
    pattern = reference.execute("SELECT ledger._token_regex(true)").fetchone()[0]
    text = unicodedata.normalize("NFC", message)
    pairs = [(m.group(1), m.group(2)) for m in re.finditer(pattern, text)]
    norms = ["".join(c.lower() if "A" <= c <= "Z" else c for c in tok) for _, tok in pairs]
    alts = [norms[i] + pairs[i + 1][0][0] + norms[i + 1] if re.fullmatch(r"[-/]\n[ \t]*", pairs[i + 1][0]) else None
            for i in range(len(pairs) - 1)] + ([None] if pairs else [])
    got = reference.execute("SELECT t.tokens, t.gaps, t.norms, t.alts FROM ledger._tokenise(%s, true) AS t",
                            (text,)).fetchone()
    assert got == ([t for _, t in pairs], [g for g, _ in pairs], norms, alts), message
    keys = reference.execute("SELECT ledger._message_probe_keys('prefilter', %s)", (message,)).fetchone()[0]
    assert set(keys) == _reference_keys(reference, "prefilter", message), message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(message=property_messages)
def test_the_same_outputs_on_messages_that_resolve(reference: psycopg.Connection[Any], message: str) -> None:
    """The matcher property test's messages (verbs, lists, mentions of the
    'props' findings' keys, slugs, file names, keywords and titles)."""
    assert _differences(reference, [message], ("props",)) == [], message


def _corpus_sample(messages: list[str]) -> list[str]:
    """A third of the corpus's messages (every third), every message with a
    token broken at a line end (the joined forms) and the 100 longest: the
    whole corpus was compared when the tokeniser became one (5,111 messages,
    CHANGELOG.md), and a third keeps every construct it holds at a third of
    the cost (the earlier definitions are the slow half)."""
    broken = [m for m in messages if re.search(r"[-/]\r?\n", m)]
    longest = sorted(messages, key=len, reverse=True)[:100]
    return list(dict.fromkeys(messages[::3] + broken + longest))


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS} (set LEDGER_CORPUS)")
def test_the_same_outputs_on_the_corpus_messages(reference: psycopg.Connection[Any],
                                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    """The commit messages of the corpus (the four JSON histories and every
    commit of the drift case's bundle; the sample of _corpus_sample), in a
    scope with findings its own messages name."""
    messages = _corpus_messages(tmp_path_factory.mktemp("corpus"))
    assert len(messages) > 5000
    assert _corpus_findings(reference, messages) > 100
    reference.execute("ANALYZE ledger.finding")
    sample = _corpus_sample(messages)
    assert len(sample) > 1700
    reference.execute("CREATE TEMP TABLE corpus_outputs (m text, s text, keys text[], ref_keys text[], may boolean, "
                      "ref_may boolean, evidence text[], ref_evidence text[], tokens text[], ref_tokens text[], "
                      "tokenised text, ref_tokenised text)")
    for i in range(0, len(sample), 500):
        reference.execute(f"INSERT INTO corpus_outputs {OUTPUTS}", {"m": sample[i:i + 500], "s": ["corpus"]})
    assert reference.execute(DIFFERING.format(table="corpus_outputs")).fetchall() == []
    keys, tokens, pieces, passed = reference.execute(SIZES).fetchone()
    print(f"corpus: {len(sample)} of {len(messages)} messages, {keys} probe keys, {tokens} tokens, "
          f"{pieces} pieces of evidence, {passed} through the pre-filter")
    assert pieces > 100 and 0 < passed < len(sample)
    reference.execute("DROP TABLE corpus_outputs")
