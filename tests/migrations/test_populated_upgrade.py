"""Upgrading a database that holds data: at the FIRST revision (the
baseline) the database gets 10,000 findings and 10,000 merges with
realistic values, is upgraded to head, and every row (all columns the first
revision had), every derived value (supersession state, audit rows, the
active set, prompt order, identity sequences) and the triggers' behaviour on
old rows survive. Every revision after the baseline is tested here against a
database that holds data, without touching this test.

What later revisions derive for the old rows is checked too: the lifecycle
state (superseded_at NULL -> active, else superseded; nothing dismissed),
the counters, evidence columns, scope policy and merge branch at their
defaults; the claim tables empty but for their seed rows. At head the old
rows take part in every rule: path (drift supersedes, review is a
candidate: the default policy), key (through the GIN evidence index over
10,000 rows), restore, re-report, and a claim on an old scope.

Loading, in an order that keeps every derived value what the triggers
produce:
1. 9,400 historical merges, recorded before any finding existed, written
   with the user triggers disabled (they would have superseded nothing;
   ``DISABLE TRIGGER USER`` keeps the foreign keys checked and needs only
   table ownership, unlike ``session_replication_role``). Their values are
   written in normal form and checked against the triggers' own functions.
2. 10,000 findings through the triggers (messy paths, severities, kinds).
3. 600 merges through the triggers: they supersede findings and write
   the audit, in scopes whose hygiene_mode is on, dry or off.
"""

from __future__ import annotations

from collections.abc import Callable

import psycopg
from psycopg import sql
from support.migrations import revisions, upgrade, version

#: the load: historical merges (triggers off), findings, live merges (triggers on); enough rows
#: that every rule, the GIN evidence index and each revision's backfill work on real volumes
HISTORICAL = 9_400
FINDINGS_N = 10_000
LIVE = 600
MERGES_N = HISTORICAL + LIVE

SCOPES = """
INSERT INTO ledger.scope (scope, hygiene_mode, created_at, path_supersede_kinds)
SELECT 'repo-' || s, CASE WHEN s % 10 = 7 THEN 'dry' WHEN s % 10 = 9 THEN 'off' ELSE 'on' END,
       timestamptz '2026-01-01 00:00+00' + s * interval '1 hour',
       CASE WHEN s % 2 = 0 THEN '{*}' ELSE '{drift}' END::text[]
  FROM generate_series(0, 19) AS s
"""

HISTORICAL_MERGES = """
INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths, merged_at, recorded_at, processed)
SELECT 'repo-' || (n % 20),
       md5('historical ' || n),
       CASE WHEN n % 3 <> 0 THEN 'node-' || (n % 97) END,
       'Merge pull request #' || n || ': refactor module ' || (n % 700),
       CASE (n / 20) % 4
         WHEN 0 THEN ARRAY['src/mod_' || (n % 500) || '/file_' || (n % 37) || '.py']
         WHEN 1 THEN ARRAY['src/mod_' || (n % 500) || '/util.py', 'tests/test_' || (n % 900) || '.py']
         WHEN 2 THEN ARRAY['docs/guide_' || (n % 80) || '.md']
         ELSE ARRAY['pkg/' || (n % 50) || '/lib/core_' || (n % 11) || '.py', 'README.md']
       END,
       timestamptz '2026-01-02 00:00+00' + n * interval '20 seconds',
       timestamptz '2026-01-02 00:00+00' + n * interval '20 seconds' + interval '3 seconds',
       true
  FROM generate_series(1, :historical) AS n
"""

FINDINGS = """
INSERT INTO ledger.finding (scope, finding_key, kind, severity, title, description, paths, source, created_at)
SELECT 'repo-' || (n % 20),
       CASE WHEN n % 3 = 0 THEN 'review-' || n END,
       (ARRAY['review', 'drift', 'Lint'])[1 + n % 3],
       (ARRAY['critical', 'high', 'medium', 'low', 'info', 'Major', 'minor'])[1 + n % 7],
       '  Finding ' || n || ': handle the error path in module ' || (n % 500) || ' ',
       CASE WHEN n % 4 <> 0 THEN repeat('The call can fail with a timeout; ' || n || '. ', 1 + n % 5) END,
       CASE (n / 20) % 6
         WHEN 0 THEN ARRAY['src/mod_' || (n % 500) || '/file_' || (n % 37) || '.py']
         WHEN 1 THEN ARRAY['./src/mod_' || (n % 500) || '/file_' || (n % 37) || '.py:' || (1 + n % 300)]
         WHEN 2 THEN ARRAY['src/mod_' || (n % 500) || '/']
         WHEN 3 THEN ARRAY['docs\\guide_' || (n % 80) || '.md', 'src/mod_' || (n % 500) || '/util.py']
         WHEN 4 THEN NULL
         ELSE ARRAY['pkg/' || (n % 50) || '//lib/core_' || (n % 11) || '.py', 'README.md', 'README.md']
       END,
       (ARRAY['reviewer', 'drift-check', NULL])[1 + n % 3],
       timestamptz '2026-02-01 00:00+00' + n * interval '7 seconds'
  FROM generate_series(1, :findings) AS n
"""

LIVE_MERGES = """
INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths, merged_at)
SELECT 'repo-' || (n % 20),
       upper(md5('live ' || n)),
       CASE WHEN n % 2 = 0 THEN ' node-' || (n % 97) || ' ' END,
       'Merge pull request #' || (100000 + n) || ': fix module ' || (n % 500),
       CASE (n / 20) % 5
         WHEN 0 THEN ARRAY['src/mod_' || (n % 500) || '/file_' || (n % 41) || '.py']
         WHEN 1 THEN ARRAY['src/mod_' || (n % 500) || '/util.py', 'tests/test_' || n || '.py']
         WHEN 2 THEN ARRAY['other/x_' || n || '.txt']
         WHEN 3 THEN ARRAY['./pkg/' || (n % 60) || '/lib/core_' || (n % 13) || '.py:12']
         ELSE ARRAY['src/mod_' || (n % 500) || '/deep/new_' || n || '.py']
       END,
       timestamptz '2026-03-01 00:00+00' + n * interval '1 minute'
  FROM generate_series(1, :live) AS n
"""

# The historical merges bypassed the triggers: their values must be what the
# triggers would have stored (normal form, processed).
LOAD_CHECK = """
SELECT 'historical merge not in normal form', count(*) FROM ledger.merge m
 WHERE (m.id <= :historical AND m.paths IS DISTINCT FROM ledger.normalize_paths(m.paths, 'merge.paths', 100000))
    OR m.commit_sha !~ '^[0-9a-f]{4,64}$' OR NOT m.processed
    OR m.node_id IS DISTINCT FROM btrim(m.node_id)
"""

# Each row counts the rows that break one rule the triggers guarantee; all must be 0.
INVARIANTS = """
SELECT 'superseded finding without its audit row', count(*) FROM ledger.finding f
 WHERE f.superseded_at IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM ledger.supersession a
        WHERE a.finding_id = f.id AND a.merge_id = f.superseded_by_merge_id AND a.action = 'superseded')
UNION ALL
SELECT 'superseded_by is not the merge''s marker', count(*) FROM ledger.finding f
  JOIN ledger.merge m ON m.id = f.superseded_by_merge_id
 WHERE f.superseded_by IS DISTINCT FROM coalesce(m.node_id, m.commit_sha) OR f.supersede_rule <> 'path'
UNION ALL
SELECT 'superseded state incomplete', count(*) FROM ledger.finding f
 WHERE (f.superseded_at IS NULL) <> (f.superseded_by_merge_id IS NULL)
UNION ALL
SELECT 'superseded audit row without its finding change', count(*) FROM ledger.supersession a
  JOIN ledger.finding f ON f.id = a.finding_id
 WHERE a.action = 'superseded' AND f.superseded_by_merge_id IS DISTINCT FROM a.merge_id
UNION ALL
SELECT 'finding superseded in a scope that is not on', count(*) FROM ledger.finding f
  JOIN ledger.scope s USING (scope) WHERE f.superseded_at IS NOT NULL AND s.hygiene_mode <> 'on'
UNION ALL
SELECT 'active finding a merge of its scope touched', count(DISTINCT fp.id)
  FROM (SELECT f.id, f.scope, p.path
          FROM ledger.finding f JOIN ledger.scope s ON s.scope = f.scope AND s.hygiene_mode = 'on',
               unnest(f.paths) AS p(path)
         WHERE f.superseded_at IS NULL
           AND (f.kind = ANY (s.path_supersede_kinds) OR '*' = ANY (s.path_supersede_kinds))
        OFFSET 0) AS fp
  JOIN (-- the path rule, spelled out here rather than borrowed from the code under test:
        -- a touched path matches a finding path that is the path itself or one of its
        -- ancestor directories ('a/b/c.py' -> 'a/', 'a/b/', 'a/b/c.py')
        SELECT DISTINCT m.scope,
               array_to_string(a.parts[1:n], '/') || CASE WHEN n < cardinality(a.parts) THEN '/' ELSE '' END AS key
          FROM ledger.merge m, unnest(m.paths) AS t(path),
               LATERAL (SELECT string_to_array(t.path, '/') AS parts) AS a,
               generate_series(1, cardinality(a.parts)) AS n
         WHERE m.id > :historical AND a.parts[n] <> '') AS touched ON touched.scope = fp.scope AND touched.key = fp.path
"""

# What the schema derives for the loaded rows; each row counts the rows that
# break one rule, all must be 0 at head.
DERIVED_AT_HEAD = """
SELECT 'lifecycle state is not active/superseded by superseded_at', count(*)
  FROM ledger.finding f JOIN ledger.finding_lifecycle l USING (id)
 WHERE l.state IS DISTINCT FROM CASE WHEN f.superseded_at IS NULL THEN 'active' ELSE 'superseded' END
UNION ALL
SELECT 'finding missing from finding_lifecycle', count(*)
  FROM ledger.finding f WHERE NOT EXISTS (SELECT 1 FROM ledger.finding_lifecycle l WHERE l.id = f.id)
UNION ALL
SELECT 'lifecycle columns not at their defaults (reported once, never reopened or dismissed)', count(*)
  FROM ledger.finding
 WHERE report_count IS DISTINCT FROM 1 OR reopen_count IS DISTINCT FROM 0 OR last_reported_at IS NOT NULL
    OR review_run IS NOT NULL OR dismissed_at IS NOT NULL OR dismissed_by IS NOT NULL OR resolution IS NOT NULL
    OR dismissal_reason IS NOT NULL
UNION ALL
SELECT 'old row breaks a check constraint', count(*)
  FROM ledger.finding
 WHERE NOT coalesce(resolution IN ('accepted', 'false_positive', 'wont_fix', 'duplicate'), true)
    OR NOT coalesce(dismissed_at IS NULL OR (resolution IS NOT NULL AND superseded_at IS NOT NULL), true)
UNION ALL
SELECT 'evidence columns not at their defaults (no slug, no keywords, no tags)', count(*)
  FROM ledger.finding
 WHERE slug IS NOT NULL OR strong_keywords IS DISTINCT FROM '{}' OR tags IS DISTINCT FROM '{}'
UNION ALL
SELECT 'scope policy not what it was loaded with', count(*)
  FROM ledger.scope
 WHERE enabled_rules IS DISTINCT FROM '{path,key,slug,keyword,title}'
    OR NOT (path_supersede_kinds = '{drift}' OR path_supersede_kinds = '{*}')
    OR slug_mention_resolves IS DISTINCT FROM false OR default_branch IS NOT NULL
UNION ALL
SELECT 'merge with a branch (unknown for the loaded merges)', count(*) FROM ledger.merge WHERE branch IS NOT NULL
UNION ALL
SELECT 'claims tables not empty but for the three poisoned failure reasons',
       (SELECT count(*) FROM ledger.issue) + (SELECT count(*) FROM ledger.agent_task)
       + (SELECT count(*) FROM ledger.retired_session) + (SELECT count(*) FROM ledger.injection)
       + abs((SELECT count(*) FROM ledger.poisoned_failure_reason) - 3)
"""

STATE = """
SELECT 'active set', count(*)::text || ':' || md5(string_agg(id::text, ',' ORDER BY id))
  FROM ledger.finding WHERE superseded_at IS NULL
UNION ALL
SELECT 'active view', count(*)::text || ':' || md5(string_agg(id::text, ',' ORDER BY id)) FROM ledger.active_finding
UNION ALL
SELECT 'audit actions', string_agg(action || '=' || n, ',' ORDER BY action)
  FROM (SELECT action, count(*) AS n FROM ledger.supersession GROUP BY action) a
UNION ALL
SELECT 'prompt order ' || s.scope, md5(string_agg(a.id::text, ',' ORDER BY a.ord))
  FROM ledger.scope s, LATERAL ledger.active_findings(s.scope) WITH ORDINALITY AS a(id, ord)
 GROUP BY s.scope
UNION ALL
SELECT 'sequence ' || sequencename, last_value::text FROM pg_sequences WHERE schemaname = 'ledger'
"""

TABLE_COLUMNS = """
SELECT c.relname, array_agg(a.attname::text ORDER BY a.attnum),
       (SELECT array_agg(k.attname::text ORDER BY k.attnum) FROM pg_index i
          JOIN pg_attribute k ON k.attrelid = i.indrelid AND k.attnum = ANY (i.indkey)
         WHERE i.indrelid = c.oid AND i.indisprimary)
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind = 'r' AND c.relname <> 'alembic_version'
 GROUP BY c.oid, c.relname ORDER BY c.relname
"""


def _checksums(conn: psycopg.Connection, tables: list[tuple[str, list[str], list[str]]]) -> dict[str, str]:
    """count:md5 over every listed column of every row, in primary key order."""
    out = {}
    for table, columns, pk in tables:
        query = sql.SQL("SELECT count(*)::text || ':' || md5(string_agg(ROW({cols})::text, E'\\n' ORDER BY {pk})) "
                        "FROM ledger.{table}").format(
            cols=sql.SQL(", ").join(map(sql.Identifier, columns)),
            pk=sql.SQL(", ").join(map(sql.Identifier, pk)),
            table=sql.Identifier(table),
        )
        out[table] = conn.execute(query).fetchone()[0]
    return out


def _state(conn: psycopg.Connection) -> dict[str, str]:
    return dict(conn.execute(STATE).fetchall())


def _violations(conn: psycopg.Connection) -> dict[str, int]:
    with conn.transaction():
        # The planner underestimates the touched keys and would nest-loop over 10^7 pairs.
        conn.execute("SET LOCAL enable_nestloop = off")
        return {rule: n for rule, n in conn.execute(sized(INVARIANTS)).fetchall() if n}


def sized(query: str) -> str:
    """``query`` with the load's sizes in place of :historical, :findings and :live."""
    return (query.replace(":historical", str(HISTORICAL)).replace(":findings", str(FINDINGS_N))
            .replace(":live", str(LIVE)))


def _derived_at_head(conn: psycopg.Connection) -> dict[str, int]:
    return {rule: n for rule, n in conn.execute(DERIVED_AT_HEAD).fetchall() if n}


def test_upgrade_from_the_first_revision_keeps_every_row_and_derived_value(
    ledger_empty_dsn: str,
) -> None:
    first = revisions()[0]
    upgrade(ledger_empty_dsn, first)
    with psycopg.connect(ledger_empty_dsn, autocommit=True) as conn:
        conn.execute(SCOPES)
        conn.execute("ALTER TABLE ledger.merge DISABLE TRIGGER USER")
        conn.execute(sized(HISTORICAL_MERGES))
        conn.execute("ALTER TABLE ledger.merge ENABLE TRIGGER USER")
        conn.execute(sized(FINDINGS))
        conn.execute(sized(LIVE_MERGES))
        conn.execute("ANALYZE")
        counts = dict(conn.execute(
            "SELECT 'finding', count(*) FROM ledger.finding UNION ALL SELECT 'merge', count(*) FROM ledger.merge "
            "UNION ALL SELECT 'superseded', count(*) FROM ledger.supersession WHERE action = 'superseded' "
            "UNION ALL SELECT 'would_supersede', count(*) FROM ledger.supersession WHERE action = 'would_supersede'"
        ).fetchall())
        assert counts["finding"] == FINDINGS_N and counts["merge"] == MERGES_N
        assert counts["superseded"] > 500 and counts["would_supersede"] > 10  # the data exercises the rules
        assert conn.execute(sized(LOAD_CHECK)).fetchone()[1] == 0
        assert _violations(conn) == {}
        tables = [(t, cols, pk) for t, cols, pk in conn.execute(TABLE_COLUMNS).fetchall()]
        rows_before, state_before = _checksums(conn, tables), _state(conn)

    upgrade(ledger_empty_dsn, "head")

    with psycopg.connect(ledger_empty_dsn, autocommit=True) as conn:
        assert version(ledger_empty_dsn) == [revisions()[-1]]
        assert _checksums(conn, tables) == rows_before
        state_after = _state(conn)
        assert {k: v for k, v in state_after.items() if k in state_before} == state_before
        # later revisions add only the sequences of their new tables, unused but for the per-scope
        # totals (the 0.2.0 fold backfills one row per scope that has active findings)
        added = {k: v for k, v in state_after.items() if k not in state_before}
        assert all(k.startswith("sequence ") for k in added), added
        assert all(v is None for k, v in added.items() if k != "sequence scope_active_total_id_seq"), added
        assert _violations(conn) == {}
        invalid = conn.execute(
            "SELECT indexrelid::regclass::text FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
            "WHERE c.relnamespace = 'ledger'::regnamespace AND NOT (i.indisvalid AND i.indisready)"
        ).fetchall()
        assert invalid == []

        assert _derived_at_head(conn) == {}
        states = dict(conn.execute("SELECT state, count(*) FROM ledger.finding_lifecycle GROUP BY state").fetchall())
        assert states == {"active": int(state_before["active set"].split(":")[0]),
                          "superseded": FINDINGS_N - int(state_before["active set"].split(":")[0])}
        invalid_checks = conn.execute(
            "SELECT conname FROM pg_constraint WHERE connamespace = 'ledger'::regnamespace AND NOT convalidated"
        ).fetchall()
        assert invalid_checks == []

        # The triggers at head act on the old rows. The path rule supersedes an old drift
        # finding a new merge touches ...
        target = conn.execute(
            "SELECT f.id, f.paths[1], f.scope FROM ledger.finding f JOIN ledger.scope s USING (scope) "
            "WHERE f.superseded_at IS NULL AND s.hygiene_mode = 'on' AND f.kind = 'drift' "
            "AND f.paths[1] LIKE 'src/%.py' ORDER BY f.id LIMIT 1"
        ).fetchone()
        assert target is not None
        # ... under touch retire for kind drift (an upgraded scope without touch_modes takes
        # the shipped mode of drift, flag, which keeps a touched unchecked finding active) ...
        conn.execute("SELECT ledger.set_match_policy(%s, p_touch => 'retire', p_touch_kind => 'drift')", (target[2],))
        merge_id = conn.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES (%s, 'feedface', %s) RETURNING id",
            (target[2], [target[1]]),
        ).fetchone()[0]
        assert merge_id == MERGES_N + 1
        row = conn.execute(
            "SELECT superseded_by_merge_id, superseded_by FROM ledger.finding WHERE id = %s", (target[0],)
        ).fetchone()
        assert row == (merge_id, "feedface")
        audit = conn.execute("SELECT finding_id, action FROM ledger.supersession WHERE merge_id = %s",
                             (merge_id,)).fetchall()
        assert (target[0], "superseded") in audit
        assert {action for _, action in audit} <= {"superseded", "candidate"}

        # ... and only audits a candidate for an old review finding (the default path_supersede_kinds).
        review = conn.execute(
            "SELECT f.id, f.paths[1], f.scope FROM ledger.finding f JOIN ledger.scope s USING (scope) "
            "WHERE f.superseded_at IS NULL AND s.hygiene_mode = 'on' AND f.kind = 'review' "
            "AND NOT ('*' = ANY (s.path_supersede_kinds)) "
            "AND f.paths[1] LIKE 'src/%.py' ORDER BY f.id LIMIT 1"
        ).fetchone()
        assert review is not None
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES (%s, 'feedbead', %s)",
                     (review[2], [review[1]]))
        assert conn.execute(
            "SELECT l.state, a.action FROM ledger.finding_lifecycle l "
            "JOIN ledger.supersession a ON a.finding_id = l.id JOIN ledger.merge m ON m.id = a.merge_id "
            "WHERE l.id = %s AND m.commit_sha = 'feedbead'", (review[0],)
        ).fetchall() == [("active", "candidate")]

        # The message rules find old findings through the evidence index.
        keyed = conn.execute(
            "SELECT id, scope, finding_key FROM ledger.finding f WHERE superseded_at IS NULL AND kind = 'review' "
            "AND finding_key IS NOT NULL AND scope IN (SELECT scope FROM ledger.scope WHERE hygiene_mode = 'on') "
            "AND NOT EXISTS (SELECT 1 FROM ledger.supersession a JOIN ledger.merge m ON m.id = a.merge_id "
            "                 WHERE a.finding_id = f.id AND m.commit_sha IN ('feedface', 'feedbead')) "
            "ORDER BY id DESC LIMIT 1"
        ).fetchone()
        assert keyed is not None
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message) VALUES (%s, 'cafe0001', %s)",
                     (keyed[1], f"Fixes {keyed[2]}"))
        assert conn.execute("SELECT state, supersede_rule FROM ledger.finding_lifecycle WHERE id = %s",
                            (keyed[0],)).fetchone() == ("superseded", "key")

        # Lifecycle and claims work on old rows and old scopes.
        assert conn.execute("SELECT state, reopen_count FROM ledger.restore_finding(%s, 'dba', 'upgrade check')",
                            (keyed[0],)).fetchone() == ("active", 1)
        assert conn.execute("SELECT outcome, report_count FROM ledger.report_finding(%s, %s, 'again')",
                            (keyed[1], keyed[2])).fetchone() == ("duplicate", 2)
        issue_id = conn.execute("SELECT id FROM ledger.add_issue(%s, 'Upgrade check', 'Body')",
                                (keyed[1],)).fetchone()[0]
        conn.execute("SELECT ledger.enqueue_task(%s, 'agent-1', 'rt-1')", (issue_id,))
        claimed = conn.execute("SELECT issue_id FROM ledger.claim_task('rt-1')").fetchone()
        assert claimed == (issue_id,)
        written = "SELECT issue_snapshot IS NOT NULL FROM ledger.agent_task WHERE issue_id = %s"
        assert conn.execute(written, (issue_id,)).fetchone() == (True,)


def test_the_load_checks_notice_a_lost_derived_value(ledger_database_factory: Callable[..., str]) -> None:
    """The invariants above are not vacuous: break one derived value by hand
    (triggers off, as a careless migration would) and they report it."""
    dsn = ledger_database_factory()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO ledger.finding (scope, kind, title, paths) VALUES ('s', 'drift', 't', '{src/a.py}')")
        conn.execute("ALTER TABLE ledger.merge DISABLE TRIGGER USER")
        conn.execute("INSERT INTO ledger.merge (id, scope, commit_sha, paths, processed) OVERRIDING SYSTEM VALUE "
                     "VALUES (%s, 's', 'abcd', '{src/a.py}', true)", (HISTORICAL + 1,))
        conn.execute("ALTER TABLE ledger.merge ENABLE TRIGGER USER")
        assert _violations(conn) == {"active finding a merge of its scope touched": 1}
        assert _derived_at_head(conn) == {}
        conn.execute("ALTER TABLE ledger.finding DISABLE TRIGGER USER")
        conn.execute("UPDATE ledger.finding SET reopen_count = 2, strong_keywords = '{E42}' WHERE scope = 's'")
        conn.execute("ALTER TABLE ledger.finding ENABLE TRIGGER USER")
        conn.execute("UPDATE ledger.scope SET enabled_rules = '{path}' WHERE scope = 's'")
        assert _derived_at_head(conn) == {
            "lifecycle columns not at their defaults (reported once, never reopened or dismissed)": 1,
            "evidence columns not at their defaults (no slug, no keywords, no tags)": 1,
            "scope policy not what it was loaded with": 1,
        }
