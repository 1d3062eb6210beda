"""Unicode, git's quoting and array shapes in paths.

* Paths are stored in NFC: a finding on NFC ``docs/café.md`` is retired by a
  merge of NFD ``docs/café.md`` (macOS writes NFD) and the other way round.
* A path git printed C-quoted (``"docs/caf\\303\\251.md"``, the default
  ``core.quotePath``) is unquoted exactly as git quotes it, here with real
  ``git`` output; a malformed one is LD001 with a hint naming ``-z`` and
  ``core.quotePath=false``.
* White space means Unicode White_Space (a no-break space alone is blank);
  format characters (zero-width, bidirectional controls, BOM, ...) and C1
  controls are rejected. The classes match Python's ``unicodedata``.
* Path arrays are one-dimensional with lower bound 1.

Each rejection is checked through plain SQL and the Python API, with no row
written; the hostile-input suite repeats them among its cases.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.gitrepo import git, write
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("s", "spec")

NFC = unicodedata.normalize("NFC", "docs/café.md")
NFD = unicodedata.normalize("NFD", "docs/café.md")


def test_the_two_spellings_differ_as_text() -> None:
    assert NFC != NFD and len(NFD) == len(NFC) + 1


@pytest.mark.parametrize(("finding_path", "merge_path"), [(NFC, NFD), (NFD, NFC), (NFD, NFD)])
def test_a_merge_in_either_normal_form_retires_a_finding_in_the_other(
    ledger_conn: psycopg.Connection[Any], finding_path: str, merge_path: str
) -> None:
    f = fl.add_finding(ledger_conn, "spec", "café is stale", paths=[finding_path], kind="drift")
    assert f.paths == [NFC]
    m = ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', 'abcd', %s) "
                            "RETURNING paths", ([merge_path],)).fetchone()
    assert m == ([NFC],)
    assert fl.active_findings(ledger_conn, "spec") == []
    assert [a.evidence for a in fl.read_audit(ledger_conn, "spec")] == [NFC]


def test_a_directory_reference_in_nfd_covers_a_file_in_nfc(ledger_conn: psycopg.Connection[Any]) -> None:
    fl.add_finding(ledger_conn, "spec", "the café docs", paths=[unicodedata.normalize("NFD", "café/")], kind="drift")
    assert fl.record_merge(ledger_conn, "spec", "abcd", ["café/menu.md"]).superseded == [1]


@pytest.mark.parametrize(("written", "stored"), [
    ('"docs/caf\\303\\251.md"', "docs/café.md"),               # git's default output for a non-ASCII path
    ('"docs/cafe\\314\\201.md"', "docs/café.md"),              # the NFD bytes macOS writes, quoted: NFC after all
    ('"dir with \\"quotes\\".md"', 'dir with "quotes".md'),
    ('"back\\\\slash.py"', "back/slash.py"),                   # \\ is a backslash, which is a separator
    ('"\\346\\227\\245\\346\\234\\254.py"', "日本.py"),
    ('"src/a.py":12', "src/a.py"),                             # a line suffix after the closing quote
    ('  "src/a.py"  ', "src/a.py"),
    ('"./src//a.py"', "src/a.py"),                             # then the usual rules
    ('"a.py"', "a.py"),
    ('src/"a".py', 'src/"a".py'),                              # a quote inside is just a character
])
def test_c_quoted_paths_are_unquoted(ledger_conn: psycopg.Connection[Any], written: str, stored: str) -> None:
    assert ledger_conn.execute("SELECT ledger.normalize_path(%s)", (written,)).fetchone() == (stored,)


@pytest.mark.parametrize(("written", "why"), [
    ('"docs/caf\\303\\251.md', "not one C-quoted path"),
    ('"a.py" b.py', "not one C-quoted path"),
    ('"a.py"x', "not one C-quoted path"),
    ('"a\\x41.py"', "the escape E'\\\\x' that git does not write"),
    ('"a\\4.py"', "that git does not write"),
    ('"caf\\351.md"', "does not unquote to UTF-8"),              # Latin-1 bytes
    ('"\\"a.py"', "starts with a double quote"),
    ('"a\\tb.py"', "control character"),
    ('""', "empty"),
])
def test_malformed_c_quoted_paths_are_rejected_with_the_git_hint(
    ledger_conn: psycopg.Connection[Any], written: str, why: str
) -> None:
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("INSERT INTO ledger.finding (scope, title, paths) VALUES ('s', 't', %s)", ([written],))
    assert info.value.sqlstate == "LD001"
    assert "finding.paths[1]" in info.value.diag.message_primary and why in info.value.diag.message_primary
    if "C-quoted" in why or "escape" in why or "UTF-8" in why:  # the errors of unquoting itself
        assert "-z" in info.value.diag.message_hint and "core.quotePath=false" in info.value.diag.message_hint
    with pytest.raises(fl.PathRejected):
        fl.add_finding(ledger_conn, "s", "t", paths=[written])
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)


def test_real_git_output_quoted_by_default_matches_the_finding(
    ledger_conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """git log with the default core.quotePath prints the path C-quoted; fed
    to the ledger as is (the careless writer), it still retires the finding."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, NFC, "menu\n")
    write(repo, 'say "hi".txt', "hi\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "café menu")
    printed = git(repo, "log", "-1", "--name-only", "--format=").splitlines()
    assert '"docs/caf\\303\\251.md"' in printed and '"say \\"hi\\".txt"' in printed
    fl.add_finding(ledger_conn, "spec", "menu is stale", paths=[NFD], kind="drift")
    fl.add_finding(ledger_conn, "spec", "greeting is stale", paths=['say "hi".txt'], kind="drift")
    m = fl.record_merge(ledger_conn, "spec", git(repo, "rev-parse", "HEAD"), printed)
    assert sorted(m.superseded) == [1, 2]
    stored = ledger_conn.execute("SELECT paths FROM ledger.merge").fetchone()
    assert stored is not None and sorted(stored[0]) == sorted([NFC, 'say "hi".txt'])


REJECTED = [
    ("\u00a0", "empty"),                        # a no-break space alone is blank
    ("\u2003\u3000 \t", "empty"),
    ("src/a\u200b.py", "format character (U+200B)"),
    ("src/\u202egnp.exe", "format character (U+202E)"),
    ("src/\u2067a.py", "format character (U+2067)"),
    ("\ufeffa.py", "format character (U+FEFF)"),
    ("a\u00ad.py", "format character (U+00AD)"),
    ("a/\U000e0041.py", "format character (U+E0041)"),
    ("a\u0085b.py", "control character"),
    ("a\u009bb.py", "control character"),
    ("a\u2029b.py", "control character"),
]


@pytest.mark.parametrize(("path", "why"), REJECTED)
def test_blank_format_and_control_characters_are_rejected(
    ledger_conn: psycopg.Connection[Any], path: str, why: str
) -> None:
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', 'abcd', %s)",
                            (["ok.py", path],))
    assert info.value.sqlstate == "LD001"
    assert "merge.paths[2]" in info.value.diag.message_primary and why in info.value.diag.message_primary
    with pytest.raises(fl.PathRejected):
        fl.record_merge(ledger_conn, "s", "abcd", ["ok.py", path])
    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge").fetchone() == (0,)


@pytest.mark.parametrize(("written", "stored"), [
    ("\u00a0src/a.py\u3000", "src/a.py"),             # Unicode white space is trimmed
    ("src/a.py\u2028", "src/a.py"),
    ("src/a.py\u00a0:12", "src/a.py"),               # also before a line suffix
    ("dir\u00a0with\u00a0nbsp/f.md", "dir\u00a0with\u00a0nbsp/f.md"),  # inside, it is part of the name
    ("\u212b.md", "\u00c5.md"),                      # canonical singletons: ANGSTROM SIGN -> A WITH RING
])
def test_unicode_white_space_is_trimmed_and_text_is_nfc(
    ledger_conn: psycopg.Connection[Any], written: str, stored: str
) -> None:
    assert ledger_conn.execute("SELECT ledger.normalize_path(%s)", (written,)).fetchone() == (stored,)
    assert ledger_conn.execute("SELECT ledger.normalize_paths(%s)", ([written],)).fetchone() == ([stored],)


# --- array shapes ------------------------------------------------------------------------------

@pytest.mark.parametrize(("literal", "why"), [
    ("{{a.py},{b.py}}", "a 2-dimensional array"),
    ("{{{a.py}}}", "a 3-dimensional array"),
    ("[0:1]={a.py,b.py}", "starts at index 0"),
    ("[2:3]={a.py,b.py}", "starts at index 2"),
])
@pytest.mark.parametrize("table", ["finding", "merge"])
def test_path_arrays_must_be_one_dimensional_from_1(
    ledger_conn: psycopg.Connection[Any], literal: str, why: str, table: str
) -> None:
    insert = {"finding": "INSERT INTO ledger.finding (scope, title, paths) VALUES ('s', 't', %s::text[])",
              "merge": "INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', 'abcd', %s::text[])"}
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute(insert[table], (literal,))
    assert info.value.sqlstate == "LD003"
    assert f"{table}.paths" in info.value.diag.message_primary and why in info.value.diag.message_primary
    assert ledger_conn.execute(f"SELECT count(*) FROM ledger.{table}").fetchone() == (0,)


def test_nested_python_lists_are_refused_and_stored_arrays_read_as_flat_lists(
    ledger_conn: psycopg.Connection[Any]
) -> None:
    with pytest.raises(fl.ValueInvalid) as info:
        fl.add_finding(ledger_conn, "s", "t", paths=[["a.py"], ["b.py"]])  # type: ignore[list-item]
    assert "finding.paths" in str(info.value)
    f = fl.add_finding(ledger_conn, "s", "t", paths=["a.py", "b.py"])
    row = ledger_conn.execute("SELECT paths[1], array_lower(paths, 1), array_ndims(paths) FROM ledger.finding "
                              "WHERE id = %s", (f.id,)).fetchone()
    assert row == ("a.py", 1, 1) and f.paths == ["a.py", "b.py"]


# --- the character classes are Unicode's -----------------------------------------------------------

def _class_members(conn: psycopg.Connection[Any], name: str) -> set[int]:
    """Every code point the database's class matches (one query over all of Unicode)."""
    rows = conn.execute(
        "SELECT c FROM generate_series(1, 1114111) AS c "
        "WHERE (c < 55296 OR c > 57343) AND chr(c) ~ ('[' || ledger._unicode_class(%s) || ']')", (name,)
    ).fetchall()
    return {r[0] for r in rows}


def test_the_format_class_is_unicode_category_cf(ledger_conn: psycopg.Connection[Any]) -> None:
    members = _class_members(ledger_conn, "format")
    cf = {c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"}
    assert cf - members == set(), "format characters the ledger accepts"
    # a newer Unicode than Python's may add Cf characters; none of the extra ones is assigned in Python's
    assert {c for c in members - cf if unicodedata.category(chr(c)) != "Cn"} == set()


def test_the_white_space_class_is_unicode_white_space(ledger_conn: psycopg.Connection[Any]) -> None:
    members = _class_members(ledger_conn, "white_space")
    # Python's str.isspace() is White_Space plus the separators U+001C-U+001F (control characters)
    assert members == {c for c in range(sys.maxunicode + 1) if chr(c).isspace()} - set(range(0x1C, 0x20))


def test_the_control_class(ledger_conn: psycopg.Connection[Any]) -> None:
    members = _class_members(ledger_conn, "control")
    cc = {c for c in range(1, sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cc"}
    assert members == cc | {0x2028, 0x2029}


def test_the_classes_do_not_depend_on_the_locale() -> None:
    """They are code point escapes, never \\s, \\w or [[:...:]] (which follow LC_CTYPE)."""
    text = (Path(__file__).resolve().parents[2] / "sql" / "common" / "functions" / "_unicode_class.sql").read_text()
    body = text[text.index("AS $$"):]
    assert re.search(r"\\[sSwW]|\[:", body) is None
