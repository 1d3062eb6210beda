"""Per-scope policy, validation of the evidence columns, the workspace scope
key, and index-driven lookup."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from support.matching import module_conn, module_dsn  # noqa: F401

import findings_ledger as fl


def test_scope_defaults(ledger_conn: psycopg.Connection[Any]) -> None:
    fl.add_finding(ledger_conn, "s", "t")
    row = ledger_conn.execute(
        "SELECT enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch FROM ledger.scope"
    ).fetchone()
    assert row == (["path", "key", "slug", "keyword", "title"], ["drift"], False, None)


def test_set_match_policy_normalises_and_keeps_unset_values(ledger_conn: psycopg.Connection[Any]) -> None:
    p = fl.set_match_policy(ledger_conn, "s", enabled_rules=["TITLE", "key", "key"], create=True,
                            path_supersede_kinds=[" Drift ", "review"], default_branch="refs/heads/main")
    assert (p.enabled_rules, p.path_supersede_kinds, p.slug_mention_resolves, p.default_branch) == (
        ["key", "title"], ["drift", "review"], False, "main")
    p = fl.set_match_policy(ledger_conn, "s", slug_mention_resolves=True)
    assert (p.enabled_rules, p.default_branch, p.slug_mention_resolves) == (["key", "title"], "main", True)
    assert fl.set_match_policy(ledger_conn, "s", default_branch="").default_branch is None


@pytest.mark.parametrize(("sql", "state"), [
    ("UPDATE ledger.scope SET enabled_rules = '{key,paths}'", "LD003"),
    ("UPDATE ledger.scope SET enabled_rules = NULL", "LD002"),
    ("UPDATE ledger.scope SET enabled_rules = '{key,NULL}'", "LD003"),
    ("UPDATE ledger.scope SET path_supersede_kinds = NULL", "LD002"),
    ("UPDATE ledger.scope SET path_supersede_kinds = '{drift,\"  \"}'", "LD002"),
    ("UPDATE ledger.scope SET slug_mention_resolves = NULL", "LD002"),
    ("UPDATE ledger.scope SET default_branch = ' '", "LD003"),
    ("UPDATE ledger.scope SET default_branch = repeat('b', 256)", "LD004"),
])
def test_bad_policy_is_rejected(module_conn: psycopg.Connection[Any], sql: str, state: str) -> None:  # noqa: F811
    before = fl.set_match_policy(module_conn, "policy", create=True)
    with pytest.raises(psycopg.Error) as info:
        module_conn.execute(sql + " WHERE scope = 'policy'")
    assert info.value.sqlstate == state
    assert fl.set_match_policy(module_conn, "policy") == before


def test_unknown_rule_raises_typed_error_naming_the_field(ledger_conn: psycopg.Connection[Any]) -> None:
    with pytest.raises(fl.ValueInvalid) as info:
        fl.set_match_policy(ledger_conn, "s", enabled_rules=["keys"], create=True)
    assert "enabled_rules" in str(info.value)


INSERT = "INSERT INTO ledger.finding (scope, title, slug, strong_keywords, tags) VALUES ('s', 't', %s, %s, %s)"


@pytest.mark.parametrize(("slug", "keywords", "tags", "state"), [
    (None, ["dispatcher"], [], "LD101"),         # a bare topic word is never evidence
    (None, ["Cancel"], [], "LD101"),
    (None, ["two words"], [], "LD101"),
    (None, ["E4"], [], "LD101"),                  # too short
    (None, ["ok_1", None], [], "LD003"),
    (None, ["K_" + "x" * 200], [], "LD004"),
    ("has space", [], [], "LD102"),
    ("a/b", [], [], "LD102"),
    (" ", [], [], "LD003"),
    (None, [], ["ok", None], "LD003"),
    (None, [], ["line\nbreak"], "LD003"),
])
def test_bad_evidence_columns_are_rejected(module_conn: psycopg.Connection[Any], slug: str | None,  # noqa: F811
                                           keywords: list[str | None], tags: list[str | None], state: str) -> None:
    with pytest.raises(psycopg.Error) as info:
        module_conn.execute(INSERT.replace("'s'", "'evidence'"), (slug, keywords, tags))
    assert info.value.sqlstate == state
    assert module_conn.execute("SELECT count(*) FROM ledger.finding WHERE scope = 'evidence'").fetchone() == (0,)


def test_evidence_columns_are_normalised(ledger_conn: psycopg.Connection[Any]) -> None:
    row = ledger_conn.execute(INSERT + " RETURNING slug, strong_keywords, tags",
                              (" 2026-06-24-Drift-Frozen.md ", ["ECONNRESET", "EConnReset", " parse_config "],
                               ["a", " a ", "b"])).fetchone()
    assert row == ("Drift-Frozen", ["ECONNRESET", "parse_config"], ["a", "b"])


def test_typed_errors_for_keyword_slug_and_duplicate_slug(ledger_conn: psycopg.Connection[Any]) -> None:
    with pytest.raises(fl.KeywordRejected) as kw:
        fl.import_finding(ledger_conn, "s", "t", strong_keywords=["dispatcher"])
    assert kw.value.sqlstate == "LD101" and "strong_keywords[1]" in str(kw.value)
    with pytest.raises(fl.SlugRejected):
        fl.import_finding(ledger_conn, "s", "t", slug="not a slug")
    fl.import_finding(ledger_conn, "s", "t", finding_key="F-1", slug="same-slug")
    with pytest.raises(fl.DuplicateFindingSlug):
        fl.import_finding(ledger_conn, "s", "t", finding_key="F-2", slug="same-slug")


def test_merge_branch_is_normalised(ledger_conn: psycopg.Connection[Any]) -> None:
    row = ledger_conn.execute(
        "INSERT INTO ledger.merge (scope, commit_sha, branch) "
        "VALUES ('s', 'abcd', ' refs/heads/main ') RETURNING branch"
    ).fetchone()
    assert row == ("main",)
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, branch) VALUES ('s', 'abce', E'a\\nb')")
    assert info.value.sqlstate == "LD003"


@pytest.mark.parametrize(("directory", "key"), [
    ("/a/b-c", "-a-b%2Dc"),
    ("/a/b/c", "-a-b-c"),
    ("/a/b/c/", "-a-b-c"),
    ("/a//b/c", "-a-b-c"),
    ("/home/me/my-repo", "-home-me-my%2Drepo"),
    ("C:\\work\\repo", "C%3A%5Cwork%5Crepo"),
    ("/a/50%/x~y", "-a-50%25-x%7Ey"),
    ("/naïve/日本", "-naïve-日本"),
    ("/", "-"),
])
def test_workspace_scope_encoding(module_conn: psycopg.Connection[Any], directory: str, key: str) -> None:  # noqa: F811
    assert module_conn.execute("SELECT ledger.workspace_scope(%s)", (directory,)).fetchone() == (key,)


def test_workspace_scope_never_collides(ledger_conn: psycopg.Connection[Any]) -> None:
    dirs = ["/a/b-c", "/a/b/c", "/a-b/c", "/a-b-c", "/a/b%2Dc", "/a/b:c", "/a/b\\c", "/a/b~c",
            "/x/" + "d" * 300, "/x/" + "d" * 299 + "e", "/x/" + "d" * 182 + "~0000000000000000"]
    keys = [r[0] for r in ledger_conn.execute("SELECT ledger.workspace_scope(d) FROM unnest(%s::text[]) d", (dirs,))]
    assert len(set(keys)) == len(dirs)
    assert all(len(k) <= 200 for k in keys)
    assert keys[8].count("~") == 1 and len(keys[8]) == 200
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("SELECT ledger.workspace_scope(' ')")
    assert info.value.sqlstate == "LD002"


def test_python_workspace_scope_makes_the_path_absolute(ledger_conn: psycopg.Connection[Any], tmp_path: Any,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "b-c").mkdir()
    monkeypatch.chdir(tmp_path)
    assert fl.workspace_scope(ledger_conn, "b-c/") == fl.workspace_scope(ledger_conn, tmp_path / "b-c")


def test_matching_is_index_driven(ledger_conn: psycopg.Connection[Any]) -> None:
    conn = ledger_conn
    conn.execute(
        "INSERT INTO ledger.finding (scope, finding_key, title, strong_keywords, slug) "
        "SELECT 'big', 'F-' || g, 'Finding number ' || g || ' about module m' || g || ' and its retries', "
        "ARRAY['ERR_' || g], 'slug-' || g FROM generate_series(1, 3000) g")
    conn.execute("ANALYZE ledger.finding")
    with conn.transaction():
        res = fl.record_merge(conn, "big", "abcd0001",
                              message="Fixes F-2999 and ERR_17\n\nsee module m5 and its retries")
        seq, idx = conn.execute(
            "SELECT seq_scan, pg_stat_get_xact_numscans('ledger.finding_active_evidence_idx'::regclass) "
            "FROM pg_stat_xact_user_tables WHERE relid = 'ledger.finding'::regclass").fetchone()
    assert seq == 0, "a merge must not scan the findings table"
    assert idx >= 1
    assert sorted(d.evidence for d in res.decisions if d.action == "superseded") == ["ERR_17", "F-2999"]
