"""Check patterns written in another regular-expression dialect (Python's
``re``, PCRE): on every write (a plain INSERT into ledger.finding, the
importer, ``ledger.validate_check``) a construct with an exact ARE form is
stored as that form, one without is refused with LD105 naming it, its
position and what to write; what ARE reads the same way is stored as
written. Each rewritten pattern is also run: it matches what the reviewer
meant (\\b as a word boundary, not a backspace)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from findings_ledger import importers
from findings_ledger.errors import PatternDialect, ValueInvalid, translate

#: (as written, as stored, a text Python's re matches with the written pattern, one it does not)
REWRITTEN = [
    (r"\bnight_shift\b", r"\ynight_shift\y", "x = night_shift()", "x = night_shifts()"),
    (r"a\Bb", r"a\Yb", "ab", "a b"),
    (r"version = 2\n\z", r"version = 2\n\Z", "version = 2\n", "version = 2\nx"),
    (r"\Gimport", r"\Aimport", "import os", "x\nimport os"),
    (r"def \Kfoo", r"def foo", "def foo():", "def bar():"),
    (r"\x{263A}1", r"\U0000263a1", "\u263a1", "\u263a"),
    (r"(?P<name>night)_(?:shift)", r"(night)_(?:shift)", "night_shift", "night shift"),
    (r"(?<name>night)_shift", r"(night)_shift", "night_shift", "nightshift"),
    (r"(?'name'night)_shift", r"(night)_shift", "night_shift", "nightshift"),
    (r"^a{,2}$", r"^a{0,2}$", "aa", "aaa"),
    (r"^a{,}b", r"^a{0,}b", "aaab", "cb"),
    (r"(?ms)^x.y$", r"(?w)^x.y$", "a\nx\ny\n", "a\nzx\ny"),
    (r"(?ism)^X.Y", r"(?iw)^X.Y", "a\nx\ny", "a\nzx\ny"),
    (r"(?u)caf\u00e9", r"caf\u00e9", "café", "cafe"),
]

#: (as written, the construct the message names, its position, what to write)
REFUSED = [
    (r"\p{L}+_shift", r"\p{L} (a Unicode property)", 1, "[[:alpha:]]"),
    (r"x\pLy", r"\pL (a Unicode property)", 2, "[[:alpha:]]"),
    (r"a\hb", r"\h (horizontal white space)", 2, "[[:blank:]]"),
    (r"a\Hb", r"\H (not horizontal white space)", 2, "[^[:blank:]]"),
    (r"a\Rb", r"\R (a line break)", 2, r"(\r\n|[\n\v\f\r])"),
    (r"x\Qa.b\E", r"\Q...\E (quoted text)", 2, "***=text"),
    (r"(?P<n>a)(?P=n)", "(?P=n) (a back reference by name)", 9, "written out again"),
    (r"(a)\k<n>", r"\k<n> (a back reference", 4, "written out again"),
    (r"(a)\g{1}", r"\g{1} (a back reference", 4, "written out again"),
    (r"(a)\1", r"\1 (a back reference: matching it can take time exponential", 4, "written out again"),
    (r"(?>a+)b", "(?>...) (an atomic group)", 1, "(?:...)"),
    (r"a*+b", "*+ (a possessive quantifier)", 2, "* (greedy)"),
    (r"a++b", "++ (a possessive quantifier)", 2, "+ (greedy)"),
    (r"a?+b", "?+ (a possessive quantifier)", 2, "? (greedy)"),
    (r"a{1,2}+b", "{1,2}+ (a possessive quantifier)", 2, "{1,2} (greedy)"),
    (r"def (?i)foo", "(?i) (flags after the start)", 5, "at the very start"),
    (r"def (?i:foo)", "(?i:...) (flags for a group)", 5, "[Aa]"),
    (r"(?a)\w+", "(?a) (the flag a)", 1, "[A-Za-z0-9_]"),
    (r"(?|a|b)", "(?|...) (a branch reset group)", 1, "(?:...|...)"),
    (r"(a)?(?(1)b|c)", "(?(...) (a conditional)", 5, "|"),
    (r"(a(?R)?b)", "(?R) (a recursion)", 3, "no recursion"),
    (r"(*UTF)a", "(*UTF) (a PCRE verb)", 1, "no verbs"),
    (r"a\K*", r"\K* (\K under a quantifier)", 2, r"without \K"),
    (r"[\W]x", r"\W inside [...]", 2, "[^[:alnum:]_]"),
    (r"[[:alpha:]\p{L}]", r"\p inside [...]", 11, "[:alpha:]"),
    (r"(?m)^[^#]*night", "[^#] under (?m)", 6, "(?w)"),
    (r"a\Xb", r"\X (a grapheme cluster)", 2, "the characters"),
    (r"a\Nb", r"\N (not a newline)", 2, r"[^\n]"),
    (r"a\qb", r"\q (not an escape PostgreSQL knows)", 2, "q without the \\"),
]

#: Patterns ARE reads as Python does: stored exactly as written.
UNCHANGED = [
    r"\\b",                  # an escaped backslash, then b
    r"[\b]",                 # a backspace in both dialects
    r"(?i)night",            # leading flags
    r"(?n)^import",          # ARE's own line mode
    r"(?m)^import [a-z]+",   # Python's (?m) without a negated bracket
    r"(?m)^[^\n]*night",     # a negated bracket that already stops at a newline
    r"a(?#comment \b)b",     # a comment: ARE has them
    r"(?<=a)b(?<!c)",        # look-behind
    r"a*?b+?c??d{1,2}?",     # lazy quantifiers
    r"\d\s\w\A\Z\y\m\M",     # shared escapes and ARE's own
    r"***=\b",               # a literal pattern
    r"(?q)\b(?>",            # a literal pattern by flag
    "(?x) def \\s+ foo # not \\b here\n \\(",  # (?x): a comment is not scanned
    r"a{3,}b{2}",            # bounds ARE reads
]


def _insert(conn: psycopg.Connection[Any], pattern: str, key: str = "F1") -> Any:
    """A plain INSERT (the trigger's path), errors as the API's classes."""
    with translate():
        return conn.execute(
            "INSERT INTO ledger.finding (scope, finding_key, title, resolved_when) "
            "VALUES ('dialect', %s, 'a title', %s) RETURNING resolved_when -> 'file_contains' ->> 'pattern'",
            (key, Jsonb({"file_contains": {"path": "src/app.py", "pattern": pattern}})),
        ).fetchone()[0]


def _matches(conn: psycopg.Connection[Any], text: str, pattern: str) -> bool:
    return bool(conn.execute("SELECT %s ~ %s", (text, pattern)).fetchone()[0])


@pytest.mark.parametrize(("written", "stored", "hit", "miss"), REWRITTEN, ids=[r[0] for r in REWRITTEN])
def test_a_construct_with_an_exact_are_form_is_stored_as_it(ledger_conn: psycopg.Connection[Any], written: str,
                                                            stored: str, hit: str, miss: str) -> None:
    assert _insert(ledger_conn, written) == stored
    assert _matches(ledger_conn, hit, stored)
    assert not _matches(ledger_conn, miss, stored)


def test_a_python_word_boundary_matches_at_word_boundaries(ledger_conn: psycopg.Connection[Any]) -> None:
    # as ARE reads it, \b is a backspace: the check would never hold
    assert not _matches(ledger_conn, "x = night_shift()", r"\bnight_shift\b")
    assert _matches(ledger_conn, "x = night_shift()", _insert(ledger_conn, r"\bnight_shift\b"))


@pytest.mark.parametrize(("written", "construct", "position", "advice"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_construct_without_an_are_form_is_refused(ledger_conn: psycopg.Connection[Any], written: str,
                                                    construct: str, position: int, advice: str) -> None:
    with pytest.raises(PatternDialect) as info:
        with ledger_conn.transaction():
            _insert(ledger_conn, written)
    message = str(info.value)
    assert info.value.sqlstate == "LD105" and isinstance(info.value, ValueInvalid)
    assert message.startswith("invalid finding.resolved_when.file_contains.pattern: ")
    assert f"{construct}" in message and f"at character {position} " in message, message
    assert advice in message.split(f"at character {position} ", 1)[1], message
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding WHERE scope = 'dialect'").fetchone()[0] == 0


@pytest.mark.parametrize("pattern", UNCHANGED)
def test_what_are_reads_as_python_does_is_stored_as_written(ledger_conn: psycopg.Connection[Any],
                                                            pattern: str) -> None:
    assert _insert(ledger_conn, pattern) == pattern


def test_every_refused_construct_is_named_in_one_message(ledger_conn: psycopg.Connection[Any]) -> None:
    with pytest.raises(PatternDialect) as info, translate():
        ledger_conn.execute("SELECT ledger.validate_check(%s, 'drift_findings[3].resolved_when')",
                            (Jsonb({"all": [{"path_exists": "a/"}, {"file_lacks": {
                                "path": "a.py", "pattern": r"\bx\p{L}(?>y)"}}]}),))
    message = str(info.value)
    assert message.startswith("invalid drift_findings[3].resolved_when.all[1].file_lacks.pattern: ")
    assert "at character 4 " in message and "at character 9 " in message and r"\b" not in message.split(": ", 2)[2]


def test_a_multi_row_insert_is_rewritten_row_by_row_or_refused_whole(ledger_conn: psycopg.Connection[Any]) -> None:
    rows = ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, finding_key, title, resolved_when) VALUES "
        "('dialect', 'A', 't', %s), ('dialect', 'B', 't', %s) RETURNING resolved_when::text",
        (Jsonb({"file_contains": {"path": "a.py", "pattern": r"\bA\b"}}),
         Jsonb({"file_lacks": {"path": "a.py", "pattern": r"(?P<x>B)"}}))).fetchall()
    assert [json.loads(r[0]) for r in rows] == [{"file_contains": {"path": "a.py", "pattern": r"\yA\y"}},
                                                {"file_lacks": {"path": "a.py", "pattern": r"(B)"}}]
    with pytest.raises(PatternDialect), translate():
        with ledger_conn.transaction():
            ledger_conn.execute(
                "INSERT INTO ledger.finding (scope, finding_key, title, resolved_when) VALUES "
                "('dialect', 'C', 't', %s), ('dialect', 'D', 't', %s)",
                (Jsonb({"file_contains": {"path": "a.py", "pattern": r"\bC"}}),
                 Jsonb({"file_lacks": {"path": "a.py", "pattern": r"a++"}})))
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding WHERE scope = 'dialect'").fetchone()[0] == 2


def test_an_update_of_the_check_goes_through_the_same_rewrite(ledger_conn: psycopg.Connection[Any]) -> None:
    _insert(ledger_conn, "plain", key="U")
    stored = ledger_conn.execute(
        "UPDATE ledger.finding SET resolved_when = %s WHERE scope = 'dialect' AND finding_key = 'U' "
        "RETURNING resolved_when -> 'file_contains' ->> 'pattern'",
        (Jsonb({"file_contains": {"path": "src/app.py", "pattern": r"\bU\b"}}),)).fetchone()[0]
    assert stored == r"\yU\y"


def _review(tmp_path: Path, patterns: list[str]) -> Path:
    review = tmp_path / "review.json"
    review.write_text(json.dumps({"observed_at": "2026-04-13", "drift_findings": [
        {"severity": "major", "description": f"finding {i}", "spec_ref": f"tasks.md:{i}", "artifact_ref": "src/app.py",
         "resolved_when": {"file_contains": {"path": "src/app.py", "pattern": p}}}
        for i, p in enumerate(patterns)]}), encoding="utf-8")
    return review


def test_the_importer_stores_the_rewrite_and_skips_a_refused_entry_naming_it(
        ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    patterns = [r[0] for r in REWRITTEN] + [r[0] for r in REFUSED]
    report = importers.import_findings(ledger_conn, "dialect-imp", _review(tmp_path, patterns))
    assert [i.name for i in report.imported] == [f"review.json#drift_findings[{i}]" for i in range(len(REWRITTEN))]
    assert [s.name for s in report.skipped] == [f"review.json#drift_findings[{i}]"
                                                for i in range(len(REWRITTEN), len(patterns))]
    for skipped, (_, construct, position, _) in zip(report.skipped, REFUSED, strict=True):
        assert skipped.reason.endswith("[LD105]") and construct in skipped.reason
        assert f"at character {position} " in skipped.reason
    stored = ledger_conn.execute(
        "SELECT resolved_when -> 'file_contains' ->> 'pattern' FROM ledger.finding WHERE scope = 'dialect-imp' "
        "ORDER BY id").fetchall()
    assert [s[0] for s in stored] == [r[1] for r in REWRITTEN]


def test_the_findings_file_importer_rewrites_too(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    (tmp_path / "2026-06-24-no-reviewer.md").write_text(
        "---\ntitle: No reviewer archetype\nkind: drift\n"
        "resolved_when:\n  file_contains:\n    path: agent_fox/archetypes.py\n    pattern: '\\breviewer\\b'\n---\n",
        encoding="utf-8")
    report = importers.import_findings(ledger_conn, "dialect-md", tmp_path)
    assert report.skipped == []
    assert ledger_conn.execute("SELECT resolved_when FROM ledger.finding WHERE scope = 'dialect-md'").fetchone()[0] == {
        "file_contains": {"path": "agent_fox/archetypes.py", "pattern": r"\yreviewer\y"}}
