#!/usr/bin/env bash
# The command-line walkthrough of docs/cli.md: imports a drift review, builds a small git
# repository (three commits on main), previews and replays it, reads the result.
# Run from the checkout, with LEDGER_DSN naming a freshly migrated database:
#   LEDGER_DSN=... PATH="$PWD/.venv/bin:$PATH" bash docs/examples/cli.sh
set -u
: "${LEDGER_DSN:?set LEDGER_DSN to a freshly migrated database}"
export GIT_AUTHOR_NAME=dev GIT_AUTHOR_EMAIL=dev@example.org GIT_COMMITTER_NAME=dev GIT_COMMITTER_EMAIL=dev@example.org
export GIT_AUTHOR_DATE=2026-06-01T12:00:00Z GIT_COMMITTER_DATE=2026-06-01T12:00:00Z
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1   # no user or system git settings
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# A drift review in the drift-review scenario's format: three findings, observed an hour before the commits below
# (a commit older than a finding never retires it); the second expects its directory to appear.
cat > review.json <<'JSON'
{"observed_at": "2026-06-01T11:00:00Z", "node_id": "spec-07:0",
 "drift_findings": [
  {"severity": "high", "description": "packages/af/af/app.py still registers night-shift.",
   "spec_ref": "spec-07", "artifact_ref": "packages/af/af/app.py"},
  {"severity": "medium", "description": "The packages/nightshift/ directory does not exist.",
   "spec_ref": "spec-07", "artifact_ref": "packages/nightshift/", "expects": "present"},
  {"severity": "low", "description": "The README quick start still runs af night-shift.",
   "spec_ref": "spec-07", "artifact_ref": "README.md"}]}
JSON
# A repository whose second and third commits touch the first two findings' paths.
git init -q -b main repo && cd repo
echo MIT > LICENSE && git add -A && git commit -qm "Initial import"
mkdir -p packages/af/af && echo cli > packages/af/af/app.py && git add -A
git commit -qm "Remove night-shift from the af CLI"
mkdir -p packages/nightshift && echo x > packages/nightshift/pyproject.toml && git add -A
git commit -qm "Scaffold packages/nightshift"

# This scope retires a drift finding on a touch (the path rule alone); the shipped touch mode of
# kind drift is flag: the finding stays, audited flagged, with the touching commits in the prompt.
findings-ledger policy spec-07 --touch retire --kind drift --create > /dev/null

# From here on every command is printed before its output.
PS4='$ '
set -x
findings-ledger import-findings ../review.json --scope spec-07
findings-ledger hygiene --mode dry . --scope spec-07
findings-ledger replay-git . --scope spec-07
findings-ledger replay-git . --scope spec-07
findings-ledger active spec-07
findings-ledger audit spec-07
findings-ledger prompt spec-07 --max-chars 4000
findings-ledger dismiss 3 wont_fix --actor alice --reason "the quick start goes in the next release"
findings-ledger history 3
findings-ledger active nope
findings-ledger hygiene-mode spec-7 dry
findings-ledger replay-git . --scope spec-07 --range nope
findings-ledger replay-git . --scope spec-07 --since whenever
findings-ledger hygiene-mode spec-07 sometimes
findings-ledger policy spec-07 --path-kinds drift,review
{ set +x; } 2>/dev/null
