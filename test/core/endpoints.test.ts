/**
 * Several endpoints of one model (exec/endpoints.ts EndpointSpread, exec/endpoint-breaker.ts): least outstanding
 * requests, per-endpoint limiters and breakers, failover of retryable errors, draining and re-probing, and the outage
 * when every endpoint is down — with fake models (ScriptedModel) and an injected clock.
 */
import { describe, expect, it } from 'vitest';
import { EndpointBreaker, EndpointLimiters, EndpointSpread, HptError, isModelCallError, ModelCallError, type Model, type ModelResponse } from '@hpt-bench/core';
import { cacheFactory, client, ok, REQ, ScriptedModel } from '../helpers/scripted-model.js';

const freshCache = cacheFactory('hpt-endpoints-');
const down = () => new ModelCallError('connection', 'cannot reach the endpoint');

/** A model at `endpoint` that answers after `delayMs` (real timers) and can be switched to fail. */
class Replica implements Model {
  readonly id = 'openai:m';
  calls = 0;
  failing: ModelCallError | Error | undefined;
  constructor(
    readonly endpoint: string,
    private readonly delayMs = 0,
  ) {}
  async generate(): Promise<ModelResponse> {
    this.calls++;
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.failing) throw this.failing;
    return ok(this.endpoint);
  }
}

/** A clock the test moves by hand (ms). */
function clock(): { now: () => number; advance(ms: number): void } {
  let t = 1000;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('EndpointSpread: spreading calls', () => {
  it('least outstanding requests: the faster replica gets more calls; every call is answered', async () => {
    const fast = new Replica('http://fast/v1', 1);
    const slow = new Replica('http://slow/v1', 25);
    const spread = new EndpointSpread([slow, fast]);
    const limiters = new EndpointLimiters(8);
    let next = 0;
    const answers: string[] = [];
    // 8 callers at once, 160 calls in all
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 160) {
          next++;
          answers.push((await spread.generate(REQ, limiters)).text);
        }
      }),
    );
    expect(answers).toHaveLength(160);
    expect(fast.calls + slow.calls).toBe(160);
    expect(fast.calls).toBeGreaterThan(3 * slow.calls);
    const stats = spread.stats();
    expect(stats.map((s) => [s.endpoint, s.calls, s.errors, s.state])).toEqual([
      ['http://slow/v1', slow.calls, 0, 'closed'],
      ['http://fast/v1', fast.calls, 0, 'closed'],
    ]);
    expect(stats[0]!.meanLatencyMs).toBeGreaterThan(stats[1]!.meanLatencyMs);
    expect(stats[0]!.meanLatencyMs).toBeGreaterThanOrEqual(20);
  });

  it('equal load: round-robin; each endpoint has its own AIMD limiter (a 429 shrinks only its own)', async () => {
    const a = new ScriptedModel('openai:m', [ok('a')], 'http://a/v1');
    const b = new ScriptedModel('openai:m', [new ModelCallError('rate-limit', '429', { status: 429 }), ok('b')], 'http://b/v1');
    const spread = new EndpointSpread([a, b]);
    const limiters = new EndpointLimiters(8);
    const texts: string[] = [];
    for (let i = 0; i < 5; i++) texts.push((await spread.generate(REQ, limiters)).text);
    // a, then b (429: sent on to a at once), then b, a, b
    expect(texts).toEqual(['a', 'a', 'b', 'a', 'b']);
    expect(limiters.snapshot()['http://b/v1']!.limit).toBeLessThan(8);
    expect(limiters.snapshot()['http://a/v1']!.limit).toBe(8);
    // a 429 says the endpoint is up: b stays in the rotation
    expect(spread.stats()[1]).toMatchObject({ calls: 3, errors: 1, state: 'closed' });
  });

  it('checks its models: one id, distinct endpoints, at least two', () => {
    const a = new Replica('http://a/v1');
    expect(() => new EndpointSpread([a])).toThrow(/at least 2/);
    expect(() => new EndpointSpread([a, new Replica('http://a/v1')])).toThrow(/given twice/);
    expect(() => new EndpointSpread([a, { id: 'openai:other', endpoint: 'http://b/v1', generate: a.generate }])).toThrow(/one id/);
    expect(() => new EndpointSpread([a, { id: 'openai:m', generate: a.generate }])).toThrow(/no endpoint/);
    const s = new EndpointSpread([a, new Replica('http://b/v1')]);
    expect([s.id, s.endpoint, s.endpoints]).toEqual(['openai:m', 'http://a/v1', ['http://a/v1', 'http://b/v1']]);
  });
});

describe('EndpointSpread: a failing endpoint', () => {
  it('is drained after 3 failures in a row (its calls go to the others at once), probed after the cool-down, and back when it answers', async () => {
    const t = clock();
    const a = new Replica('http://a/v1');
    const b = new Replica('http://b/v1');
    const spread = new EndpointSpread([a, b], { now: t.now, breaker: { failures: 3, coolDownMs: 1000, maxCoolDownMs: 4000 } });
    a.failing = down();
    // every call is answered (by b), a is tried until its breaker opens
    for (let i = 0; i < 10; i++) expect((await spread.generate(REQ)).text).toBe('http://b/v1');
    expect(a.calls).toBe(3);
    expect(spread.stats()[0]).toMatchObject({ calls: 3, errors: 3, state: 'open' });
    // drained: nothing reaches a during the cool-down
    t.advance(999);
    await spread.generate(REQ);
    expect(a.calls).toBe(3);
    // after the cool-down one probe goes to a; it fails (sent on to b), and a is drained twice as long
    t.advance(1);
    expect((await spread.generate(REQ)).text).toBe('http://b/v1');
    expect(a.calls).toBe(4);
    t.advance(1000);
    await spread.generate(REQ);
    expect(a.calls).toBe(4);
    t.advance(1000);
    // a is up again: the probe is answered by a, and a is back in the rotation
    a.failing = undefined;
    expect((await spread.generate(REQ)).text).toBe('http://a/v1');
    expect(spread.stats()[0]!.state).toBe('closed');
    const before = a.calls;
    for (let i = 0; i < 4; i++) await spread.generate(REQ);
    expect(a.calls - before).toBe(2);
  });

  it('one probe at a time: while it is in flight the endpoint gets nothing else', async () => {
    const t = clock();
    const a = new Replica('http://a/v1', 20);
    const b = new Replica('http://b/v1');
    const spread = new EndpointSpread([a, b], { now: t.now, breaker: { failures: 1, coolDownMs: 100 } });
    a.failing = down();
    await spread.generate(REQ);
    expect(spread.stats()[0]!.state).toBe('open');
    t.advance(100);
    a.failing = undefined;
    const calls = await Promise.all(Array.from({ length: 5 }, () => spread.generate(REQ)));
    expect(calls.filter((r) => r.text === 'http://a/v1')).toHaveLength(1);
    expect(a.calls).toBe(2);
    expect(spread.stats()[0]!.state).toBe('closed');
  });

  it('a non-retryable error is not sent elsewhere and says the endpoint is up; an error that is no ModelCallError ends the call at once', async () => {
    const a = new ScriptedModel('openai:m', [new ModelCallError('client', 'HTTP 400 context length')], 'http://a/v1');
    const b = new ScriptedModel('openai:m', [ok('b')], 'http://b/v1');
    const spread = new EndpointSpread([a, b], { breaker: { failures: 1 } });
    await expect(spread.generate(REQ)).rejects.toThrow('HTTP 400');
    expect(b.calls).toBe(0);
    expect(spread.stats()[0]!.state).toBe('closed');
    const auth = new ScriptedModel('openai:m', [new HptError('E_AUTH', 'HTTP 401')], 'http://c/v1');
    const spread2 = new EndpointSpread([auth, new ScriptedModel('openai:m', [ok('d')], 'http://d/v1')]);
    await expect(spread2.generate(REQ)).rejects.toMatchObject({ code: 'E_AUTH' });
    expect(spread2.stats().map((s) => s.calls)).toEqual([1, 0]);
  });

  it('all endpoints down: the call fails with a retryable connection error, and through a ModelClient ends as an outage does with one endpoint', async () => {
    const t = clock();
    const a = new Replica('http://a/v1');
    const b = new Replica('http://b/v1');
    a.failing = down();
    b.failing = new ModelCallError('server', 'HTTP 503', { status: 503 });
    const spread = new EndpointSpread([a, b], { now: t.now, breaker: { failures: 2, coolDownMs: 60_000 } });
    // both tried, the last error is thrown
    await expect(spread.generate(REQ)).rejects.toThrow('HTTP 503');
    await expect(spread.generate(REQ)).rejects.toThrow('HTTP 503');
    expect(spread.stats().map((s) => s.state)).toEqual(['open', 'open']);
    // none left: no request, a retryable connection error naming every endpoint
    const e = await spread.generate(REQ).catch((x: unknown) => x);
    expect(isModelCallError(e) && e.kind === 'connection' && e.retryable).toBe(true);
    expect((e as Error).message).toMatch(/all 2 endpoints of openai:m are down \(http:\/\/a\/v1, http:\/\/b\/v1\)/);
    expect(a.calls + b.calls).toBe(4);
    // the client retries it with backoff and then gives up with the ModelCallError (the run's OutageBreaker stops the run)
    const { c, retries } = client(spread, { retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    const err = await c.generate(REQ).catch((x: unknown) => x);
    expect(isModelCallError(err) && err.kind === 'connection').toBe(true);
    expect(retries).toHaveLength(2);
    expect(c.stats).toMatchObject({ calls: 1, failures: 1 });
    expect(a.calls + b.calls).toBe(4);
  });
});

describe('ModelClient over an EndpointSpread', () => {
  it('takes no slot of its own (the spread takes each endpoint\'s), shares cached answers across endpoints, and exposes the endpoints', async () => {
    const a = new ScriptedModel('openai:m', [ok('A')], 'http://a/v1', 5);
    const b = new ScriptedModel('openai:m', [ok('B')], 'http://b/v1', 5);
    const limiters = new EndpointLimiters(2);
    const cache = freshCache();
    const { c } = client(new EndpointSpread([a, b]), { limiters, cache });
    expect(c.endpoints).toEqual(['http://a/v1', 'http://b/v1']);
    const reqs = Array.from({ length: 8 }, (_, i) => ({ ...REQ, maxTokens: 10 + i }));
    await Promise.all(reqs.map((r) => c.generate(r)));
    // 2 slots per endpoint: 4 in flight in all, 2 at each
    expect(a.peak).toBe(2);
    expect(b.peak).toBe(2);
    expect(Object.keys(limiters.snapshot()).sort()).toEqual(['http://a/v1', 'http://b/v1']);
    // a client over one replica of the same model finds every answer (the key names the model, not the URL)
    const single = new ScriptedModel('openai:m', [ok('single')], 'http://c/v1');
    const { c: other } = client(single, { cache });
    for (const r of reqs) expect((await other.generate(r)).cached).toBe(true);
    expect(single.calls).toBe(0);
    // with --cache-key-endpoint it does not
    const { c: keyed } = client(single, { cache, cacheKeyEndpoint: true });
    expect((await keyed.generate(reqs[0]!)).text).toBe('single');
  });
});

describe('EndpointBreaker', () => {
  it('opens after `failures` in a row, probes once after the cool-down, doubles it on a failed probe up to the cap, resets on success', () => {
    const br = new EndpointBreaker({ failures: 2, coolDownMs: 100, maxCoolDownMs: 300 });
    expect(br.availability(0)).toBe('closed');
    expect(br.failure(0)).toBe(false);
    br.success(); // a success resets the count
    expect(br.failure(0)).toBe(false);
    expect(br.failure(10)).toBe(true);
    expect([br.state, br.availability(109), br.availability(110)]).toEqual(['open', 'no', 'probe']);
    br.startProbe();
    expect([br.state, br.availability(500)]).toEqual(['half-open', 'no']);
    br.failure(200); // failed probe: 200 ms
    expect([br.availability(399), br.availability(400)]).toEqual(['no', 'probe']);
    br.startProbe();
    br.failure(400); // 400 -> capped at 300
    expect(br.probeAt).toBe(700);
    br.startProbe();
    br.abandon(); // the probe ended without an answer: open again, probe allowed
    expect(br.availability(700)).toBe('probe');
    br.startProbe();
    br.success();
    expect([br.state, br.probeAt]).toEqual(['closed', 0]);
    br.failure(1000);
    expect(br.failure(1000)).toBe(true);
    expect(br.probeAt).toBe(1100); // the cool-down was reset by the success
    expect(() => new EndpointBreaker({ failures: 0 })).toThrow(RangeError);
  });
});
