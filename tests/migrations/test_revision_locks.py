"""The locks each revision takes on tables that already exist are the ones
docs/dba.md ("What each revision does") promises a DBA.

For every revision after the first, the transactional part of its offline
script (``alembic upgrade PREV:REV --sql``, up to the first ``COMMIT;``: a
revision that builds an index CONCURRENTLY builds it after that) runs in
an open transaction on a database at the previous revision; the strongest
lock held on each pre-existing ledger table is read from ``pg_locks``
before rolling back. A new revision fails here until its row in
``EXPECTED`` (and in docs/dba.md) says what it locks."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.migrations import offline_sql, revisions, upgrade

from findings_ledger.testing import databases

# Strongest lock per pre-existing table, by revision (docs/dba.md).
EXPECTED: dict[str, dict[str, str]] = {
    # "0002_name": {"finding": "ShareUpdateExclusiveLock"},  -- one row per revision after the baseline
    # the new merge triggers (SHARE ROW EXCLUSIVE on merge); the LANGUAGE sql functions it replaces or
    # adds are parsed against finding and supersession (ACCESS SHARE). The concurrent index build and
    # reindex after the transaction take SHARE UPDATE EXCLUSIVE on merge and finding.
    "0002_harden_hostile_input": {"finding": "AccessShareLock", "supersession": "AccessShareLock",
                                  "merge": "ShareRowExclusiveLock"},
    # ADD COLUMN (constant defaults: no rewrite) and the new triggers
    "0003_decisions_on_real_histories": {
        "scope": "AccessExclusiveLock", "finding": "AccessExclusiveLock", "merge": "AccessExclusiveLock"},
    # CREATE OR REPLACE of _revert_targets (LANGUAGE sql) parses its body against merge
    "0004_perf_import_and_claim": {"merge": "AccessShareLock"},
    "0005_plpgsql_typed_array_literal": {},  # CREATE OR REPLACE FUNCTION only
    # COMMENT ON COLUMN merge.hunks; _match_changes (LANGUAGE sql) is parsed against finding
    "0006_anchors_follow_renames": {"merge": "ShareUpdateExclusiveLock", "finding": "AccessShareLock"},
    # the two new path triggers on finding (SHARE ROW EXCLUSIVE, which also keeps the backfill exact);
    # the GIN path index goes in concurrently.sql, after the transaction
    "0007_merge_trigger_phase_2": {"finding": "ShareRowExclusiveLock"},
    "0008_record_merges_in_batches": {},  # new and replaced PL/pgSQL functions, the grants re-run
    "0009_title_words_in_plpgsql": {},  # two functions replaced
    "0010_sha_lookup_in_byte_order": {},  # one function replaced; the index is built concurrently
    "0011_statement_merge_trigger": {"merge": "AccessExclusiveLock"},  # DROP TRIGGER, for milliseconds
    "0012_hunk_arithmetic_in_bigint": {},  # one function replaced
    "0013_claim_reads_the_task_once": {},  # functions replaced, one added
    "0014_prefilter_on_distinct_words": {},  # two functions replaced
    "0015_reconcile_lowercases_shas": {},  # one function replaced
    "0016_cheaper_row_triggers": {},  # five functions replaced
    "0017_record_merges_row_index": {},  # a function replaced, one added
    "0018_prefilter_splits_tokens": {},  # a function replaced, two added
    "0019_hunks_per_finding": {},  # one function replaced
    # COMMENT ON COLUMN of scope and finding (the comments that state the present)
    "0020_task_transitions_one_helper": {"scope": "ShareUpdateExclusiveLock", "finding": "ShareUpdateExclusiveLock"},
    "0021_writer_times_bounded_redeli": {},  # trigger functions replaced, one added
    # the two new statement triggers on finding (the per-scope totals); the prompt-order index is built concurrently
    "0022_prompt_read_at_scale_per_sc": {"finding": "ShareRowExclusiveLock"},
    # ADD COLUMN on scope and finding (constant defaults: no rewrite), the check trigger on finding, the merge
    # trigger's function replaced with a new signature of _apply_merge
    "0023_finding_checks_file_state_r": {
        "finding": "AccessExclusiveLock", "scope": "AccessExclusiveLock", "merge": "ShareRowExclusiveLock"},
    "0024_replace_findings_re_analysi": {},  # replace_findings dropped and created with two more arguments
    "0025_no_verb_on_a_non_resolving": {},  # one function replaced
    "0026_drift_touch_default_flag": {"scope": "ShareUpdateExclusiveLock"},  # COMMENT ON COLUMN scope.touch_modes
    "0027_explicit_casts_in_read_prom": {},  # two functions replaced
    "0028_one_builder_of_the_path_key": {},  # one function replaced
    "0029_one_definition_of_the_token": {},  # three functions, one new; privileges re-run
    "0030_path_keys_built_once_per_me": {},  # two functions replaced
    "0031_anchor_moves_kept_without_a": {},  # two functions replaced
    "0032_one_tokeniser_for_pre_filte": {},  # three functions replaced, two new; privileges re-run
    "0033_drop_the_unused_scoped_evid": {},  # one function dropped; privileges re-run
    # 79 functions replaced (their SET clause); the SQL ones whose bodies read merge and supersession are
    # checked at creation
    "0034_pg_temp_last_in_every_pinne": {"merge": "AccessShareLock", "supersession": "AccessShareLock"},
    "0035_apply_merge_holds_the_decis": {},  # one function replaced
    # ADD COLUMN recheck_request.outcome (no default: no rewrite) and the outcome checks (validated in the
    # transaction), the new trigger _320_settle_rechecks on finding; _overruled_by_person (LANGUAGE sql) is
    # parsed against supersession
    "0036_rechecks_settle_and_file_st": {
        "finding": "ShareRowExclusiveLock", "recheck_request": "AccessExclusiveLock",
        "file_state_request": "AccessExclusiveLock", "supersession": "AccessShareLock"},
    # functions only: none is LANGUAGE sql reading a table, so nothing is parsed against one
    "0037_verdicts_and_the_prompt_tex": {},
    # functions only: the check validation and lint functions read no table
    "0038_check_dialects_and_checks_l": {},
    # one function replaced; ADD COLUMN agent_task.lease_expires_at (nullable, no default: no rewrite) and
    # the empty partial index
    "0039_policy_kind_warning_and_tas": {"agent_task": "AccessExclusiveLock"},
    "0040_sarif_suppressions_and_line": {},  # functions replaced (replace_findings, report_finding)
    "0041_failed_checks_flag_the_prom": {},  # functions replaced (_settle_checks, read_prompt_text)
    "0042_touches_count_after_a_resto": {},  # functions replaced (_finding_touches, verify_finding)
    # the file_state_request outcome check dropped, added NOT VALID and validated in the transaction;
    # functions replaced (_pattern_traps, _settle_checks; _eval_check dropped and created)
    "0043_bounded_check_patterns": {"file_state_request": "AccessExclusiveLock"},

    # ADD COLUMN scope, its backfill, SET NOT NULL and the foreign key on agent_task and injection
    # (ACCESS EXCLUSIVE); the foreign keys to ledger.scope (SHARE ROW EXCLUSIVE on scope); the
    # backfills read issue and finding; the scope indexes are built concurrently after the transaction
    "0044_scope_on_agent_task_and_inj": {"agent_task": "AccessExclusiveLock", "injection": "AccessExclusiveLock",
                                         "scope": "ShareRowExclusiveLock", "issue": "AccessShareLock",
                                         "finding": "AccessShareLock"},

    "0045_refuse_contradicting_added": {},  # function replaced (tg_merge__prepare_changes)
    "0046_create_publication_for_logi": {},  # function added (create_publication)
    "0047_definers_check_the_caller_r": {},  # functions replaced (20 definers), _require_role, _report_finding
    "0048_floor_no_kept_anchor_rows_f": {},  # functions replaced and added (_merge_decisions, _check_merge_changes)
    "0049_anchor_moves_kept_anchors_a": {},  # functions replaced (_apply_merge, _merge_decisions, _match_changes, ...)
}

STRENGTH = [
    "AccessShareLock", "RowShareLock", "RowExclusiveLock", "ShareUpdateExclusiveLock",
    "ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock",
]

LOCKS = """
SELECT c.relname::text, l.mode
  FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
 WHERE l.pid = pg_backend_pid() AND l.granted AND c.oid = ANY (%s)
"""

TABLES = """
SELECT array_agg(c.oid) FROM pg_class c
 WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind = 'r' AND c.relname <> 'alembic_version'
"""


def transactional_part(script: str) -> str:
    """The block of the offline script's one revision (its version check and
    ``SET LOCAL`` settings included), from the BEGIN before its ``-- Running``
    line to its COMMIT, without the BEGIN."""
    begin = script.rindex("BEGIN;", 0, script.index("-- Running "))
    return script[begin + len("BEGIN;"):script.index("COMMIT;", begin)]


@pytest.fixture(scope="module")
def database_at(ledger_server: dict[str, Any]) -> Iterator[Callable[[int], str]]:
    """A database at revision number ``step`` (0: the first). The module's
    tests ask in revision order, so one database walks up a revision at a
    time (each test rolls back what it ran); asked for an earlier revision
    than it holds, it is replaced by a fresh one."""
    held: dict[str, Any] = {"dsn": None, "step": -1}
    factory = databases.database_factory(ledger_server, lambda: "")
    make = next(factory)

    def at(step: int) -> str:
        if held["dsn"] is None or held["step"] > step:
            held["dsn"], held["step"] = make(migrated=False), -1
        if held["step"] < step:
            upgrade(held["dsn"], revisions()[step])
            held["step"] = step
        return str(held["dsn"])

    yield at
    with contextlib.suppress(StopIteration):
        next(factory)  # drops the databases it made


@pytest.mark.parametrize("step", range(1, len(revisions())), ids=revisions()[1:])
def test_a_revision_takes_the_documented_locks_on_existing_tables(
    database_at: Callable[[int], str], step: int
) -> None:
    before, revision = revisions()[step - 1], revisions()[step]
    dsn = database_at(step - 1)
    body = transactional_part(offline_sql(f"{before}:{revision}"))
    with psycopg.connect(dsn) as conn:
        tables = conn.execute(TABLES).fetchone()[0]
        conn.execute(body)
        strongest: dict[str, str] = {}
        for table, mode in conn.execute(LOCKS, (tables,)).fetchall():
            strongest[table] = max(mode, strongest.get(table, mode), key=STRENGTH.index)
        conn.rollback()
        server_version = conn.info.server_version
    if server_version >= 180000:
        # PostgreSQL 18 takes ACCESS SHARE on every table a GRANT names (13-17 take no lock); it conflicts
        # only with ACCESS EXCLUSIVE. Any other ACCESS SHARE still shows on 13-17, where this test runs too.
        listed = EXPECTED.get(revision) or {}
        strongest = {t: m for t, m in strongest.items() if m != "AccessShareLock" or t in listed}
    assert strongest == EXPECTED.get(revision), (
        f"{revision} locks {strongest} on tables that already exist; say so in EXPECTED here and in "
        "docs/dba.md (What each revision does)"
    )


def test_docs_dba_has_a_row_for_every_revision() -> None:
    """A DBA reads what each revision does, what it locks and what it scans
    in docs/dba.md's table before running it: every revision has its row."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "dba.md").read_text(encoding="utf-8")
    missing = [rev for rev in revisions() if f"| `{rev}` |" not in text]
    assert missing == [], "add a row to docs/dba.md (What each revision does) for each"
