"""PostgreSQL 13 is the oldest supported version (docs/dba.md): nothing in
sql/ or in any revision's SQL (upgrade and downgrade, as the offline scripts
print it) may use a feature that arrived later. Comments and string
literals are left out of the search; each rule names the version that
brought the feature."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.migrations import offline_sql

ROOT = Path(__file__).resolve().parents[2]

NEWER_THAN_13 = [
    (r"\bcreate\s+or\s+replace\s+trigger\b", "CREATE OR REPLACE TRIGGER (14): DROP TRIGGER IF EXISTS + CREATE TRIGGER"),
    (r"\bbegin\s+atomic\b", "SQL-standard function bodies, BEGIN ATOMIC (14): use AS $$ ... $$"),
    (r"\)\s*returns\s+[\w.\[\]]+\s+(language\s+sql\s+)?return\b", "SQL-standard RETURN body (14)"),
    (r"\bmerge\s+into\b", "MERGE (15): INSERT ... ON CONFLICT"),
    (r"\bmerge_action\s*\(", "merge_action() (17)"),
    (r"\bmultirange\b|\b\w+multirange\b|\brange_agg\s*\(", "multiranges, range_agg (14)"),
    (r"\bunistr\s*\(", "unistr() (14)"),
    (r"\bstring_to_table\s*\(|\bdate_bin\s*\(|\btrim_array\s*\(|\bbit_count\s*\(",
     "string_to_table, date_bin, trim_array, bit_count (14)"),
    (r"\bregexp_(count|instr|like|substr)\s*\(", "regexp_count/instr/like/substr (15)"),
    (r"\bnulls\s+not\s+distinct\b", "UNIQUE NULLS NOT DISTINCT (15)"),
    (r"\bsecurity_invoker\b", "views WITH (security_invoker) (15)"),
    (r"\bany_value\s*\(|\brandom_normal\s*\(|\barray_(sample|shuffle)\s*\(|\bpg_input_is_valid\s*\(",
     "any_value, random_normal, array_sample/shuffle, pg_input_is_valid (16)"),
    (r"\bjson_(table|exists|query|value|scalar|serialize|array|object|arrayagg|objectagg)\s*\(|\bis\s+(not\s+)?json\b",
     "SQL/JSON constructors, predicates and JSON_TABLE (16, 17)"),
    (r"\bsearch\s+(depth|breadth)\s+first\b|\bcycle\s+\w+\s+set\b", "SEARCH/CYCLE clauses (14)"),
    (r"\bcompression\s+(pglz|lz4)\b", "column COMPRESSION (14)"),
    (r"\bdetach\s+partition\s+\S+\s+concurrently\b", "DETACH PARTITION CONCURRENTLY (14)"),
    (r"\bpg_(read|write)_all_data\b|\bpg_database_owner\b|\bpg_maintain\b", "predefined roles of 14+"),
    (r"\bwithout\s+overlaps\b|\buuidv7\s*\(|\bcasefold\s*\(", "WITHOUT OVERLAPS, uuidv7, casefold (18)"),
    (r"\bunique\s+nulls\b", "NULLS [NOT] DISTINCT (15)"),
]

_LITERAL = re.compile(r"'(?:[^']|'')*'")
_COMMENT = re.compile(r"--[^\n]*")


def _code(text: str) -> str:
    """SQL text without comments and single-quoted literals (dollar-quoted
    bodies stay: they are code)."""
    return _COMMENT.sub("", _LITERAL.sub("''", text))


def _sources() -> dict[str, str]:
    files = {str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "sql").rglob("*.sql"))}
    files["alembic upgrade head --sql"] = offline_sql("head")
    files["alembic downgrade head:base --sql"] = offline_sql("head:base", downgrade=True)
    return files


def _findings(sources: dict[str, str]) -> list[str]:
    found = []
    for name, text in sources.items():
        code = _code(text)
        for pattern, feature in NEWER_THAN_13:
            for m in re.finditer(pattern, code, re.IGNORECASE):
                line = code[: m.start()].count("\n") + 1
                found.append(f"{name}:{line}: {m.group(0)!r}: {feature}")
    return found


def test_no_sql_needs_a_postgresql_newer_than_13() -> None:
    found = _findings(_sources())
    assert found == [], "features newer than PostgreSQL 13:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE OR REPLACE TRIGGER t AFTER INSERT ON ledger.merge FOR EACH ROW EXECUTE FUNCTION f();",
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;",
        "MERGE INTO ledger.finding f USING s ON f.id = s.id WHEN MATCHED THEN DO NOTHING;",
        "SELECT unistr('\\0041');",
        "CREATE TABLE ledger.x (r int4multirange);",
        "SELECT json_object('a': 1);",
        "ALTER TABLE ledger.x ADD CONSTRAINT u UNIQUE NULLS NOT DISTINCT (a);",
    ],
)
def test_the_check_recognises_newer_features(sql: str) -> None:
    assert _findings({"probe": sql}) != []


def test_the_check_ignores_comments_and_literals() -> None:
    text = "-- we never MERGE INTO anything\nSELECT 'a merge into main', 'unistr(x)';"
    assert _findings({"probe": text}) == []
