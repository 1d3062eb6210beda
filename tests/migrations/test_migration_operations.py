"""What a DBA meets around a migration: the offline script applied twice,
a schema installed by psql and not stamped, a database behind head, a
transaction-mode pooler between the migration and the services, a branched
history joined by ``alembic merge``, and the start-up of the command line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from alembic import command
from support.migrations import offline_sql, psql_apply, revisions
from support.pgbouncer import Bouncer, dbname

import findings_ledger as fl
from findings_ledger import api
from findings_ledger.testing.schema_dump import client_binary

ROOT = Path(__file__).resolve().parents[2]
CLI = str(Path(sys.executable).with_name("findings-ledger"))
ALEMBIC = str(Path(sys.executable).with_name("alembic"))
START = revisions()[-2]  # a revision behind head


def schema_fingerprint(dsn: str) -> tuple[object, ...]:
    with psycopg.connect(dsn) as conn:
        return tuple(conn.execute(
            "SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            "         WHERE n.nspname = 'ledger'),"
            "       (SELECT md5(string_agg(pg_get_functiondef(p.oid), '' ORDER BY p.oid::regprocedure::text))"
            "          FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            "         WHERE n.nspname = 'ledger' AND p.prokind IN ('f', 'p')),"
            "       (SELECT string_agg(version_num, ',') FROM ledger.alembic_version)").fetchone() or ())


def test_the_offline_script_applied_twice_changes_nothing_the_second_time(
        ledger_database_factory: Callable[..., str]) -> None:
    dsn = ledger_database_factory(migrated=False)
    fl.migrate(dsn, START)
    script = offline_sql(f"{START}:head")
    psql_apply(dsn, script)
    applied = schema_fingerprint(dsn)
    assert applied[2] == fl.head_revision()
    again = subprocess.run([client_binary("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", "-"],
                           input=script, capture_output=True, text=True)
    assert again.returncode == 3
    errors = [line for line in again.stderr.splitlines() if "ERROR:" in line]
    assert len(errors) == 1 and errors[0].endswith(
        f"ERROR:  this script's step to {fl.head_revision()} (upgrade) expects the database at {START}, "
        f"but it is at {fl.head_revision()}: nothing of this step was applied")
    assert schema_fingerprint(dsn) == applied


def test_each_revision_block_of_the_offline_script_checks_the_version_first() -> None:
    script = offline_sql(f"{START}:head")
    blocks = script.split("-- Running upgrade ")[1:]
    assert blocks and all(b.split("\n", 1)[1].lstrip().startswith("DO $ledger_version_guard$") for b in blocks)
    assert re.findall(r"^SET lock_timeout.*$", script, re.MULTILINE) == ["SET lock_timeout = '10min';"]  # the lock wait
    assert script.count("SET LOCAL lock_timeout = '5s';") == len(blocks) + 1


def test_a_psql_install_without_stamp_gets_the_stamp_hint_on_one_line(
        ledger_database_factory: Callable[..., str]) -> None:
    dsn = ledger_database_factory(migrated=False)
    psql_apply(dsn, (ROOT / "migrations" / "versions" / "0001_baseline" / "upgrade.sql").read_text()
               .replace("\\ir ", f"\\i {ROOT / 'migrations' / 'versions' / '0001_baseline'}/"))
    cli = subprocess.run([CLI, "migrate", "--dsn", dsn], capture_output=True, text=True)
    assert cli.returncode == 1
    assert len(cli.stderr.strip().splitlines()) == 1
    assert "already exists" in cli.stderr and "alembic stamp <revision>" in cli.stderr
    raw = subprocess.run([ALEMBIC, "-x", f"dsn={dsn}", "upgrade", "head"], capture_output=True, text=True,
                         cwd=ROOT)
    assert raw.returncode == 1
    lines = raw.stderr.strip().splitlines()
    assert lines[-1].startswith("findings-ledger migrations: ") and "alembic stamp <revision>" in lines[-1]
    assert not any("Traceback" in line or "CREATE" in line for line in lines), raw.stderr[:2000]


def test_a_database_behind_head_is_one_line_at_the_cli_and_schema_behind_in_the_api(
        ledger_database_factory: Callable[..., str]) -> None:
    dsn = ledger_database_factory(migrated=False)
    with psycopg.connect(dsn, autocommit=True) as conn, pytest.raises(fl.SchemaBehind, match="findings-ledger migrate"):
        fl.active_findings(conn, "spec")
    fl.migrate(dsn, START)
    for verb in (["active", "spec"], ["prompt", "spec"], ["hygiene-mode", "spec", "on"]):
        run = subprocess.run([CLI, *verb, "--dsn", dsn], capture_output=True, text=True)
        assert run.returncode == 1, verb
        assert run.stderr.strip() == (
            f"error: the ledger schema of database '{dbname(dsn)}' is at {START}, behind this findings-ledger's "
            f"{fl.head_revision()}: run `findings-ledger migrate` with the same --dsn")
    head = ledger_database_factory()
    with psycopg.connect(head, autocommit=True) as conn:
        conn.execute("DROP FUNCTION ledger.active_findings")  # as on a schema from before the function
        conn.execute("UPDATE ledger.alembic_version SET version_num = %s", (START,))
        with pytest.raises(fl.SchemaBehind, match=r"ledger\.active_findings.*does not exist") as info:
            fl.active_findings(conn, "spec")
        assert info.value.sqlstate == "LD502"


def test_a_migration_through_a_transaction_pooler_leaves_no_setting_behind(
        bouncer: Callable[..., Bouncer], ledger_database_factory: Callable[..., str]) -> None:
    dsn = ledger_database_factory(migrated=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.svc_t (x int)")
        conn.execute("INSERT INTO public.svc_t VALUES (1)")
        defaults = conn.execute("SELECT current_setting('search_path'), current_setting('lock_timeout'),"
                                " current_setting('statement_timeout')").fetchone()
    b = bouncer(pool_size=2)
    pooled = b.dsn(dbname(dsn))
    run = subprocess.run([CLI, "migrate", "--dsn", pooled], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert fl.current_revision(psycopg.connect(dsn, autocommit=True)) == fl.head_revision()
    # two clients in a transaction each: between them every server connection of the pool
    one, two = (psycopg.connect(pooled, prepare_threshold=None) for _ in range(2))
    with one, two:
        for conn in (one, two):
            seen = conn.execute("SELECT current_setting('search_path'), current_setting('lock_timeout'),"
                                " current_setting('statement_timeout'), pg_backend_pid()").fetchone()
            assert seen is not None and seen[:3] == defaults
            assert conn.execute("SELECT count(*) FROM svc_t").fetchone() == (1,)  # unqualified: the service's table
        assert one.execute("SELECT pg_backend_pid()").fetchone() != two.execute("SELECT pg_backend_pid()").fetchone()


def test_alembic_merge_of_two_revisions_upgrades_to_head(
        tmp_path: Path, ledger_database_factory: Callable[..., str]) -> None:
    migrations = tmp_path / "migrations"
    shutil.copytree(ROOT / "migrations", migrations, ignore=shutil.ignore_patterns("__pycache__"))
    cfg = api.alembic_config()
    cfg.set_main_option("script_location", str(migrations))
    cfg.set_main_option("file_template", "%%(rev)s")
    head = fl.head_revision()
    for branch in ("a", "b"):
        rev = f"9{branch}_branch_{branch}"
        command.revision(cfg, message=f"branch {branch}", rev_id=rev, head=head, splice=True)
        (migrations / "versions" / rev).mkdir()
        (migrations / "versions" / rev / "upgrade.sql").write_text(f"CREATE TABLE ledger.branch_{branch} (x int);\n")
        (migrations / "versions" / rev / "downgrade.sql").write_text(f"DROP TABLE ledger.branch_{branch};\n")
    script = command.merge(cfg, "heads", message="join the branches", rev_id="9c_merge")
    assert script is not None and "run_revision_file" not in Path(script.path).read_text()
    dsn = ledger_database_factory()
    cfg.attributes["dsn"] = dsn
    command.upgrade(cfg, "head")
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT version_num FROM ledger.alembic_version").fetchall() == [("9c_merge",)]
        assert conn.execute("SELECT to_regclass('ledger.branch_a') IS NOT NULL AND"
                            " to_regclass('ledger.branch_b') IS NOT NULL").fetchone() == (True,)
    command.downgrade(cfg, head)
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT version_num FROM ledger.alembic_version").fetchall() == [(head,)]


def test_autogenerate_is_refused_with_one_line(ledger_dsn: str) -> None:
    run = subprocess.run([ALEMBIC, "-x", f"dsn={ledger_dsn}", "revision", "--autogenerate", "-m", "x"],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines()[-1] == (
        "findings-ledger migrations: alembic revision --autogenerate cannot write a revision's SQL files: "
        "run `make revision M='what it does'` (tools/new_revision.py, docs/dba.md)")
    assert not list((ROOT / "migrations" / "versions").glob("*_x.py"))


def test_help_imports_neither_alembic_nor_sqlalchemy() -> None:
    code = ("import sys\nfrom findings_ledger.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'alembic', 'sqlalchemy', 'mako'}))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "80"})
    assert run.returncode == 0, run.stderr
    assert "Findings that retire themselves" in run.stdout
    assert run.stdout.strip().splitlines()[-1] == "[]"


def test_set_scopes_is_transaction_local_by_default_through_the_pooler(
        bouncer: Callable[..., Bouncer], ledger_dsn: str) -> None:
    b = bouncer(pool_size=1)  # one server connection: tenant B gets the one tenant A used
    pooled = b.dsn(dbname(ledger_dsn))
    with psycopg.connect(pooled, autocommit=True, prepare_threshold=None) as a, \
            psycopg.connect(pooled, autocommit=True, prepare_threshold=None) as tenant_b:
        with pytest.raises(ValueError, match="autocommit connection outside a transaction"):
            fl.set_scopes(a, ["tenant-a"])
        with a.transaction():
            fl.set_scopes(a, ["tenant-a"])
            assert a.execute("SELECT current_setting('ledger.scopes')").fetchone() == ("tenant-a",)
        assert tenant_b.execute("SELECT coalesce(current_setting('ledger.scopes', true), '')").fetchone() == ("",)
        with pytest.warns(fl.SessionScopesWarning, match="transaction-mode pooler"):
            fl.set_scopes(a, ["tenant-a"], session=True)
        # the trap the warning names: the session form reaches the next client of the server connection
        assert tenant_b.execute("SELECT current_setting('ledger.scopes', true)").fetchone() == ("tenant-a",)
        tenant_b.execute("RESET ledger.scopes")


def test_a_database_newer_than_this_findings_ledger_says_so_and_how_to_go_back(
        ledger_database_factory: Callable[..., str]) -> None:
    """A deployment rolled back to an older findings-ledger finds the database at a revision it
    does not know: fl.migrate raises SchemaNewer (LD503), the command line and alembic print one
    line saying the database is newer and how to go back (docs/dba.md), and nothing changes."""
    dsn = ledger_database_factory()
    newer = "0099_from_a_newer_release"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("UPDATE ledger.alembic_version SET version_num = %s", (newer,))
    before = schema_fingerprint(dsn)
    head = fl.head_revision()
    with pytest.raises(fl.SchemaNewer) as err:
        fl.migrate(dsn)
    message = str(err.value)
    assert err.value.sqlstate == "LD503"
    assert newer in message and "newer than this findings-ledger" in message and head in message
    assert "docs/dba.md" in message and "Can't locate" not in message
    with pytest.raises(fl.SchemaNewer):
        fl.downgrade(dsn, "-1")
    cli = subprocess.run([CLI, "migrate", "--dsn", dsn], capture_output=True, text=True)
    assert cli.returncode == 1
    assert cli.stderr.strip().splitlines() == [f"error: {message} [LD503]"]
    raw = subprocess.run([ALEMBIC, "-x", f"dsn={dsn}", "upgrade", "head"], capture_output=True, text=True, cwd=ROOT)
    assert raw.returncode == 1
    lines = raw.stderr.strip().splitlines()
    assert lines[-1].startswith("findings-ledger migrations: ") and "newer than this findings-ledger" in lines[-1]
    assert not any("Traceback" in line or "Can't locate" in line for line in lines), raw.stderr[:2000]
    assert schema_fingerprint(dsn) == before
