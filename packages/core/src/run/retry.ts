/**
 * Retry timing for failed model calls (issue #5 item 3): exponential backoff with full jitter, and the server's
 * `retry-after-ms` / `retry-after` hints.
 */
import type { ModelCallError } from '../errors.js';

/**
 * How a `ModelClient` retries a retryable `ModelCallError` (429, 5xx, timeout, dropped connection; issue #5 item 3).
 * - `maxRetries`: retries after the first attempt (0 = never retry; so at most `maxRetries + 1` requests per call);
 * - `baseDelayMs`: backoff scale in milliseconds: retry n (0-based) waits up to `baseDelayMs * 2^n`;
 * - `maxDelayMs`: cap of the exponential backoff in milliseconds;
 * - `maxRetryAfterMs`: cap of a server's `retry-after` hint in milliseconds (default 60 000; the effective cap is
 *   `max(maxDelayMs, maxRetryAfterMs)`, so a hint is never cut below `maxDelayMs`).
 */
export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs?: number;
}

/** Default cap of a server's retry-after hint, in milliseconds (issue #5 item 3). */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** The default retry policy: 5 retries, 500 ms base, 30 s backoff cap, retry-after hints honoured up to 60 s (issue #5 item 3). */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS });

/**
 * Milliseconds to wait before retry number `attempt` (0-based: 0 = the first retry) after `error` (issue #5 item 3).
 * - When the server sent a hint (`error.retryAfterMs`), that value exactly, capped at
 *   `max(policy.maxDelayMs, policy.maxRetryAfterMs ?? 60 000)` (no jitter: the server named the time).
 * - Otherwise "full jitter" exponential backoff: `random() * min(maxDelayMs, baseDelayMs * 2^attempt)`, i.e. uniform in
 *   [0, that bound).
 * @param random returns a float in [0, 1) (inject a seeded one in tests).
 * @returns a finite delay ≥ 0 in milliseconds.
 */
export function retryDelayMs(attempt: number, error: Pick<ModelCallError, 'retryAfterMs'>, random: () => number, policy: RetryPolicy): number {
  const hint = error.retryAfterMs;
  if (hint !== undefined && Number.isFinite(hint) && hint >= 0) {
    const cap = Math.max(policy.maxDelayMs, policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS);
    return Math.min(hint, cap);
  }
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.max(0, r * bound);
}

/** Response headers as the fetch API's `Headers` or a plain record (names matched case-insensitively). */
export type HeaderSource = Headers | Record<string, string | null | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | null | undefined>;
  for (const [k, v] of Object.entries(record)) if (k.toLowerCase() === name && v !== null && v !== undefined) return v;
  return undefined;
}

const NUMBER = /^\s*\d+(?:\.\d+)?\s*$/;

/**
 * The server's retry hint in milliseconds, or undefined when there is none or it is unusable (issue #5 item 3).
 * - `retry-after-ms` (OpenAI, Azure): milliseconds, a non-negative decimal (e.g. `1500`, `12.5`) — wins when valid;
 * - `retry-after` (RFC 9110 §10.2.3): seconds as a non-negative decimal (`2`, `0.5`), or an HTTP date, taken relative to
 *   `now` (a date already past gives 0: retry at once).
 * Junk, negative numbers and unparsable dates give undefined (an invalid `retry-after-ms` falls back to `retry-after`).
 * @param now current time in epoch milliseconds (for HTTP dates; default `Date.now()`).
 */
export function parseRetryAfter(headers: HeaderSource | undefined | null, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && NUMBER.test(ms)) {
    const v = Number.parseFloat(ms);
    if (Number.isFinite(v)) return v;
  }
  const ra = header(headers, 'retry-after');
  if (ra === undefined || ra.trim() === '') return undefined;
  if (NUMBER.test(ra)) {
    const v = Number.parseFloat(ra) * 1000;
    return Number.isFinite(v) ? v : undefined;
  }
  const at = parseHttpDate(ra);
  return at === undefined ? undefined : Math.max(0, at - now);
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
// RFC 9110 §5.6.7: IMF-fixdate, the obsolete RFC 850 form, and asctime (always GMT)
const IMF = new RegExp(`^${DAY},\\s+\\d{1,2}\\s+${MONTH}\\s+\\d{4}\\s+${TIME}\\s+GMT$`);
const RFC850 = new RegExp(`^${DAY},\\s+\\d{1,2}-${MONTH}-\\d{2}\\s+${TIME}\\s+GMT$`);
const ASCTIME = new RegExp(`^${DAY}\\s+${MONTH}\\s+\\d{1,2}\\s+${TIME}\\s+\\d{4}$`);

/** Epoch ms of an HTTP date (RFC 9110 §5.6.7), or undefined; stricter than `Date.parse`, which accepts almost anything. */
function parseHttpDate(text: string): number | undefined {
  const s = text.trim();
  let at: number;
  if (IMF.test(s) || RFC850.test(s)) at = Date.parse(s);
  else if (ASCTIME.test(s)) at = Date.parse(`${s} GMT`);
  else return undefined;
  return Number.isNaN(at) ? undefined : at;
}
