// Per-sample write cost of the run store on SQLite vs PostgreSQL, through RunStore's group commit (default 128 writes
// or 100 ms): N samples of 5 attempts × 2 calls (~11 rows each, like a random-baseline run climbing the whole ladder)
// are saved and flushed; prints samples/s and µs per sample for each backend, 3 rounds, median.
// PostgreSQL: $PG_URL if set, else a throwaway server (initdb + pg_ctl from /usr/lib/postgresql/*/bin, fsync off as in
// the tests, and also with fsync on: a real server's durability). Build first (`npm run build`), then
// `node bench/store-backends.mjs [N]` from the repository root (as root it runs the server as user postgres).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RunStore } from '../packages/core/dist/index.js';
import { throwawayPostgres } from './postgres.mjs';

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = 3;

function sample(index) {
  const attempts = Array.from({ length: 5 }, (_, i) => ({
    level: i + 1, strategy: `s${i + 1}`, solved: i === 4, score: i === 4 ? 1 : 0, extracted: 'B', graded: { completion: 'B', cue: 'Answer:' },
    calls: [0, 1].map((seq) => ({ seq, purpose: seq ? 'graded' : 'knowledge', model: 'baseline:random', messages: [{ role: 'user', content: `Question ${index} level ${i}: is the sky blue?` }], output: 'yes', usage: { promptTokens: 80, completionTokens: 3 }, latencyMs: 0.1, finishReason: 'stop' })),
  }));
  return { sampleId: `s${index}`, index, level: 5, hpi: 5, solved: true, prediction: 'yes', target: 'yes', attempts };
}

function round(location, id) {
  const store = new RunStore(location);
  store.createRun({ id, dataset: 'bench', model: 'm', mode: 'manual', config: {} });
  const t0 = performance.now();
  for (let i = 0; i < N; i++) store.saveSample(id, sample(i));
  store.flush();
  const ms = performance.now() - t0;
  store.close();
  return ms;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function report(name, location) {
  const ms = [];
  for (let r = 0; r < ROUNDS; r++) ms.push(round(location, `${name}-${r}-${Date.now()}`));
  const m = median(ms);
  console.log(`${name.padEnd(22)} ${(N / (m / 1000)).toFixed(0).padStart(7)} samples/s  ${((m * 1000) / N).toFixed(0).padStart(6)} µs/sample  (rounds ${ms.map((x) => x.toFixed(0)).join(', ')} ms for ${N})`);
}


console.log(`store write cost: ${N} samples × 11 rows, group commit 128 writes / 100 ms, median of ${ROUNDS} rounds`);
const dir = mkdtempSync(join(tmpdir(), 'hpt-storebench-'));
report('sqlite (WAL, NORMAL)', join(dir, 'bench.db'));
rmSync(dir, { recursive: true, force: true });
if (process.env.PG_URL) {
  report('postgres ($PG_URL)', process.env.PG_URL);
} else {
  for (const fsync of [false, true]) {
    const server = await throwawayPostgres(fsync);
    if (!server) {
      console.log('postgres: skipped (no initdb under /usr/lib/postgresql/*/bin; or set PG_URL)');
      break;
    }
    try {
      report(`postgres (fsync ${fsync ? 'on' : 'off'})`, server.url);
    } finally {
      server.stop();
    }
  }
}
