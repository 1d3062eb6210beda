#!/usr/bin/env bash
# Make sure the pgTAP extension is available to the server the tests use.
# With LEDGER_DSN set, the DBA of that server installs it; here we only check
# the throwaway cluster's installation (Debian: postgresql-<major>-pgtap).
set -euo pipefail
bindir=${PG_BINDIR:-}
if [ -z "$bindir" ]; then
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    bindir=$(pg_config --bindir)
  else
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  fi
fi
[ -n "${LEDGER_DSN:-}" ] && exit 0
major=$(basename "$(dirname "$bindir")")
sharedir=$("$bindir/pg_config" --sharedir 2>/dev/null || echo "/usr/share/postgresql/$major")
if ls "$sharedir"/extension/pgtap.control >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "pgTAP is missing: installing postgresql-$major-pgtap with apt-get" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$major-pgtap" >/dev/null
  exit 0
fi
echo "pgTAP is missing: install the package postgresql-$major-pgtap (as root: apt-get install postgresql-$major-pgtap), or set LEDGER_DSN to a server that has it" >&2
exit 1
