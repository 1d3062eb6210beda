"""One odd commit cannot stop a replay.

A repository with a file named ``src<U+202E>evil.txt`` (a bidirectional
override: LD001 for the ledger) or a commit message over 262,144 characters
(LD004) used to make ``replay-git`` record 0 merges, on every rerun. Now
the offending path is left out, or the message cut, the merge recorded with
a ``Ledger-Replay-Note:`` trailer saying so (its audit), a warning line
names the commit, the rest of the history is recorded, and a rerun is a
redelivery.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
from support.gitrepo import git, write

from findings_ledger import gitlog

EVIL = "src\u202eevil.txt"


def _repo(tmp_path: Path) -> dict[str, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shas = {}
    write(repo, "a.py", "a\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first", date="2026-06-20T10:00:00+00:00")
    shas["first"] = git(repo, "rev-parse", "HEAD")
    write(repo, EVIL, "x\n")
    write(repo, "src/good.py", "g\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd name", date="2026-06-21T10:00:00+00:00")
    shas["odd"] = git(repo, "rev-parse", "HEAD")
    write(repo, "b.py", "b\n")
    git(repo, "add", "-A")
    (tmp_path / "long-message").write_text("long " + "x" * 300_000)
    git(repo, "commit", "-q", "-F", str(tmp_path / "long-message"), date="2026-06-22T10:00:00+00:00")
    shas["long"] = git(repo, "rev-parse", "HEAD")
    write(repo, "c.py", "c\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "last", date="2026-06-23T10:00:00+00:00")
    shas["last"] = git(repo, "rev-parse", "HEAD")
    return shas


def _replay(repo: Path, dsn: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "findings_ledger.cli", "replay-git", str(repo), "--scope", "r"],
                          capture_output=True, text=True, env={**os.environ, "LEDGER_DSN": dsn}, timeout=300)


def test_an_odd_path_and_a_long_message_do_not_stop_a_replay(
    tmp_path: Path, ledger_dsn: str, ledger_conn: psycopg.Connection[Any]
) -> None:
    shas = _repo(tmp_path)
    proc = _replay(tmp_path / "repo", ledger_dsn)
    assert proc.returncode == 0, proc.stderr
    assert "r: 4 merges recorded, 0 already recorded" in proc.stdout, proc.stdout
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: commit")]
    assert len(warnings) == 2, proc.stderr
    assert warnings[0].startswith(f"warning: commit {shas['odd'][:12]} recorded changed: 1 path(s) left out")
    assert "LD001" in warnings[0] and "src\\u202eevil.txt" in warnings[0]
    assert warnings[1].startswith(f"warning: commit {shas['long'][:12]} recorded changed: message cut from")
    rows = dict(ledger_conn.execute("SELECT commit_sha, paths FROM ledger.merge WHERE scope = 'r'").fetchall())
    assert rows[shas["odd"]] == ["src/good.py", "src/"]  # src/ is new in that commit
    notes = dict(ledger_conn.execute(
        "SELECT commit_sha, substring(message FROM 'Ledger-Replay-Note: (.*)$') FROM ledger.merge WHERE scope = 'r' "
        "AND message LIKE '%%Ledger-Replay-Note: %%'").fetchall())
    assert set(notes) == {shas["odd"], shas["long"]}
    assert "message cut from 300005 characters" in notes[shas["long"]]
    long_len = ledger_conn.execute("SELECT length(message) FROM ledger.merge WHERE commit_sha = %s",
                                   (shas["long"],)).fetchone()
    assert long_len == (gitlog.MESSAGE_LIMIT,)
    again = _replay(tmp_path / "repo", ledger_dsn)  # a rerun is a redelivery of the same merges
    assert again.returncode == 0, again.stderr
    assert "r: 0 merges recorded, 4 already recorded" in again.stdout


def test_hunks_beyond_the_bounds_are_left_out_with_a_note() -> None:
    from datetime import datetime, timezone

    m = gitlog.GitMerge(sha="a" * 40, parents=(), committed_at=datetime.now(timezone.utc), message="m",
                        paths=("a.py", "b.py"), hunks={"a.py": [(i, 1, i, 1) for i in range(1, 10_002)],
                                                       "b.py": [(1, 1, 1, 1)]})
    out = gitlog.sanitised(m)
    assert out.hunks == {"b.py": [(1, 1, 1, 1)]}
    note = gitlog.replay_note(out)
    assert note is not None and "hunks of 1 path(s) left out" in note and "a.py" in note
    assert gitlog.sanitised(dataclasses.replace(m, hunks={"b.py": [(1, 1, 1, 1)]})).message == "m"
