#!/usr/bin/env node
// Several workers on one run (run/share.ts, store/claims.ts), on the SQLite store or a PostgreSQL store. Run by hand
// after `npm run build`:
//
//   node bench/workers.mjs [--store sqlite|postgres] [--samples N] [--latency MS] [--concurrency C] [--workers W] [--json] [--keep]
//
// --store postgres: a throwaway PostgreSQL server (bench/postgres.mjs; $PG_URL's server instead when set), one fresh
// database per scenario. --json: also one last line {store, samples, workers, one: {seconds, calls}, many: {...}}.
//
// Against bench/exec-server.mjs (its own process; every reply `zzz`, so each sample climbs all five levels: 11 calls),
// it runs the same `hpt-bench run` (synthetic BoolQ, --no-cache) once with one worker and once with W workers started
// together on one store, and prints for each: wall time (spawn to the last exit), the calls the server counted (a
// shared run must make exactly the single run's calls: no sample twice), calls/s, and the claim traffic read from the
// store: blocks, won claims per 1,000 samples, and each worker's samples and claims. Defaults: 1,000 samples, 50 ms,
// concurrency 16 per worker, 3 workers. Nothing is asserted.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunStore } from '../packages/core/dist/index.js';
import { throwawayPostgres } from './postgres.mjs';

const argv = process.argv.slice(2);
const opt = (f, d) => (argv.indexOf(f) >= 0 ? argv[argv.indexOf(f) + 1] : d);
const SAMPLES = Number(opt('--samples', '1000'));
const LATENCY = Number(opt('--latency', '50'));
const CONCURRENCY = Number(opt('--concurrency', '16'));
const WORKERS = Number(opt('--workers', '3'));
const BACKEND = opt('--store', 'sqlite');
if (BACKEND !== 'sqlite' && BACKEND !== 'postgres') throw new Error(`--store sqlite|postgres, got ${BACKEND}`);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin/run.js');
const tmp = mkdtempSync(join(tmpdir(), 'hpt-workers-bench-'));
const log = (s = '') => process.stdout.write(`${s}\n`);

const data = join(tmp, 'boolq.jsonl');
writeFileSync(data, Array.from({ length: SAMPLES }, (_, i) => JSON.stringify({ question: `is item ${i} in the list`, passage: `Item ${i} is listed in the ${i % 7}th group of the catalogue.`, answer: i % 3 === 0 })).join('\n') + '\n');

const server = spawn(process.execPath, [join(ROOT, 'bench/exec-server.mjs'), '--port', '0', '--latency', String(LATENCY)], { stdio: ['ignore', 'pipe', 'inherit'] });
const info = await new Promise((resolve, reject) => {
  let acc = '';
  server.stdout.on('data', (c) => {
    acc += c;
    if (acc.includes('\n')) resolve(JSON.parse(acc.slice(0, acc.indexOf('\n'))));
  });
  server.on('exit', (code) => reject(new Error(`exec-server exited with ${code}`)));
});
const base = info.url.replace(/\/v1$/, '');
const ctl = async (path, body) => (await fetch(`${base}${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) })).json();

const runOne = (store) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'run', '--dataset', 'boolq', '--data', data, '--model', 'openai:bench-model', '--base-url', info.url, '--no-cache', '--concurrency', String(CONCURRENCY), '--store', store, '--json'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OPENAI_API_KEY: 'bench' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => {
      if (code !== 0) log(`  ! exit ${code}: ${stderr.trim().split('\n').slice(-2).join(' | ')}`);
      resolve(code);
    });
  });

/** A fresh store for a scenario: a SQLite file, or a new database on the PostgreSQL server. */
let pg;
async function freshStore(name) {
  if (BACKEND === 'sqlite') return join(tmp, `${name}.db`);
  if (process.env.PG_URL) return process.env.PG_URL.replace(/\/[^/]*$/, `/${name}_${Date.now()}`);
  pg ??= await throwawayPostgres(false);
  if (!pg) throw new Error('no PostgreSQL server: install Debian\'s postgresql (initdb) or set PG_URL');
  return pg.database(`${name}_${Date.now()}`);
}

async function scenario(workers) {
  const store = await freshStore(`w${workers}`);
  await ctl('/reset', {});
  const t0 = performance.now();
  await Promise.all(Array.from({ length: workers }, () => runOne(store)));
  const seconds = (performance.now() - t0) / 1000;
  const { requests } = await ctl('/stats');
  const reader = new RunStore(store, { readonly: true });
  const db = reader.db;
  const blocks = db.prepare('SELECT COUNT(*) AS c, COALESCE(SUM(CASE WHEN taken_from IS NULL THEN 0 ELSE 1 END), 0) AS t FROM run_claims').get();
  const rows = db.prepare('SELECT worker, state, samples, claims FROM run_workers ORDER BY started_at').all();
  const stored = db.prepare('SELECT COUNT(*) AS c, COUNT(DISTINCT idx) AS d FROM samples').get();
  reader.close();
  const claims = rows.reduce((n, r) => n + r.claims, 0);
  log(`${workers} worker(s) x --concurrency ${CONCURRENCY}: ${seconds.toFixed(1)} s, ${requests} calls (${(requests / seconds).toFixed(0)} calls/s), ${stored.c} samples stored (${stored.d} distinct)`);
  log(`  claims: ${blocks.c} blocks, ${claims} won (${((1000 * claims) / SAMPLES).toFixed(1)} per 1,000 samples), ${blocks.t} taken over; workers: ${rows.map((r) => `${r.state} ${r.samples} samples / ${r.claims} blocks`).join('; ')}`);
  return { seconds, calls: requests, stored: stored.c, distinct: stored.d };
}

log(`workers bench: ${SAMPLES} synthetic BoolQ samples, 11 calls each, server latency ${LATENCY} ms, ${BACKEND === 'sqlite' ? 'SQLite' : 'PostgreSQL'} store`);
let one;
let many;
try {
  one = await scenario(1);
  many = await scenario(WORKERS);
} finally {
  pg?.stop();
}
log(`speed-up ${(one.seconds / many.seconds).toFixed(2)}x with ${WORKERS} workers (ideal ${WORKERS}x at a latency-bound load); calls ${many.calls === one.calls ? 'equal' : `DIFFER (${many.calls} vs ${one.calls})`}`);
if (argv.includes('--json')) log(JSON.stringify({ store: BACKEND, samples: SAMPLES, workers: WORKERS, one, many }));
server.kill('SIGTERM');
if (!argv.includes('--keep')) rmSync(tmp, { recursive: true, force: true });
