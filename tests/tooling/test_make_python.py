"""`make venv` with a Python older than 3.10, and a .venv an older Python
made: one line saying what is needed, and the .venv made again instead of
reused (before, pip's resolver failed after a minute with nothing saying
3.10+, and a rerun with the right Python reused the broken .venv)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fake_python(path: Path, version: str, new_enough: bool, log: Path) -> Path:
    """A stand-in interpreter: prints ``version`` for --version, answers the
    Makefile's version check, logs every other call and fails it."""
    path.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {log}\n'
        f'if [ "$1" = "--version" ]; then echo "Python {version}"; exit 0; fi\n'
        f'if [ "$1" = "-c" ]; then exit {0 if new_enough else 1}; fi\n'
        "exit 3\n"
    )
    path.chmod(0o755)
    return path


def make_venv(python: Path, venv: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", "venv", f"PYTHON={python}", f"VENV={venv}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_an_older_python_is_one_line_saying_what_is_needed(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    old = fake_python(tmp_path / "python3.9", "3.9.2", new_enough=False, log=log)
    venv = tmp_path / ".venv"
    result = make_venv(old, venv)
    assert result.returncode != 0
    assert "needs Python 3.10 or newer" in result.stdout and "Python 3.9.2" in result.stdout
    assert "PYTHON=python3.11" in result.stdout
    assert not venv.exists()  # nothing made
    assert "-m venv" not in log.read_text()


def test_a_venv_an_older_python_made_is_made_again(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    fake_python(venv / "bin" / "python", "3.9.2", new_enough=False, log=tmp_path / "old.log")
    new = fake_python(tmp_path / "python3.11", "3.11.7", new_enough=True, log=log)
    result = make_venv(new, venv)
    assert "was made by Python 3.9.2: making it again" in result.stdout
    assert f"-m venv --clear {venv}" in log.read_text()
