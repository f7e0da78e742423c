/**
 * Retry timing edge cases that the mutation run of exec/retry.ts showed untested. Expected values
 * come from the contracts documented on `retryDelayMs` / `parseRetryAfter` (full-jitter formula, "a finite delay ≥ 0",
 * "an invalid retry-after-ms falls back to retry-after") and RFC 9110 §10.2.3 / §5.6.7, computed by hand.
 */
import { describe, expect, it } from 'vitest';
import { ModelCallError, parseRetryAfter, retryDelayMs, type RetryPolicy } from '@hpt-bench/core';

const POLICY: RetryPolicy = { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30_000 };
const withHint = (retryAfterMs: number) => new ModelCallError('rate-limit', 'HTTP 429', { status: 429, retryAfterMs });

describe('retryDelayMs: an unusable hint is no hint', () => {
  it('a negative hint never gives a negative delay: full jitter applies (random 0.5, attempt 0: 0.5 * 500 = 250)', () => {
    const d = retryDelayMs(0, withHint(-5_000), () => 0.5, POLICY);
    expect(d).toBeGreaterThanOrEqual(0);
    expect(d).toBe(250);
    // attempt 2: 0.5 * min(30 000, 500 * 4) = 1000
    expect(retryDelayMs(2, withHint(-1), () => 0.5, POLICY)).toBe(1000);
  });

  it('a non-finite hint falls back to the backoff too', () => {
    expect(retryDelayMs(1, withHint(Number.NaN), () => 0.5, POLICY)).toBe(500);
    expect(retryDelayMs(1, withHint(Number.POSITIVE_INFINITY), () => 0.25, POLICY)).toBe(250);
  });
});

describe('parseRetryAfter: header lookup and fallbacks', () => {
  const NOW = Date.parse('2025-03-01T12:00:00Z');

  it('a plain record may hold a name twice in different case: an absent (undefined / null) value does not hide the other', () => {
    expect(parseRetryAfter({ 'retry-after': undefined, 'Retry-After': '2' })).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': null, 'RETRY-AFTER': '3' })).toBe(3000);
    expect(parseRetryAfter({ 'retry-after-ms': undefined, 'Retry-After-Ms': '40', 'retry-after': '9' })).toBe(40);
  });

  it('a retry-after-ms too large to be a finite number is invalid and falls back to retry-after', () => {
    const huge = '9'.repeat(400); // parses to Infinity
    expect(Number.parseFloat(huge)).toBe(Number.POSITIVE_INFINITY);
    expect(parseRetryAfter({ 'retry-after-ms': huge, 'retry-after': '2' }, NOW)).toBe(2000);
    expect(parseRetryAfter({ 'retry-after-ms': huge }, NOW)).toBeUndefined();
    // and retry-after seconds that overflow give undefined, not Infinity
    expect(parseRetryAfter({ 'retry-after': huge }, NOW)).toBeUndefined();
  });

  it('an HTTP date with surrounding whitespace is still a date (30 s after now)', () => {
    expect(parseRetryAfter({ 'retry-after': '  Sat, 01 Mar 2025 12:00:30 GMT  ' }, NOW)).toBe(30_000);
    expect(parseRetryAfter({ 'retry-after': '\tSat Mar  1 12:00:10 2025 ' }, NOW)).toBe(10_000);
  });

  it('the number must be the whole value: digits followed or preceded by text are junk', () => {
    for (const v of ['5 s', 'x5', '5.', '.5', '5.5.5', '1 2']) {
      expect(parseRetryAfter({ 'retry-after': v }, NOW), v).toBeUndefined();
      expect(parseRetryAfter({ 'retry-after-ms': v }, NOW), v).toBeUndefined();
    }
    // several digits before and after the point, surrounded by whitespace
    expect(parseRetryAfter({ 'retry-after': ' 12.25 ' }, NOW)).toBe(12_250);
    expect(parseRetryAfter({ 'retry-after-ms': '\t1234.75\t' }, NOW)).toBe(1234.75);
  });

  it('each HTTP date form must be complete (day name, month name, time, GMT / year)', () => {
    for (const v of [
      '01 Mar 2025 12:00:30 GMT', // no day name
      'Sat, 01 March 2025 12:00:30 GMT', // month spelled out
      'Sat, 01 Mar 2025 12:00 GMT', // no seconds
      'Sat, 01 Mar 2025 12:00:30', // no GMT
      'Sat, 01-Mar-25 12:00:30', // RFC 850 without GMT
      'Sat Mar  1 12:00:30', // asctime without the year
      'Foo, 01 Mar 2025 12:00:30 GMT',
    ]) {
      expect(parseRetryAfter({ 'retry-after': v }, NOW), v).toBeUndefined();
    }
  });
});
