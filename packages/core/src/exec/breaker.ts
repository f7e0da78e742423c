/**
 * The outage breaker of a run and of the judge: when the samples (judge: ratings) that finish one after another all
 * error (their calls failed after every retry), the endpoint is taken to be down and the run stops instead of
 * recording the rest of the dataset as errored.
 */

/** Consecutive errored samples, before any sample of the run succeeded, after which the endpoint is taken to be down. */
export const BREAKER_BEFORE_SUCCESS = 3;

/** Consecutive errored samples after which a run that had succeeded before stops: at least this many ... */
export const BREAKER_AFTER_SUCCESS = 8;

/**
 * Counts consecutive errored samples. `trip` is true once `BREAKER_BEFORE_SUCCESS` samples errored before any success,
 * or, after a success, once `max(BREAKER_AFTER_SUCCESS, concurrency)` samples in a row errored (all samples in flight
 * when an endpoint dies fail together, so the window is at least the number in flight). One success resets the count.
 */
export class OutageBreaker {
  private consecutive = 0;
  private succeeded = 0;
  /** indices of the samples that errored before any success (an outage from the start: not kept as errored) */
  readonly beforeSuccess: number[] = [];
  private readonly window: number;

  /** @param concurrency samples evaluated at once (≥ 1) */
  constructor(concurrency: number) {
    this.window = Math.max(BREAKER_AFTER_SUCCESS, Math.floor(concurrency));
  }

  /** Record a sample that was scored. */
  success(): void {
    this.succeeded++;
    this.consecutive = 0;
  }

  /** Record an errored sample; returns true when the breaker trips (the run must stop). */
  failure(index: number): boolean {
    this.consecutive++;
    if (this.succeeded === 0) {
      this.beforeSuccess.push(index);
      return this.consecutive >= BREAKER_BEFORE_SUCCESS;
    }
    return this.consecutive >= this.window;
  }

  /** Whether any sample of this invocation was scored. */
  get anySuccess(): boolean {
    return this.succeeded > 0;
  }

  /** Errored samples in a row right now. */
  get streak(): number {
    return this.consecutive;
  }
}
