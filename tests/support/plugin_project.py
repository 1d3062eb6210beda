"""The test module of an inner project that runs the pytest plugin without
the [pytest] extra (tests/tooling/test_pytest_plugin.py, and tests/tooling/test_release.py
with the installed wheel): a test that uses no ledger fixture must pass
(the package and the plugin load without pytest-postgresql), a test that
uses ledger_conn must error at setup with MISSING_EXTRA (its body would
need a real connection, so it cannot pass by doing nothing). The outer
tests assert exactly "1 passed, 1 error"."""

WITHOUT_THE_EXTRA = '''import findings_ledger


def test_the_package_loads_without_the_extra():
    assert callable(findings_ledger.migrate) and findings_ledger.head_revision()


def test_uses_the_ledger(ledger_conn):
    assert ledger_conn.execute("SELECT 1").fetchone() == (1,)
'''
