"""The message pre-filter ledger._message_may_match, which decides whether
ledger._merge_decisions runs the full tokeniser and message matcher at all:
a false must mean that ledger._match_message finds nothing. A property test
over messages built from the evidence of a scope's findings (key, slug, its
file name, a keyword, title words, pieces of them broken at a line end) and
every construct the segmenter knows (paragraphs, list items, trailers,
quotes, fences, code spans, HTML comments, revert subjects, CR LF, characters
whose NFC form is a letter) checks exactly that, and that the pre-filter
lets through every message that does match."""

from __future__ import annotations

import re
import unicodedata

import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findings_ledger as fl

SCOPE = "prefilter"
PIECES = [
    "F-42", "heartbeat-loss", "2026-01-02-heartbeat-loss.md", "findings/", "ERR_X", "Login", "fails", "on",
    "Safari", "Cache", "stale", "Fixes", "fixes", "closed", "the", "heart", "beat-", "loss", "heartbeat-", "F-", "42",
    " ", " ", "\n", "\n", "\n\n", "-\n", "/\n", "-", "/", ".", ",", ":", "!", "(", ")", "#", '"',
    "> ", "~~~", "```", "`", "- ", "1. ", "Refs: ", "Fixes: ", "Revert \"", "abc1234", "<!--", "-->", "\r\n",
    "\u00a0", "\u2014", "\u212b", "\u00c5", "A\u030a", "\u00c5\u00c5\u00c5",
]


def _findings(conn: psycopg.Connection) -> None:
    if conn.execute("SELECT count(*) FROM ledger.finding WHERE scope = %s", (SCOPE,)).fetchone() != (0,):
        return
    fl.add_finding(conn, SCOPE, "Login fails on Safari", finding_key="F-42", kind="drift")
    fl.add_finding(conn, SCOPE, "Cache stale", kind="drift")
    fl.add_finding(conn, SCOPE, "Heartbeat lost", kind="drift", finding_key="heartbeat-loss")
    conn.execute("UPDATE ledger.finding SET slug = 'heartbeat-loss', strong_keywords = '{ERR_X}' "
                 "WHERE scope = %s AND finding_key = 'heartbeat-loss'", (SCOPE,))
    fl.add_finding(conn, SCOPE, "\u00c5ngstr\u00f6m units wrong everywhere", finding_key="\u00c5-1", kind="drift")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(PIECES), max_size=16))
def test_the_prefilter_never_hides_a_match(ledger_conn: psycopg.Connection, parts: list[str]) -> None:
    _findings(ledger_conn)
    message = "".join(parts)
    may = ledger_conn.execute("SELECT ledger._message_may_match(%s, %s)", (SCOPE, message)).fetchone()[0]
    found = ledger_conn.execute("SELECT count(*) FROM ledger._match_message(%s, %s)", (SCOPE, message)).fetchone()[0]
    assert may or found == 0, message


def test_the_prefilter_passes_what_names_a_finding_and_stops_what_cannot(ledger_conn: psycopg.Connection) -> None:
    _findings(ledger_conn)

    def may(message: str) -> bool:
        return ledger_conn.execute("SELECT ledger._message_may_match(%s, %s)", (SCOPE, message)).fetchone()[0]
    for message in ("Fixes F-42", "see heartbeat-loss", "findings/2026-01-02-heartbeat-loss.md", "ERR_X again",
                    "Login fails on Safari 15", 'Fix "Cache stale"', "heartbeat-\nloss", "\u212b-1 again"):
        assert may(message), message
        found = ledger_conn.execute("SELECT count(*) FROM ledger._match_message(%s, %s)", (SCOPE, message))
        assert found.fetchone() != (0,), message
    for message in ("", "   \n\n", "--- !!!", "Refactor the parser", "Login page", "F-421 and F-4", "stale cache"):
        assert not may(message), message
    for message in ("`x`", "a <!-- b -->", "nothing\r\nhere"):  # not modelled: the full matcher decides
        assert may(message), message
    assert not may("Fixes F-42".replace("F-42", "F-43")) and not ledger_conn.execute(
        "SELECT ledger._message_may_match('no-such-scope', 'Fixes F-42')").fetchone()[0]


# ---------------------------------------------------------------- the probe keys against a reference tokeniser

#: Characters a message may hold around the pieces: word characters at the
#: edges of the token class, '-', '.', '/', line ends, blanks, marks.
EDGE_CHARS = "aZ09_-./\n\t \u00bf\u00c0\u00d6\u00d7\u00d8\u00f6\u00f7\u00f8\u1fff\u2000\u2bff\u2c00\u2dff\u2e00" \
             "\u303f\u3040\ud7ff\uf8ff\uf900\ufdff\ufe00\ufe6f\ufe70\ufefe\ufeff\uff0f\uff10\uff19\uff1a" \
             "\uff20\uff21\uff3a\uff3b\uff40\uff41\uff5a\uff5b\U0001f600\u0301"
MESSAGE_PARTS = st.one_of(
    st.sampled_from(PIECES + ["..", "--", ".-", "-.", "a.b", "x-", "-x", "2024-01-02-", "x.md", ".MD", "ab-cd.ef"]),
    st.text(alphabet=EDGE_CHARS, max_size=6),
    st.text(alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=4),
)


def _reference_keys(conn: psycopg.Connection, scope: str, message: str) -> set[str]:
    """The pre-filter's keys as the message matcher defines its evidence,
    computed in Python: the tokens and their separators from
    ledger._token_regex(true) (read from the database: the one definition of
    a token), ASCII-only lower case, a token broken after '-' or '/' at a
    line end joined with the one before it, the file-name and dated slugs,
    and the runs of two and three consecutive significant words
    (ledger._significant, asked of the database). [[:blank:]] is space and
    tab under the C LC_CTYPE of the test databases."""
    pattern = conn.execute("SELECT ledger._token_regex(true)").fetchone()[0]
    text = unicodedata.normalize("NFC", message)
    pairs = [(m.group(1), m.group(2)) for m in re.finditer(pattern, text)]
    norm = ["".join(c.lower() if "A" <= c <= "Z" else c for c in tok) for _, tok in pairs]
    words = set(norm)
    for i in range(1, len(pairs)):
        gap = pairs[i][0]
        if re.fullmatch(r"[-/]\n[ \t]*", gap):
            words.add(norm[i - 1] + gap[0] + norm[i])
    significant = dict(conn.execute(
        "SELECT w, ledger._significant(w) FROM unnest(%s::text[]) AS w", (sorted(set(norm)),)).fetchall())
    sig = [w for w in norm if significant[w]]
    keys = set()
    for w in words:
        if len(w) >= 3:
            keys.add("i" + w)
        slug = re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)\.[mM][dD]", w)
        if slug:
            keys.add("i" + "".join(c.lower() if "A" <= c <= "Z" else c for c in slug.group(1)))
        dated = re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)", w)
        if dated:
            keys.add("i" + dated.group(1))
    keys.update("=" + " ".join(sig[i:i + 2]) for i in range(len(sig) - 1))
    keys.update("t" + " ".join(sig[i:i + 3]) for i in range(len(sig) - 2))
    return {f"{scope}\x1f{k}" for k in keys}


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(MESSAGE_PARTS, max_size=20))
def test_the_probe_keys_are_the_reference_tokenisers(ledger_conn: psycopg.Connection, parts: list[str]) -> None:
    """ledger._message_probe_keys, on both of its ways (a message with a line
    end after '-' or '/', and any other), returns exactly the reference's
    keys (as a set: a key repeats when its words do, and the probe reads a
    set)."""
    message = "".join(parts)
    keys = ledger_conn.execute("SELECT ledger._message_probe_keys(%s, %s)", (SCOPE, message)).fetchone()[0]
    assert None not in keys, message
    assert set(keys) == _reference_keys(ledger_conn, SCOPE, message), message


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(MESSAGE_PARTS, max_size=20))
def test_splitting_at_the_separators_gives_the_tokens(ledger_conn: psycopg.Connection, parts: list[str]) -> None:
    """The pieces of regexp_split_to_array at ledger._token_split_regex,
    empty ones left out, are the tokens regexp_matches finds with
    ledger._token_regex, in order."""
    message = "".join(parts)
    split, matched = ledger_conn.execute(
        "SELECT array_remove(regexp_split_to_array(%(m)s, ledger._token_split_regex()), ''), "
        "ARRAY(SELECT r[1] FROM regexp_matches(%(m)s, ledger._token_regex(false), 'g') AS r)",
        {"m": message}).fetchone()
    assert split == matched, message


def test_the_probe_keys_of_a_few_messages(ledger_conn: psycopg.Connection) -> None:
    """Each kind of key, on both ways: a message without a line end after '-'
    or '/' is split; with one ('heart-' / 'beat') the pass with separators
    joins the broken token."""
    def keys(message: str) -> set[str]:
        got = ledger_conn.execute("SELECT ledger._message_probe_keys('s', %s)", (message,)).fetchone()[0]
        return {k.removeprefix("s\x1f") for k in got}
    assert keys("Fixes F-42 in 2026-01-02-heart-beat.md, the Cache stale part") == {
        "ifixes", "if-42", "i2026-01-02-heart-beat.md", "iheart-beat", "iheart-beat.md", "ithe", "icache",
        "istale", "ipart", "=f-42 2026-01-02-heart-beat.md", "=2026-01-02-heart-beat.md cache", "=cache stale",
        "=stale part", "tf-42 2026-01-02-heart-beat.md cache", "t2026-01-02-heart-beat.md cache stale",
        "tcache stale part"}
    # 'now' is a function word: no run ends in it
    assert keys("see heart-\n  beat now") == {"isee", "iheart", "ibeat", "inow", "iheart-beat", "=see heart",
                                             "=heart beat", "tsee heart beat"}
    assert keys("a.-b ..c. d.e-f") == {"id.e-f"}
    assert keys("") == set() and keys("-- ! ..") == set()
    assert keys("Ab \u00c5ngstr\u00f6m") == {"i\u00c5ngstr\u00f6m", "=ab \u00c5ngstr\u00f6m"}  # ASCII-only lower case


def test_the_probe_keys_are_built_once_per_message(ledger_conn: psycopg.Connection) -> None:
    """The pre-filter computes the keys once and probes with them as a
    parameter: a call of ledger._message_probe_keys inside its query would
    run once per row wherever the planner scans ledger.finding sequentially
    (a small or new ledger)."""
    _findings(ledger_conn)
    with ledger_conn.transaction(force_rollback=True):
        ledger_conn.execute("SET LOCAL track_functions = 'all'")
        ledger_conn.execute("SET LOCAL enable_indexscan = off")
        ledger_conn.execute("SET LOCAL enable_bitmapscan = off")  # every finding read: a sequential scan

        def calls() -> int:
            row = ledger_conn.execute("SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions "
                                      "WHERE schemaname = 'ledger' AND funcname = '_message_probe_keys'").fetchone()
            return int(row[0])
        before = calls()
        assert ledger_conn.execute("SELECT ledger._message_may_match(%s, 'Refactor the parser and its tests')",
                                   (SCOPE,)).fetchone() == (False,)
        assert calls() - before == 1
