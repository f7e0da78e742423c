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
  isHptError,
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
  /** what the output file makes of the lines of a batch (default: as they are); `nth` is each line's submission */
  mangle: (results: BatchLineResult[], nth: (customId: string) => number) => BatchLineResult[] = (r) => r;
  async results(status: BatchStatus): Promise<BatchLineResult[]> {
    this.reads++;
    const all = this.batches.get(status.outputFileId!.slice(4))!;
    const lines = status.state === 'expired' ? all.slice(0, 1) : all;
    const results: BatchLineResult[] = lines.map((l) => {
      const { custom_id: customId, prompt } = JSON.parse(l) as { custom_id: string; prompt: string };
      const error = this.fail(customId, this.submissions.get(customId)!);
      return error ? { customId, error } : { customId, response: { text: `answer to ${prompt}`, usage: { promptTokens: 3, completionTokens: 2 }, finishReason: 'stop' } };
    });
    return this.mangle(results, (c) => this.submissions.get(c)!);
  }
}

/** A model with the fake provider as its batch interface (its online `generate` must never be used), at `endpoint`. */
const modelOf = (batch: BatchModel, endpoint = 'http://127.0.0.1:9/v1'): Model => ({
  id: 'fake:m',
  endpoint,
  batch,
  generate: async () => {
    throw new Error('online call in a batch run');
  },
});

/** A fresh store + cache + batcher + client; `rounds` records each round. */
function setup(provider: FakeProvider, over: { store?: RunStore; maxRetries?: number; limits?: { maxRequests?: number }; endpoint?: string; runId?: string } = {}) {
  const store = over.store ?? new RunStore(join(dir, `${++n}.db`));
  const cache = new CallCache(store.db, store);
  const rounds: BatchRoundInfo[] = [];
  const warnings: string[] = [];
  const logger = { info: () => undefined, warn: (m: string) => void warnings.push(m), debug: () => undefined };
  const batcher = new Batcher({ ledger: () => store, cache, maxRetries: over.maxRetries ?? 2, pollMs: 1, sleep: async () => undefined, onRound: (r) => rounds.push(r), logger, ...(over.limits ? { limits: over.limits } : {}) });
  batcher.runId = over.runId ?? 'run-1';
  const client = new ModelClient(modelOf(provider, over.endpoint), { cache, batcher, limiters: new EndpointLimiters(4), retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 } });
  return { store, cache, batcher, client, rounds, warnings };
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

describe('Batcher: untrusted output files (issue 25)', () => {
  const answer = (id: string, text: string): BatchLineResult => ({ customId: id, response: { text, usage: { promptTokens: 3, completionTokens: 2 }, finishReason: 'stop' } });

  it('identical lines of one call count once; different ones are a fault of that call: sent again with a warning, and the clean answer is the one used and cached', async () => {
    const provider = new FakeProvider();
    const { batcher, client, store, warnings } = setup(provider);
    keyed = client;
    const [twice, conflicting] = [keyOf('twice'), keyOf('conflicting')];
    // first submission: `twice` written twice alike; `conflicting` answered, then answered otherwise after it
    provider.mangle = (results, nth) =>
      results.flatMap((r) => (r.customId === twice ? [r, { ...r }] : r.customId === conflicting && nth(r.customId) === 1 ? [r, answer(r.customId, 'something else')] : [r]));
    const [a, b] = await Promise.all([batcher.block(ask(client, 'twice')), batcher.block(ask(client, 'conflicting'))]);
    expect([a.text, b.text]).toEqual(['answer to twice', 'answer to conflicting']);
    expect(Object.fromEntries(provider.submissions)).toEqual({ [twice]: 1, [conflicting]: 2 });
    expect(batcher.stats).toMatchObject({ rounds: 2, retriedLines: 1, failedLines: 0 });
    expect(warnings.join('\n')).toMatch(new RegExp(`batch b1 of fake:m at http://127.0.0.1:9/v1 returned 2 different results for call ${conflicting}; it is sent again in the next round`));
    // nothing of the conflicting lines was cached: the answer in the cache is the one of the clean round
    store.flush();
    expect((await ask(client, 'conflicting')).text).toBe('answer to conflicting');
  });

  it('a call whose lines keep conflicting fails after maxRetries rounds with the reason; an error line and an answer for one call conflict too', async () => {
    const provider = new FakeProvider();
    const { batcher, client } = setup(provider, { maxRetries: 1 });
    keyed = client;
    const [always, mixed] = [keyOf('always'), keyOf('mixed')];
    provider.mangle = (results, nth) =>
      results.flatMap((r) => (r.customId === always ? [r, answer(r.customId, `other ${nth(r.customId)}`)] : r.customId === mixed && nth(r.customId) === 1 ? [{ customId: mixed, error: new ModelCallError('server', 'HTTP 500') }, r] : [r]));
    const settled = await Promise.allSettled([batcher.block(ask(client, 'always')), batcher.block(ask(client, 'mixed'))]);
    expect(settled[0]!.status).toBe('rejected');
    expect((settled[0] as PromiseRejectedResult).reason.message).toMatch(new RegExp(`batch b2 of fake:m at http://127.0.0.1:9/v1 returned 2 different results for call ${always}`));
    expect(settled[1]).toMatchObject({ status: 'fulfilled', value: { text: 'answer to mixed' } });
    expect(Object.fromEntries(provider.submissions)).toEqual({ [always]: 2, [mixed]: 2 });
    expect(batcher.stats).toMatchObject({ rounds: 2, retriedLines: 2, failedLines: 1 });
  });

  it('a completed batch without a line for a call (missing or unreadable): that call is sent again; lines of calls the batch does not hold are ignored, never cached', async () => {
    const provider = new FakeProvider();
    const { batcher, client, warnings, cache } = setup(provider);
    keyed = client;
    const [kept, dropped] = [keyOf('kept'), keyOf('dropped')];
    provider.mangle = (results, nth) => [...results.filter((r) => r.customId !== dropped || nth(dropped) > 1), answer('stranger', 'not ours')];
    const [a, b] = await Promise.all([batcher.block(ask(client, 'kept')), batcher.block(ask(client, 'dropped'))]);
    expect([a.text, b.text]).toEqual(['answer to kept', 'answer to dropped']);
    expect(Object.fromEntries(provider.submissions)).toEqual({ [kept]: 1, [dropped]: 2 });
    expect(batcher.stats).toMatchObject({ rounds: 2, retriedLines: 1, failedLines: 0 });
    expect(warnings.join('\n')).toMatch(/batch b1 of fake:m at \S+: 1 of its 2 calls have no readable result line; it is sent again/);
    expect(warnings.join('\n')).toMatch(/returned 1 line for calls it does not hold; ignored/);
    expect(cache.get('stranger')).toBeUndefined();
  });
});

describe('Batcher: batches are known by endpoint and id (issue 25)', () => {
  const request = (p: string) => ({ messages: [{ role: 'user' as const, content: p }], temperature: 0, topP: 1, maxTokens: 8 });

  it('a run resumed at another endpoint while its batch is in flight is refused with one line naming that endpoint, before anything is uploaded; resumed there, the batch is polled', async () => {
    const there = new FakeProvider();
    const store = new RunStore(join(dir, `${++n}.db`));
    const first = setup(there, { store, endpoint: 'http://gateway-a:8000/v1' });
    keyed = first.client;
    const fileId = await there.upload(['r1', 'r2'].map((p) => there.encode({ customId: keyOf(p), request: request(p) })));
    const batchId = await there.create(fileId);
    store.recordBatch({ id: batchId, runId: 'run-1', round: 1, model: 'fake:m', endpoint: 'http://gateway-a:8000/v1', inputFileId: fileId, customIds: [keyOf('r1'), keyOf('r2')], submittedAt: new Date().toISOString() });
    const here = new FakeProvider();
    const moved = setup(here, { store, endpoint: 'http://gateway-b:8000/v1' });
    let caught: unknown;
    try {
      await moved.batcher.block(ask(moved.client, 'r1'));
    } catch (e) {
      caught = e;
    }
    expect(isHptError(caught) && [caught.code, caught.exitCode]).toEqual(['E_CONFIG', 2]);
    expect((caught as Error).message).toBe(
      'run run-1 has batch b1 in flight at http://gateway-a:8000/v1 (1 call of fake:m), but its endpoint is now http://gateway-b:8000/v1: run the same command with --base-url http://gateway-a:8000/v1 to collect the batch (already paid for), or with --new to submit its calls again at http://gateway-b:8000/v1',
    );
    expect([here.files.size, here.batches.size]).toEqual([0, 0]);
    expect(store.unconsumedBatches('fake:m').map((b) => [b.endpoint, b.id, b.state])).toEqual([['http://gateway-a:8000/v1', 'b1', 'submitted']]);
    // another run (--new) at the new endpoint is not refused: it submits the calls there
    const other = setup(here, { store, endpoint: 'http://gateway-b:8000/v1', runId: 'run-2' });
    expect((await other.batcher.block(ask(other.client, 'r1'))).text).toBe('answer to r1');
    expect(here.batches.size).toBe(1);
    // the run resumed at its endpoint polls its batch there
    const back = setup(there, { store, endpoint: 'http://gateway-a:8000/v1' });
    expect((await back.batcher.block(ask(back.client, 'r2'))).text).toBe('answer to r2');
    expect(back.batcher.stats).toMatchObject({ batches: 0, resumedBatches: 1 });
    expect([...there.submissions.values()]).toEqual([1, 1]);
  });

  it('two endpoints giving the same batch ids, and an endpoint giving an id again after a restart, keep every batch; a forgotten unread batch is lost and its calls are submitted again', async () => {
    const store = new RunStore(join(dir, `${++n}.db`));
    const a = new FakeProvider();
    const b = new FakeProvider();
    const onA = setup(a, { store, endpoint: 'http://gateway-a:8000/v1' });
    const onB = setup(b, { store, endpoint: 'http://gateway-b:8000/v1', runId: 'run-2' });
    keyed = onA.client;
    await onA.batcher.block(ask(onA.client, 's1'));
    await onB.batcher.block(ask(onB.client, 's2'));
    store.flush();
    expect(store.batchesOfRun('run-1').map((x) => [x.endpoint, x.id, x.state])).toEqual([['http://gateway-a:8000/v1', 'b1', 'consumed']]);
    expect(store.batchesOfRun('run-2').map((x) => [x.endpoint, x.id, x.state])).toEqual([['http://gateway-b:8000/v1', 'b1', 'consumed']]);
    // run 3 submitted batch b2 at gateway A and died before reading it; gateway A restarts without its state
    const doomed = await a.upload([a.encode({ customId: keyOf('s3'), request: request('s3') })]);
    store.recordBatch({ id: await a.create(doomed), runId: 'run-3', round: 1, model: 'fake:m', endpoint: 'http://gateway-a:8000/v1', inputFileId: doomed, customIds: [keyOf('s3')], submittedAt: '2000-01-01T00:00:00.000Z' });
    const restarted = new FakeProvider();
    const again = setup(restarted, { store, endpoint: 'http://gateway-a:8000/v1', runId: 'run-4' });
    // its new batches get ids b1 and b2 again: b1 was read (kept as history), b2 was not (lost: its call goes out again)
    await again.batcher.block(ask(again.client, 's4'));
    await again.batcher.block(ask(again.client, 's5'));
    store.flush();
    expect(store.batchesOfRun('run-4').map((x) => [x.endpoint, x.id, x.state])).toEqual([
      ['http://gateway-a:8000/v1', 'b1', 'consumed'],
      ['http://gateway-a:8000/v1', 'b2', 'consumed'],
    ]);
    expect(store.batchesOfRun('run-1').map((x) => [x.id, x.state])).toEqual([[`b1@${store.batchesOfRun('run-1')[0]!.submittedAt}`, 'consumed']]);
    expect(store.batchesOfRun('run-3').map((x) => [x.id, x.state])).toEqual([['b2@2000-01-01T00:00:00.000Z', 'lost']]);
    expect(store.unconsumedBatches('fake:m')).toEqual([]);
    const resumed = setup(restarted, { store, endpoint: 'http://gateway-a:8000/v1', runId: 'run-3' });
    expect((await resumed.batcher.block(ask(resumed.client, 's3'))).text).toBe('answer to s3');
    expect(resumed.batcher.stats).toMatchObject({ batches: 1, resumedBatches: 0 });
  });
});

describe('Batcher: batches the endpoint no longer has (issue 25)', () => {
  it('a recorded batch the endpoint does not know (404) is marked lost and its calls are submitted again', async () => {
    const provider = new FakeProvider();
    const store = new RunStore(join(dir, `${++n}.db`));
    const first = setup(provider, { store });
    keyed = first.client;
    store.recordBatch({ id: 'b-forgotten', runId: 'run-1', round: 1, model: 'fake:m', endpoint: 'http://127.0.0.1:9/v1', inputFileId: 'f-old', customIds: [keyOf('g1')], submittedAt: '2000-01-01T00:00:00.000Z' });
    const status = provider.status.bind(provider);
    provider.status = async (id) => {
      if (id === 'b-forgotten') throw new ModelCallError('client', 'http://127.0.0.1:9/v1 has no batch b-forgotten (HTTP 404)', { status: 404 });
      return status(id);
    };
    const second = setup(provider, { store });
    expect((await second.batcher.block(ask(second.client, 'g1'))).text).toBe('answer to g1');
    expect(second.batcher.stats).toMatchObject({ rounds: 2, batches: 1, resumedBatches: 1, retriedLines: 1, failedLines: 0 });
    expect(second.warnings.join('\n')).toMatch(/batch b-forgotten of fake:m is gone: .*HTTP 404.*; its 1 call is sent again in the next round/);
    expect(store.batchesOfRun('run-1').map((b) => [b.id, b.state])).toEqual([['b-forgotten', 'lost'], ['b1', 'consumed']]);
  });

  it('a batch uploaded by an interrupted run whose file the endpoint refuses is given up: its calls are uploaded again, once', async () => {
    const provider = new FakeProvider();
    const store = new RunStore(join(dir, `${++n}.db`));
    const first = setup(provider, { store });
    keyed = first.client;
    store.recordBatch({ id: 'file:f-gone', state: 'uploaded', runId: 'run-1', round: 1, model: 'fake:m', endpoint: 'http://127.0.0.1:9/v1', inputFileId: 'f-gone', customIds: [keyOf('u1'), keyOf('u2')], submittedAt: '2000-01-01T00:00:00.000Z' });
    const create = provider.create.bind(provider);
    provider.create = async (fileId) => {
      if (!provider.files.has(fileId)) throw new ModelCallError('client', `HTTP 400: no file ${fileId}`, { status: 400 });
      return create(fileId);
    };
    const second = setup(provider, { store });
    const [a, b] = await Promise.all([second.batcher.block(ask(second.client, 'u1')), second.batcher.block(ask(second.client, 'u2'))]);
    expect([a.text, b.text]).toEqual(['answer to u1', 'answer to u2']);
    expect(second.batcher.stats).toMatchObject({ rounds: 1, batches: 1, resumedBatches: 0, retriedLines: 0 });
    expect([...provider.submissions.values()]).toEqual([1, 1]);
    expect(second.warnings.join('\n')).toMatch(/uploaded as file f-gone to http:\/\/127.0.0.1:9\/v1 by an interrupted run cannot be created \(HTTP 400: no file f-gone\); its calls are uploaded again/);
    expect(store.batchesOfRun('run-1').map((x) => [x.id, x.state])).toEqual([['file:f-gone', 'lost'], ['b1', 'consumed']]);
  });
});
