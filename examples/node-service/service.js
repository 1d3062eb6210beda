// A Node.js service writing to the findings ledger with plain SQL, the way a
// service in any language does: the database validates, normalises and
// decides (which findings a merge retires); the service only writes rows and
// reads what the ledger decided. Every function takes the caller's pg client
// (a pg.Client or a client checked out of a pg.Pool) and does not commit:
// outside a transaction each statement is its own.
//
//   fileFinding    plain INSERT INTO ledger.finding ... RETURNING
//   recordMerges   one multi-row INSERT INTO ledger.merge (the triggers
//                  decide each merge in order)
//   copyMerges     COPY ledger.merge FROM STDIN (pg-copy-streams): the same
//                  triggers, the same decisions
//   answerFileStates  the file-state requests of checked findings
//                  (ledger.pending_file_state): each merge's requested paths
//                  read at its commit and answered with
//                  ledger.record_file_states(merge_id, states)
//   decisions      the audit rows of a merge (what it retired, and why)
//   promptSet      ledger.read_prompt_findings: the active findings for a
//                  prompt, most severe first, cut to a character budget
//   activeFindings ledger.active_finding, the one definition of "active"
//
// A ledger error arrives as a pg DatabaseError whose .code is the project
// SQLSTATE (LD001 ...) and whose .message names the field and the value.

import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';

const { from: copyFrom } = copyStreams;

/**
 * A client for the ledger database: LEDGER_DSN when it is a URI
 * (postgresql://...), else libpq's environment (PGHOST, PGPORT, PGUSER,
 * PGDATABASE, PGPASSWORD), which pg reads itself.
 */
export function connect(dsn = process.env.LEDGER_DSN) {
  const uri = dsn && /^postgres(ql)?:\/\//.test(dsn) ? dsn : undefined;
  const client = new pg.Client(uri ? { connectionString: uri } : {});
  return client.connect().then(() => client);
}

/**
 * File one finding with a plain INSERT; returns the stored row (id, paths as
 * the ledger normalised them, anchors from "path:line" suffixes). A checked
 * finding carries resolved_when ({"path_absent": "x.py"}, {"all": [...]}):
 * a merge touching its paths then opens file-state requests.
 * A known (scope, finding_key) is refused with LD301.
 */
export async function fileFinding(client, scope, {
  key, title, paths = [], severity = 'medium', kind = 'review', resolved_when: resolvedWhen = null,
}) {
  const { rows } = await client.query(
    `INSERT INTO ledger.finding (scope, finding_key, title, paths, severity, kind, resolved_when)
     VALUES ($1, $2, $3, $4::text[], $5, $6, $7::jsonb)
     RETURNING id, finding_key, paths, anchors, kind, severity`,
    [scope, key, title, paths, severity, kind, resolvedWhen === null ? null : JSON.stringify(resolvedWhen)],
  );
  return rows[0];
}

/**
 * The id of the merge each sha names, one per sha, in order: the ledger's own
 * rules, as the merge trigger applies them (both granted to ledger_writer):
 * ledger._check_commit_sha normalises a sha (trimmed, lower case) and
 * ledger._recorded_merge finds the recorded commit by its full sha or an
 * abbreviation. RETURNING cannot serve: it leaves out a redelivery, and a
 * row's commit_sha is the normalised one.
 */
async function mergeIds(client, scope, merges) {
  const { rows } = await client.query(
    `SELECT ledger._recorded_merge($1, ledger._check_commit_sha(s.sha, 'commit_sha')) AS id
       FROM unnest($2::text[]) WITH ORDINALITY AS s(sha, ord) ORDER BY s.ord`,
    [scope, merges.map((m) => m.sha)],
  );
  return rows.map((r) => Number(r.id));
}

/**
 * Record merges in one multi-row INSERT (in order; the ledger decides each
 * as it lands). A merge: {sha, paths, message, added, deleted}. Returns one
 * merge id per merge given, in the same order: a redelivered (scope, sha)
 * (skipped by ON CONFLICT DO NOTHING; the ledger refuses one with other
 * content with LD007) gives the id of the merge recorded before, and a sha in
 * upper case or abbreviated the id of the merge it names.
 */
export async function recordMerges(client, scope, merges) {
  if (merges.length === 0) return [];
  const values = [];
  const rows = merges.map((m, i) => {
    const o = i * 6;
    values.push(scope, m.sha, m.paths ?? [], m.message ?? '', m.added ?? null, m.deleted ?? null);
    return `($${o + 1}, $${o + 2}, $${o + 3}::text[], $${o + 4}, $${o + 5}::text[], $${o + 6}::text[])`;
  });
  await client.query(
    `INSERT INTO ledger.merge (scope, commit_sha, paths, message, added, deleted)
     VALUES ${rows.join(', ')}
     ON CONFLICT (scope, commit_sha) DO NOTHING`,
    values,
  );
  return mergeIds(client, scope, merges);
}

/** A text[] literal for COPY's text format: {"a","b"}, each element quoted. */
function arrayLiteral(items) {
  if (items === null || items === undefined) return null;
  return `{${items.map((s) => `"${String(s).replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;
}

/** One COPY text-format field: NULL as \N, backslash, tab and newlines escaped. */
function copyField(value) {
  if (value === null || value === undefined) return '\\N';
  return String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/**
 * Record merges with COPY ledger.merge FROM STDIN (pg-copy-streams): the same
 * row triggers as an INSERT, so the same decisions. Returns one merge id per
 * merge given, in the same order (read back with the ledger's lookup of a
 * sha, so a sha in upper case names its merge too).
 */
export async function copyMerges(client, scope, merges) {
  const lines = merges.map((m) => [
    scope, m.sha, arrayLiteral(m.paths ?? []), m.message ?? '', arrayLiteral(m.added ?? null),
    arrayLiteral(m.deleted ?? null),
  ].map(copyField).join('\t') + '\n');
  const stream = client.query(copyFrom(
    'COPY ledger.merge (scope, commit_sha, paths, message, added, deleted) FROM STDIN',
  ));
  await pipeline(Readable.from(lines), stream);
  return mergeIds(client, scope, merges);
}

/**
 * Answer the pending file-state requests of a scope (checked findings:
 * finding.resolved_when). readFile(commitSha, path) returns the path's text
 * at that commit, or null when it is absent (for a directory "pkg/": any
 * string when a file is under it). Each merge's requests are answered in one
 * call of ledger.record_file_states, in merge order; returns the outcomes
 * {merge_id, finding_id, outcome, part} (outcome held, failed, moot, waiting
 * or pending). Answering again changes nothing.
 */
export async function answerFileStates(client, scope, readFile) {
  const { rows } = await client.query(
    `SELECT merge_id, commit_sha, array_agg(DISTINCT p ORDER BY p) AS paths
       FROM ledger.pending_file_state, unnest(paths) AS p
      WHERE scope = $1
      GROUP BY merge_id, commit_sha
      ORDER BY merge_id`,
    [scope],
  );
  const outcomes = [];
  for (const { merge_id: mergeId, commit_sha: sha, paths } of rows) {
    const states = {};
    for (const path of paths) states[path] = await readFile(sha, path);
    const { rows: answered } = await client.query(
      'SELECT * FROM ledger.record_file_states($1, $2::jsonb)', [mergeId, JSON.stringify(states)],
    );
    for (const a of answered) outcomes.push({ merge_id: Number(mergeId), finding_id: Number(a.finding_id), outcome: a.outcome, part: a.part });
  }
  return outcomes;
}

/**
 * What a merge decided: its audit rows in write order, each
 * {finding_key, action, rule, evidence}.
 */
export async function decisions(client, mergeId) {
  const { rows } = await client.query(
    `SELECT f.finding_key, a.action, a.rule, a.evidence
       FROM ledger.supersession a
       LEFT JOIN ledger.finding f ON f.id = a.finding_id
      WHERE a.merge_id = $1
      ORDER BY a.id`,
    [mergeId],
  );
  return rows;
}

/**
 * The prompt set of a scope (ledger.read_prompt_findings): the findings
 * (most severe, then newest), and how many were left out by maxChars.
 */
export async function promptSet(client, scope, { maxChars = null, kinds = null } = {}) {
  const { rows } = await client.query(
    `SELECT findings, included_count, omitted_count
       FROM ledger.read_prompt_findings(p_scope => $1, p_kinds => $2::text[], p_max_chars => $3)`,
    [scope, kinds, maxChars],
  );
  const row = rows[0];
  return { findings: row.findings, included: row.included_count, omitted: row.omitted_count };
}

/** The keys of a scope's active findings (ledger.active_finding), sorted. */
export async function activeFindings(client, scope) {
  const { rows } = await client.query(
    'SELECT finding_key FROM ledger.active_finding WHERE scope = $1 ORDER BY finding_key',
    [scope],
  );
  return rows.map((r) => r.finding_key);
}
