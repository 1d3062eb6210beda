"""Lint the offline migration scripts with squawk (part of ``make lint``).

    .venv/bin/python tools/lint_sql.py          # exit 1 when squawk finds anything

Writes what a DBA would review, one offline script per revision and
direction (``alembic upgrade PREV:REV --sql``, ``alembic downgrade REV:PREV
--sql``), to ``build/sql/upgrade/REV.sql`` and ``build/sql/downgrade/REV.sql``
for every revision in the script directory, adds the justified
squawk-ignore comments below (each with its reason, in the linted file), and
runs squawk with ``.squawk.toml`` (PostgreSQL 13, the oldest we support).

One file per revision because each revision is one transaction with its own
version-table update: squawk then judges "created in the same transaction"
and "can this be rerun" per revision, the way the revision really runs (a
script of several revisions that stops half-way is resumed by generating
it again from the version the database is at, not by rerunning it).

A finding is fixed in the revision that causes it (a new revision, never an
edit of a released one), or justified here with a reason.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "sql"

# Line-level ignores: (revision or None for every revision, pattern of the
# offending line, rule, reason). Each is written as a comment above the line
# it excuses, in that revision's script only; an ignore that no longer
# matches any line is itself a lint failure, so justifications cannot go stale.
UPGRADE_IGNORES: list[tuple[str | None, re.Pattern[str], str, str]] = [
    (
        None,
        re.compile(r"^\s*version_num VARCHAR\(32\) NOT NULL"),
        "prefer-text-field",
        "alembic creates its own version table (ledger.alembic_version) with VARCHAR(32); it holds one "
        "short row and is never altered, so the varchar resize lock can never bite",
    ),
    (
        "0001_baseline",
        re.compile(r"^\s*dispatch_count\s+integer NOT NULL DEFAULT 0,"),
        "prefer-bigint-over-int",
        "agent_task.dispatch_count is one task's claim counter (the CAS token of ledger.claim_task), raised "
        "once per dispatch of that task; 2^31 dispatches of one task cannot happen",
    ),
    (
        "0001_baseline",
        re.compile(r"^\s*(report_count|reopen_count)\s+integer NOT NULL DEFAULT [01],"),
        "prefer-bigint-over-int",
        "finding.report_count / reopen_count count the reports and reopens of ONE finding; 2^31 of them "
        "cannot happen. Widening later would rewrite ledger.finding, so the choice is deliberate",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^ALTER TABLE ledger\.scope ADD COLUMN line_context integer NOT NULL DEFAULT 0;"),
        "prefer-bigint-over-int",
        "scope.line_context is a number of lines from 0 to 1000 (scope_line_context_check)",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^ALTER TABLE ledger\.(finding|merge|scope) VALIDATE CONSTRAINT "
                   r"(finding_expects_check|finding_anchors_check|merge_hunks_check|scope_line_context_check);"),
        "constraint-missing-not-valid",
        "each constraint checks a column this revision adds, in the transaction whose ADD COLUMN already holds "
        "ACCESS EXCLUSIVE on the table; every existing row holds the column's constant default or NULL, so the "
        "validation is one scan that cannot fail (tests/migrations/test_populated_upgrade.py), and leaving it "
        "NOT VALID would make the database differ from sql/",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^DROP FUNCTION ledger\.(add_finding|record_merge|report_finding|import_finding|"
                   r"read_prompt_findings|set_hygiene_mode|set_match_policy|_merge_decisions|read_audit|_message_tokens)\("),
        "ban-drop-function",
        "the function is created again right after with more parameters, all with defaults (or, read_audit and "
        "_message_tokens, more result columns), so every existing call keeps working; the old signature goes so "
        "that no call is ambiguous between two overloads",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^ALTER TABLE ledger\.(finding|scope) VALIDATE CONSTRAINT "
                   r"(finding_resolved_when_check|finding_observed_at_precision_check|scope_touch_modes_check);"),
        "constraint-missing-not-valid",
        "each constraint checks a column this revision adds, in the transaction whose ADD COLUMN already holds "
        "ACCESS EXCLUSIVE on the table; every existing row holds the column's constant default or NULL, so the "
        "validation is one scan that cannot fail, and leaving it NOT VALID would make the database differ from sql/",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^DROP FUNCTION ledger\.(add_finding|report_finding|import_finding|set_match_policy|"
                   r"_merge_decisions|_apply_merge)\("),
        "ban-drop-function",
        "the function is created again right after with more parameters, all with defaults, so every existing "
        "call keeps working; the old signature goes so that no call is ambiguous between two overloads",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^DROP FUNCTION ledger\.replace_findings\("),
        "ban-drop-function",
        "replace_findings is created again right after with two more parameters (p_tool, p_category), both "
        "with defaults, and one more result column (anchors_moved), so every existing call keeps working; the "
        "old signature goes so that no call is ambiguous and the result type can change",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^DROP FUNCTION ledger\.tg_merge__revert\(\);"),
        "ban-drop-function",
        "a trigger function only its trigger _300_revert called (dropped just before; no role may call it): "
        "the statement trigger _200_supersede now runs _apply_revert for each merge",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^CREATE TABLE ledger\.finding_path \($"),
        "prefer-robust-stmts",
        "created inside the upgrade's transaction (BEGIN ... COMMIT), so a failure part way through rolls "
        "it back; squawk asks for IF NOT EXISTS because concurrently.sql's DROP INDEX CONCURRENTLY follows "
        "the COMMIT in the same offline script",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^DROP FUNCTION ledger\.(_match_paths|_resumed_task|_scoped_paths|_write_issue_snapshot|"
                   r"claim_task)\("),
        "ban-drop-function",
        "_match_paths, _resumed_task and _write_issue_snapshot were called by nothing (no role may call them) and "
        "_scoped_paths is created again as _scoped_evidence_keys; claim_task is created again right after "
        "without its always-true snapshot_written column (a result type cannot change with CREATE OR REPLACE)",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^(CREATE TABLE ledger\.scope_active_total \(|"
                   r"CREATE INDEX CONCURRENTLY finding_prompt_order_idx)"),
        "prefer-robust-stmts",
        "the table is created inside the upgrade's transaction, so a failure rolls it back; the index "
        "build follows DROP INDEX CONCURRENTLY IF EXISTS of the same index (concurrently.sql), so a re-run "
        "after a failure part way through starts from no index",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^DROP FUNCTION ledger\.read_prompt_findings\("),
        "ban-drop-function",
        "read_prompt_findings is created again right after with one more parameter (p_max_touches, with a "
        "default), so every existing call keeps working; the old signature goes so that no call is ambiguous "
        "between two overloads",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^DROP FUNCTION ledger\.claim_task\("),
        "ban-drop-function",
        "claim_task is created again right after with one more parameter with a default (p_lease) and two more "
        "result columns (lease_expires_at, reclaimed_task_id), so every existing call keeps working; a result "
        "type cannot change with CREATE OR REPLACE",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^ALTER TABLE ledger\.agent_task ADD COLUMN lease_expires_at timestamptz;"),
        "prefer-robust-stmts",
        "added inside the upgrade's transaction (BEGIN ... COMMIT), so a failure part way through rolls it "
        "back; squawk asks for IF NOT EXISTS because concurrently.sql follows the COMMIT in the same offline "
        "script",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^CREATE INDEX CONCURRENTLY agent_task_lease_idx ON ledger\.agent_task"),
        "prefer-robust-stmts",
        "the statement before it is DROP INDEX CONCURRENTLY IF EXISTS of the same index (concurrently.sql), "
        "so a re-run after a failure part way through starts from no index",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^ALTER TABLE ledger\.(agent_task|injection) (ADD COLUMN scope text;|"
                   r"ADD CONSTRAINT (agent_task|injection)_scope_fkey )"),
        "prefer-robust-stmts",
        "run inside the upgrade's transaction (BEGIN ... COMMIT), so a failure part way through rolls it all "
        "back; squawk asks for IF NOT EXISTS and a transaction because concurrently.sql follows the COMMIT in "
        "the same offline script",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^ALTER TABLE ledger\.(agent_task|injection) ALTER COLUMN scope SET NOT NULL;"),
        "adding-not-nullable-field, prefer-robust-stmts",
        "inside the upgrade's transaction, so a failure rolls it all back; the column is added and filled from "
        "the issue / finding in that transaction, whose ADD COLUMN already holds ACCESS EXCLUSIVE on the table "
        "until COMMIT: the NOT NULL scan adds one read of the table to that lock, which a CHECK ... NOT VALID "
        "first would not shorten (tests/migrations/test_populated_upgrade.py: every row is filled)",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^ALTER TABLE ledger\.(agent_task|injection) VALIDATE CONSTRAINT "
                   r"(agent_task|injection)_scope_fkey;"),
        "constraint-missing-not-valid, prefer-robust-stmts",
        "inside the upgrade's transaction, so a failure rolls it all back; the foreign key checks a column this "
        "revision adds and fills from a row whose own foreign key to ledger.scope is valid, in the transaction "
        "whose ADD COLUMN already holds ACCESS EXCLUSIVE on the table: one scan that cannot fail, and leaving "
        "it NOT VALID would make the database differ from sql/",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^CREATE INDEX CONCURRENTLY (agent_task_scope_idx|injection_scope_idx) ON ledger\."),
        "prefer-robust-stmts",
        "the statement before it is DROP INDEX CONCURRENTLY IF EXISTS of the same index (concurrently.sql), "
        "so a re-run after a failure part way through starts from no index",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^(ALTER TABLE ledger\.(finding|merge|scope) (ADD COLUMN|ADD CONSTRAINT|VALIDATE CONSTRAINT) "
                   r"|CREATE TABLE ledger\.(file_state_request|recheck_request) \($"
                   r"|CREATE INDEX (file_state_request|recheck_request)_\w+_idx ON )"),
        "prefer-robust-stmts",
        "the table steps the release carries from the revisions it replaced run inside the upgrade's "
        "transaction (BEGIN ... COMMIT), so a failure part way through rolls every one of them back; squawk "
        "asks for IF NOT EXISTS because concurrently.sql's statements follow the COMMIT in the same offline script",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^CREATE INDEX CONCURRENTLY merge_scope_commit_sha_bytes_idx ON ledger\.merge "),
        "prefer-robust-stmts",
        "the statement before it is DROP INDEX CONCURRENTLY IF EXISTS of the same index (concurrently.sql), so "
        "a re-run after a failure part way through starts from no index",
    ),
    (
        "0005_merge_cost_the_anchor_lane",
        re.compile(r"^DROP FUNCTION ledger\._merge_decisions\("),
        "ban-drop-function",
        "the function is created again right after with one more parameter, with a default, so every existing "
        "call keeps working; the old signature goes so that no call is ambiguous between two overloads",
    ),
    (
        "0004_one_anchor_record_per_merge",
        re.compile(r"^CREATE INDEX CONCURRENTLY supersession_anchor_moves_idx ON ledger\.supersession "),
        "prefer-robust-stmts",
        "the statement before it is DROP INDEX CONCURRENTLY IF EXISTS of the same index (concurrently.sql), so "
        "a re-run after a failure part way through starts from no index",
    ),
    (
        "0002_release_0_2_0",
        re.compile(r"^DROP INDEX IF EXISTS ledger\.finding_active_paths_idx;"),
        "require-concurrent-index-deletion",
        "dropped inside the upgrade's transaction before the function it is built on (_scoped_paths), which "
        "the same transaction drops: DROP INDEX CONCURRENTLY cannot run in a transaction, and after the COMMIT "
        "the function would already be gone; the drop is instant once its brief lock is granted",
    ),
]

# Line-level ignores in the downgrade scripts, as above.
DOWNGRADE_LINE_IGNORES: list[tuple[str | None, re.Pattern[str], str, str]] = [
    (
        "0002_release_0_2_0",
        re.compile(r"^CREATE INDEX finding_active_paths_idx ON ledger\.finding$"),
        "require-concurrent-index-creation",
        "the downgrade below 0.2.0 rebuilds the index 0.1.0 had on the function it has just restored "
        "(_scoped_paths), in the same transaction, so that a downgrade that fails changes nothing; a "
        "downgrade is run at a quiet moment",
    ),
]

# Rules that do not apply to downgrade scripts at all: (rule, reason).
DOWNGRADE_IGNORES = [
    ("ban-drop-function", "a downgrade removes the functions its revision created; that is its purpose"),
    ("ban-drop-table", "a downgrade removes the tables its revision created; run it only when giving them up"),
    ("ban-drop-view", "a downgrade removes the views its revision created"),
    ("ban-drop-column", "a downgrade removes the columns its revision added"),
    ("ban-drop-constraint", "a downgrade removes the constraints its revision added"),
]


def _config(buffer: io.StringIO | None = None) -> Config:
    return Config(str(ROOT / "alembic.ini"), output_buffer=buffer)


def offline(spec: str, downgrade: bool) -> str:
    buffer = io.StringIO()
    (command.downgrade if downgrade else command.upgrade)(_config(buffer), spec, sql=True)
    return buffer.getvalue()


def steps() -> list[tuple[str | None, str]]:
    """(previous revision or None, revision) for every revision, oldest first."""
    script = ScriptDirectory.from_config(_config())
    revs = [r.revision for r in reversed(list(script.walk_revisions("base", "heads")))]
    return list(zip([None, *revs[:-1]], revs, strict=True))


def scripts(used: set[int] | None = None) -> dict[Path, str]:
    """The annotated offline scripts to lint, by output path. ``used``
    collects the ids of the line-level ignores that matched a line."""
    used = set() if used is None else used
    out: dict[Path, str] = {}
    for before, rev in steps():
        up = offline(f"{before}:{rev}" if before else rev, False)
        down = offline(f"{rev}:{before or 'base'}", True)
        out[OUT / "upgrade" / f"{rev}.sql"] = annotate_upgrade(up, rev, used)
        out[OUT / "downgrade" / f"{rev}.sql"] = annotate_downgrade(down, rev, used)
    return out


def _annotate_lines(script: str, rev: str, ignores: list, used: set[int]) -> list[str]:
    out = []
    for line in script.splitlines():
        rules = []
        for ignore in ignores:
            only, pattern, rule, reason = ignore
            if (only is None or only == rev) and pattern.match(line):
                used.add(id(ignore))
                out.append(f"-- lint_sql.py: {reason}")
                rules.append(rule)
        if rules:
            # squawk reads one ignore comment, the line right above the statement
            out.append("-- squawk-ignore " + ", ".join(rules))
        out.append(line)
    return out


def annotate_upgrade(script: str, rev: str = "", used: set[int] | None = None) -> str:
    return "\n".join(_annotate_lines(script, rev, UPGRADE_IGNORES, set() if used is None else used)) + "\n"


def annotate_downgrade(script: str, rev: str = "", used: set[int] | None = None) -> str:
    head = [f"-- lint_sql.py: {rule}: {reason}" for rule, reason in DOWNGRADE_IGNORES]
    head.append("-- squawk-ignore-file " + ", ".join(rule for rule, _ in DOWNGRADE_IGNORES))
    lines = _annotate_lines(script, rev, DOWNGRADE_LINE_IGNORES, set() if used is None else used)
    return "\n".join(head + lines) + "\n"


def unused_ignores(used: set[int]) -> list[str]:
    """Line-level ignores that excused nothing (stale justifications)."""
    return [
        f"unused ignore in tools/lint_sql.py: {ignore[2]} for {ignore[0] or 'every revision'} ({ignore[1].pattern})"
        for ignore in UPGRADE_IGNORES + DOWNGRADE_LINE_IGNORES
        if id(ignore) not in used
    ]


def squawk_binary() -> str:
    here = Path(sys.executable).parent / "squawk"
    found = str(here) if here.exists() else shutil.which("squawk")
    if not found:
        raise SystemExit("squawk not found: pip install -e '.[dev]' (squawk-cli is pinned in the dev extra)")
    return found


def lint() -> tuple[int, str]:
    """Write the annotated scripts and run squawk; (exit code, squawk's report)."""
    shutil.rmtree(OUT, ignore_errors=True)
    used: set[int] = set()
    files = scripts(used)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    proc = subprocess.run(
        [squawk_binary(), "--config", str(ROOT / ".squawk.toml"), "--reporter=gcc", *map(str, files)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    report = (proc.stdout + proc.stderr).strip()
    stale = unused_ignores(used)
    if stale:
        return max(proc.returncode, 1), "\n".join([report, *stale]).strip()
    return proc.returncode, report


def main() -> int:
    code, report = lint()
    print(report or f"squawk: no findings in {OUT.relative_to(ROOT)}/{{upgrade,downgrade}}/*.sql")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
