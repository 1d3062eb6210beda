"""ledger._commit_subject: the one place a commit message becomes the subject
a prompt or a person is shown.

A commit message is written by whoever authored the commit: its subject is
the first line with a visible character, without control or format
characters (Python's ``unicodedata`` categories Cc, Cf, Zl, Zp: CR, ESC,
U+2028, U+202E, ...), trimmed, at most 120 characters (119 and an ellipsis).
"""

from __future__ import annotations

import sys
import unicodedata
from typing import Any

import psycopg
import pytest


def subject(conn: psycopg.Connection[Any], message: str | None) -> str | None:
    return conn.execute("SELECT ledger._commit_subject(%s)", (message,)).fetchone()[0]


@pytest.mark.parametrize(("message", "expected"), [
    ("Fix the parser\n\nLonger body", "Fix the parser"),
    ("\n\n  \t\nFix after blank lines\nbody", "Fix after blank lines"),
    ("Windows line end\r\nbody", "Windows line end"),
    ("bell\x07 and \x1b[31mred\x1b[0m", "bell and [31mred[0m"),
    ("first\u2028second\u2029third", "firstsecondthird"),
    ("evil\u202etxt.exe", "eviltxt.exe"),
    ("zero\u200bwidth\ufeff", "zerowidth"),
    ("  padded  ", "padded"),
    ("caf\u00e9 \u00a0ok", "caf\u00e9 \u00a0ok"),
    ("x" * 120, "x" * 120),
    ("", None),
    (" \n\u200b\n\t", None),
    (None, None),
])
def test_subject(ledger_conn: psycopg.Connection[Any], message: str | None, expected: str | None) -> None:
    assert subject(ledger_conn, message) == expected


def test_a_long_subject_is_capped_at_120_characters_with_an_ellipsis(ledger_conn: psycopg.Connection[Any]) -> None:
    got = subject(ledger_conn, "y" * 5000 + "\nbody")
    assert got == "y" * 119 + "\u2026" and len(got) == 120
    # white space before the cut is not kept before the ellipsis
    got = subject(ledger_conn, "a" * 118 + "  tail of a long subject")
    assert got == "a" * 118 + "\u2026"


def test_a_message_at_the_merge_limit_is_cut_quickly(ledger_conn: psycopg.Connection[Any]) -> None:
    got = subject(ledger_conn, "z" * 262_144)
    assert got == "z" * 119 + "\u2026"


def test_no_control_format_or_separator_character_survives(ledger_conn: psycopg.Connection[Any]) -> None:
    """Every Cc, Cf, Zl and Zp code point of the Basic Multilingual Plane (and the tags) is dropped,
    and nothing else: the classes agree with Python's unicodedata."""
    if sys.maxunicode < 0x10FFFF:  # pragma: no cover
        pytest.fail("a narrow Python build")
    hostile = [chr(c) for c in [*range(1, 0x10000), *range(0xE0000, 0xE0080)]
               if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp") and chr(c) != "\n"
               and not 0xD800 <= c <= 0xDFFF]
    message = "a" + "a".join(hostile) + "a"
    assert subject(ledger_conn, message) == ("a" * (len(hostile) + 1))[:119] + "\u2026"
    short = "".join(f"b{ch}" for ch in hostile[:50]) + "b"
    assert subject(ledger_conn, short) == "b" * 51
