/**
 * Adaptive concurrency of model calls: one AIMD limiter per endpoint, `--concurrency` the ceiling.
 */

/** How a call that held a slot ended: `ok` grows the limit, `rate-limited` (HTTP 429) shrinks it, `error` leaves it. */
export type LimiterOutcome = 'ok' | 'rate-limited' | 'error';

/**
 * Give a slot back, reporting how the call went. Calling it more than once has no further effect (the first outcome
 * counts).
 */
export type ReleaseSlot = (outcome: LimiterOutcome) => void;

/**
 * Tuning of an `AimdLimiter`:
 * - `min`: floor of the limit (default 1; at least 1);
 * - `decrease`: multiplicative factor applied on a 429 (default 0.5; in (0, 1));
 * - `increase`: additive growth per "limit's worth" of successes (default 1): each `ok` adds `increase / limit`, so the
 *   limit grows by about `increase` per round trip of a full window.
 */
export interface AimdOptions {
  min?: number;
  decrease?: number;
  increase?: number;
}

/**
 * Additive-increase / multiplicative-decrease concurrency limit for one endpoint (TCP-style congestion
 * control applied to in-flight requests).
 *
 * Usage: `const release = await limiter.acquire(); try { ... } finally { release(outcome) }` — `acquire` resolves when a
 * slot is free, waiters are served first come, first served (FIFO, no barging). At most `floor(limit)` calls are in
 * flight (never fewer than `min`); the limit starts at `ceiling`.
 * - `ok`: `limit = min(ceiling, limit + increase / limit)`;
 * - `rate-limited`: `limit = max(min, limit * decrease)`, but at most once per window: a 429 from a call that was
 *   acquired before the last decrease does not shrink the limit again (those calls were sent under the old limit, so
 *   their 429s are echoes of the same congestion);
 * - `error`: no change (timeouts and 5xx are the retry policy's business, not a rate signal).
 * When the limit drops below the number in flight, no new slot is granted until enough calls finished.
 */
export class AimdLimiter {
  private current: number;
  private active = 0;
  /** incremented on every decrease; a slot remembers the epoch it was granted in */
  private epoch = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly min: number;
  private readonly decrease: number;
  private readonly increase: number;
  readonly ceiling: number;

  /**
   * @param ceiling maximum calls in flight (`--concurrency`); floored, at least 1.
   * @throws RangeError when `decrease` is not in (0, 1) or `increase` is not > 0.
   */
  constructor(ceiling: number, options: AimdOptions = {}) {
    this.ceiling = Math.max(1, Math.floor(ceiling));
    this.min = Math.min(this.ceiling, Math.max(1, options.min ?? 1));
    this.decrease = options.decrease ?? 0.5;
    this.increase = options.increase ?? 1;
    if (!(this.decrease > 0 && this.decrease < 1)) throw new RangeError(`AIMD decrease must be in (0, 1), got ${this.decrease}`);
    if (!(this.increase > 0)) throw new RangeError(`AIMD increase must be > 0, got ${this.increase}`);
    this.current = this.ceiling;
  }

  /** The current limit (a float in [min, ceiling]); `floor(limit)` calls may be in flight. */
  get limit(): number {
    return this.current;
  }

  /** Calls holding a slot now. */
  get inFlight(): number {
    return this.active;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  private get capacity(): number {
    return Math.max(this.min, Math.floor(this.current + 1e-9));
  }

  /** Wait for a slot (FIFO); resolves with the function that gives it back (see `ReleaseSlot`). */
  acquire(): Promise<ReleaseSlot> {
    return new Promise<ReleaseSlot>((resolve) => {
      const grant = (): void => {
        this.active++;
        resolve(this.slot(this.epoch));
      };
      if (this.waiters.length === 0 && this.active < this.capacity) grant();
      else this.waiters.push(grant);
    });
  }

  private slot(epoch: number): ReleaseSlot {
    let released = false;
    return (outcome: LimiterOutcome) => {
      if (released) return;
      released = true;
      this.active--;
      if (outcome === 'ok') {
        this.current = Math.min(this.ceiling, this.current + this.increase / this.current);
      } else if (outcome === 'rate-limited' && epoch === this.epoch) {
        this.current = Math.max(this.min, this.current * this.decrease);
        this.epoch++;
      }
      this.dispatch();
    };
  }

  private dispatch(): void {
    while (this.waiters.length > 0 && this.active < this.capacity) this.waiters.shift()!();
  }
}

/** The limiter key of models without an endpoint (local deterministic baselines). */
export const LOCAL_ENDPOINT = 'local';

/**
 * One `AimdLimiter` per endpoint, so a knowledge or selector model on another endpoint does not share
 * the evaluated model's budget, and a 429 from one endpoint does not slow another. Models without an endpoint share one
 * `local` limiter. Every limiter has the same ceiling and options.
 */
export class EndpointLimiters {
  private readonly limiters = new Map<string, AimdLimiter>();

  /** @param ceiling `--concurrency`: the maximum calls in flight per endpoint. */
  constructor(readonly ceiling: number, private readonly options: AimdOptions = {}) {}

  /** The limiter of `endpoint` (created on first use); undefined = the shared `local` limiter. */
  for(endpoint: string | undefined): AimdLimiter {
    const key = endpoint ?? LOCAL_ENDPOINT;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      limiter = new AimdLimiter(this.ceiling, this.options);
      this.limiters.set(key, limiter);
    }
    return limiter;
  }

  /** Current limit and calls in flight per endpoint (for progress and the run summary). */
  snapshot(): Record<string, { limit: number; inFlight: number }> {
    const out: Record<string, { limit: number; inFlight: number }> = {};
    for (const [k, l] of this.limiters) out[k] = { limit: l.limit, inFlight: l.inFlight };
    return out;
  }
}
