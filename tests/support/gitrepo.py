"""A small git repository built with real ``git`` commands, for the git
reader and replay-git tests.

History of ``main`` (first-parent line), oldest first:

1. ``add``: a.py, src/old.py, docs/x.md, "dir with space/f.md", 'quote"d.txt',
   "naïve/日本.py";
2. ``rename and delete``: src/old.py -> src/new.py (git mv, same content),
   docs/x.md deleted;
3. ``merge``: ``git merge --no-ff feature``, where the side branch changed
   feat.py and a.py in two commits that are NOT on the first-parent line;
4. ``quote``: edits 'quote"d.txt'.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SPACE = "dir with space/f.md"
QUOTE = 'quote"d.txt'
NON_ASCII = "naïve/日本.py"


def git(repo: Path, *args: str, date: str = "2026-06-24T10:00:00+00:00") -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    proc = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def write(repo: Path, path: str, text: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def build_repo(repo: Path) -> dict[str, str]:
    """Build the repository; returns the shas by name
    (add, rename, side1, side2, merge, quote)."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    shas = {}
    for path in ("a.py", "src/old.py", "docs/x.md", SPACE, QUOTE, NON_ASCII):
        write(repo, path, f"content of {path}\n" * 5)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add\n\nThe first commit.", date="2026-06-20T10:00:00+00:00")
    shas["add"] = git(repo, "rev-parse", "HEAD")

    git(repo, "mv", "src/old.py", "src/new.py")
    git(repo, "rm", "-q", "docs/x.md")
    git(repo, "commit", "-q", "-m", "rename and delete", date="2026-06-21T10:00:00+00:00")
    shas["rename"] = git(repo, "rev-parse", "HEAD")

    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "feat.py", "feature\n")
    git(repo, "add", "feat.py")
    git(repo, "commit", "-q", "-m", "side 1", date="2026-06-22T10:00:00+00:00")
    shas["side1"] = git(repo, "rev-parse", "HEAD")
    write(repo, "a.py", "changed on the side\n")
    git(repo, "commit", "-q", "-am", "side 2", date="2026-06-22T11:00:00+00:00")
    shas["side2"] = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature", date="2026-06-23T10:00:00+00:00")
    shas["merge"] = git(repo, "rev-parse", "HEAD")

    write(repo, QUOTE, "edited\n")
    git(repo, "commit", "-q", "-am", "quote", date="2026-06-24T10:00:00+00:00")
    shas["quote"] = git(repo, "rev-parse", "HEAD")
    return shas


def lines(n: int, tag: str = "line") -> str:
    return "".join(f"{tag} {i}\n" for i in range(1, n + 1))


def build_hunk_repo(repo: Path) -> dict[str, str]:
    """A history whose diffs have known ``-U0`` hunks; returns the shas by name.

    1. ``add``: src/a.py (50 lines), docs/b.md (10 lines), gone.txt (3 lines), bin.dat (binary);
    2. ``edit``: 10 lines inserted at the top of src/a.py and its old line 42 rewritten
       (hunks ``[0, 0, 1, 10]``, ``[42, 1, 52, 1]``);
    3. ``move``: docs/b.md renamed to docs/c.md with its line 3 changed, gone.txt deleted,
       bin.dat changed, src/a.py made executable (a mode change, no line);
    4. ``merge``: a ``--no-ff`` merge of a side branch that added new/x.py (2 lines).
    """
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    shas = {}
    write(repo, "src/a.py", lines(50))
    write(repo, "docs/b.md", lines(10, "doc"))
    write(repo, "gone.txt", lines(3, "gone"))
    (repo / "bin.dat").write_bytes(b"\x00\x01binary")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add", date="2026-06-20T10:00:00+00:00")
    shas["add"] = git(repo, "rev-parse", "HEAD")

    text = lines(50).replace("line 42\n", "line forty-two\n")
    write(repo, "src/a.py", lines(10, "new") + text)
    git(repo, "commit", "-q", "-am", "edit", date="2026-06-21T10:00:00+00:00")
    shas["edit"] = git(repo, "rev-parse", "HEAD")

    git(repo, "mv", "docs/b.md", "docs/c.md")
    write(repo, "docs/c.md", lines(10, "doc").replace("doc 3\n", "doc three\n"))
    git(repo, "rm", "-q", "gone.txt")
    (repo / "bin.dat").write_bytes(b"\x00\x02binary")
    (repo / "src/a.py").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "move", date="2026-06-22T10:00:00+00:00")
    shas["move"] = git(repo, "rev-parse", "HEAD")

    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "new/x.py", lines(2, "x"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "side", date="2026-06-23T09:00:00+00:00")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side", date="2026-06-23T10:00:00+00:00")
    shas["merge"] = git(repo, "rev-parse", "HEAD")
    return shas
