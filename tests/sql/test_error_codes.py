"""Every SQLSTATE the SQL raises is listed in one place: each LD code raised
anywhere in sql/ or migrations/versions/ has its exception class in
errors.SQLSTATE_ERRORS and its entry in docs/errors.md, and nothing is
listed that the SQL never raises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from findings_ledger import errors

ROOT = Path(__file__).resolve().parents[2]


def raised_codes() -> set[str]:
    """Every LD code raised in sql/ or in a revision's own SQL (the baseline's
    downgrade guard raises LD501)."""
    files = [*(ROOT / "sql").rglob("*.sql"), *(ROOT / "migrations" / "versions").rglob("*.sql"),
             ROOT / "pyapi" / "findings_ledger" / "migration_ops.py"]  # the offline version guard (LD502)
    text = "\n".join(p.read_text() for p in files)
    return set(re.findall(r"ERRCODE\s*=\s*'(LD\d{3})'", text))


def test_every_raised_code_has_a_class_and_a_doc_entry() -> None:
    raised = raised_codes()
    assert {"LD001", "LD002", "LD003", "LD004", "LD005"} <= raised
    documented = set(re.findall(r"\bLD\d{3}\b", (ROOT / "docs" / "errors.md").read_text()))
    assert sorted(raised - set(errors.SQLSTATE_ERRORS)) == []
    assert sorted(raised - documented) == []


def test_no_class_for_a_code_the_sql_never_raises() -> None:
    assert sorted(set(errors.SQLSTATE_ERRORS) - raised_codes()) == []


def test_each_code_maps_to_its_own_class() -> None:
    classes = list(errors.SQLSTATE_ERRORS.values())
    assert len(set(classes)) == len(classes)
    for code, cls in errors.SQLSTATE_ERRORS.items():
        assert issubclass(cls, errors.LedgerError)
        assert cls.sqlstate == code


def _classes() -> list[type[errors.LedgerError]]:
    found, todo = [], [errors.LedgerError]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.append(sub)
            todo.append(sub)
    return [c for c in found if c.__module__ == errors.__name__]


def test_the_mappings_are_derived_from_each_class_s_own_declaration() -> None:
    by_code = {c.sqlstate: c for c in _classes() if "sqlstate" in vars(c) and "constraint" not in vars(c)}
    by_constraint = {c.constraint: c for c in _classes() if "constraint" in vars(c)}
    assert dict(errors.SQLSTATE_ERRORS) == by_code
    assert dict(errors.CONSTRAINT_ERRORS) == by_constraint
    assert all(c.sqlstate == "23505" for c in by_constraint.values())
    assert {c for c in _classes() if "sqlstate" not in vars(c)} == set()  # every class declares its code


def test_a_code_declared_twice_is_refused_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match="LD001 is already declared by PathRejected"):

        class Again(errors.LedgerError):
            sqlstate = "LD001"

    assert errors.SQLSTATE_ERRORS["LD001"] is errors.PathRejected
