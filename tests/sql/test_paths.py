"""Path normalisation on write, in the database (the table of docs/paths.md)."""

from __future__ import annotations

import psycopg
import pytest

import findings_ledger as fl

NORMALISED = [
    ("src/a.py", "src/a.py"),
    ("./src/a.py", "src/a.py"),
    ("././src/a.py", "src/a.py"),
    ("src//a.py", "src/a.py"),
    ("src/./a.py", "src/a.py"),
    ("src\\win\\a.py", "src/win/a.py"),
    ("  src/a.py\t", "src/a.py"),
    ("src/foo.py:42", "src/foo.py"),
    ("src/foo.py:42:10", "src/foo.py"),
    ("packages/nightshift/", "packages/nightshift/"),
    ("packages//nightshift//", "packages/nightshift/"),
    ("./docs/", "docs/"),
    ("dir with space/f ile.md", "dir with space/f ile.md"),
    ("naïve/日本.py", "naïve/日本.py"),
    ("a:b/c.py", "a:b/c.py"),
]

REJECTED = [
    ("/etc/passwd", "absolute"),
    ("//server/share", "absolute"),
    ("C:\\temp\\a.py", "absolute"),
    ("c:/x", "absolute"),
    ("../up.py", '".." segment'),
    ("src/../../up.py", '".." segment'),
    ("", "empty"),
    ("   ", "empty"),
    ("./", "empty"),
    (".", "empty"),
    ("src/a\x01.py", "control character"),
    ("src/a\nb.py", "control character"),
    ("x" * 4097, "longer than 4096"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALISED)
def test_normalize_path_table(ledger_conn: psycopg.Connection, raw: str, expected: str) -> None:
    got = ledger_conn.execute("SELECT ledger.normalize_path(%s)", (raw,)).fetchone()
    assert got == (expected,)


@pytest.mark.parametrize(("raw", "why"), REJECTED)
def test_bad_path_is_rejected_with_ld001(ledger_conn: psycopg.Connection, raw: str, why: str) -> None:
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("INSERT INTO ledger.finding (scope, title, paths) VALUES ('s', 't', %s)", ([raw],))
    assert info.value.sqlstate == "LD001"
    assert "finding.paths[1]" in info.value.diag.message_primary
    assert why in info.value.diag.message_primary
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)


def test_null_path_element_is_rejected(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', 'abcd', '{a.py,NULL}')")
    assert info.value.sqlstate == "LD001"
    assert "merge.paths[2]" in info.value.diag.message_primary


def test_duplicates_collapse_keeping_first_position(ledger_conn: psycopg.Connection) -> None:
    row = ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, paths) VALUES ('s', 't', %s) RETURNING paths",
        (["b.py", "./a.py", "b.py:3", "a.py", "dir//", "dir/"],),
    ).fetchone()
    assert row == (["b.py", "a.py", "dir/"],)


def test_merge_paths_are_normalised_too(ledger_conn: psycopg.Connection) -> None:
    row = ledger_conn.execute(
        "INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', 'ABCDEF1', %s) RETURNING paths, commit_sha",
        (["./src\\x.py:3:4", " docs/ "],),
    ).fetchone()
    assert row == (["src/x.py", "docs/"], "abcdef1")


def test_python_api_raises_typed_error(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(fl.PathRejected) as info:
        fl.add_finding(ledger_conn, "s", "t", paths=["../x"])
    assert info.value.sqlstate == "LD001"
    assert isinstance(info.value.__cause__, psycopg.Error)


@pytest.mark.parametrize(("raw", "expected"), NORMALISED)
def test_array_fast_path_agrees_with_single_path_rules(
    ledger_conn: psycopg.Connection, raw: str, expected: str
) -> None:
    """normalize_paths returns already-normal arrays unchanged without
    per-element work; it must agree with normalize_path on every input."""
    got = ledger_conn.execute("SELECT ledger.normalize_paths(%s)", ([raw, expected],)).fetchone()
    assert got == ([expected],)
    got = ledger_conn.execute("SELECT ledger.normalize_paths(%s)", ([expected, "z.py"],)).fetchone()
    assert got == ([expected, "z.py"],)
