/**
 * End-to-end: `run --batch` with the built CLI as a process and the real openai SDK against a local fake of the Files +
 * Batches API (test/helpers/openai-batch-server.ts). Samples are generated HiBench formula items, each answered right
 * at a level the test chose (test/helpers/generic-ladder.ts); the same rule answers the online run's chat completions
 * and the batches' lines, so the two runs must agree sample by sample.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValid, type Json } from '@hpt-bench/core';
import { type BatchReply, type BatchServer, startOpenAIBatchServer } from '../helpers/openai-batch-server.js';
import type { ReceivedRequest } from '../helpers/openai-server.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { levelOf, levelOfRequest, questionOf, recordFor, rightAnswer } from '../helpers/generic-ladder.js';
import type { RunSummary } from '@hpt-bench/sdk';
import type { RunDetails } from '../../packages/cli/src/commands/runs/show.js';
import { perSample } from '../helpers/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-batch-'));
const GEN = ['--preset', 'easy', '--task', 'calculate,equivalent', '--seed', '9'];
const N = 40;

/** What `run --json` prints (the SDK's run summary). */
type Summary = RunSummary;

let records: Record<string, Json>[];
let answer: (req: ReceivedRequest) => BatchReply;

beforeAll(async () => {
  const g = await runCli(['generate', 'hibench/formula', ...GEN, '--limit', String(N), '--out', '-']);
  expect(g.code, g.stderr).toBe(0);
  records = g.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, Json>);
  answer = (req) => {
    const user = req.messages.at(-1)!.content;
    if (req.messages[0]!.role !== 'system') return { text: 'step output' };
    const rec = recordFor(records, user);
    return { text: rec && levelOfRequest(user) === levelOf(questionOf(rec)) ? `Working.\n${rightAnswer(rec.target)}` : '{"answer": "zzz"}' };
  };
});

const servers: BatchServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});
async function server(options: Partial<Parameters<typeof startOpenAIBatchServer>[0]> = {}): Promise<BatchServer> {
  const s = await startOpenAIBatchServer({ answer, ...options });
  servers.push(s);
  return s;
}

const args = (url: string, store: string, ...more: string[]) => ['run', '--dataset', 'hibench/formula', ...GEN, '--limit', String(N), '--model', 'openai:test', '--base-url', url, '--store', store, '--json', ...more];
const summaryOf = (r: { code: number | null; stdout: string; stderr: string }): Summary => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Summary;
};
/** The stored batches of a store: round and custom ids, in submission order. */
const storedBatches = (store: string) => {
  const db = new Database(store, { readonly: true });
  try {
    return (db.prepare('SELECT id, round, state, custom_ids FROM batches ORDER BY submitted_at, id').all() as { id: string; round: number; state: string; custom_ids: string }[]).map((b) => ({ ...b, customIds: JSON.parse(b.custom_ids) as string[] }));
  } finally {
    db.close();
  }
};

/**
 * The rounds the real HPF strategies (plugins/hpf-strategies) make when every sample is in flight: levels 1-3 one call
 * each; least-to-most 3 chained calls (decomposition, then the sub-problems: the generic pack's chain); generated
 * knowledge 3 knowledge candidates, one after the other (distinct calls at temperature 0.6), then the graded call.
 * Each chained call waits for the one before it, so each is its own round: 1 + 1 + 1 + 3 + 4 = 10 rounds, and a round
 * of level L holds one line per sample that reaches L.
 */
function expectedRounds(): number[] {
  const levels = records.map((r) => levelOf(questionOf(r)));
  const reaching = (l: number) => levels.filter((x) => x >= l).length;
  return [1, 2, 3, 4, 5].flatMap((l) => Array.from({ length: [1, 1, 1, 3, 4][l - 1]! }, () => reaching(l)));
}

describe('run --batch', () => {
  let online: Summary;
  let onlineOut: Record<string, unknown>;
  const prices = join(dir, 'prices.json');

  it('gives the same HPI, level counts and per-sample results as the online run, in exactly the rounds of the strategies, each call submitted once, at half price', async () => {
    writeFileSync(prices, JSON.stringify({ 'openai:test': { input: 2, output: 10 } }));
    const s = await server();
    online = summaryOf(await runCli(args(s.url, join(dir, 'online.db'), '--out', join(dir, 'online.jsonl'), '--prices', prices)));
    onlineOut = perSample(join(dir, 'online.jsonl'));
    const chatBefore = s.state.chatRequests;
    expect(chatBefore).toBe(online.calls);

    const store = join(dir, 'batch.db');
    const batched = summaryOf(await runCli(args(s.url, store, '--batch', '--batch-poll', '0.02', '--out', join(dir, 'batch.jsonl'), '--prices', prices)));
    expect(s.state.chatRequests).toBe(chatBefore); // nothing went online
    expect(batched.hpi).toBe(online.hpi);
    expect(batched.levelCounts).toEqual(online.levelCounts);
    expect(batched.calls).toBe(online.calls);
    expect(perSample(join(dir, 'batch.jsonl'))).toEqual(onlineOut);
    // the rounds: exactly those of the strategies, one batch each (far below the per-file limits)
    const rounds = expectedRounds();
    expect(rounds).toHaveLength(10);
    const stored = storedBatches(store);
    expect(stored.map((b) => b.round)).toEqual(rounds.map((_, i) => i + 1));
    expect(stored.map((b) => b.customIds.length)).toEqual(rounds);
    expect(stored.every((b) => b.state === 'consumed')).toBe(true);
    // runs show lists the run's batches (--json and the table)
    const shown = await runCli(['runs', 'show', batched.runId, '--store', store, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const details = JSON.parse(shown.stdout) as RunDetails;
    expect(details.batches.map((b) => [b.id, b.round, b.state, b.requests])).toEqual(stored.map((b) => [b.id, b.round, 'consumed', b.customIds.length]));
    expect(details.batches.every((b) => b.model === 'openai:test' && b.finishedAt !== null && b.submittedAt <= b.finishedAt)).toBe(true);
    const table = await runCli(['runs', 'show', batched.runId, '--store', store]);
    expect(table.stdout).toMatch(/batch\s*│\s*round\s*│\s*model\s*│\s*state\s*│\s*requests/);
    expect(table.stdout).toContain(stored[9]!.id);
    // every call submitted exactly once
    expect(Object.values(s.state.submissions).every((n) => n === 1)).toBe(true);
    expect(Object.keys(s.state.submissions)).toHaveLength(online.calls);
    // --json: valid against schemas/run-summary.schema.json, with batch counts, the batch price (half of online by
    // default) and the saving
    assertValid('run-summary', batched as unknown as Json, 'batch run summary');
    expect(batched.batch).toMatchObject({ rounds: 10, batches: 10, requests: online.calls, resumedBatches: 0, retriedLines: 0, failedLines: 0 });
    expect(batched.cost).toBeCloseTo(online.cost! / 2, 12);
    expect(batched.batch!.onlineCost).toBeCloseTo(online.cost!, 12);
    expect(batched.batch!.saving).toBeCloseTo(online.cost! / 2, 12);
    for (const [l, u] of Object.entries(batched.levels)) {
      expect(u.batchedCalls).toBe(online.levels[l]!.calls);
      expect(u.cost).toBeCloseTo(online.levels[l]!.cost! / 2, 12);
      expect(u.onlineCost).toBeCloseTo(online.levels[l]!.cost!, 12);
    }
    // the text summary shows the batches and the saving
    const text = await runCli(args(s.url, join(dir, 'batch-text.db'), '--batch', '--batch-poll', '0.02', '--prices', prices).filter((a) => a !== '--json'));
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/saved against the online price/);
    expect(text.stdout).toMatch(/batches \(rounds; picked up after an interruption\)\s+\S*\s*10 with \d+ requests \(10 rounds; 0 picked up\)/);
  }, 120_000);

  it('batchInput / batchOutput prices replace the default half price', async () => {
    const s = await server();
    const own = join(dir, 'prices-batch.json');
    writeFileSync(own, JSON.stringify({ 'openai:test': { input: 2, output: 10, batchInput: 0.2, batchOutput: 1 } }));
    const r = summaryOf(await runCli(args(s.url, join(dir, 'batch-prices.db'), '--batch', '--batch-poll', '0.02', '--prices', own)));
    expect(r.cost).toBeCloseTo(online.cost! / 10, 12);
    expect(r.batch!.saving).toBeCloseTo(online.cost! * 0.9, 12);
  }, 120_000);

  it('failed lines are sent again in the next round and the results are still those of the online run', async () => {
    const failing = (id: string) => createHash('md5').update(id).digest()[0]! % 4 === 0;
    const s = await server({ failLine: (id, nth) => nth === 1 && failing(id) });
    const out = join(dir, 'retry.jsonl');
    const r = summaryOf(await runCli(args(s.url, join(dir, 'retry.db'), '--batch', '--batch-poll', '0.02', '--out', out)));
    const failed = Object.keys(s.state.submissions).filter(failing);
    expect(failed.length).toBeGreaterThan(0);
    for (const [id, n] of Object.entries(s.state.submissions)) expect(n).toBe(failing(id) ? 2 : 1);
    expect(r.batch!.retriedLines).toBe(failed.length);
    expect(r.batch!.failedLines).toBe(0);
    expect(r.errored).toBe(0);
    expect(r.hpi).toBe(online.hpi);
    expect(perSample(out)).toEqual(onlineOut);
  }, 120_000);

  it('lines that keep failing are recorded as errored samples after --max-retries rounds', async () => {
    const s = await server({ failLine: (id) => createHash('md5').update(id).digest()[0]! % 8 === 0 });
    const r = await runCli(args(s.url, join(dir, 'fail.db'), '--batch', '--batch-poll', '0.02', '--max-retries', '1'));
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.stdout) as Summary;
    expect(summary.errored).toBeGreaterThan(0);
    expect(summary.batch!.failedLines).toBeGreaterThan(0);
    for (const [id, n] of Object.entries(s.state.submissions)) if (createHash('md5').update(id).digest()[0]! % 8 === 0) expect(n).toBe(2);
  }, 120_000);

  it('a run SIGKILLed while a batch is in flight picks the batch up on the re-run: exactly one submission per call, same results', async () => {
    const statePath = join(dir, 'fake-state.json');
    const s = await server({ completeAfterMs: 1500, statePath });
    const store = join(dir, 'killed.db');
    const cmd = args(s.url, store, '--batch', '--batch-poll', '0.05', '--out', join(dir, 'killed.jsonl'));
    const child = spawn(process.execPath, [BIN, ...cmd], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' }, stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    // wait for the second round's batch to be recorded as created in the store (the first round's results are consumed
    // by then), then kill (a kill between upload and creation is tested in test/core/batcher.test.ts)
    const recorded = () => {
      try {
        return storedBatches(store).filter((b) => b.state !== 'uploaded').length;
      } catch {
        return 0; // the store is not created yet
      }
    };
    for (let i = 0; i < 600 && recorded() < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(recorded()).toBe(2);
    expect(s.state.batchesCreated).toBe(2);
    child.kill('SIGKILL');
    await exited;
    // the fake goes down and comes back with its state (as a provider outage would not lose a batch)
    await s.restart();
    const r = summaryOf(await runCli(cmd));
    expect(r.resumed).toBe(true);
    expect(r.batch!.resumedBatches).toBe(1);
    expect(Object.values(s.state.submissions).every((n) => n === 1)).toBe(true);
    expect(Object.keys(s.state.submissions)).toHaveLength(online.calls);
    expect(r.hpi).toBe(online.hpi);
    expect(r.levelCounts).toEqual(online.levelCounts);
    // the same ten rounds in all: two by the killed process, eight by the re-run (rounds are numbered per invocation;
    // the re-run's first round was the batch it picked up)
    const stored = storedBatches(store);
    expect(stored.map((b) => b.customIds.length)).toEqual(expectedRounds());
    expect(stored.map((b) => b.round)).toEqual([1, 2, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(r.batch!.rounds).toBe(9);
    expect(stored.every((b) => b.state === 'consumed')).toBe(true);
    // a re-run of the finished run reads no batch again: everything is a cache hit, nothing is submitted
    const before = s.state.batchesCreated;
    const again = summaryOf(await runCli(args(s.url, store, '--batch', '--batch-poll', '0.02', '--new')));
    expect(again.cachedCalls).toBe(again.calls);
    expect(again.batch).toMatchObject({ rounds: 0, batches: 0, resumedBatches: 0 });
    expect(s.state.batchesCreated).toBe(before);
  }, 120_000);

  it('adaptive HPF: the calls of the selector model are batched too, and the results are those of the online run', async () => {
    const s = await server();
    // the selector asks the same endpoint under another model name; the rule answers its prompt with a level
    const adaptive = (store: string, out: string, ...more: string[]) => [...args(s.url, store, '--mode', 'adaptive', '--selector', 'openai:selector', '--out', out), ...more];
    const on = summaryOf(await runCli(adaptive(join(dir, 'adaptive-online.db'), join(dir, 'adaptive-online.jsonl'))));
    const chat = s.state.chatRequests;
    const off = summaryOf(await runCli(adaptive(join(dir, 'adaptive-batch.db'), join(dir, 'adaptive-batch.jsonl'), '--batch', '--batch-poll', '0.02')));
    expect(s.state.chatRequests).toBe(chat);
    expect(off.hpi).toBe(on.hpi);
    expect(off.levelCounts).toEqual(on.levelCounts);
    expect(perSample(join(dir, 'adaptive-batch.jsonl'))).toEqual(perSample(join(dir, 'adaptive-online.jsonl')));
    expect(Object.values(s.state.submissions).every((n) => n === 1)).toBe(true);
    // one line per call the online run made (a fresh fake: all its chat requests were the online run's)
    expect(Object.keys(s.state.submissions)).toHaveLength(chat);
    expect(off.batch!.rounds).toBeGreaterThan(1);
    assertValid('run-summary', off as unknown as Json, 'adaptive batch run summary');
  }, 120_000);

  it('plan --batch estimates the cost at the batch price', async () => {
    const s = await server();
    const own = join(dir, 'plan-prices.json');
    writeFileSync(own, JSON.stringify({ 'openai:test': { input: 2, output: 10 } }));
    const planArgs = (...more: string[]) => ['plan', ...args(s.url, join(dir, 'plan.db'), '--prices', own).slice(1), ...more];
    const on = await runCli(planArgs());
    const off = await runCli(planArgs('--batch'));
    expect(on.code, on.stderr).toBe(0);
    expect(off.code, off.stderr).toBe(0);
    const [a] = [JSON.parse(on.stdout)].flat() as { cost: number }[];
    const [b] = [JSON.parse(off.stdout)].flat() as { cost: number }[];
    expect(a!.cost).toBeGreaterThan(0);
    expect(b!.cost).toBeCloseTo(a!.cost / 2, 9);
    expect(s.state.chatRequests + s.state.batchesCreated).toBe(0);
  }, 60_000);

  it('--batch with a model without a batch interface is a usage error (exit 2), with nothing stored', async () => {
    const store = join(dir, 'oracle.db');
    const r = await runCli(['run', '--dataset', 'hibench/formula', ...GEN, '--limit', '3', '--model', 'baseline:oracle', '--store', store, '--batch', '--json']);
    expect(r.code).toBe(2);
    const err = JSON.parse(r.stdout) as { error: { code: string; message: string } };
    expect(err.error.code).toBe('E_CONFIG');
    expect(err.error.message).toMatch(/--batch needs models with a batch interface.*baseline:oracle has none/);
    const runs = JSON.parse((await runCli(['runs', '--store', store, '--json'])).stdout) as { runs: unknown[] };
    expect(runs.runs).toHaveLength(0);
  }, 60_000);

  it('an evaluation file with batch: true runs through the Batch API', async () => {
    const s = await server();
    const file = join(dir, 'eval.json');
    writeFileSync(file, JSON.stringify({ batch: true, store: join(dir, 'eval.db'), datasets: [{ id: 'hibench/formula', limit: 5, filters: { preset: 'easy', task: ['calculate', 'equivalent'] } }], models: [{ id: 'openai:test', baseUrl: s.url }], seed: 9 }));
    const r = await runCli(['run', '--config', file, '--batch-poll', '0.02', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [summary] = JSON.parse(r.stdout) as Summary[];
    expect(summary!.batch!.batches).toBeGreaterThan(0);
    expect(s.state.chatRequests).toBe(0);
  }, 60_000);
});
