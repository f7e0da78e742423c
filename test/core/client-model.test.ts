/** ModelClient: cache -> endpoint limiter -> retries -> model, with fake models. */
import { describe, expect, it } from 'vitest';
import {
  EndpointLimiters,
  HptError,
  ModelCallError,
  ModelClient,
  type Model,
  type ModelRequest,
  type Sample,
} from '@hpt-bench/core';
import { cacheFactory, client, ok, POLICY, REQ, ScriptedModel } from '../helpers/scripted-model.js';

const freshCache = cacheFactory('hpt-client-');


describe('ModelClient retries', () => {
  it('retries retryable errors with backoff and then succeeds; forwards id and endpoint', async () => {
    const inner = new ScriptedModel('fake:m', [new ModelCallError('server', 'HTTP 500'), new ModelCallError('rate-limit', 'HTTP 429', { status: 429, retryAfterMs: 777 }), new ModelCallError('timeout', 't'), ok()], 'http://x/v1');
    const { c, sleeps, retries } = client(inner);
    expect(c.id).toBe('fake:m');
    expect(c.endpoint).toBe('http://x/v1');
    const r = await c.generate(REQ);
    expect(r.text).toBe('True');
    expect(r.cached).toBeUndefined();
    expect(r.latencyMs).toBe(120);
    expect(inner.calls).toBe(4);
    // full jitter with random 0.5: 50, then the server's 777 ms, then 0.5 * 400
    expect(sleeps).toEqual([50, 777, 200]);
    expect(retries.map((x) => [x.attempt, x.delayMs, x.error.kind, x.model])).toEqual([
      [1, 50, 'server', 'fake:m'],
      [2, 777, 'rate-limit', 'fake:m'],
      [3, 200, 'timeout', 'fake:m'],
    ]);
    expect(c.stats).toEqual({ calls: 1, requests: 4, cacheHits: 0, shared: 0, retries: 3, failures: 0, errors: { server: 1, 'rate-limit': 1, timeout: 1 }, cacheWriteErrors: 0 });
  });

  it('gives up after maxRetries with the last error', async () => {
    const errors = [1, 2, 3, 4, 5].map((i) => new ModelCallError('connection', `drop ${i}`));
    const inner = new ScriptedModel('fake:m', errors);
    const { c, sleeps } = client(inner);
    await expect(c.generate(REQ)).rejects.toBe(errors[3]);
    expect(inner.calls).toBe(4); // 1 + maxRetries
    expect(sleeps).toHaveLength(3);
    expect(c.stats).toMatchObject({ requests: 4, retries: 3, failures: 1, errors: { connection: 4 } });
    const none = client(new ScriptedModel('fake:m', errors), { retry: { ...POLICY, maxRetries: 0 } });
    await expect(none.c.generate(REQ)).rejects.toBe(errors[0]);
    expect(none.sleeps).toEqual([]);
  });

  it('does not retry a client error (e.g. context length) nor a non-ModelCallError such as E_AUTH', async () => {
    const bad = new ModelCallError('client', 'HTTP 400 context length');
    const inner = new ScriptedModel('fake:m', [bad, ok()]);
    const { c, sleeps } = client(inner);
    await expect(c.generate(REQ)).rejects.toBe(bad);
    expect(inner.calls).toBe(1);
    expect(sleeps).toEqual([]);

    const auth = new HptError('E_AUTH', 'HTTP 401: the API key in OPENAI_API_KEY was rejected');
    const inner2 = new ScriptedModel('fake:m', [auth, ok()]);
    const second = client(inner2);
    await expect(second.c.generate(REQ)).rejects.toBe(auth);
    expect(inner2.calls).toBe(1);
    expect(second.sleeps).toEqual([]);
    expect(second.c.stats.errors).toEqual({ other: 1 });

    const bug = new TypeError('boom');
    const inner3 = new ScriptedModel('fake:m', [bug, ok()]);
    await expect(client(inner3).c.generate(REQ)).rejects.toBe(bug);
    expect(inner3.calls).toBe(1);
  });

  it('waits outside the slot and tells the limiter about 429s', async () => {
    const limiters = new EndpointLimiters(4);
    const limiter = limiters.for('http://x/v1');
    const seen: number[] = [];
    const inner = new ScriptedModel('fake:m', [new ModelCallError('rate-limit', '429'), ok()], 'http://x/v1');
    const c = new ModelClient(inner, {
      limiters,
      retry: POLICY,
      random: () => 0,
      sleep: async () => {
        seen.push(limiter.inFlight);
      },
    });
    await c.generate(REQ);
    expect(seen).toEqual([0]); // the slot was given back before the backoff
    expect(limiter.limit).toBeCloseTo(2 + 1 / 2, 12); // halved by the 429, then one success
    expect(limiter.inFlight).toBe(0);
  });

  it('keeps at most --concurrency requests in flight per endpoint', async () => {
    const limiters = new EndpointLimiters(3);
    const a = new ScriptedModel('fake:a', [ok()], 'http://a/v1', 3);
    const b = new ScriptedModel('fake:b', [ok()], 'http://b/v1', 3);
    const ca = new ModelClient(a, { limiters, retry: POLICY });
    const cb = new ModelClient(b, { limiters, retry: POLICY });
    await Promise.all(Array.from({ length: 20 }, (_, i) => [ca.generate({ ...REQ, maxTokens: i }), cb.generate({ ...REQ, maxTokens: i })]).flat());
    expect(a.peak).toBe(3);
    expect(b.peak).toBe(3); // b had its own budget
  });
});

describe('ModelClient cache', () => {
  it('a hit makes no inner call and is marked cached with latency 0; a miss is stored', async () => {
    const cache = freshCache();
    const inner = new ScriptedModel('fake:m', [ok('Yes')], 'http://x/v1');
    const { c } = client(inner, { cache });
    const first = await c.generate(REQ);
    expect(first).toEqual({ text: 'Yes', usage: { promptTokens: 5, completionTokens: 1 }, finishReason: 'stop', latencyMs: 120 });
    const again = await c.generate({ ...REQ, messages: REQ.messages.map((m) => ({ ...m })) });
    expect(again).toEqual({ text: 'Yes', usage: { promptTokens: 5, completionTokens: 1 }, finishReason: 'stop', latencyMs: 0, cached: true });
    expect(inner.calls).toBe(1);
    // another client on the same cache (a later run) also hits
    const other = new ScriptedModel('fake:m', [ok('different')], 'http://x/v1');
    expect((await client(other, { cache }).c.generate(REQ)).text).toBe('Yes');
    expect(other.calls).toBe(0);
    // another endpoint of the same model hits too (replicas share answers); with --cache-key-endpoint it misses
    const elsewhere = new ScriptedModel('fake:m', [ok('No')], 'http://y/v1');
    expect((await client(elsewhere, { cache }).c.generate(REQ)).text).toBe('Yes');
    expect(elsewhere.calls).toBe(0);
    expect((await client(elsewhere, { cache, cacheKeyEndpoint: true }).c.generate(REQ)).text).toBe('No');
    // another setting misses
    expect((await c.generate({ ...REQ, maxTokens: 17 })).text).toBe('Yes');
    expect(inner.calls).toBe(2);
    expect(c.stats).toMatchObject({ calls: 3, requests: 2, cacheHits: 1 });
    expect(cache.stats()).toMatchObject({ entries: 3, hits: 3 });
  });

  it('never caches errors, empty outputs or refusals', async () => {
    const cache = freshCache();
    const inner = new ScriptedModel('fake:m', [new ModelCallError('client', '400'), ok(''), ok('  \n'), { ...ok('I cannot help'), finishReason: 'content_filter' }, ok('Fine')]);
    const { c } = client(inner, { cache });
    await expect(c.generate(REQ)).rejects.toThrow('400');
    expect((await c.generate(REQ)).text).toBe('');
    expect((await c.generate(REQ)).text).toBe('  \n');
    expect((await c.generate(REQ)).finishReason).toBe('content_filter');
    expect(cache.stats().entries).toBe(0);
    expect((await c.generate(REQ)).text).toBe('Fine');
    expect((await c.generate(REQ)).cached).toBe(true);
    expect(inner.calls).toBe(5);
    expect(cache.stats().entries).toBe(1);
  });

  it('stochastic calls: repeated draws of one prompt are kept apart by their coordinates; without a context they bypass the cache', async () => {
    const cache = freshCache();
    let i = 0;
    const inner: Model & { calls: number } = {
      id: 'fake:hot',
      calls: 0,
      async generate() {
        this.calls++;
        return ok(`draw ${i++}`);
      },
    };
    const { c } = client(inner, { cache });
    const sample = (replicate: number): Sample => ({ id: 's1', index: replicate, input: {}, target: true, meta: { replicate } });
    const hot = (replicate: number): ModelRequest => ({
      ...REQ,
      temperature: 0.6,
      context: { sample: sample(replicate), level: 1, strategy: 'role', purpose: 'graded', seq: 0, scorer: { id: 'x', score: () => ({ solved: false, score: 0, extracted: null }) }, scoreContext: { compat: 'strict', options: {} }, seed: 1 },
    });
    const texts = [(await c.generate(hot(0))).text, (await c.generate(hot(1))).text, (await c.generate(hot(2))).text];
    expect(new Set(texts).size).toBe(3);
    // a resumed run asks for the same draws again: all from the cache
    expect((await c.generate(hot(1))).text).toBe(texts[1]);
    expect(inner.calls).toBe(3);
    // no context at temperature > 0: never cached
    const a = await c.generate({ ...REQ, temperature: 0.6 });
    const b = await c.generate({ ...REQ, temperature: 0.6 });
    expect(a.text).not.toBe(b.text);
    expect(inner.calls).toBe(5);
    expect(cache.stats().entries).toBe(3);
  });

  it('identical calls in flight at the same time are sent once', async () => {
    const cache = freshCache();
    const inner = new ScriptedModel('fake:m', [ok('Once')], 'http://x/v1', 5);
    const { c } = client(inner, { cache });
    const results = await Promise.all(Array.from({ length: 5 }, () => c.generate(REQ)));
    expect(inner.calls).toBe(1);
    expect(results.map((r) => r.text)).toEqual(['Once', 'Once', 'Once', 'Once', 'Once']);
    expect(results.filter((r) => r.cached)).toHaveLength(4);
    expect(c.stats).toMatchObject({ requests: 1, shared: 4 });
    // an uncacheable answer is not shared: the others make their own call
    const empty = new ScriptedModel('fake:other', [ok(''), ok('B'), ok('C')], 'http://z/v1', 5);
    const ce = client(empty, { cache }).c;
    const texts = (await Promise.all([ce.generate(REQ), ce.generate(REQ), ce.generate(REQ)])).map((r) => r.text);
    expect(texts).toEqual(['', 'B', 'B']);
    expect(empty.calls).toBe(2);
  });

  it('without a cache (--no-cache) every call is sent', async () => {
    const inner = new ScriptedModel('fake:m', [ok()]);
    const { c } = client(inner);
    await c.generate(REQ);
    await c.generate(REQ);
    expect(inner.calls).toBe(2);
  });
});
