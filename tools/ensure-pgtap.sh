#!/usr/bin/env bash
# Make sure the pgTAP extension is available to the server the tests use
# (make test, make test-sql).
# - LEDGER_DSN set: that server's DBA installs pgTAP; nothing to do here (the
#   pgTAP tests say so clearly if it is missing).
# - Otherwise the throwaway cluster's PostgreSQL (the same binaries
#   findings_ledger.testing.cluster picks: $PG_BINDIR, else initdb on PATH, else the
#   newest /usr/lib/postgresql/<major>/bin) needs postgresql-<major>-pgtap:
#   installed here with apt-get when running as root, else one clear message
#   and exit status 1.
set -euo pipefail
[ -n "${LEDGER_DSN:-}" ] && exit 0

bindir=${PG_BINDIR:-}
if [ -z "$bindir" ] && command -v initdb >/dev/null 2>&1; then
  bindir=$(dirname "$(readlink -f "$(command -v initdb)")")
fi
if [ -z "$bindir" ]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "pgTAP check: no PostgreSQL server binaries found: install postgresql (Debian: apt-get install postgresql-15 postgresql-15-pgtap), set PG_BINDIR, or set LEDGER_DSN to a server that has pgTAP" >&2
  exit 1
fi

if [ -x "$bindir/pg_config" ]; then
  sharedir=$("$bindir/pg_config" --sharedir)
  major=$("$bindir/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
else
  major=$(basename "$(dirname "$bindir")")
  sharedir=/usr/share/postgresql/$major
fi
[ -f "$sharedir/extension/pgtap.control" ] && exit 0

package="postgresql-$major-pgtap"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "pgTAP is missing: installing $package with apt-get" >&2
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package"; } >"$log" 2>&1 \
     || [ ! -f "$sharedir/extension/pgtap.control" ]; then
    tail -n 20 "$log" >&2
    echo "pgTAP is missing and apt-get could not install $package (output above): install it by hand, or set LEDGER_DSN to a server that has pgTAP" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  exit 0
fi
echo "pgTAP is missing: install the package $package (as root: apt-get install $package), or set LEDGER_DSN to a server that has pgTAP" >&2
exit 1
