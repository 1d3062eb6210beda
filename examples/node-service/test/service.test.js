// node --test against a migrated, empty ledger database: LEDGER_DSN (a URI)
// or libpq's PG* variables (tests/tooling/test_node_service.py sets both from a
// database of the findings-ledger pytest fixtures). The scenario is
// scenario.json, which the Python side replays through the Python API on a
// second database to compare the decisions; with LEDGER_DECISIONS_OUT set,
// what this service read is written there as JSON.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import {
  connect, fileFinding, recordMerges, copyMerges, decisions, promptSet, activeFindings, answerFileStates,
} from '../service.js';

const scenario = JSON.parse(readFileSync(new URL('../scenario.json', import.meta.url), 'utf8'));
const { scope } = scenario;
let client;
const seen = { merges: {}, prompt: null, active: null, file_states: null };

before(async () => {
  client = await connect();
  await client.query(
    `INSERT INTO ledger.scope (scope, path_supersede_kinds, touch_modes) VALUES ($1, $2::text[], $3::jsonb)
     ON CONFLICT (scope) DO UPDATE SET path_supersede_kinds = EXCLUDED.path_supersede_kinds,
                                       touch_modes = EXCLUDED.touch_modes`,
    [scope, scenario.path_supersede_kinds, JSON.stringify(scenario.touch_modes)],
  );
});

after(async () => {
  if (process.env.LEDGER_DECISIONS_OUT) {
    writeFileSync(process.env.LEDGER_DECISIONS_OUT, JSON.stringify(seen, null, 2));
  }
  await client.end();
});

test('findings are filed with a plain INSERT, normalised by the ledger', async () => {
  for (const f of scenario.findings) {
    const row = await fileFinding(client, scope, f);
    assert.equal(row.finding_key, f.key);
  }
  const { rows } = await client.query(
    'SELECT paths, anchors FROM ledger.finding WHERE scope = $1 AND finding_key = $2', [scope, 'B'],
  );
  assert.deepEqual(rows[0], { paths: ['src/b.py'], anchors: { 'src/b.py': [10, 12] } });
});

test('a known finding key is refused with the ledger SQLSTATE LD301', async () => {
  await assert.rejects(fileFinding(client, scope, scenario.findings[0]), (err) => {
    assert.equal(err.code, 'LD301');
    return true;
  });
});

test('merges recorded with one multi-row INSERT are decided in order', async () => {
  const ids = await recordMerges(client, scope, scenario.insert_merges);
  assert.equal(ids.length, scenario.insert_merges.length);
  for (const [i, id] of ids.entries()) seen.merges[scenario.insert_merges[i].sha] = await decisions(client, id);
  const first = seen.merges[scenario.insert_merges[0].sha];
  assert.deepEqual(first.filter((d) => d.action === 'superseded').map((d) => [d.finding_key, d.rule]),
    [['A', 'path']]);
  // a redelivery is no second merge: it returns the recorded one's id
  assert.deepEqual(await recordMerges(client, scope, scenario.insert_merges.slice(0, 1)), ids.slice(0, 1));
});

test('one merge id per input, in order, redeliveries and any case of a sha included', async () => {
  const s = 'node-ids';
  const shaOf = async (id) => (await client.query('SELECT commit_sha FROM ledger.merge WHERE id = $1', [id]))
    .rows[0].commit_sha;
  const [recorded] = await recordMerges(client, s, [{ sha: 'e5e5e5e5e5e5', paths: ['x.py'] }]);
  const ids = await recordMerges(client, s, [
    { sha: 'f1f1f1f1f1f1', paths: ['y.py'] },
    { sha: 'e5e5e5e5e5e5', paths: ['x.py'] }, // already recorded
    { sha: 'F2F2F2F2F2F2', paths: ['z.py'] },
  ]);
  assert.equal(ids.length, 3);
  assert.equal(ids[1], recorded);
  assert.deepEqual(await Promise.all(ids.map(shaOf)), ['f1f1f1f1f1f1', 'e5e5e5e5e5e5', 'f2f2f2f2f2f2']);
  const copied = await copyMerges(client, s, [
    { sha: 'ABABABABABAB', paths: ['u.py'] },
    { sha: 'cdcdcdcdcdcd', paths: ['v.py'] },
  ]);
  assert.equal(copied.length, 2);
  assert.deepEqual(await Promise.all(copied.map(shaOf)), ['abababababab', 'cdcdcdcdcdcd']);
});

test('merges recorded with COPY get the same triggers and decisions', async () => {
  const ids = await copyMerges(client, scope, scenario.copy_merges);
  assert.equal(ids.length, scenario.copy_merges.length);
  for (const [i, id] of ids.entries()) seen.merges[scenario.copy_merges[i].sha] = await decisions(client, id);
  const deleted = seen.merges[scenario.copy_merges[1].sha];
  assert.ok(deleted.some((d) => d.finding_key === 'D' && d.action === 'superseded'), JSON.stringify(deleted));
});

test('the prompt set and the active findings are what the ledger left', async () => {
  seen.active = await activeFindings(client, scope);
  assert.deepEqual(seen.active, scenario.expect_active);
  const prompt = await promptSet(client, scope);
  seen.prompt = prompt.findings.map((f) => f.finding_key);
  assert.deepEqual([...seen.prompt].sort(), scenario.expect_active);
  assert.equal(prompt.omitted, 0);
  const cut = await promptSet(client, scope, { maxChars: 1 });
  assert.equal(cut.included + cut.omitted, scenario.expect_active.length);
});

test('file-state requests of checked findings are answered from the trees', async () => {
  const checked = scenario.checked;
  for (const f of checked.findings) await fileFinding(client, checked.scope, f);
  const ids = await recordMerges(client, checked.scope, checked.merges);
  const pending = await client.query(
    'SELECT merge_id, paths FROM ledger.pending_file_state WHERE scope = $1 ORDER BY merge_id, finding_id',
    [checked.scope],
  );
  assert.equal(pending.rows.length, 4); // two findings, two merges touching both
  const readFile = async (sha, path) => checked.trees[sha][path] ?? null;
  const outcomes = await answerFileStates(client, checked.scope, readFile);
  assert.deepEqual(outcomes.map((o) => o.outcome).sort(), ['failed', 'failed', 'held', 'held']);
  // answering again changes nothing: nothing is pending any more
  assert.deepEqual(await answerFileStates(client, checked.scope, readFile), []);
  const { rows } = await client.query(
    `SELECT f.finding_key, f.supersede_rule, m.commit_sha
       FROM ledger.finding f LEFT JOIN ledger.merge m ON m.id = f.superseded_by_merge_id
      WHERE f.scope = $1 ORDER BY f.finding_key`, [checked.scope],
  );
  assert.deepEqual(rows, [
    { finding_key: 'G', supersede_rule: 'check', commit_sha: 'f6f6f6f6f6f6' },
    { finding_key: 'S', supersede_rule: 'check', commit_sha: 'f6f6f6f6f6f6' },
  ]);
  seen.file_states = rows;
  for (const [i, id] of ids.entries()) seen.merges[checked.merges[i].sha] = await decisions(client, id);
});
