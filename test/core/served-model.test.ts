/**
 * The served-model check (issue 25, item 5): the rule (`servesModel`, `askedModelName`), an `EndpointSpread` draining a
 * replica that answers for another model, a `ModelClient` over one such endpoint ending the run without caching, and the
 * OpenAI plugin reading a body's `model` (online and batch lines). Fake models (ScriptedModel), a hand-moved clock and
 * real SQLite caches.
 */
import { describe, expect, it } from 'vitest';
import { askedModelName, EndpointSpread, HptError, isHptError, isModelCallError, type Model, ModelCallError, type ModelResponse, servesModel, shownModelName } from '@hpt-bench/core';
import { parseBatchLine } from '../../plugins/openai/src/batch.js';
import { completionFromBody } from '../../plugins/openai/src/response.js';
import { cacheFactory, client, ok, REQ, ScriptedModel } from '../helpers/scripted-model.js';

const freshCache = cacheFactory('hpt-served-model-');

/** `ok(text)` reported as served by `model` (absent: no `model` field). */
const answer = (text: string, model?: string): ModelResponse => ({ ...ok(text), ...(model === undefined ? {} : { model }) });

/** A clock the test moves by hand (ms). */
function clock(): { now: () => number; advance(ms: number): void } {
  let t = 1000;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('servesModel: the rule', () => {
  it('accepts no name, the same name (letter case aside) and dated snapshots of it', () => {
    for (const [asked, served] of [
      ['m', undefined],
      ['m', ''],
      ['gpt-4o-mini', 'gpt-4o-mini'],
      ['gpt-4o-mini', 'GPT-4o-Mini'],
      ['gpt-4o-mini', 'gpt-4o-mini-2024-07-18'],
      ['gpt-4', 'gpt-4-0613'],
      ['gpt-3.5-turbo', 'gpt-3.5-turbo-0125'],
      ['claude-3-5-sonnet', 'claude-3-5-sonnet-20241022'],
      ['claude-3-5-sonnet-latest', 'claude-3-5-sonnet-20241022'],
      ['claude-3-5-sonnet-latest', 'claude-3-5-sonnet-latest'],
      ['gpt-4o-2024-08-06', 'gpt-4o-2024-08-06'],
      ['meta-llama/Meta-Llama-3-8B-Instruct', 'meta-llama/Meta-Llama-3-8B-Instruct'],
    ] as const) {
      expect([asked, served, servesModel(asked, served)]).toEqual([asked, served, true]);
    }
  });

  it('refuses another model, another date, a suffix that is no date, and an organisation prefix added or dropped', () => {
    for (const [asked, served] of [
      ['m', 'other-model'],
      ['gpt-4o', 'gpt-4o-mini'],
      ['gpt-4o', 'gpt-4o-mini-2024-07-18'],
      ['gpt-4', 'gpt-4o'],
      ['gpt-4o-2024-08-06', 'gpt-4o-2024-11-20'],
      ['gpt-4o', 'gpt-4o-2024-13-01'], // no month 13
      ['gpt-4o', 'gpt-4o-2024-12-32'],
      ['gpt-4', 'gpt-4-1300'],
      ['gpt-4', 'gpt-4-0000'],
      ['gpt-4o', 'gpt-4o-1999-01-01'],
      ['gpt-4o', 'gpt-4o-2024-07-18-preview'],
      ['gpt-4o', 'gpt-4o2024-07-18'],
      ['Llama-3-8B', 'meta-llama/Llama-3-8B'],
      ['meta-llama/Llama-3-8B', 'Llama-3-8B'],
      ['llama3', '/models/llama3.Q4_K_M.gguf'],
      ['m-latest', 'other-20241022'],
      ['m', 'm-latest'],
    ] as const) {
      expect([asked, served, servesModel(asked, served)]).toEqual([asked, served, false]);
    }
  });

  it('asks for the model id without its plugin prefix; shows a served name without control characters, at most 200 characters', () => {
    expect(askedModelName('openai:gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(askedModelName('openai:meta-llama/Llama-3:8b')).toBe('meta-llama/Llama-3:8b');
    expect(askedModelName('plain')).toBe('plain');
    expect(shownModelName('evil\u001b[31mname\n')).toBe('evil [31mname ');
    expect(shownModelName('x'.repeat(300))).toBe(`${'x'.repeat(200)}…`);
  });
});

describe('EndpointSpread: a replica that serves another model', () => {
  it('is drained at its first answer, which goes to another replica instead; it is never picked or probed again', async () => {
    const t = clock();
    const liar = new ScriptedModel('openai:m', [answer('wrong', 'other-model')], 'http://liar/v1');
    const honest = new ScriptedModel('openai:m', [answer('right', 'm')], 'http://honest/v1');
    const spread = new EndpointSpread([liar, honest], { now: t.now, breaker: { coolDownMs: 1000, maxCoolDownMs: 1000 } });
    // the liar is first in the rotation: its answer is refused and the call answered by the honest replica
    expect((await spread.generate(REQ)).text).toBe('right');
    expect(liar.calls).toBe(1);
    for (let i = 0; i < 6; i++) {
      t.advance(10_000); // far past any cool-down: still no probe
      expect((await spread.generate(REQ)).text).toBe('right');
    }
    expect(liar.calls).toBe(1);
    expect(honest.calls).toBe(7);
    expect(spread.stats()).toEqual([
      { endpoint: 'http://liar/v1', calls: 1, errors: 1, meanLatencyMs: 0, state: 'open', servedModel: 'other-model', reason: 'serves model other-model, not m' },
      { endpoint: 'http://honest/v1', calls: 7, errors: 0, meanLatencyMs: 0, state: 'closed' },
    ]);
  });

  it('answers in flight when it is drained are refused too (each sent on to another replica)', async () => {
    const liar = new ScriptedModel('openai:m', [answer('wrong', 'other-model')], 'http://liar/v1', 5);
    const honest = new ScriptedModel('openai:m', [answer('right')], 'http://honest/v1', 20);
    const spread = new EndpointSpread([liar, honest]);
    const texts = await Promise.all(Array.from({ length: 6 }, () => spread.generate(REQ)));
    expect(texts.map((r) => r.text)).toEqual(Array(6).fill('right'));
    expect(liar.calls).toBeGreaterThan(1);
    expect(spread.stats()[0]).toMatchObject({ calls: liar.calls, errors: liar.calls, state: 'open', servedModel: 'other-model' });
    expect(spread.stats()[1]).toMatchObject({ calls: 6, errors: 0, state: 'closed' });
  });

  it('every replica serving another model: HptError E_ENDPOINT naming each endpoint and model, and no request after', async () => {
    const a = new ScriptedModel('openai:m', [answer('x', 'other-model')], 'http://a/v1');
    const b = new ScriptedModel('openai:m', [answer('y', 'third\u0007model')], 'http://b/v1');
    const spread = new EndpointSpread([a, b]);
    const e = await spread.generate(REQ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HptError);
    expect(isModelCallError(e)).toBe(false);
    expect((e as HptError).code).toBe('E_ENDPOINT');
    expect((e as HptError).exitCode).toBe(1);
    expect((e as Error).message).toContain('every endpoint of openai:m serves another model (http://a/v1 serves model other-model, not m; http://b/v1 serves model third model, not m)');
    expect((e as Error).message).not.toContain('\n');
    await expect(spread.generate(REQ)).rejects.toMatchObject({ code: 'E_ENDPOINT' });
    expect(a.calls + b.calls).toBe(2);
  });

  it('one serves another model, the other is down: a retryable connection error that says so (the client retries it)', async () => {
    const t = clock();
    const liar = new ScriptedModel('openai:m', [answer('x', 'other-model')], 'http://liar/v1');
    const down = new ScriptedModel('openai:m', [new ModelCallError('connection', 'cannot reach'), answer('back')], 'http://down/v1');
    const spread = new EndpointSpread([liar, down], { now: t.now, breaker: { failures: 1, coolDownMs: 1000 } });
    // liar refused, then down fails: its error is the call's
    await expect(spread.generate(REQ)).rejects.toThrow('cannot reach');
    const e = await spread.generate(REQ).catch((x: unknown) => x);
    expect(isModelCallError(e) && e.kind === 'connection' && e.retryable).toBe(true);
    expect((e as Error).message).toMatch(/no endpoint of openai:m is available: http:\/\/liar\/v1 serves another model and the others are down \(http:\/\/down\/v1\)/);
    // after the cool-down the down replica is probed and answers; the liar stays drained
    t.advance(1000);
    expect((await spread.generate(REQ)).text).toBe('back');
    expect(liar.calls).toBe(1);
  });

  it('answers without a model name or from a dated snapshot are returned; the replicas stay in the rotation', async () => {
    const a = new ScriptedModel('openai:gpt-4o-mini', [answer('a')], 'http://a/v1');
    const b = new ScriptedModel('openai:gpt-4o-mini', [answer('b', 'gpt-4o-mini-2024-07-18')], 'http://b/v1');
    const spread = new EndpointSpread([a, b]);
    const texts: string[] = [];
    for (let i = 0; i < 4; i++) texts.push((await spread.generate(REQ)).text);
    expect(texts).toEqual(['a', 'b', 'a', 'b']);
    expect(spread.stats().map((s) => [s.state, s.errors, s.servedModel])).toEqual([
      ['closed', 0, undefined],
      ['closed', 0, undefined],
    ]);
  });
});

describe('ModelClient and the served model', () => {
  it('one endpoint serving another model: HptError E_ENDPOINT (one line, naming the endpoint, the model served and asked), not retried, not cached', async () => {
    const cache = freshCache();
    const liar = new ScriptedModel('openai:m', [answer('wrong', 'other-model')], 'http://liar/v1');
    const { c, retries } = client(liar, { cache });
    const e = await c.generate(REQ).catch((x: unknown) => x);
    expect(isHptError(e) && !isModelCallError(e) && e.code === 'E_ENDPOINT' && e.exitCode === 1).toBe(true);
    expect((e as Error).message).toMatch(/^http:\/\/liar\/v1 serves model other-model, not m \(the run asked for openai:m\): its answers are neither scored nor cached/);
    expect((e as Error).message).not.toContain('\n');
    expect(retries).toEqual([]);
    expect(liar.calls).toBe(1);
    expect(cache.get(c.cacheKeyOf(REQ))).toBeUndefined();
    expect(c.stats).toMatchObject({ calls: 1, requests: 1, failures: 1 });
  });

  it('one endpoint answering without a model name or as a dated snapshot: returned and cached', async () => {
    for (const served of [undefined, 'm-2024-07-18', 'M']) {
      const cache = freshCache();
      const { c } = client(new ScriptedModel('openai:m', [answer('True', served)], 'http://a/v1'), { cache });
      expect((await c.generate(REQ)).text).toBe('True');
      expect(cache.get(c.cacheKeyOf(REQ))?.text).toBe('True');
    }
  });

  it('over a spread with a lying replica: only the honest answer is cached; every replica lying ends the call with E_ENDPOINT', async () => {
    const cache = freshCache();
    const liar = new ScriptedModel('openai:m', [answer('wrong', 'other-model')], 'http://liar/v1');
    const honest = new ScriptedModel('openai:m', [answer('right', 'm')], 'http://honest/v1');
    const { c } = client(new EndpointSpread([liar, honest]), { cache });
    expect((await c.generate(REQ)).text).toBe('right');
    expect(cache.get(c.cacheKeyOf(REQ))?.text).toBe('right');

    const liars: Model[] = ['http://x/v1', 'http://y/v1'].map((u) => new ScriptedModel('openai:m', [answer('wrong', 'other-model')], u));
    const { c: all, retries } = client(new EndpointSpread(liars), { cache: freshCache() });
    await expect(all.generate(REQ)).rejects.toMatchObject({ code: 'E_ENDPOINT' });
    expect(retries).toEqual([]);
  });
});

describe('the OpenAI plugin reports the served model', () => {
  const ctx = { endpoint: 'http://127.0.0.1:1/v1', model: 'm', maxResponseBytes: 1 << 20 };
  const body = (extra: Record<string, unknown>) => ({ id: 'c', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Yes' }, finish_reason: 'stop' }], ...extra });

  it('completionFromBody: `model` when the body names one as a non-empty string, else none', () => {
    expect(completionFromBody(body({ model: 'gpt-4o-mini-2024-07-18' }), ctx).model).toBe('gpt-4o-mini-2024-07-18');
    expect(completionFromBody(body({ model: 'other-model' }), ctx).model).toBe('other-model');
    for (const model of [undefined, '', null, 42, ['m'], { name: 'm' }]) {
      const r = completionFromBody(body(model === undefined ? {} : { model }), ctx);
      expect('model' in r).toBe(false);
    }
  });

  it('a batch line answered by another model is a non-retryable error of that line; the same model or a snapshot is a response', () => {
    const line = (model: string | undefined) => JSON.stringify({ id: 'l', custom_id: 'k', response: { status_code: 200, body: body(model === undefined ? {} : { model }) }, error: null });
    const bad = parseBatchLine(line('other-model'), ctx)!;
    expect('error' in bad).toBe(true);
    const err = (bad as { error: ModelCallError }).error;
    expect([err.kind, err.retryable]).toEqual(['client', false]);
    expect(err.message).toMatch(/serves model other-model, not m/);
    for (const model of [undefined, 'm', 'm-2024-07-18']) {
      const good = parseBatchLine(line(model), ctx)!;
      expect(good).toMatchObject({ customId: 'k', response: { text: 'Yes' } });
    }
  });
});
