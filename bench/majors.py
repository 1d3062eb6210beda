"""``make bench-majors``: the benchmark on several PostgreSQL majors, side by side.

    python bench/majors.py [--majors 15,18] [--out bench/out] [RUN.PY ARGS...]

For each major, one after the other (so the runs do not compete for the
cores): the server binaries (``/usr/lib/postgresql/<major>/bin`` when it
holds initdb, else the system's when they are that major, else the
embedded ones, ``LEDGER_PG_BINARIES=embedded-<major>``, installed when
missing by ``findings_ledger.testing.pg_binaries``), a throwaway cluster of
that major on port ``LEDGER_PGPORT + 100 * (major - 10)`` (tools/compat.py's,
``cluster.port_for``) started by
``findings_ledger.testing.cluster`` (unless it was already running,
stopped afterwards and its directory removed, also after a failure or
Ctrl-C), and ``bench/run.py --dsn <it> --out <out>/pg<major>``
with the other arguments (``--quick``, ``--only real``, ...). Then
:func:`side_by_side` merges the runs' ``results.json`` into
``<out>/results-majors.md``: every case row with a column per major, and
every target with a column per major saying holds or MISSED. ``LEDGER_DSN``
is ignored: each major needs its own server. A wrong argument for run.py or
an unknown major is one line before any server starts; a major whose
binaries or cluster cannot be had, or whose run fails, is one line, the
other majors still run, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import run  # bench/run.py, beside this script

from findings_ledger.testing import cluster, pg_binaries

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
MISSING = "–"
DEFAULT_MAJORS = (15, 18)
SYSTEM_ROOT = Path("/usr/lib/postgresql")  # Debian's server binaries, a directory per major


# --------------------------------------------------------------------------- the merge


def _num(v: float) -> str:
    """Milliseconds as the hand-made tables had them: 3 decimals below 1 ms, one below 10 s, none above."""
    return f"{v:.3f}" if v < 1 else f"{v:.1f}" if v < 10_000 else f"{v:.0f}"


def cell(row: Mapping[str, Any]) -> str:
    """One run's figure for a row: ``median / p95`` (the median alone for one
    sample), ``(xN)`` the ratio to the row's baseline; a row of other figures
    as ``name value, ...``."""
    if "median_ms" in row:
        text = _num(row["median_ms"]) if row.get("n") == 1 else f"{_num(row['median_ms'])} / {_num(row['p95_ms'])}"
        return text + (f" (x{row['ratio']})" if "ratio" in row else "")
    return ", ".join(f"{k} {v}" for k, v in row.items() if k not in ("case", "params"))


def _keyed(items: list[dict[str, Any]], key: tuple[str, ...]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Items by their key fields plus the occurrence of that key (a key twice in one run stays two rows)."""
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    seen: dict[tuple[Any, ...], int] = {}
    for item in items:
        k = tuple(item.get(f) for f in key)
        seen[k] = seen.get(k, 0) + 1
        out[(*k, seen[k])] = item
    return out


def _union(keyed: list[dict[tuple[Any, ...], dict[str, Any]]]) -> list[tuple[Any, ...]]:
    """Every key of every run, in the order the runs first have them."""
    order: dict[tuple[Any, ...], None] = {}
    for k in keyed:
        order.update(dict.fromkeys(k))
    return list(order)


#: a parenthesised part of a target's name that holds a figure: what one run measured (``(CPU ms 1.560
#: against 0.298)``), not what the target is
_FIGURES = re.compile(r"\s*\([^()]*\d[^()]*\)")


def target_key(name: str) -> str:
    """A target's name without its parenthesised figures: the same target in
    two runs has the same key although each run wrote its own figures."""
    return _FIGURES.sub("", name).strip()


def target_figures(name: str) -> str:
    """The parenthesised figures of a target's name, joined (``""`` when none)."""
    return "; ".join(m.group(0).strip()[1:-1] for m in _FIGURES.finditer(name))


def _table(header: list[str], rows: list[list[str]], align: list[str]) -> list[str]:
    esc = [[str(v).replace("|", "\\|") for v in r] for r in rows]
    return ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"] + ["| " + " | ".join(r) + " |" for r in esc]


def side_by_side(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """The results.json of each run (column label -> its data) as one Markdown
    report: a line per run (its server, when, sizes), every case row aligned by
    case and parameters with a column per run (``–`` where a run has no such
    row), and every target with its limit and, per run, the value and holds or
    MISSED (``–`` where a run did not measure it). A target is aligned by its
    name without the figures a run wrote into it (:func:`target_key`); those
    figures follow that run's verdict."""
    labels = list(runs)
    lines = ["Side by side (bench/majors.py):", ""]
    for label, data in runs.items():
        m = data.get("machine", {})
        lines.append(f"- {label}: {m.get('postgres', 'unknown server')}, {m.get('cpu', '')}, {m.get('cores', '?')} "
                     f"cores, {m.get('when', '')}{' (quick sizes)' if data.get('quick') else ''}")
    rows = [_keyed(list(data.get("rows", [])), ("case", "params")) for data in runs.values()]
    body = [[k[0], k[1], *(cell(r[k]) if k in r else MISSING for r in rows)] for k in _union(rows)]
    lines += ["", "median / p95 ms (one sample: the figure alone); (xN) the ratio to the row's baseline", ""]
    lines += _table(["case", "parameters", *labels], body, ["---", "---", *["---:"] * len(labels)])
    targets = [_keyed([{**t, "key": target_key(t["target"])} for t in data.get("targets", [])], ("key",))
               for data in runs.values()]

    def verdict(t: dict[str, Any] | None, limit: Any) -> str:
        if t is None:
            return MISSING
        other = f" (limit {t['limit']})" if t["limit"] != limit else ""
        figures = target_figures(t["target"])
        return f"{t['value']}{other} {'holds' if t['holds'] else 'MISSED'}" + (f" ({figures})" if figures else "")

    trows = []
    for k in _union(targets):
        limit = next(t[k]["limit"] for t in targets if k in t)
        trows.append([k[0], str(limit), *(verdict(t.get(k), limit) for t in targets)])
    lines += [""] + _table(["target", "limit", *labels], trows, ["---", "---:", *["---:"] * len(labels)])
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the runs


def parse_majors(text: str) -> list[int]:
    """``15,18`` -> [15, 18]; raises ValueError with one line for anything else."""
    majors: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part.isdigit() or int(part) not in pg_binaries.MAJORS:
            raise ValueError(f"--majors {text!r}: {part!r} is not a PostgreSQL major the project runs on "
                             f"({', '.join(map(str, pg_binaries.MAJORS))})")
        if int(part) in majors:
            raise ValueError(f"--majors {text!r}: {part} twice")
        majors.append(int(part))
    return majors


def check_bench_args(bench_args: list[str]) -> str | None:
    """What is wrong with the arguments for bench/run.py, in one line, before any server starts; None if nothing.
    ``--dsn`` and ``--out`` are bench/majors.py's to give (a server per major, ``<out>/pg<major>``), also
    abbreviated (``--ds``, ``--ou``): run.py takes no abbreviation, but an error naming them is clearer."""
    for name in (a.split("=", 1)[0] for a in bench_args if a.startswith("--")):
        if len(name) > 3 and "--dsn".startswith(name):
            return f"bench/majors.py starts a server per major: drop {name} (and LEDGER_DSN is not used)"
        if len(name) > 3 and "--out".startswith(name):
            return (f"bench/majors.py writes each major's results to <--out>/pg<major>: drop {name} "
                    "(bench/majors.py's own --out, spelled in full, names the directory)")
    parser = run.arguments()
    parser.exit_on_error = False
    try:
        _, unknown = parser.parse_known_args(bench_args)
    except argparse.ArgumentError as exc:
        return f"bench/run.py {exc}"
    return f"bench/run.py does not take {' '.join(unknown)} (see python bench/run.py --help)" if unknown else None


def binaries_for(major: int) -> str:
    """``LEDGER_PG_BINARIES`` for ``major``: ``/usr/lib/postgresql/<major>/bin`` when it holds initdb (whichever
    major is the system's newest), else the system's (PG_BINDIR, initdb on PATH) when they are that major, else
    the embedded ones."""
    debian = SYSTEM_ROOT / str(major) / "bin"
    if (debian / "initdb").is_file():
        return str(debian)
    found = pg_binaries.system_bindir()
    if found and pg_binaries.server_version(found[0]).split(".")[0] == str(major):
        return "system"
    return f"embedded-{major}"


def bench_command(dsn: str, target: Path, bench_args: list[str]) -> list[str]:
    """bench/run.py on ``dsn`` into ``target`` with the user's arguments: ``--dsn`` and ``--out`` come last,
    so they win over any that got past :func:`check_bench_args` (argparse keeps an option's last value)."""
    return [sys.executable, str(ROOT / "bench" / "run.py"), *bench_args, "--dsn", dsn, "--out", str(target)]


@contextlib.contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` is ``env`` inside (pg_binaries and cluster read their settings from it)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_major(major: int, base_port: int, out: Path, bench_args: list[str]) -> Path:
    """bench/run.py on a throwaway cluster of ``major``; returns its results.json. A cluster this call
    started (it was not running) is stopped and its directory removed afterwards, also when the set-up or
    the run fails or is interrupted (Ctrl-C, SIGTERM)."""
    env = {k: v for k, v in os.environ.items() if k not in (cluster.DSN_ENV, cluster.DIR_ENV)}
    env[pg_binaries.ENV] = binaries_for(major)
    env[cluster.PORT_ENV] = str(cluster.port_for(base_port, major))
    with environment(env):
        binaries = pg_binaries.ensure()
        if binaries.major != major:  # PG_BINDIR or PATH naming another major than /usr/lib/postgresql
            raise pg_binaries.BinariesError(f"{env[pg_binaries.ENV]} gives PostgreSQL {binaries.version}, "
                                            f"not {major}")
        own = cluster.default_cluster()
        was_running = cluster.is_running(own)
    try:
        with environment(env):
            cluster.ensure_cluster(own)
        print(f"== PostgreSQL {major}: {binaries.describe()}, cluster {own.base} on port {own.port}", flush=True)
        target = out / f"pg{major}"
        done = subprocess.run(bench_command(own.dsn(), target, bench_args), env=env, check=False)
    finally:
        if not was_running:
            with environment(env):
                cluster.stop_cluster(own)
            shutil.rmtree(own.base, ignore_errors=True)  # its data directory (100 MB and more) is worth nothing now
    if done.returncode != 0:
        raise RuntimeError(f"bench/run.py on PostgreSQL {major} exited with {done.returncode}")
    return target / "results.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0], allow_abbrev=False,
                                     epilog="Other arguments go to bench/run.py (--quick, --only SECTION).")
    parser.add_argument("--majors", default=",".join(map(str, DEFAULT_MAJORS)),
                        help="PostgreSQL majors, comma-separated (default 15,18)")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="directory for pg<major>/results.{md,json} and results-majors.md")
    args, bench_args = parser.parse_known_args(argv)
    if problem := check_bench_args(bench_args):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        majors = parse_majors(args.majors)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        base_port = cluster.default_cluster().port
    except cluster.ClusterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # SIGTERM (a CI timeout, kill) unwinds like Ctrl-C: the cluster of the major running is stopped
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        return _run_all(majors, base_port, args.out, bench_args)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run_all(majors: list[int], base_port: int, out: Path, bench_args: list[str]) -> int:
    """Each major in turn, then the report of those that gave figures; 1 when any did not."""
    runs: dict[str, Any] = {}
    failed: list[str] = []
    for major in majors:
        try:
            results = run_major(major, base_port, out, bench_args)
        except (pg_binaries.BinariesError, cluster.ClusterError, RuntimeError) as exc:
            # one line, and the other majors still run: the report then has their columns only
            print(f"error: PostgreSQL {major}: {exc}", file=sys.stderr)
            failed.append(str(major))
            continue
        try:
            data = json.loads(results.read_text())
            if not isinstance(data, dict):
                raise ValueError(f"a JSON {type(data).__name__}, not the object bench/run.py writes")
        except (OSError, ValueError) as exc:  # missing, unreadable, not JSON (JSONDecodeError, UnicodeDecodeError)
            print(f"error: PostgreSQL {major}: cannot read {results}: {exc}", file=sys.stderr)
            failed.append(str(major))
            continue
        runs[f"PostgreSQL {major}"] = data
    if runs:
        report = side_by_side(runs)
        path = out / "results-majors.md"
        path.write_text(report)
        print(report + f"wrote {path}")
    if failed:
        print(f"bench/majors.py: no figures from PostgreSQL {', '.join(failed)} (see the error above)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
