/**
 * End-to-end: `run --batch` against the faults of a real provider or gateway (issue 25, items 2-4), with the built CLI
 * as a process and the real openai SDK against the local fake of the Files + Batches API
 * (test/helpers/openai-batch-server.ts): a gateway restarted without its state (its ids start again), a resume with
 * another `--base-url` while a batch is in flight, a garbled output line, and duplicate lines for one custom_id
 * (conflicting and identical). Each run must end with the results of the clean online run of the same data (same HPI,
 * same per-sample results), each call submitted once where the provider kept the batch (counted by the fake), every
 * sample stored once, and only a run that scored every sample `completed`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '@hpt-bench/core';
import type { RunSummary } from '@hpt-bench/sdk';
import { type BatchReply, type BatchServer, type BatchServerOptions, startOpenAIBatchServer } from '../helpers/openai-batch-server.js';
import type { ReceivedRequest } from '../helpers/openai-server.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { levelOf, levelOfRequest, questionOf, recordFor, rightAnswer } from '../helpers/generic-ladder.js';
import type { RunDetails } from '../../packages/cli/src/commands/runs/show.js';
import { perSample } from '../helpers/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-batch-faults-'));
const N = 40;
/** the generated data of a run: HiBench formula items of seed `seed` */
const GEN = (seed: number) => ['--preset', 'easy', '--task', 'calculate,equivalent', '--seed', String(seed)];
const BATCH = ['--batch', '--batch-poll', '0.02'];

let records: Record<string, Json>[] = [];
/** The same rule for online chat completions and batch lines: a sample is answered right at the level `levelOf` gives it. */
const answer = (req: ReceivedRequest): BatchReply => {
  const user = req.messages.at(-1)!.content;
  if (req.messages[0]!.role !== 'system') return { text: 'step output' };
  const rec = recordFor(records, user);
  return { text: rec && levelOfRequest(user) === levelOf(questionOf(rec)) ? `Working.\n${rightAnswer(rec.target)}` : '{"answer": "zzz"}' };
};

const servers: BatchServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});
async function server(options: Partial<BatchServerOptions> = {}): Promise<BatchServer> {
  const s = await startOpenAIBatchServer({ answer, ...options });
  servers.push(s);
  return s;
}

const args = (url: string, store: string, seed: number, ...more: string[]) => ['run', '--dataset', 'hibench/formula', ...GEN(seed), '--limit', String(N), '--model', 'openai:test', '--base-url', url, '--store', store, '--json', ...more];
const summaryOf = (r: { code: number | null; stdout: string; stderr: string }): RunSummary => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as RunSummary;
};
/** Read `sql` from an SQLite store (read-only). */
function query<T>(store: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(store, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
/** The stored batches of a store, in submission order. */
const storedBatches = (store: string) =>
  query<{ id: string; endpoint: string; run_id: string; round: number; state: string; custom_ids: string }>(store, 'SELECT id, endpoint, run_id, round, state, custom_ids FROM batches ORDER BY submitted_at, id').map((b) => ({ ...b, customIds: JSON.parse(b.custom_ids) as string[] }));
/** A run's stored samples: rows, distinct sample ids, errored rows; and the run's status. */
function stored(store: string, runId: string) {
  const [s] = query<{ rows: number; ids: number; errored: number }>(store, "SELECT COUNT(*) AS rows, COUNT(DISTINCT sample_id) AS ids, COALESCE(SUM(CASE WHEN status = 'errored' THEN 1 ELSE 0 END), 0) AS errored FROM samples WHERE run_id = ?", runId);
  const [r] = query<{ status: string }>(store, 'SELECT status FROM runs WHERE id = ?', runId);
  return { ...s!, status: r?.status };
}
const hashOf = (id: string) => createHash('md5').update(id).digest()[0]!;

/**
 * Start a batch run of seed 9 on `s` into `store`, and SIGKILL it once its second round's batch is created (recorded
 * as `submitted`: the first round's results are consumed by then), while that batch is in flight.
 */
async function killWhileInFlight(s: BatchServer, store: string): Promise<void> {
  const child = spawn(process.execPath, [BIN, ...args(s.url, store, 9, '--batch', '--batch-poll', '0.05')], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' }, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const recorded = () => {
    try {
      return storedBatches(store).filter((b) => b.state !== 'uploaded').length;
    } catch {
      return 0; // the store is not created yet
    }
  };
  for (let i = 0; i < 600 && recorded() < 2; i++) await new Promise((r) => setTimeout(r, 25));
  expect(recorded()).toBe(2);
  child.kill('SIGKILL');
  await exited;
}

/** The clean online runs: per seed, the summary and the per-sample results. */
const online: Record<number, { summary: RunSummary; out: Record<string, unknown> }> = {};

beforeAll(async () => {
  for (const seed of [9, 11]) {
    const g = await runCli(['generate', 'hibench/formula', ...GEN(seed), '--limit', String(N), '--out', '-']);
    expect(g.code, g.stderr).toBe(0);
    records.push(...g.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, Json>));
  }
  const s = await server();
  for (const seed of [9, 11]) {
    const out = join(dir, `online-${seed}.jsonl`);
    online[seed] = { summary: summaryOf(await runCli(args(s.url, join(dir, `online-${seed}.db`), seed, '--out', out))), out: perSample(out) };
  }
  // the two data sets differ (so the second run has calls of its own to submit)
  expect(online[9]!.out).not.toEqual(online[11]!.out);
}, 120_000);

describe('run --batch against provider faults', () => {
  it('a gateway restarted without its state gives new batches the ids of earlier ones: the next run completes with the results of its online run, each call submitted once', async () => {
    const s = await server();
    const store = join(dir, 'restart.db');
    const a = summaryOf(await runCli(args(s.url, store, 9, ...BATCH)));
    expect(a.hpi).toBe(online[9]!.summary.hpi);
    const idsOfA = storedBatches(store).map((b) => b.id);
    await s.restart({ idsFromStart: true });
    const outB = join(dir, 'restart-b.jsonl');
    const rb = await runCli(args(s.url, store, 11, ...BATCH, '--out', outB));
    const b = summaryOf(rb);
    expect(b.hpi).toBe(online[11]!.summary.hpi);
    expect(b.levelCounts).toEqual(online[11]!.summary.levelCounts);
    expect(perSample(outB)).toEqual(online[11]!.out);
    expect(Object.values(s.state.submissions).every((n) => n === 1)).toBe(true);
    // the fault happened: run B's batches got ids run A's batches had at the same endpoint
    const batches = storedBatches(store);
    const ofB = batches.filter((x) => x.run_id === b.runId);
    expect(ofB.length).toBeGreaterThan(0);
    expect(ofB.filter((x) => idsOfA.includes(x.id)).length).toBeGreaterThan(0);
    expect(new Set(batches.map((x) => x.endpoint))).toEqual(new Set([s.url]));
    // both runs keep their batches, all consumed, and their samples once each
    for (const run of [a, b]) {
      const shown = await runCli(['runs', 'show', run.runId, '--store', store, '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      const details = JSON.parse(shown.stdout) as RunDetails;
      expect(details.batches.length).toBe(run === a ? idsOfA.length : ofB.length);
      expect(details.batches.every((x) => x.state === 'consumed')).toBe(true);
      expect(stored(store, run.runId)).toEqual({ rows: N, ids: N, errored: 0, status: 'completed' });
    }
  }, 180_000);

  it('a gateway restarted without its state while a batch is in flight: the resumed run finds the batch gone, submits its calls again (only those), and ends with the results of the online run', async () => {
    const statePath = join(dir, 'forgot-state.json');
    const s = await server({ completeAfterMs: 1500, statePath });
    const store = join(dir, 'forgot.db');
    await killWhileInFlight(s, store);
    const [inFlight] = storedBatches(store).filter((b) => b.state === 'submitted');
    expect(inFlight).toBeDefined();
    await s.restart({ idsFromStart: true });
    const out = join(dir, 'forgot.jsonl');
    const res = await runCli(args(s.url, store, 9, ...BATCH, '--out', out));
    const r = summaryOf(res);
    expect(r.resumed).toBe(true);
    expect(res.stderr).toMatch(new RegExp(`batch ${inFlight!.id} of openai:test is gone: .*has no batch ${inFlight!.id} \\(HTTP 404\\)`));
    // the calls of the lost batch went out twice (the provider did not keep them), every other call once
    for (const [id, n] of Object.entries(s.state.submissions)) expect(n).toBe(inFlight!.customIds.includes(id) ? 2 : 1);
    expect(Object.keys(s.state.submissions)).toHaveLength(online[9]!.summary.calls);
    expect(r.hpi).toBe(online[9]!.summary.hpi);
    expect(r.levelCounts).toEqual(online[9]!.summary.levelCounts);
    // the gone batch is kept, marked lost (under another id when the restarted gateway gave its id to a new batch)
    const lost = storedBatches(store).filter((b) => b.state === 'lost');
    expect(lost.map((b) => [b.id.split('@')[0], b.customIds])).toEqual([[inFlight!.id, inFlight!.customIds]]);
    expect(storedBatches(store).filter((b) => b.state !== 'lost').every((b) => b.state === 'consumed')).toBe(true);
    expect(stored(store, r.runId)).toEqual({ rows: N, ids: N, errored: 0, status: 'completed' });
  }, 180_000);

  it('a resume with another --base-url while a batch is in flight is refused with one line naming the endpoint the batch lives on; resumed there, the batch is polled, not submitted again', async () => {
    const statePath = join(dir, 'moved-state.json');
    const s = await server({ completeAfterMs: 1500, statePath });
    const elsewhere = await server();
    const store = join(dir, 'moved.db');
    await killWhileInFlight(s, store);
    await s.restart();
    const [{ run_id: runId }] = storedBatches(store);
    const before = stored(store, runId);
    const inFlight = storedBatches(store).filter((b) => b.state === 'submitted');
    expect(inFlight).toHaveLength(1);

    const refused = await runCli(args(elsewhere.url, store, 9, ...BATCH));
    expect(refused.code).toBe(2);
    const err = (JSON.parse(refused.stdout) as { error: { code: string; message: string } }).error;
    expect(err.code).toBe('E_CONFIG');
    expect(err.message.split('\n')).toHaveLength(1);
    expect(err.message).toContain(`batch ${inFlight[0]!.id}`);
    expect(err.message).toContain(`at ${s.url}`);
    expect(err.message).toContain(`--base-url ${s.url}`);
    // nothing went to the other endpoint, nothing was lost
    expect(elsewhere.state).toMatchObject({ batchesCreated: 0, chatRequests: 0, files: {} });
    expect(storedBatches(store).filter((b) => b.state === 'submitted').map((b) => b.id)).toEqual([inFlight[0]!.id]);
    expect(stored(store, runId)).toMatchObject({ rows: before.rows, ids: before.ids });

    const out = join(dir, 'moved.jsonl');
    const r = summaryOf(await runCli(args(s.url, store, 9, ...BATCH, '--out', out)));
    expect(r.runId).toBe(runId);
    expect(r.batch!.resumedBatches).toBe(1);
    expect(Object.values(s.state.submissions).every((n) => n === 1)).toBe(true);
    expect(Object.keys(s.state.submissions)).toHaveLength(online[9]!.summary.calls);
    expect(r.hpi).toBe(online[9]!.summary.hpi);
    expect(perSample(out)).toEqual(online[9]!.out);
    expect(stored(store, runId)).toEqual({ rows: N, ids: N, errored: 0, status: 'completed' });
  }, 180_000);

  it('a garbled output line is a failed line: its call goes into the next batch, the other answers of its batch are used', async () => {
    const garble = (id: string) => (hashOf(id) % 5 === 0 ? 'truncated' : hashOf(id) % 5 === 1 ? 'noise' : undefined);
    const s = await server({ garbleLine: (id, nth) => (nth === 1 ? garble(id) : undefined) });
    const store = join(dir, 'garbled.db');
    const out = join(dir, 'garbled.jsonl');
    const res = await runCli(args(s.url, store, 9, ...BATCH, '--out', out));
    const r = summaryOf(res);
    const garbled = Object.keys(s.state.submissions).filter((id) => garble(id));
    expect(garbled.filter((id) => garble(id) === 'truncated').length).toBeGreaterThan(0);
    expect(garbled.filter((id) => garble(id) === 'noise').length).toBeGreaterThan(0);
    for (const [id, n] of Object.entries(s.state.submissions)) expect(n).toBe(garble(id) ? 2 : 1);
    expect(r.batch).toMatchObject({ retriedLines: garbled.length, failedLines: 0 });
    expect(r.hpi).toBe(online[9]!.summary.hpi);
    expect(r.levelCounts).toEqual(online[9]!.summary.levelCounts);
    expect(perSample(out)).toEqual(online[9]!.out);
    expect(res.stderr).toMatch(/not JSON/);
    expect(stored(store, r.runId)).toEqual({ rows: N, ids: N, errored: 0, status: 'completed' });
  }, 180_000);

  it('conflicting duplicate lines of a call are a fault of that call (sent again, with a warning); identical duplicates are harmless', async () => {
    const conflicting = (id: string) => hashOf(id) % 5 === 0;
    const identical = (id: string) => hashOf(id) % 5 === 1;
    const s = await server({ duplicateLine: (id, nth) => (conflicting(id) && nth === 1 ? 'conflicting' : identical(id) ? 'identical' : undefined) });
    const store = join(dir, 'duplicates.db');
    const out = join(dir, 'duplicates.jsonl');
    const res = await runCli(args(s.url, store, 9, ...BATCH, '--out', out));
    const r = summaryOf(res);
    const ids = Object.keys(s.state.submissions);
    expect(ids.filter(conflicting).length).toBeGreaterThan(0);
    expect(ids.filter(identical).length).toBeGreaterThan(0);
    for (const [id, n] of Object.entries(s.state.submissions)) expect(n).toBe(conflicting(id) ? 2 : 1);
    expect(r.batch).toMatchObject({ retriedLines: ids.filter(conflicting).length, failedLines: 0 });
    expect(res.stderr).toMatch(/2 different results/);
    expect(r.hpi).toBe(online[9]!.summary.hpi);
    expect(r.levelCounts).toEqual(online[9]!.summary.levelCounts);
    expect(perSample(out)).toEqual(online[9]!.out);
    expect(stored(store, r.runId)).toEqual({ rows: N, ids: N, errored: 0, status: 'completed' });
  }, 180_000);

  it('a call whose lines keep conflicting is errored after --max-retries rounds: the run is not completed, nothing is stored twice, and the same command against a sound provider completes it', async () => {
    let faulty = true;
    const conflicting = (id: string) => hashOf(id) % 8 === 0;
    const s = await server({ duplicateLine: (id) => (faulty && conflicting(id) ? 'conflicting' : undefined) });
    const store = join(dir, 'conflicts.db');
    const res = await runCli(args(s.url, store, 9, ...BATCH, '--max-retries', '1'));
    expect(res.code).toBe(1);
    const summary = JSON.parse(res.stdout) as RunSummary;
    expect(summary.complete).toBe(false);
    expect(summary.errored).toBeGreaterThan(0);
    expect(summary.batch!.failedLines).toBeGreaterThan(0);
    expect(summary.erroredSamples?.[0]?.error).toMatch(/2 different results/);
    for (const [id, n] of Object.entries(s.state.submissions)) if (conflicting(id)) expect(n).toBe(2);
    expect(stored(store, summary.runId)).toEqual({ rows: N, ids: N, errored: summary.errored, status: 'failed' });
    faulty = false;
    const out = join(dir, 'conflicts.jsonl');
    const again = summaryOf(await runCli(args(s.url, store, 9, ...BATCH, '--out', out)));
    expect(again.runId).toBe(summary.runId);
    expect(again.hpi).toBe(online[9]!.summary.hpi);
    expect(again.levelCounts).toEqual(online[9]!.summary.levelCounts);
    expect(stored(store, summary.runId)).toEqual({ rows: N, ids: N, errored: 0, status: 'completed' });
  }, 180_000);
});
