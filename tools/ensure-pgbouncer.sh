#!/usr/bin/env bash
# Make sure pgbouncer is installed for the pgbouncer tests (the bouncer fixture of tests/support/pgbouncer.py; run by
# make test): the API behind pgbouncer in transaction mode, the way many
# services reach PostgreSQL.
# - pgbouncer on PATH or in /usr/sbin: nothing to do.
# - Otherwise, as root with apt-get: install Debian's pgbouncer package
#   without starting its system service (the test starts its own pgbouncer
#   on a private port with a generated configuration).
# - Otherwise: one line saying what to install, exit status 0; the test then
#   skips, naming why. pgbouncer is optional for the suite, unlike pgTAP.
set -euo pipefail
if command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "pgbouncer is missing: installing Debian's pgbouncer with apt-get (its service is not started)" >&2
  log=$(mktemp)
  # policy-rc.d 101: Debian's maintainer scripts start no service during this install
  policy=/usr/sbin/policy-rc.d
  made_policy=
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made_policy=1
  fi
  status=0
  { apt-get install -y -qq pgbouncer || { apt-get update -qq && apt-get install -y -qq pgbouncer; }; } \
    >"$log" 2>&1 </dev/null || status=$?
  if [ -n "$made_policy" ]; then rm -f "$policy"; fi
  if [ "$status" != 0 ] || [ ! -x /usr/sbin/pgbouncer ]; then
    tail -n 20 "$log" >&2
    echo "pgbouncer could not be installed with apt-get (output above): the pgbouncer tests of tests/api/test_connections.py and tests/migrations/test_migration_operations.py skip" >&2
  fi
  rm -f "$log"
  exit 0
fi
echo "pgbouncer is not installed (Debian: apt-get install pgbouncer, as root): the pgbouncer tests of tests/api/test_connections.py and tests/migrations/test_migration_operations.py skip" >&2
exit 0
