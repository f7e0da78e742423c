/**
 * Retry timing for failed model calls: exponential backoff with full jitter, and the server's
 * `retry-after-ms` / `retry-after` hints.
 */
import type { ModelCallError } from '@hpt-bench/sdk';

/**
 * How a `ModelClient` retries a retryable `ModelCallError` (429, 5xx, timeout, dropped connection).
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

/** Default cap of a server's retry-after hint, in milliseconds. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** The default retry policy: 5 retries, 500 ms base, 30 s backoff cap, retry-after hints honoured up to 60 s. */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS });

/**
 * Milliseconds to wait before retry number `attempt` (0-based: 0 = the first retry) after `error`.
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
