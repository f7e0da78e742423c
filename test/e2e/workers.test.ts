/**
 * End-to-end: several `hpt-bench run` processes on one run (run/share.ts, store/claims.ts). The built CLI runs as
 * real processes against one real SQLite store and a local OpenAI-compatible server (the real openai SDK) that answers
 * deterministically — right or wrong by a hash of the request, so samples climb to different levels — after a small
 * latency, over 1,000 generated BoolQ-style records (a local file: no network).
 *
 * Three workers and a fourth that is SIGKILLed partway finish the run: every sample is recorded exactly once, the run
 * is completed with the HPI and level counts of a single-worker run of the same configuration, and the server saw
 * every request exactly as often as for the single worker — except that requests of the killed worker's open blocks
 * (samples it had in flight or evaluated but not yet committed when it died) may be made once more by the worker that
 * took the block over. That bound is asserted: a duplicated request belongs to a sample of a block taken over from the
 * killed worker, and is made at most twice.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore, type SqlDatabase } from '@hpt-bench/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_MISSING, startPostgres, warnIfPostgresMissing, type TestPostgres } from '../helpers/postgres.js';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { runCli, startCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-workers-'));
const N = 1000;
const dataFile = join(dir, 'boolq.jsonl');
writeFileSync(dataFile, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `b${i}`, question: `is q${i} even?`, passage: `Passage ${i}.`, answer: i % 2 === 0 })).join('\n') + '\n');

/** A request's identity: its messages. */
const keyOf = (req: ReceivedRequest): string => JSON.stringify(req.messages);
/** The sample index a request is about (its question, or its passage for the generated-knowledge call). */
const indexOf = (messages: ReceivedRequest['messages']): number => {
  const m = /is q(\d+) even\?|Passage (\d+)\./.exec(messages.map((x) => x.content).join('\n'));
  return Number(m?.[1] ?? m?.[2] ?? -1);
};

let delayMs = 40;
let server: TestServer;
beforeAll(async () => {
  server = await startOpenAIServer((req): Reply => {
    const i = indexOf(req.messages);
    // right for two requests in three, by the request's content: the same request always gets the same answer
    const right = createHash('sha256').update(keyOf(req)).digest()[0]! % 3 !== 0;
    return { text: (i % 2 === 0) === right ? 'True' : 'False', delayMs };
  });
});
afterAll(async () => {
  await server?.close();
});

const args = (store: string, ...more: string[]) => ['run', '--dataset', 'boolq', '--data', dataFile, '--model', 'openai:test', '--base-url', server.url, '--store', store, '--json', ...more];


/** Open read-only connections to the stores under test, one per store, kept until the end of the file. */
const readers = new Map<string, RunStore>();

/**
 * Read a store (a SQLite file or a PostgreSQL URL) through the store's own handle, read-only, from this process:
 * undefined while it does not exist or is being created.
 */
function read<T>(store: string, f: (db: SqlDatabase) => T): T | undefined {
  try {
    let reader = readers.get(store);
    if (!reader) {
      reader = new RunStore(store, { readonly: true });
      // a SQLite file is read by a fresh connection each time; PostgreSQL's connection is kept
      if (reader.db.dialect === 'postgres') readers.set(store, reader);
    }
    try {
      return f(reader.db);
    } finally {
      if (reader.db.dialect === 'sqlite') reader.close();
    }
  } catch {
    return undefined;
  }
}

const waitFor = async (cond: () => boolean, timeoutMs = 60_000): Promise<void> => {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** Requests by identity among `requests`. */
const countByKey = (requests: ReceivedRequest[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const r of requests) m.set(keyOf(r), (m.get(keyOf(r)) ?? 0) + 1);
  return m;
};

warnIfPostgresMissing('workers');

/** The stores the main scenario runs on: the embedded SQLite file, and a throwaway PostgreSQL server when present. */
const backends: { name: string; skip: boolean; store: (name: string) => Promise<string> }[] = [
  { name: 'SQLite', skip: false, store: async (name) => join(dir, `${name}.db`) },
  { name: 'PostgreSQL', skip: POSTGRES_MISSING !== undefined, store: async () => (await pgServer()).createDatabase() },
];
let postgres: Promise<TestPostgres> | undefined;
const pgServer = (): Promise<TestPostgres> => (postgres ??= startPostgres());
afterAll(async () => {
  // the readers' connections first, then the server they talk to
  for (const r of readers.values()) r.close();
  readers.clear();
  if (postgres) (await postgres).stop();
});

describe.each(backends)('several workers on one run, $name store', ({ name, skip, store: storeFor }) => {
  it.skipIf(skip)('three workers and a SIGKILLed fourth finish a 1,000-sample run: each sample once, the single worker\'s result, duplicate calls only in the killed worker\'s blocks', async () => {
    // the reference: one worker
    const refStore = await storeFor('single');
    const before = server.requests.length;
    const tSingle = Date.now();
    const single = await runCli(args(refStore, '--concurrency', '8'));
    const singleMs = Date.now() - tSingle;
    expect(single.code, single.stderr).toBe(0);
    const ref = JSON.parse(single.stdout) as { n: number; hpi: number; levelCounts: Record<string, number>; complete: boolean; calls: number };
    expect(ref).toMatchObject({ n: N, complete: true });
    const refRequests = server.requests.slice(before);
    const refCounts = countByKey(refRequests);
    expect(Object.keys(ref.levelCounts).filter((k) => k !== 'unsolved' && ref.levelCounts[k]! > 0).length).toBeGreaterThan(1);

    // four workers on one store; the fourth is killed once every worker is registered and it holds open blocks
    const store = await storeFor('shared');
    const start = server.requests.length;
    const t0 = Date.now();
    const workers = [0, 1, 2, 3].map(() => startCli(args(store, '--concurrency', '4')));
    const victim = workers[3]!;
    const victimName = `${hostname()}:${victim.pid}`;
    let heldAtKill: number[] = [];
    await waitFor(() => {
      const state = read(store, (db) => ({
        workers: (db.prepare('SELECT COUNT(*) AS c FROM run_workers').get() as { c: number }).c,
        held: (db.prepare('SELECT block FROM run_claims WHERE worker = ? AND done = 0').all(victimName) as { block: number }[]).map((r) => r.block),
        finished: (db.prepare('SELECT COUNT(*) AS c FROM run_claims WHERE worker = ? AND done = 1').get(victimName) as { c: number }).c,
        done: (db.prepare("SELECT COUNT(*) AS c FROM samples WHERE status = 'done'").get() as { c: number }).c,
      }));
      // partway: it holds open blocks and has finished one (or the run is well advanced, on a slow machine)
      if (!state || state.workers < 4 || state.held.length === 0 || (state.finished === 0 && state.done < 600)) return false;
      heldAtKill = state.held;
      victim.kill('SIGKILL');
      return true;
    });
    const killedAt = Date.now() - t0;
    const results = await Promise.all(workers.slice(0, 3).map((w) => w.done));
    const duration = Date.now() - t0;
    const killed = await victim.done;
    expect(killed.code).toBe(null); // killed by the signal

    // every live worker exits 0 with the run's summary, equal to the single worker's
    const summaries = results.map((r) => {
      expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0); // a worker's --json error is on stdout
      return JSON.parse(r.stdout) as typeof ref & { runId: string };
    });
    expect(new Set(summaries.map((s) => s.runId)).size).toBe(1);
    for (const s of summaries) {
      expect(s).toMatchObject({ n: N, complete: true, levelCounts: ref.levelCounts });
      expect(s.hpi).toBeCloseTo(ref.hpi, 12);
    }
    const joinedLines = results.filter((r) => /joining run \S+ as one more worker/.test(r.stderr)).length;
    expect(joinedLines).toBeGreaterThanOrEqual(2);

    // the store: one completed run, every sample exactly once, every block done
    const st = read(store, (db) => ({
      runs: db.prepare('SELECT id, status FROM runs').all() as { id: string; status: string }[],
      rows: (db.prepare('SELECT COUNT(*) AS c, COUNT(DISTINCT idx) AS d, COUNT(DISTINCT sample_id) AS ids FROM samples').get() as { c: number; d: number; ids: number }),
      claims: db.prepare('SELECT block, worker, done, taken_from FROM run_claims ORDER BY block').all() as { block: number; worker: string; done: number; taken_from: string | null }[],
      workers: db.prepare('SELECT worker, state, samples, claims FROM run_workers').all() as { worker: string; state: string; samples: number; claims: number }[],
    }))!;
    expect(st.runs).toEqual([{ id: summaries[0]!.runId, status: 'completed' }]);
    expect(st.rows).toEqual({ c: N, d: N, ids: N });
    expect(st.claims).toHaveLength(Math.ceil(N / 32));
    expect(st.claims.every((c) => c.done === 1)).toBe(true);
    const takenFromVictim = new Set(st.claims.filter((c) => c.taken_from === victimName).map((c) => c.block));
    // a block it held when it was seen is taken over, unless it finished that block between the look and the kill
    const finishedByVictim = new Set(st.claims.filter((c) => c.worker === victimName && c.taken_from === null).map((c) => c.block));
    for (const b of heldAtKill) expect(takenFromVictim.has(b) || finishedByVictim.has(b), `block ${b} held by the killed worker was taken over`).toBe(true);
    expect(takenFromVictim.size).toBeGreaterThan(0);
    expect(st.workers).toHaveLength(4);
    expect(st.workers.filter((w) => w.state === 'finished')).toHaveLength(3);
    // each block claimed once by a survivor, except those the killed worker finished before it died
    const survivorsClaims = st.workers.filter((w) => w.state === 'finished').reduce((n, w) => n + w.claims, 0);
    expect(survivorsClaims).toBe(st.claims.filter((c) => c.worker !== victimName).length);

    // the requests: as the single worker's (the same request may recur within a sample, e.g. the knowledge call), plus
    // at most one repeat of the calls of a sample of the killed worker's open blocks
    const counts = countByKey(server.requests.slice(start));
    const extra: { index: number; n: number }[] = [];
    for (const [key, n] of counts) {
      const want = refCounts.get(key) ?? 0;
      expect(want, `request ${key.slice(0, 120)} was not made by the single worker`).toBeGreaterThan(0);
      // a repeat: the sample was evaluated a second time (its calls once more), never more
      if (n > want) extra.push({ index: indexOf(JSON.parse(key) as ReceivedRequest['messages']), n: n - want });
      expect(n - want).toBeLessThanOrEqual(want);
    }
    for (const [key, want] of refCounts) expect(counts.get(key) ?? 0, `request ${key.slice(0, 120)} was made less often`).toBeGreaterThanOrEqual(want);
    for (const e of extra) {
      expect(takenFromVictim.has(Math.floor(e.index / 32)), `sample ${e.index} was requested again outside the killed worker's blocks`).toBe(true);
    }
    const repeatedSamples = new Set(extra.map((e) => e.index)).size;
    expect(repeatedSamples).toBeLessThanOrEqual(32 * takenFromVictim.size);

    // `runs --json` shows the workers: three finished, the killed one gone
    const runs = await runCli(['runs', '--store', store, '--json']);
    const listed = (JSON.parse(runs.stdout) as { runs: { workers: { worker: string; state: string; samples: number }[] }[] }).runs[0]!.workers;
    expect(listed.map((w) => w.state).sort()).toEqual(['finished', 'finished', 'finished', 'gone']);
    expect(listed.find((w) => w.worker === victimName)?.state).toBe('gone');
    const show = await runCli(['runs', 'show', summaries[0]!.runId, '--store', store]);
    expect(show.stdout).toContain(victimName);
    // the figures of the report (the test's output, read by a person checking the claim traffic)
    const claimsPer1000 = (1000 * st.workers.reduce((n, w) => n + w.claims, 0)) / N;
    // each survivor says what it did: samples, blocks, take-overs, claim statements (won or refused)
    const said = results.map((r) => /evaluated (\d+) samples in (\d+) claimed blocks \((\d+) taken over from stopped workers; (\d+) claim statements\)/.exec(r.stderr));
    for (const m of said) expect(m, 'a worker reports its share').not.toBeNull();
    const statements = said.reduce((n, m) => n + Number(m![4]), 0);
    expect(said.reduce((n, m) => n + Number(m![3]), 0)).toBe(takenFromVictim.size);
    process.stdout.write(`workers e2e (${name}): ${N} samples (one worker, --concurrency 8: ${singleMs} ms); four workers (--concurrency 4 each), the fourth killed after ${killedAt} ms, done in ${duration} ms; ${st.claims.length} blocks, ${st.claims.filter((c) => c.worker === victimName).length} finished by the killed worker, ${takenFromVictim.size} taken over from it; blocks claimed by the 3 survivors ${st.workers.filter((w) => w.state === 'finished').reduce((n, w) => n + w.claims, 0)} (${claimsPer1000.toFixed(1)} per 1,000 samples), ${statements} claim statements by the survivors; ${extra.reduce((n, e) => n + e.n, 0)} requests of ${repeatedSamples} samples repeated\n`);
  }, 180_000);
});

/** The requests (by identity) one worker makes for the first `limit` samples, on a store of its own. */
async function singleWorkerRequests(name: string, limit: number): Promise<Map<string, number>> {
  const before = server.requests.length;
  expect((await runCli(args(join(dir, `${name}.db`), '--concurrency', '2', '--limit', String(limit)))).code).toBe(0);
  return countByKey(server.requests.slice(before));
}

describe('several workers on one run', () => {
  it('two same-config runs on one store: the second joins, no call is made twice, both print the same summary', async () => {
    delayMs = 20;
    const refCounts = await singleWorkerRequests('two-single', 200);
    const store = join(dir, 'two.db');
    const before = server.requests.length;
    const a = startCli(args(store, '--concurrency', '2', '--limit', '200'));
    await waitFor(() => (read(store, (db) => (db.prepare("SELECT COUNT(*) AS c FROM samples WHERE status = 'done'").get() as { c: number }).c) ?? 0) > 0);
    const b = await runCli(args(store, '--concurrency', '2', '--limit', '200', '--progress', '--progress-interval', '0.2'));
    const ra = await a.done;
    expect(ra.code, ra.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toMatch(/joining run \S+ as one more worker/);
    // the joiner's progress: its own share as the total, reached at the end, and the run shared with the first
    const lines = b.stderr.split('\n').filter((l) => /^boolq: \d+\/\d+ samples/.test(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/^boolq: (\d+)\/\1 samples \(100\.0%\) \(shared with 1 other worker\),/);
    const sa = JSON.parse(ra.stdout) as { runId: string; n: number; hpi: number; complete: boolean };
    const sb = JSON.parse(b.stdout) as typeof sa;
    expect(sb).toMatchObject({ runId: sa.runId, n: 200, complete: true });
    expect(sb.hpi).toBe(sa.hpi);
    // each request exactly as often as a single worker makes it
    expect(countByKey(server.requests.slice(before))).toEqual(refCounts);
    const st = read(store, (db) => ({
      runs: db.prepare('SELECT status FROM runs').all(),
      rows: (db.prepare('SELECT COUNT(*) AS c, COUNT(DISTINCT idx) AS d FROM samples').get() as { c: number; d: number }),
      workers: (db.prepare('SELECT state, samples FROM run_workers ORDER BY started_at').all() as { state: string; samples: number }[]),
    }))!;
    expect(st.runs).toEqual([{ status: 'completed' }]);
    expect(st.rows).toEqual({ c: 200, d: 200 });
    expect(st.workers.map((w) => w.state)).toEqual(['finished', 'finished']);
    expect(st.workers.reduce((n, w) => n + w.samples, 0)).toBe(200);
    expect(st.workers[1]!.samples).toBeGreaterThan(0);
  }, 120_000);

  it('SIGTERM on one worker: it leaves its blocks to the other (exit 143, the run stays running), which completes the run; only its in-flight samples are requested again', async () => {
    delayMs = 30;
    const refCounts = await singleWorkerRequests('term-single', 160);
    const store = join(dir, 'term.db');
    const before = server.requests.length;
    const a = startCli(args(store, '--concurrency', '2', '--limit', '160'));
    await waitFor(() => (read(store, (db) => (db.prepare('SELECT COUNT(*) AS c FROM samples').get() as { c: number }).c) ?? 0) > 0);
    const b = startCli(args(store, '--concurrency', '2', '--limit', '160'));
    const bName = `${hostname()}:${b.pid}`;
    await waitFor(() => (read(store, (db) => (db.prepare('SELECT COUNT(*) AS c FROM run_claims WHERE worker = ? AND done = 0').get(bName) as { c: number }).c) ?? 0) > 0);
    b.kill('SIGTERM');
    const rb = await b.done;
    expect(rb.code).toBe(143);
    expect(JSON.parse(rb.stdout)).toEqual({ error: { code: 'E_INTERRUPTED', message: expect.stringMatching(/^interrupted by SIGTERM; this worker left run \S+ in .* to its other workers, which carry on$/) } });
    expect(read(store, (db) => db.prepare('SELECT status FROM runs').get())).toEqual({ status: 'running' });
    const ra = await a.done;
    expect(ra.code, ra.stderr).toBe(0);
    expect(JSON.parse(ra.stdout)).toMatchObject({ n: 160, complete: true });
    const st = read(store, (db) => ({
      runs: db.prepare('SELECT status FROM runs').all(),
      rows: db.prepare('SELECT COUNT(*) AS c, COUNT(DISTINCT idx) AS d FROM samples').get(),
      fromB: (db.prepare('SELECT block FROM run_claims WHERE taken_from = ?').all(bName) as { block: number }[]).map((r) => r.block),
      workers: db.prepare('SELECT worker, state FROM run_workers ORDER BY started_at').all() as { worker: string; state: string }[],
    }))!;
    expect(st.runs).toEqual([{ status: 'completed' }]);
    expect(st.rows).toEqual({ c: 160, d: 160 });
    expect(st.workers.map((w) => w.state)).toEqual(['finished', 'left']);
    expect(st.fromB.length).toBeGreaterThan(0);
    // requests: the single worker's, plus at most the samples B had in flight (--concurrency 2) once more
    const counts = countByKey(server.requests.slice(before));
    const repeated = new Set<number>();
    for (const [key, n] of counts) {
      const want = refCounts.get(key) ?? 0;
      expect(want).toBeGreaterThan(0);
      expect(n - want).toBeLessThanOrEqual(want);
      if (n > want) repeated.add(indexOf(JSON.parse(key) as ReceivedRequest['messages']));
    }
    for (const [key, want] of refCounts) expect(counts.get(key) ?? 0).toBeGreaterThanOrEqual(want);
    expect(repeated.size).toBeLessThanOrEqual(2);
    for (const i of repeated) expect(st.fromB).toContain(Math.floor(i / 32));
  }, 120_000);
});
