"""Test and demo tooling, kept apart from the runtime API (``import
findings_ledger`` imports none of it):

* :mod:`.cluster`: the throwaway local PostgreSQL cluster
  (``python -m findings_ledger.testing.cluster start|stop|status|dsn``);
  also the CLI's default server when no DSN is given;
* :mod:`.schema_dump`: the normalised ``pg_dump --schema-only`` of the
  ``ledger`` schema (``python -m findings_ledger.testing.schema_dump``);
* :mod:`.pytest_plugin`: the ``pytest11`` entry point (fixtures
  ``ledger_conn``, ``ledger_dsn``, ...), which needs the ``pytest`` extra
  (``pip install 'findings-ledger[pytest]'``) only when a ledger fixture is
  used; :mod:`.databases` implements those fixtures.

This package's ``__init__`` imports nothing, so loading the plugin costs
nothing in projects that do not use it.
"""
