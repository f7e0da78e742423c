/** Retry timing: backoff with full jitter, the server's retry-after hints. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, ModelCallError, parseRetryAfter, retryDelayMs, type RetryPolicy } from '@hpt-bench/core';

const POLICY: RetryPolicy = { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30_000 };
const err = (retryAfterMs?: number) => new ModelCallError('rate-limit', 'HTTP 429', retryAfterMs === undefined ? {} : { status: 429, retryAfterMs });

describe('retryDelayMs', () => {
  it('defaults are 5 retries, 500 ms base, 30 s cap', () => {
    expect(DEFAULT_RETRY).toMatchObject({ maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30_000 });
  });

  it('full jitter: uniform in [0, min(cap, base * 2^attempt))', () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const bound = Math.min(30_000, 500 * 2 ** attempt);
      expect(retryDelayMs(attempt, err(), () => 0, POLICY)).toBe(0);
      expect(retryDelayMs(attempt, err(), () => 0.5, POLICY)).toBe(bound / 2);
      const top = retryDelayMs(attempt, err(), () => 0.999999, POLICY);
      expect(top).toBeLessThan(bound);
      expect(top).toBeGreaterThan(bound * 0.999);
    }
    expect(retryDelayMs(0, err(), () => 0.999999, POLICY)).toBeLessThan(500);
    expect(retryDelayMs(3, err(), () => 0.5, POLICY)).toBe(2000);
    // capped: attempt 20 does not overflow the cap
    expect(retryDelayMs(20, err(), () => 0.5, POLICY)).toBe(15_000);
    // many draws stay within bounds and are spread out
    let seed = 1;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const draws = Array.from({ length: 500 }, () => retryDelayMs(2, err(), random, POLICY));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(2000);
    expect(Math.max(...draws) - Math.min(...draws)).toBeGreaterThan(1500);
  });

  it('honours the server hint exactly (no jitter), up to max(maxDelayMs, 60 s)', () => {
    expect(retryDelayMs(0, err(1234), () => 0.9, POLICY)).toBe(1234);
    expect(retryDelayMs(7, err(0), () => 0.9, POLICY)).toBe(0);
    // above the backoff cap but within 60 s: honoured
    expect(retryDelayMs(0, err(45_000), () => 0.9, POLICY)).toBe(45_000);
    // beyond 60 s: capped
    expect(retryDelayMs(0, err(3_600_000), () => 0.9, POLICY)).toBe(60_000);
    expect(retryDelayMs(0, err(3_600_000), () => 0.9, { ...POLICY, maxRetryAfterMs: 5_000 })).toBe(30_000);
    expect(retryDelayMs(0, err(3_600_000), () => 0.9, { ...POLICY, maxDelayMs: 1000, maxRetryAfterMs: 5_000 })).toBe(5_000);
  });
});

describe('parseRetryAfter', () => {
  const NOW = Date.parse('2025-03-01T12:00:00Z');

  it('retry-after-ms: milliseconds (float) and wins over retry-after', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '1500' })).toBe(1500);
    expect(parseRetryAfter({ 'Retry-After-Ms': '12.5' })).toBe(12.5);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '20', 'retry-after': '9' }))).toBe(20);
    // invalid ms falls back to retry-after
    expect(parseRetryAfter({ 'retry-after-ms': 'soon', 'retry-after': '2' })).toBe(2000);
  });

  it('retry-after: seconds (float)', () => {
    expect(parseRetryAfter({ 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': '0.25' })).toBe(250);
    expect(parseRetryAfter({ 'RETRY-AFTER': ' 0 ' })).toBe(0);
    expect(parseRetryAfter(new Headers({ 'Retry-After': '3' }))).toBe(3000);
  });

  it('retry-after: an HTTP date, relative to now (past = 0)', () => {
    expect(parseRetryAfter({ 'retry-after': 'Sat, 01 Mar 2025 12:00:30 GMT' }, NOW)).toBe(30_000);
    expect(parseRetryAfter({ 'retry-after': 'Saturday, 01-Mar-25 12:00:05 GMT' }, NOW)).toBe(5_000);
    expect(parseRetryAfter({ 'retry-after': 'Sat Mar  1 12:01:00 2025' }, NOW)).toBe(60_000);
    expect(parseRetryAfter({ 'retry-after': 'Sat, 01 Mar 2025 11:59:00 GMT' }, NOW)).toBe(0);
    // default now = Date.now()
    const future = new Date(Date.now() + 10_000).toUTCString();
    const got = parseRetryAfter({ 'retry-after': future })!;
    expect(got).toBeGreaterThan(8_000);
    expect(got).toBeLessThanOrEqual(10_000);
  });

  it('junk, negatives and absent headers give undefined', () => {
    for (const v of ['', '   ', 'soon', '-5', '-0.5', '1e3', '5s', 'abc 5', 'Sat, 99 Foo 2025 12:00:00 GMT', 'Infinity', 'NaN', '2025-03-01T12:00:30Z']) {
      expect(parseRetryAfter({ 'retry-after': v }, NOW), v).toBeUndefined();
      expect(parseRetryAfter({ 'retry-after-ms': v }, NOW), v).toBeUndefined();
    }
    expect(parseRetryAfter({})).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': null, 'retry-after-ms': undefined })).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
