/**
 * The batcher of `run --batch` (packages/core/src/exec/batcher.ts) with the real model client, the real SQLite store
 * (batches table, call cache) and an in-memory provider: when rounds are flushed, how lines are split, retried and
 * failed, and how an interrupted run's batches are picked up instead of submitted again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BatchLineResult,
  type BatchModel,
  type BatchStatus,
  Batcher,
  type BatchRoundInfo,
  CallCache,
  cacheKey,
  EndpointLimiters,
  forEachConcurrent,
  type Model,
  ModelCallError,
  ModelClient,
  type ModelRequest,
  type ModelResponse,
  RunStore,
} from '@hpt-bench/core';

const dir = mkdtempSync(join(tmpdir(), 'hpt-batcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** An in-memory provider: batches complete on the first poll; `fail(customId, submission)` fails a line with `kind`. */
class FakeProvider implements BatchModel {
  readonly limits: { maxRequests: number; maxBytes: number };
  submissions = new Map<string, number>();
  batches = new Map<string, string[]>();
  polls = 0;
  reads = 0;
  constructor(private readonly fail: (id: string, nth: number) => ModelCallError | undefined = () => undefined, limits = { maxRequests: 1000, maxBytes: 1e9 }) {
    this.limits = limits;
  }
  encode(line: { customId: string; request: ModelRequest }): string {
    return JSON.stringify({ custom_id: line.customId, prompt: line.request.messages[0]!.content });
  }
  files = new Map<string, string[]>();
  /** input file id -> batch id */
  created = new Map<string, string>();
  async upload(lines: string[]): Promise<string> {
    const id = `f-b${this.files.size + 1}`;
    this.files.set(id, lines);
    return id;
  }
  async create(inputFileId: string): Promise<string> {
    const lines = this.files.get(inputFileId)!;
    const id = `b${this.batches.size + 1}`;
    this.batches.set(id, lines);
    this.created.set(inputFileId, id);
    for (const l of lines) {
      const c = (JSON.parse(l) as { custom_id: string }).custom_id;
      this.submissions.set(c, (this.submissions.get(c) ?? 0) + 1);
    }
    return id;
  }
  async find(inputFileId: string): Promise<string | undefined> {
    return this.created.get(inputFileId);
  }
  /** the final state of each batch (default completed); an expired batch's output holds its first line only */
  finalState: (id: string) => 'completed' | 'failed' | 'expired' = () => 'completed';
  async status(id: string): Promise<BatchStatus> {
    this.polls++;
    const state = this.finalState(id);
    if (state === 'failed') return { state, message: 'input file invalid' };
    return { state, outputFileId: `out-${id}` };
  }
  async results(status: BatchStatus): Promise<BatchLineResult[]> {
    this.reads++;
    const all = this.batches.get(status.outputFileId!.slice(4))!;
    const lines = status.state === 'expired' ? all.slice(0, 1) : all;
    return lines.map((l) => {
      const { custom_id: customId, prompt } = JSON.parse(l) as { custom_id: string; prompt: string };
      const error = this.fail(customId, this.submissions.get(customId)!);
      return error ? { customId, error } : { customId, response: { text: `answer to ${prompt}`, usage: { promptTokens: 3, completionTokens: 2 }, finishReason: 'stop' } };
    });
  }
}

/** A model with the fake provider as its batch interface (its online `generate` must never be used). */
const modelOf = (batch: BatchModel): Model => ({
  id: 'fake:m',
  endpoint: 'http://127.0.0.1:9/v1',
  batch,
  generate: async () => {
    throw new Error('online call in a batch run');
  },
});

/** A fresh store + cache + batcher + client; `rounds` records each round. */
function setup(provider: FakeProvider, over: { store?: RunStore; maxRetries?: number; limits?: { maxRequests?: number } } = {}) {
  const store = over.store ?? new RunStore(join(dir, `${++n}.db`));
  const cache = new CallCache(store.db, store);
  const rounds: BatchRoundInfo[] = [];
  const batcher = new Batcher({ ledger: () => store, cache, maxRetries: over.maxRetries ?? 2, pollMs: 1, sleep: async () => undefined, onRound: (r) => rounds.push(r), ...(over.limits ? { limits: over.limits } : {}) });
  batcher.runId = 'run-1';
  const client = new ModelClient(modelOf(provider), { cache, batcher, limiters: new EndpointLimiters(4), retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 } });
  return { store, cache, batcher, client, rounds };
}

const ask = (client: ModelClient, prompt: string): Promise<ModelResponse> => client.generate({ messages: [{ role: 'user', content: prompt }], temperature: 0, topP: 1, maxTokens: 8 });

/** Samples as the executor runs them: one lane per sample, each making `steps` chained calls. */
async function runSamples(batcher: Batcher, client: ModelClient, steps: number[]): Promise<string[][]> {
  const out: string[][] = steps.map(() => []);
  async function* items() {
    for (let i = 0; i < steps.length; i++) yield i;
  }
  await forEachConcurrent(items(), steps.length, async (i) => {
    let prev = '';
    for (let s = 0; s < steps[i]!; s++) {
      const r = await ask(client, `sample ${i} step ${s} after ${prev.length}`);
      prev = r.text;
      out[i]!.push(r.text);
      // some scoring work between calls (async): the round must wait for it
      await new Promise((r) => setTimeout(r, 2));
    }
  }, { started: () => batcher.laneStarted(), ended: () => batcher.laneEnded() });
  return out;
}

describe('Batcher', () => {
  it('flushes a round only when every sample waits: chained calls of 3, 2 and 1 steps make rounds of 3, 2 and 1 lines', async () => {
    const provider = new FakeProvider();
    const { batcher, client, rounds } = setup(provider);
    const out = await runSamples(batcher, client, [3, 2, 1]);
    expect(rounds.map((r) => r.customIds['fake:m']!.length)).toEqual([3, 2, 1]);
    expect(out.map((o) => o.length)).toEqual([3, 2, 1]);
    expect(out[0]![0]).toBe('answer to sample 0 step 0 after 0');
    expect(batcher.stats).toEqual({ rounds: 3, batches: 3, requests: 6, resumedBatches: 0, retriedLines: 0, failedLines: 0 });
    expect([...provider.submissions.values()].every((x) => x === 1)).toBe(true);
  });

  it('responses are marked batched, go into the cache, and the batches are recorded as consumed', async () => {
    const provider = new FakeProvider();
    const { store, batcher, client } = setup(provider);
    const [[first]] = await runSamples(batcher, client, [1]);
    expect(first).toBe('answer to sample 0 step 0 after 0');
    const again = await ask(client, 'sample 0 step 0 after 0');
    expect(again.cached).toBe(true);
    expect(provider.batches.size).toBe(1);
    const stored = store.batchesOfRun('run-1');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: 'b1', round: 1, model: 'fake:m', state: 'consumed', inputFileId: 'f-b1', outputFileId: 'out-b1' });
    expect(stored[0]!.customIds).toHaveLength(1);
    const fresh = setup(new FakeProvider());
    expect((await fresh.batcher.block(ask(fresh.client, 'x'))).batched).toBe(true);
  });

  it('splits a round above the per-file request limit into several batches', async () => {
    const provider = new FakeProvider(undefined, { maxRequests: 2, maxBytes: 1e9 });
    const { batcher, client, rounds } = setup(provider);
    await runSamples(batcher, client, [1, 1, 1, 1, 1]);
    expect(rounds).toHaveLength(1);
    expect(rounds[0]!.submitted).toBe(3);
    expect([...provider.batches.values()].map((l) => l.length)).toEqual([2, 2, 1]);
  });

  it('sends failed retryable lines again in the next round, and fails a line after maxRetries or at once when not retryable', async () => {
    const provider = new FakeProvider((id, nth) => {
      if (id === keyOf('sample 0 step 0 after 0') && nth === 1) return new ModelCallError('server', 'HTTP 500');
      if (id === keyOf('sample 1 step 0 after 0')) return new ModelCallError('server', 'HTTP 500 forever');
      if (id === keyOf('sample 2 step 0 after 0')) return new ModelCallError('client', 'HTTP 400');
      return undefined;
    });
    const { batcher, client, rounds } = setup(provider, { maxRetries: 2 });
    keyed = client;
    const settled = await Promise.allSettled([0, 1, 2, 3].map((i) => batcher.block(ask(client, `sample ${i} step 0 after 0`))));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason.message).toMatch(/forever/);
    expect((settled[2] as PromiseRejectedResult).reason.message).toMatch(/HTTP 400/);
    // round 1: all four; round 2: the two retryable failures; round 3: the one that keeps failing (its last try)
    expect(rounds.map((r) => r.customIds['fake:m']!.length)).toEqual([4, 2, 1]);
    expect(batcher.stats).toMatchObject({ rounds: 3, retriedLines: 3, failedLines: 2 });
  });

  it('a batch the provider failed as a whole, or that expired with lines not run: those lines go into the next round', async () => {
    const provider = new FakeProvider();
    provider.finalState = (id) => (id === 'b1' ? 'failed' : id === 'b2' ? 'expired' : 'completed');
    const { batcher, client, rounds } = setup(provider, { maxRetries: 3 });
    const out = await runSamples(batcher, client, [1, 1, 1]);
    expect(out.flat()).toHaveLength(3);
    // round 1 (b1) failed: all 3 again; round 2 (b2) expired after its first line: 2 again; round 3 completes
    expect(rounds.map((r) => r.customIds['fake:m']!.length)).toEqual([3, 3, 2]);
    expect(batcher.stats).toMatchObject({ rounds: 3, batches: 3, retriedLines: 5, failedLines: 0 });
  });

  it('after --max-retries rounds a failed batch errors its calls with the provider reason', async () => {
    const provider = new FakeProvider();
    provider.finalState = () => 'failed';
    const { batcher, client } = setup(provider, { maxRetries: 1 });
    await expect(batcher.block(ask(client, 'doomed'))).rejects.toThrow(/batch b2 of fake:m failed: input file invalid/);
    expect(batcher.stats).toMatchObject({ rounds: 2, retriedLines: 1, failedLines: 1 });
  });

  it('an interrupted run: a stored batch holding the queued calls is polled, not submitted again; once consumed it is not read again', async () => {
    const provider = new FakeProvider();
    const store = new RunStore(join(dir, `${++n}.db`));
    // the "first process" submitted a batch and died before reading it
    const first = setup(provider, { store });
    keyed = first.client;
    const lines = ['p1', 'p2'].map((p) => provider.encode({ customId: keyOf(p), request: { messages: [{ role: 'user', content: p }], temperature: 0, topP: 1, maxTokens: 8 } }));
    const fileId = await provider.upload(lines);
    const batchId = await provider.create(fileId);
    store.recordBatch({ id: batchId, runId: 'run-1', round: 1, model: 'fake:m', endpoint: 'http://127.0.0.1:9/v1', inputFileId: fileId, customIds: [keyOf('p1'), keyOf('p2')], submittedAt: new Date().toISOString() });
    // the "second process": same store, a new batcher
    const second = setup(provider, { store });
    const a = await second.batcher.block(ask(second.client, 'p1'));
    expect(a.text).toBe('answer to p1');
    expect(second.batcher.stats).toMatchObject({ batches: 0, resumedBatches: 1 });
    expect(provider.batches.size).toBe(1);
    expect([...provider.submissions.values()]).toEqual([1, 1]);
    // p2 was in the same batch: a cache hit now, and the consumed batch is not read again
    const reads = provider.reads;
    store.flush(); // what the second process commits on exit, before a third one starts
    const third = setup(provider, { store });
    const b = await ask(third.client, 'p2');
    expect(b.cached).toBe(true);
    expect(provider.reads).toBe(reads);
    expect(store.unconsumedBatches('fake:m')).toHaveLength(0);
  });
});

/** The cache key of a prompt as `ask` sends it (for scripting the provider by custom id). */
let keyed: ModelClient;
function keyOf(prompt: string): string {
  return cacheKey(keyed.inner, { messages: [{ role: 'user', content: prompt }], temperature: 0, topP: 1, maxTokens: 8 });
}

describe('Batcher: a process killed between uploading a batch file and recording the batch', () => {
  for (const createdBeforeKill of [true, false]) {
    it(`${createdBeforeKill ? 'finds the batch created from the file' : 'creates the batch from the file uploaded'}: no second upload, one submission per call`, async () => {
      const provider = new FakeProvider();
      const store = new RunStore(join(dir, `${++n}.db`));
      const first = setup(provider, { store });
      keyed = first.client;
      const request = (p: string) => ({ messages: [{ role: 'user' as const, content: p }], temperature: 0, topP: 1, maxTokens: 8 });
      const fileId = await provider.upload(['q1', 'q2'].map((p) => provider.encode({ customId: keyOf(p), request: request(p) })));
      store.recordBatch({ id: `file:${fileId}`, state: 'uploaded', runId: 'run-1', round: 1, model: 'fake:m', endpoint: 'http://127.0.0.1:9/v1', inputFileId: fileId, customIds: [keyOf('q1'), keyOf('q2')], submittedAt: new Date().toISOString() });
      if (createdBeforeKill) await provider.create(fileId);
      const second = setup(provider, { store });
      const [a, b] = await Promise.all([second.batcher.block(ask(second.client, 'q1')), second.batcher.block(ask(second.client, 'q2'))]);
      expect([a.text, b.text]).toEqual(['answer to q1', 'answer to q2']);
      expect(provider.files.size).toBe(1);
      expect(provider.batches.size).toBe(1);
      expect([...provider.submissions.values()]).toEqual([1, 1]);
      expect(second.batcher.stats).toMatchObject({ batches: 0, resumedBatches: 1 });
      expect(store.batchesOfRun('run-1').map((x) => [x.id, x.state])).toEqual([['b1', 'consumed']]);
    });
  }
});
