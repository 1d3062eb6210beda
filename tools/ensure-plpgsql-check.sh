#!/usr/bin/env bash
# Make sure the plpgsql_check extension is available to the throwaway
# cluster's server (make lint runs tools/plpgsql_check.py against it).
# - The server's share/extension already has plpgsql_check.control: done.
# - Otherwise, for Debian's server binaries (/usr/lib/postgresql/<major>/bin),
#   install postgresql-<major>-plpgsql-check with apt-get as root (apt-get
#   update first when the package is not found).
# - Otherwise one line saying what to install, exit status 1. The embedded
#   binaries (PyPI/npm) have no build of this C extension: lint with the
#   system's server (LEDGER_PG_BINARIES=system); the line names Debian's
#   packages of the major apt-get knows, not the embedded server's major.
# Usage: PG_BINDIR=<bin dir of the server> tools/ensure-plpgsql-check.sh
set -euo pipefail
bindir=${PG_BINDIR:?set PG_BINDIR to the server binaries (make lint does)}
if [ -x "$bindir/pg_config" ]; then
  sharedir=$("$bindir/pg_config" --sharedir)
  major=$("$bindir/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
else
  major=$("$bindir/postgres" --version | sed -E 's/.* ([0-9]+)[.].*/\1/')
  sharedir=$(readlink -f "$bindir/../share")
  case "$bindir" in /usr/lib/postgresql/*) sharedir=/usr/share/postgresql/$major ;; esac
fi
[ -f "$sharedir/extension/plpgsql_check.control" ] && exit 0

package="postgresql-$major-plpgsql-check"
case "$(readlink -f "$bindir")" in
  /usr/lib/postgresql/*) ;;
  *)
    # Debian's major, not this server's: Debian ships plpgsql_check only for its own server's major
    debian=$(apt-cache search --names-only '^postgresql-[0-9]+-plpgsql-check$' 2>/dev/null \
             | sed -E 's/^postgresql-([0-9]+)-.*/\1/' | sort -n | tail -n 1 || true)
    if [ -n "$debian" ]; then install="apt-get install postgresql-$debian postgresql-$debian-plpgsql-check"
    else install="apt-get install postgresql postgresql-<its major>-plpgsql-check"; fi
    echo "plpgsql_check is missing for the server in $bindir (not Debian's): make lint checks PL/pgSQL with Debian's server: LEDGER_PG_BINARIES=system make lint ($install)" >&2
    exit 1 ;;
esac
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "plpgsql_check is missing: installing $package with apt-get" >&2
  log=$(mktemp)
  if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" \
         || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package"; }; } \
       >"$log" 2>&1 </dev/null || [ ! -f "$sharedir/extension/plpgsql_check.control" ]; then
    tail -n 20 "$log" >&2
    echo "plpgsql_check is missing and apt-get could not install $package (output above): install it by hand" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  exit 0
fi
echo "plpgsql_check is missing: install the package $package (as root: apt-get install $package)" >&2
exit 1
