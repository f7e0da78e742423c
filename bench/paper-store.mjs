// Store size of a 100-paper HiBench Paper run (issue 15: "check the store size of a 100-paper run and report it").
// Builds 100 toolkit-format records from the released records in ../shared/data/hibench-paper/ (the nine records cycled,
// every long line of copy k tagged with k, so copies share no paragraph; within a copy, records share papers as the
// release does: its three contextual-QA records ask about one paper, and disordered-section contexts equal the outline ones),
// runs `hpt-bench run --dataset hibench/paper` with the oracle (level 1 only) and the random baseline (climbs the ladder)
// into one store each, and prints calls, store bytes, and the prompt bytes the calls carry against what is stored
// (calls.messages + the shared texts). Run after `npm run build`: node bench/paper-store.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { decodeMessages } from '@hpt-bench/core';

const SHARED = fileURLToPath(new URL('../../shared/data/hibench-paper/', import.meta.url));
if (!existsSync(SHARED)) {
  console.log(`${SHARED} not found (../shared beside the repository)`);
  process.exit(0);
}
const base = ['contextual_qa', 'disordered_section', 'outline_extraction'].flatMap((t) => JSON.parse(readFileSync(join(SHARED, `paper-${t}-dev-first3.json`), 'utf8')));
const records = Array.from({ length: 100 }, (_, k) => {
  const r = base[k % base.length];
  const copy = Math.floor(k / base.length);
  const question = r.question
    .split('\n')
    .map((l) => (l.length >= 200 ? `${l} [${copy}]` : l))
    .join('\n');
  return { ...r, id: `${r.id}#${k}`, question };
});
const dir = mkdtempSync(join(tmpdir(), 'hpt-paper-store-'));
const data = join(dir, 'papers.json');
writeFileSync(data, JSON.stringify(records));
const chars = records.reduce((a, r) => a + r.question.length, 0);
console.log(`${records.length} records, ${(chars / records.length / 1000).toFixed(1)}k characters per question on average`);
const cli = fileURLToPath(new URL('../bin/run.js', import.meta.url));
for (const model of ['baseline:oracle', 'baseline:random']) {
  const store = join(dir, `${model.replace(':', '-')}.db`);
  const t = performance.now();
  const run = spawnSync(process.execPath, [cli, 'run', '--dataset', 'hibench/paper', '--data', data, '--model', model, '--threshold', '0.5', '--store', store, '--json'], { encoding: 'utf8' });
  if (run.status !== 0) {
    console.log(`${model}: exit ${run.status}\n${run.stderr}`);
    process.exit(1);
  }
  const ms = performance.now() - t;
  const db = new Database(store, { readonly: true });
  const calls = db.prepare('SELECT COUNT(*) AS n, SUM(LENGTH(CAST(messages AS BLOB))) AS b FROM calls').get();
  const texts = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(CAST(body AS BLOB))), 0) AS b FROM texts').get();
  const body = db.prepare('SELECT body FROM texts WHERE hash = ?');
  let carried = 0;
  for (const { messages } of db.prepare('SELECT messages FROM calls').iterate()) carried += Buffer.byteLength(JSON.stringify(decodeMessages(messages, (h) => body.get(h)?.body)));
  db.close();
  const size = statSync(store).size + (existsSync(`${store}-wal`) ? statSync(`${store}-wal`).size : 0);
  const mb = (b) => `${(b / 1e6).toFixed(2)} MB`;
  console.log(
    `${model.padEnd(16)} ${String(calls.n).padStart(4)} calls  store ${mb(size)}  prompts carried ${mb(carried)}, stored ${mb(calls.b + texts.b)} ` +
      `(calls.messages ${mb(calls.b)} + ${texts.n} shared chunks ${mb(texts.b)})  ${(ms / 1000).toFixed(1)} s`,
  );
}
