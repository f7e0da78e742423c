/** The model-call cache: key stability and sensitivity, SQLite get/put/stats/clear, what is never cached. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheable, CallCache, cacheKey, cacheKeyMaterial, RunStore, type CallContext, type ModelRequest, type ModelResponse, type Sample } from '@hpt-bench/core';
import { OpenAIChatModel } from '../../plugins/openai/src/openai.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MODEL = { id: 'openai:m', endpoint: 'http://127.0.0.1:8000/v1' };
const SAMPLE: Sample = { id: 's1', index: 0, input: { question: 'Q?' }, target: true };

function ctx(over: Partial<CallContext> = {}, sample: Sample = SAMPLE): CallContext {
  return {
    sample,
    level: 2,
    strategy: 'zero-shot-cot',
    purpose: 'graded',
    seq: 0,
    scorer: { id: 'boolean', score: () => ({ solved: true, score: 1, extracted: true }) },
    scoreContext: { compat: 'strict', options: {} },
    seed: 7,
    ...over,
  };
}

function req(over: Partial<ModelRequest> = {}): ModelRequest {
  return { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Is water wet?' }], temperature: 0, topP: 0.9, maxTokens: 64, ...over };
}

const RESPONSE: ModelResponse = { text: 'True', logprobs: [-0.1, -0.2], usage: { promptTokens: 12, completionTokens: 2 }, finishReason: 'stop', latencyMs: 812.5 };

describe('cacheKey', () => {
  it('is a stable sha256 hex of the canonical request, independent of object key order and of context at temperature 0', () => {
    const a = cacheKey(MODEL, req());
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey(MODEL, req())).toBe(a);
    // same fields, other insertion order, extra message fields ignored
    const shuffled = { maxTokens: 64, topP: 0.9, temperature: 0, messages: req().messages.map((m) => ({ content: m.content, role: m.role })) } as ModelRequest;
    expect(cacheKey({ endpoint: MODEL.endpoint, id: MODEL.id }, shuffled)).toBe(a);
    // temperature 0: where the call is made does not matter
    expect(cacheKey(MODEL, req({ context: ctx() }))).toBe(a);
    expect(cacheKey(MODEL, req({ context: ctx({ level: 4, seq: 3, purpose: 'intermediate' }) }))).toBe(a);
    expect(cacheKey(MODEL, req({ context: ctx({}, { ...SAMPLE, id: 'other', meta: { replicate: 3 } }) }))).toBe(a);
    // the exact material (format pinned: changing it silently invalidates every user's cache): by default the model
    // served and the settings, no URL
    expect(cacheKeyMaterial(MODEL, req())).toBe(
      '{"v":1,"model":"openai:m","temperature":0,"topP":0.9,"maxTokens":64,"seed":null,"logprobs":false,' +
        '"messages":[["system","Be brief."],["user","Is water wet?"]],"draw":null}',
    );
    // --cache-key-endpoint: exactly the material of the versions that always keyed by URL (their caches still hit)
    expect(cacheKeyMaterial(MODEL, req(), true)).toBe(
      '{"v":1,"model":"openai:m","endpoint":"http://127.0.0.1:8000/v1","temperature":0,"topP":0.9,"maxTokens":64,"seed":null,"logprobs":false,' +
        '"messages":[["system","Be brief."],["user","Is water wet?"]],"draw":null}',
    );
  });

  it('changes with every component of the request', () => {
    const base = cacheKey(MODEL, req());
    const variants: [string, string][] = [
      ['model id', cacheKey({ ...MODEL, id: 'openai:m2' }, req())],
      ['endpoint (--cache-key-endpoint)', cacheKey({ ...MODEL, endpoint: 'http://127.0.0.1:8001/v1' }, req(), true)],
      ['no endpoint (--cache-key-endpoint)', cacheKey({ id: MODEL.id }, req(), true)],
      ['temperature', cacheKey(MODEL, req({ temperature: 0.01 }))],
      ['topP', cacheKey(MODEL, req({ topP: 1 }))],
      ['maxTokens', cacheKey(MODEL, req({ maxTokens: 65 }))],
      ['seed', cacheKey(MODEL, req({ seed: 1 }))],
      ['seed 0 is not absent', cacheKey(MODEL, req({ seed: 0 }))],
      ['logprobs', cacheKey(MODEL, req({ logprobs: true }))],
      ['message content', cacheKey(MODEL, req({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Is water wet? ' }] }))],
      ['message role', cacheKey(MODEL, req({ messages: [{ role: 'user', content: 'Be brief.' }, { role: 'user', content: 'Is water wet?' }] }))],
      ['message split', cacheKey(MODEL, req({ messages: [{ role: 'system', content: 'Be brief.Is water wet?' }] }))],
      ['message order', cacheKey(MODEL, req({ messages: [...req().messages].reverse() }))],
    ];
    const keys = new Set([base, ...variants.map(([, k]) => k)]);
    expect(keys.size, variants.map(([n]) => n).join(', ')).toBe(variants.length + 1);
  });

  it('names the model served, not the URL: endpoints of one model share keys unless --cache-key-endpoint', () => {
    const a = { id: 'openai:m', endpoint: 'http://127.0.0.1:8000/v1' };
    const b = { id: 'openai:m', endpoint: 'http://127.0.0.1:8001/v1' };
    const spread = { id: 'openai:m', endpoint: a.endpoint, endpoints: [b.endpoint, a.endpoint] };
    const spreadOtherOrder = { ...spread, endpoints: [a.endpoint, b.endpoint] };
    for (const r of [req(), req({ temperature: 0.6, context: ctx() })]) {
      // default: one key for every endpoint list of the model (a run resumed with other replicas finds its answers)
      const k = cacheKey(a, r);
      expect(cacheKey(b, r)).toBe(k);
      expect(cacheKey(spread, r)).toBe(k);
      expect(cacheKey({ id: 'openai:m' }, r)).toBe(k);
      expect(cacheKeyMaterial(spread, r)).not.toContain('127.0.0.1');
      // the model served still counts
      expect(cacheKey({ ...a, id: 'openai:other' }, r)).not.toBe(k);
      // --cache-key-endpoint: the URL (or the sorted list of a model's endpoints) is in the key
      const ka = cacheKey(a, r, true);
      expect(cacheKey(b, r, true)).not.toBe(ka);
      expect(cacheKey(spread, r, true)).not.toBe(ka);
      expect(cacheKey(spreadOtherOrder, r, true)).toBe(cacheKey(spread, r, true));
      expect(cacheKeyMaterial(spread, r, true)).toContain('"endpoint":["http://127.0.0.1:8000/v1","http://127.0.0.1:8001/v1"]');
    }
    // the stochastic rule is the same with and without the flag: the coordinates keep draws apart, and at
    // temperature 0 they do not matter
    for (const flag of [false, true]) {
      const hot = (over: Parameters<typeof ctx>[0]) => cacheKey(a, req({ temperature: 0.6, context: ctx(over) }), flag);
      expect(hot({ seq: 1 })).not.toBe(hot({}));
      expect(hot({ level: 3 })).not.toBe(hot({}));
      expect(cacheKey(a, req({ context: ctx({ seq: 1 }) }), flag)).toBe(cacheKey(a, req({ context: ctx({}) }), flag));
    }
  });

  it('keeps repeated stochastic draws apart: sample, replicate, level, strategy, purpose, seq and run seed are part of the key at temperature > 0', () => {
    const hot = req({ temperature: 0.6, context: ctx() });
    const base = cacheKey(MODEL, hot);
    expect(cacheKey(MODEL, req({ temperature: 0.6, context: ctx() }))).toBe(base);
    // replicate 0 is the default
    expect(cacheKey(MODEL, req({ temperature: 0.6, context: ctx({}, { ...SAMPLE, meta: { replicate: 0 } }) }))).toBe(base);
    const variants = [
      cacheKey(MODEL, req({ temperature: 0.6, context: ctx({}, { ...SAMPLE, id: 's2' }) })),
      cacheKey(MODEL, req({ temperature: 0.6, context: ctx({}, { ...SAMPLE, meta: { replicate: 1 } }) })),
      cacheKey(MODEL, req({ temperature: 0.6, context: ctx({ level: 3 }) })),
      cacheKey(MODEL, req({ temperature: 0.6, context: ctx({ strategy: 'role' }) })),
      cacheKey(MODEL, req({ temperature: 0.6, context: ctx({ purpose: 'knowledge' }) })),
      cacheKey(MODEL, req({ temperature: 0.6, context: ctx({ seq: 1 }) })),
      cacheKey(MODEL, req({ temperature: 0.6, context: ctx({ seed: 8 }) })),
      cacheKey(MODEL, req({ temperature: 0.6 })),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
    // things outside the coordinates do not matter (scorer, the sample's input/target)
    expect(cacheKey(MODEL, req({ temperature: 0.6, context: ctx({ scoreContext: { compat: 'reference', options: {} } }, { ...SAMPLE, input: {}, target: false }) }))).toBe(base);
  });

  it('never contains a secret: not the API key, not credentials in the base URL', () => {
    const KEY = 'sk-test-SecretForCacheKey-123456';
    const before = process.env.HPT_CACHE_TEST_KEY;
    process.env.HPT_CACHE_TEST_KEY = KEY;
    try {
      const model = new OpenAIChatModel('gpt-x', { baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'HPT_CACHE_TEST_KEY' });
      const material = cacheKeyMaterial(model, req({ temperature: 0.6, context: ctx() }), true);
      expect(material).toContain('"endpoint":"http://127.0.0.1:9/v1"');
      expect(material).not.toContain(KEY);
      expect(material).not.toContain('SecretForCacheKey');
      const withCreds = cacheKeyMaterial({ id: 'openai:x', endpoint: 'https://alice:hunter2@proxy.example/v1?key=abc' }, req(), true);
      expect(withCreds).toContain('"endpoint":"https://proxy.example/v1"');
      expect(withCreds).not.toMatch(/alice|hunter2|abc/);
      expect(cacheKey({ id: 'openai:x', endpoint: 'https://alice:hunter2@proxy.example/v1' }, req(), true)).toBe(cacheKey({ id: 'openai:x', endpoint: 'https://proxy.example/v1' }, req(), true));
      expect(cacheKeyMaterial({ id: 'openai:x', endpoint: 'https://alice:hunter2@proxy.example/v1?key=abc' }, req())).not.toMatch(/alice|hunter2|abc|proxy/);
    } finally {
      if (before === undefined) delete process.env.HPT_CACHE_TEST_KEY;
      else process.env.HPT_CACHE_TEST_KEY = before;
    }
  });
});

describe('cacheable', () => {
  it('refuses empty outputs and refusals, accepts the rest', () => {
    expect(cacheable(RESPONSE)).toBe(true);
    expect(cacheable({ ...RESPONSE, finishReason: 'length' })).toBe(true);
    expect(cacheable({ ...RESPONSE, text: '' })).toBe(false);
    expect(cacheable({ ...RESPONSE, text: ' \n\t ' })).toBe(false);
    expect(cacheable({ ...RESPONSE, finishReason: 'content_filter' })).toBe(false);
  });
});

describe('CallCache (real SQLite file)', () => {
  it('puts, gets (counting hits, without latency), ignores a second put, and reports stats', () => {
    const path = join(dir, 'a', 'store.db');
    const store = new RunStore(path);
    const cache = new CallCache(store.db);
    const k1 = cacheKey(MODEL, req());
    const k2 = cacheKey(MODEL, req({ maxTokens: 10 }));
    const k3 = cacheKey({ id: 'baseline:oracle' }, req());
    expect(cache.get(k1)).toBeUndefined();
    cache.put(k1, MODEL.id, MODEL.endpoint, RESPONSE);
    cache.put(k2, MODEL.id, MODEL.endpoint, { text: 'False', usage: { promptTokens: 3, completionTokens: 1 }, finishReason: 'length' });
    cache.put(k3, 'baseline:oracle', undefined, { ...RESPONSE, cached: true });
    // first writer wins
    cache.put(k1, MODEL.id, MODEL.endpoint, { ...RESPONSE, text: 'changed' });
    expect(cache.get(k1)).toEqual({ text: 'True', logprobs: [-0.1, -0.2], usage: { promptTokens: 12, completionTokens: 2 }, finishReason: 'stop' });
    expect(cache.get(k1)).not.toHaveProperty('latencyMs');
    expect(cache.get(k2)).toEqual({ text: 'False', usage: { promptTokens: 3, completionTokens: 1 }, finishReason: 'length' });
    expect(cache.get(k3)).not.toHaveProperty('cached');
    const stats = cache.stats();
    expect(stats).toMatchObject({ entries: 3, hits: 4, byModel: { 'openai:m': { entries: 2, hits: 3 }, 'baseline:oracle': { entries: 1, hits: 1 } } });
    expect(stats.bytes).toBeGreaterThan(3 * 64);
    store.close();

    // persisted, readable by a new handle; the row layout is the documented one
    const db = new Database(path);
    const rows = db.prepare('SELECT key, model, endpoint, response, created_at, hits FROM call_cache ORDER BY model').all() as Record<string, unknown>[];
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ model: 'baseline:oracle', endpoint: null, hits: 1 });
    expect(rows[1]!.endpoint).toBe(MODEL.endpoint);
    expect(new Date(rows[1]!.created_at as string).toString()).not.toBe('Invalid Date');
    expect(JSON.parse(rows.find((r) => r.key === k1)!.response as string)).toEqual({ text: 'True', logprobs: [-0.1, -0.2], usage: { promptTokens: 12, completionTokens: 2 }, finishReason: 'stop' });
    const again = new CallCache(db); // CREATE TABLE IF NOT EXISTS on an existing table
    expect(again.get(k2)?.text).toBe('False');
    expect(again.clear('openai:m')).toBe(2);
    expect(again.stats()).toEqual({ entries: 1, bytes: expect.any(Number), hits: 1, byModel: { 'baseline:oracle': { entries: 1, hits: 1 } } });
    expect(again.clear('nobody')).toBe(0);
    expect(again.clear()).toBe(1);
    expect(again.stats()).toEqual({ entries: 0, bytes: 0, hits: 0, byModel: {} });
    db.close();
  });

  it('stores the endpoint without credentials', () => {
    const path = join(dir, 'creds.db');
    const store = new RunStore(path);
    const cache = new CallCache(store.db);
    cache.put('k', 'openai:x', 'https://alice:hunter2@proxy.example/v1?key=abc', RESPONSE);
    const row = store.db.prepare('SELECT endpoint FROM call_cache').get() as { endpoint: string };
    expect(row.endpoint).toBe('https://proxy.example/v1');
    store.close();
    expect(readFileSync(path).includes('hunter2')).toBe(false);
  });
});
