/**
 * Mutation-testing companions of client-model.test.ts: cases that kill the surviving mutants of
 * packages/core/src/exec/client.ts, the execution client (cache -> endpoint limiter -> retry -> model). Expected values
 * follow the documented contract of `ModelClient` (class doc, `ModelClientStats`, `ModelClientOptions`) and
 * `retryDelayMs` (bound = min(maxDelayMs, baseDelayMs * 2^attempt), wait = random() * bound), computed by hand.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  EndpointLimiters,
  HptError,
  ModelCallError,
  ModelClient,
  type Model,
  type ModelResponse,
} from '@hpt-bench/core';
import { cacheFactory, client, ok, POLICY, REQ, ScriptedModel } from '../helpers/scripted-model.js';

const freshCache = cacheFactory('hpt-client-mut-');

/** Limiters that record which endpoint was asked for and how each slot was released. */
function recordingLimiters() {
  const endpoints: (string | undefined)[] = [];
  const outcomes: string[] = [];
  const limiters = {
    for(endpoint: string | undefined) {
      endpoints.push(endpoint);
      return {
        acquire: async () => (outcome: string) => {
          outcomes.push(outcome);
        },
      };
    },
  } as unknown as EndpointLimiters;
  return { limiters, endpoints, outcomes };
}


describe('ModelClient: identity and options', () => {
  it('has the inner model id; no endpoint property when the inner model has none', () => {
    const c = new ModelClient(new ScriptedModel('fake:local', [ok()]), { limiters: new EndpointLimiters(1), retry: POLICY });
    expect(c.id).toBe('fake:local');
    expect(c.endpoint).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(c, 'endpoint')).toBe(false);
  });

  it('uses the injected random() for the backoff: random 1 waits the full bound, 0.25 a quarter', async () => {
    const errs = [new ModelCallError('server', '500'), new ModelCallError('server', '500'), new ModelCallError('server', '500'), ok()];
    const full = client(new ScriptedModel('fake:m', errs), { random: () => 1 });
    await full.c.generate(REQ);
    // bound = min(1000, 100 * 2^attempt) for attempts 0, 1, 2
    expect(full.sleeps).toEqual([100, 200, 400]);
    const quarter = client(new ScriptedModel('fake:m', errs), { random: () => 0.25 });
    await quarter.c.generate(REQ);
    expect(quarter.sleeps).toEqual([25, 50, 100]);
  });

  it('tells onRetry the model id, the 1-based retry number, the wait and the error before each wait', async () => {
    const e1 = new ModelCallError('timeout', 't1');
    const e2 = new ModelCallError('connection', 'c2');
    const { c, retries, sleeps } = client(new ScriptedModel('fake:m', [e1, e2, ok()]), { random: () => 1 });
    await c.generate(REQ);
    expect(retries).toEqual([
      { model: 'fake:m', attempt: 1, delayMs: 100, error: e1 },
      { model: 'fake:m', attempt: 2, delayMs: 200, error: e2 },
    ]);
    expect(sleeps).toEqual([100, 200]);
  });

  it('retries without an onRetry callback', async () => {
    const inner = new ScriptedModel('fake:m', [new ModelCallError('server', '500'), ok('Late')]);
    const sleeps: number[] = [];
    const c = new ModelClient(inner, { limiters: new EndpointLimiters(1), retry: POLICY, random: () => 0, sleep: async (ms) => void sleeps.push(ms) });
    expect((await c.generate(REQ)).text).toBe('Late');
    expect(inner.calls).toBe(2);
    expect(sleeps).toEqual([0]);
  });

  it('the default sleep really waits the backoff (a retry-after hint of 80 ms)', async () => {
    const inner = new ScriptedModel('fake:m', [new ModelCallError('rate-limit', '429', { status: 429, retryAfterMs: 80 }), ok()]);
    const c = new ModelClient(inner, { limiters: new EndpointLimiters(1), retry: POLICY });
    const t0 = performance.now();
    await c.generate(REQ);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(70);
    expect(inner.calls).toBe(2);
  });
});

describe('ModelClient: the limiter slot', () => {
  it('asks the limiter of the inner model endpoint and releases ok / rate-limited / error per request', async () => {
    const { limiters, endpoints, outcomes } = recordingLimiters();
    const script = [new ModelCallError('rate-limit', '429'), new ModelCallError('server', '500'), new ModelCallError('timeout', 't'), ok()];
    const c = new ModelClient(new ScriptedModel('fake:m', script, 'http://e/v1'), { limiters, retry: POLICY, random: () => 0, sleep: async () => {} });
    await c.generate(REQ);
    expect(outcomes).toEqual(['rate-limited', 'error', 'error', 'ok']);
    expect(new Set(endpoints)).toEqual(new Set(['http://e/v1']));
  });

  it('a non-ModelCallError is released as error, even when it carries kind "rate-limit"', async () => {
    const { limiters, outcomes } = recordingLimiters();
    const fake = Object.assign(new Error('looks like a 429'), { kind: 'rate-limit' });
    const c = new ModelClient(new ScriptedModel('fake:m', [fake]), { limiters, retry: POLICY, sleep: async () => {} });
    await expect(c.generate(REQ)).rejects.toBe(fake);
    expect(outcomes).toEqual(['error']);
  });

  it('a response over the byte cap was a successful request for the limiter (ok) but fails the call', async () => {
    const { limiters, outcomes } = recordingLimiters();
    const c = new ModelClient(new ScriptedModel('fake:m', [ok('x'.repeat(11))]), { limiters, retry: POLICY, maxResponseBytes: 10, sleep: async () => {} });
    await expect(c.generate(REQ)).rejects.toMatchObject({ code: 'E_MODEL_CALL', kind: 'client' });
    expect(outcomes).toEqual(['ok']);
  });
});

describe('ModelClient: response checks (maxResponseBytes, text type)', () => {
  it('a completion of exactly maxResponseBytes UTF-8 bytes passes; one byte more fails with E_MODEL_CALL client', async () => {
    // "€" is 3 UTF-8 bytes: 4 of them are 12 bytes in 4 UTF-16 units
    const fits = client(new ScriptedModel('fake:m', [ok('€€€€')]), { maxResponseBytes: 12 });
    expect((await fits.c.generate(REQ)).text).toBe('€€€€');
    const over = client(new ScriptedModel('fake:m', [ok('€€€€a')]), { maxResponseBytes: 12 });
    await expect(over.c.generate(REQ)).rejects.toMatchObject({ code: 'E_MODEL_CALL', kind: 'client', retryable: false, message: expect.stringMatching(/larger than 12 bytes.*13 bytes from model fake:m/) });
    expect(over.sleeps).toEqual([]);
    expect(over.c.stats).toMatchObject({ requests: 1, failures: 1, retries: 0, errors: { client: 1 } });
  });

  it('ASCII text: 10 bytes fit a cap of 10, 11 do not (the fast path must not skip the count)', async () => {
    await expect(client(new ScriptedModel('fake:m', [ok('x'.repeat(10))]), { maxResponseBytes: 10 }).c.generate(REQ)).resolves.toMatchObject({ text: 'x'.repeat(10) });
    await expect(client(new ScriptedModel('fake:m', [ok('x'.repeat(11))]), { maxResponseBytes: 10 }).c.generate(REQ)).rejects.toMatchObject({ kind: 'client' });
    // a 4-byte character (2 UTF-16 units): 3 of them are 12 bytes
    await expect(client(new ScriptedModel('fake:m', [ok('😀😀😀')]), { maxResponseBytes: 11 }).c.generate(REQ)).rejects.toMatchObject({ kind: 'client' });
    await expect(client(new ScriptedModel('fake:m', [ok('😀😀😀')]), { maxResponseBytes: 12 }).c.generate(REQ)).resolves.toMatchObject({ text: '😀😀😀' });
  });

  it('without maxResponseBytes any length passes; the documented default is 4 MiB', async () => {
    const big = 'y'.repeat(100_000);
    expect((await client(new ScriptedModel('fake:m', [ok(big)])).c.generate(REQ)).text).toBe(big);
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(4 * 1024 * 1024);
  });

  it('a non-string text fails as a non-retryable client error naming its type, counted as a failure', async () => {
    for (const [text, type] of [[undefined, 'undefined'], [['a'], 'object'], [7, 'number']] as const) {
      const { c, sleeps } = client(new ScriptedModel('fake:m', [{ ...ok(), text } as unknown as ModelResponse]));
      await expect(c.generate(REQ)).rejects.toMatchObject({ code: 'E_MODEL_CALL', kind: 'client', message: `model fake:m returned a ${type} instead of a text completion` });
      expect(sleeps).toEqual([]);
      expect(c.stats).toMatchObject({ failures: 1, errors: { client: 1 } });
    }
  });
});

describe('ModelClient: stats', () => {
  it('counts every kind of error separately and other (non-ModelCallError) errors as "other"', async () => {
    const script = [new ModelCallError('server', '500'), new ModelCallError('server', '502'), new ModelCallError('timeout', 't'), ok()];
    const { c } = client(new ScriptedModel('fake:m', script));
    await c.generate(REQ);
    expect(c.stats).toEqual({ calls: 1, requests: 4, cacheHits: 0, shared: 0, retries: 3, failures: 0, errors: { server: 2, timeout: 1 }, cacheWriteErrors: 0 });
    const auth = client(new ScriptedModel('fake:m', [new HptError('E_AUTH', 'no key')]));
    await expect(auth.c.generate(REQ)).rejects.toMatchObject({ code: 'E_AUTH' });
    await expect(auth.c.generate(REQ)).rejects.toMatchObject({ code: 'E_AUTH' });
    expect(auth.c.stats).toEqual({ calls: 2, requests: 2, cacheHits: 0, shared: 0, retries: 0, failures: 2, errors: { other: 2 }, cacheWriteErrors: 0 });
  });

  it('a fresh client has all counters at zero', () => {
    const { c } = client(new ScriptedModel('fake:m', [ok()]));
    expect(c.stats).toEqual({ calls: 0, requests: 0, cacheHits: 0, shared: 0, retries: 0, failures: 0, errors: {}, cacheWriteErrors: 0 });
  });

  it('stats is a snapshot: changing it does not change the counters', async () => {
    const { c } = client(new ScriptedModel('fake:m', [new ModelCallError('server', '500'), ok()]));
    await c.generate(REQ);
    const snap = c.stats;
    snap.calls = 99;
    snap.errors.server = 99;
    expect(c.stats.calls).toBe(1);
    expect(c.stats.errors).toEqual({ server: 1 });
  });
});

describe('ModelClient: cache', () => {
  it('a hit is counted and returned with cached: true and latency 0, not as the stored latency', async () => {
    const cache = freshCache();
    const { c } = client(new ScriptedModel('fake:m', [ok('Yes')]), { cache });
    await c.generate(REQ);
    const hit = await c.generate(REQ);
    expect(hit).toMatchObject({ text: 'Yes', cached: true, latencyMs: 0 });
    expect(c.stats).toMatchObject({ calls: 2, requests: 1, cacheHits: 1, shared: 0 });
  });

  it('a deterministic request without context is cached; a stochastic one with a context is cached too', async () => {
    const cache = freshCache();
    let i = 0;
    const inner: Model = { id: 'fake:n', generate: async () => ok(`draw ${i++}`) };
    const { c } = client(inner, { cache });
    expect((await c.generate(REQ)).text).toBe('draw 0');
    expect((await c.generate(REQ)).text).toBe('draw 0');
    expect(c.stats.cacheHits).toBe(1);
    // temperature > 0 without a context: bypasses the cache (every call sent, nothing stored)
    expect((await c.generate({ ...REQ, temperature: 0.7 })).text).toBe('draw 1');
    expect((await c.generate({ ...REQ, temperature: 0.7 })).text).toBe('draw 2');
    expect(cache.stats().entries).toBe(1);
  });

  it('identical calls in flight share one request: the waiters get cached: true, latency 0 and count as shared', async () => {
    const cache = freshCache();
    const inner = new ScriptedModel('fake:m', [ok('Once')], undefined, 5);
    const { c } = client(inner, { cache });
    const [a, b] = await Promise.all([c.generate(REQ), c.generate(REQ)]);
    expect(a).toEqual(ok('Once'));
    expect(b).toEqual({ ...ok('Once'), cached: true, latencyMs: 0 });
    expect(c.stats).toMatchObject({ calls: 2, requests: 1, shared: 1, cacheHits: 0 });
  });

  it('when the shared call fails, a waiter makes its own call (and the key is free again afterwards)', async () => {
    const cache = freshCache();
    const boom = new ModelCallError('client', 'HTTP 400');
    const inner = new ScriptedModel('fake:m', [boom, ok('Second')], undefined, 5);
    const { c } = client(inner, { cache });
    const [first, second] = await Promise.allSettled([c.generate(REQ), c.generate(REQ)]);
    expect(first).toEqual({ status: 'rejected', reason: boom });
    expect(second).toEqual({ status: 'fulfilled', value: ok('Second') });
    expect(inner.calls).toBe(2);
    // the answer is now cached
    expect(await c.generate(REQ)).toMatchObject({ text: 'Second', cached: true });
    expect(inner.calls).toBe(2);
  });

  it('after an uncacheable answer the next identical call is sent again (no stale in-flight entry)', async () => {
    const cache = freshCache();
    const inner = new ScriptedModel('fake:m', [ok(''), ok('Now')]);
    const { c } = client(inner, { cache });
    expect((await c.generate(REQ)).text).toBe('');
    expect((await c.generate(REQ)).text).toBe('Now');
    expect(inner.calls).toBe(2);
  });
});
