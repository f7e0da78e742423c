/** Adaptive concurrency: the AIMD limiter per endpoint. */
import { describe, expect, it } from 'vitest';
import { AimdLimiter, EndpointLimiters, type LimiterOutcome, type ReleaseSlot } from '@hpt-bench/core';

/** Deterministic LCG in [0, 1) (tests only). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const tick = (ms = 0) => new Promise<void>((r) => setTimeout(r, ms));
const flush = () => new Promise<void>((r) => setImmediate(r));

describe('AimdLimiter', () => {
  it('starts at the ceiling and never lets more than floor(limit) calls run, serving waiters first come first served', async () => {
    const limiter = new AimdLimiter(4);
    expect(limiter.limit).toBe(4);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const calls = Array.from({ length: 60 }, (_, i) =>
      limiter.acquire().then(async (release) => {
        running++;
        peak = Math.max(peak, running);
        started.push(i);
        expect(limiter.inFlight).toBeLessThanOrEqual(Math.floor(limiter.limit));
        await tick(1);
        running--;
        release('ok');
      }),
    );
    await flush();
    expect(limiter.inFlight).toBe(4);
    expect(limiter.waiting).toBe(56);
    await Promise.all(calls);
    expect(peak).toBe(4);
    expect(started).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(limiter.inFlight).toBe(0);
    expect(limiter.limit).toBe(4); // capped at the ceiling
  });

  it('under random 429s and errors the in-flight count never exceeds floor(limit) at the moment a slot is granted', async () => {
    const random = lcg(42);
    const limiter = new AimdLimiter(16);
    let violations = 0;
    let grants = 0;
    let minLimit = 16;
    const outcomes: LimiterOutcome[] = [];
    const calls = Array.from({ length: 400 }, () =>
      limiter.acquire().then(async (release) => {
        // limits only change in releases, which happen in timers: this runs before any of them
        grants++;
        if (limiter.inFlight > Math.max(1, Math.floor(limiter.limit))) violations++;
        await tick(Math.floor(random() * 3));
        const r = random();
        const outcome: LimiterOutcome = r < 0.08 ? 'rate-limited' : r < 0.12 ? 'error' : 'ok';
        outcomes.push(outcome);
        release(outcome);
        minLimit = Math.min(minLimit, limiter.limit);
      }),
    );
    await Promise.all(calls);
    expect(grants).toBe(400);
    expect(violations).toBe(0);
    expect(outcomes.filter((o) => o === 'rate-limited').length).toBeGreaterThan(10);
    expect(minLimit).toBeLessThan(16);
    expect(minLimit).toBeGreaterThanOrEqual(1);
    expect(limiter.inFlight).toBe(0);
  });

  it('halves on a 429 once per window: 429s of calls already in flight at the decrease do not halve again', async () => {
    const limiter = new AimdLimiter(8);
    const slots: ReleaseSlot[] = await Promise.all(Array.from({ length: 8 }, () => limiter.acquire()));
    expect(limiter.inFlight).toBe(8);
    slots[0]!('rate-limited');
    expect(limiter.limit).toBe(4);
    for (const release of slots.slice(1, 7)) release('rate-limited');
    expect(limiter.limit).toBe(4); // same window: no further decrease
    expect(limiter.inFlight).toBe(1);
    // a call sent after the decrease belongs to the new window: its 429 halves again
    const later = await limiter.acquire();
    later('rate-limited');
    expect(limiter.limit).toBe(2);
    // the last call of the first window is still an echo of the old window
    slots[7]!('rate-limited');
    expect(limiter.limit).toBe(2);
    // never below min
    for (let i = 0; i < 5; i++) (await limiter.acquire())('rate-limited');
    expect(limiter.limit).toBe(1);
    // errors do not move the limit
    (await limiter.acquire())('error');
    expect(limiter.limit).toBe(1);
  });

  it('after a decrease, no new slot is granted until the in-flight count is below the new limit', async () => {
    const limiter = new AimdLimiter(6);
    const slots = await Promise.all(Array.from({ length: 6 }, () => limiter.acquire()));
    slots[0]!('rate-limited'); // limit 3, 5 in flight
    let granted = 0;
    const waiter = limiter.acquire().then((r) => {
      granted++;
      return r;
    });
    await flush();
    expect(granted).toBe(0);
    slots[1]!('error'); // 4 in flight
    slots[2]!('error'); // 3 in flight
    await flush();
    expect(granted).toBe(0);
    slots[3]!('error'); // 2 in flight: one may start
    await flush();
    expect(granted).toBe(1);
    expect(limiter.inFlight).toBe(3);
    (await waiter)('ok');
    slots[4]!('ok');
    slots[5]!('ok');
  });

  it('grows back additively: limit += increase / limit per success, up to the ceiling', async () => {
    const limiter = new AimdLimiter(8);
    (await limiter.acquire())('rate-limited');
    (await limiter.acquire())('rate-limited');
    expect(limiter.limit).toBe(2);
    let expected = 2;
    for (let i = 0; i < 6; i++) {
      (await limiter.acquire())('ok');
      expected += 1 / expected;
      expect(limiter.limit).toBeCloseTo(expected, 12);
    }
    // about one unit per limit's worth of successes: from 2, ~2 + 3 + 4 + ... successes reach 8
    for (let i = 0; i < 200; i++) (await limiter.acquire())('ok');
    expect(limiter.limit).toBe(8);
    const custom = new AimdLimiter(10, { decrease: 0.75, increase: 2, min: 3 });
    (await custom.acquire())('rate-limited');
    expect(custom.limit).toBe(7.5);
    (await custom.acquire())('ok');
    expect(custom.limit).toBeCloseTo(7.5 + 2 / 7.5, 12);
    for (let i = 0; i < 10; i++) (await custom.acquire())('rate-limited');
    expect(custom.limit).toBe(3);
  });

  it('a release is counted once', async () => {
    const limiter = new AimdLimiter(4);
    const a = await limiter.acquire();
    await limiter.acquire();
    a('rate-limited');
    a('rate-limited');
    a('ok');
    expect(limiter.inFlight).toBe(1);
    expect(limiter.limit).toBe(2);
  });

  it('rejects nonsense tuning', () => {
    expect(() => new AimdLimiter(4, { decrease: 1 })).toThrow(RangeError);
    expect(() => new AimdLimiter(4, { decrease: 0 })).toThrow(RangeError);
    expect(() => new AimdLimiter(4, { increase: 0 })).toThrow(RangeError);
    expect(new AimdLimiter(0).limit).toBe(1);
  });
});

describe('EndpointLimiters', () => {
  it('keeps one independent limiter per endpoint; models without an endpoint share the local one', async () => {
    const limiters = new EndpointLimiters(3);
    const a = limiters.for('http://a/v1');
    const b = limiters.for('http://b/v1');
    expect(limiters.for('http://a/v1')).toBe(a);
    expect(b).not.toBe(a);
    expect(limiters.for(undefined)).toBe(limiters.for(undefined));
    expect(limiters.for(undefined)).not.toBe(a);
    // a full endpoint does not block another
    const held = await Promise.all([a.acquire(), a.acquire(), a.acquire()]);
    let bGranted = 0;
    const bSlots = await Promise.all([b.acquire(), b.acquire(), b.acquire()].map((p) => p.then((r) => (bGranted++, r))));
    expect(bGranted).toBe(3);
    // a 429 on one endpoint does not shrink another
    held[0]!('rate-limited');
    expect(a.limit).toBe(1.5);
    expect(b.limit).toBe(3);
    expect(limiters.snapshot()).toEqual({ 'http://a/v1': { limit: 1.5, inFlight: 2 }, 'http://b/v1': { limit: 3, inFlight: 3 }, local: { limit: 3, inFlight: 0 } });
    for (const r of [...held, ...bSlots]) r('ok');
  });
});
