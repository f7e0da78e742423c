/**
 * The circuit breaker of one endpoint among several serving the same model (`EndpointSpread`): an endpoint whose
 * requests keep failing is drained (no new requests) for a cool-down, then probed with one request (half-open); a
 * success closes it again, a failure opens it for a longer cool-down.
 */

/**
 * Tuning of an `EndpointBreaker`:
 * - `failures`: consecutive failed requests (server error, timeout, no connection) that open the breaker (default 3);
 * - `coolDownMs`: how long an opened endpoint gets no request before it is probed (default 5000 ms); every failed
 *   probe doubles it, up to `maxCoolDownMs` (default 60000 ms); a success resets it.
 */
export interface EndpointBreakerOptions {
  failures?: number;
  coolDownMs?: number;
  maxCoolDownMs?: number;
}

/** Defaults of `EndpointBreakerOptions`. */
export const ENDPOINT_BREAKER_DEFAULTS: Readonly<Required<EndpointBreakerOptions>> = Object.freeze({ failures: 3, coolDownMs: 5_000, maxCoolDownMs: 60_000 });

/**
 * `closed`: requests flow; `open`: drained until the cool-down has passed; `half-open`: one probe request is in flight
 * (no other request is sent until it ends).
 */
export type EndpointState = 'closed' | 'open' | 'half-open';

/**
 * Whether a request may go to the endpoint now: `closed` (yes), `probe` (yes, as the one probe of a half-open
 * endpoint: call `startProbe`), `no` (open and cooling down, or a probe is in flight).
 */
export type EndpointAvailability = 'closed' | 'probe' | 'no';

/**
 * Consecutive-failure circuit breaker of one endpoint (times in ms from the caller's clock, e.g. `performance.now()`).
 * The caller reports each request's outcome: `success` (the endpoint answered — also with a 429 or a 4xx: it is up),
 * `failure` (5xx, timeout, connection refused or dropped), or `abandon` (the request ended without telling, e.g. an
 * authentication error that ends the run: a probe is released without changing the state).
 */
export class EndpointBreaker {
  private current: EndpointState = 'closed';
  private consecutive = 0;
  private until = 0;
  private coolDown: number;
  private readonly failures: number;
  private readonly baseCoolDown: number;
  private readonly maxCoolDown: number;

  /** @throws RangeError when `failures` < 1 or a cool-down is not > 0. */
  constructor(options: EndpointBreakerOptions = {}) {
    this.failures = options.failures ?? ENDPOINT_BREAKER_DEFAULTS.failures;
    this.baseCoolDown = options.coolDownMs ?? ENDPOINT_BREAKER_DEFAULTS.coolDownMs;
    this.maxCoolDown = Math.max(this.baseCoolDown, options.maxCoolDownMs ?? ENDPOINT_BREAKER_DEFAULTS.maxCoolDownMs);
    if (!(Number.isInteger(this.failures) && this.failures >= 1)) throw new RangeError(`endpoint breaker failures must be an integer >= 1, got ${this.failures}`);
    if (!(this.baseCoolDown > 0)) throw new RangeError(`endpoint breaker cool-down must be > 0 ms, got ${this.baseCoolDown}`);
    this.coolDown = this.baseCoolDown;
  }

  /** The state now (`open` stays `open` until a probe starts, even after its cool-down). */
  get state(): EndpointState {
    return this.current;
  }

  /** When an open endpoint may be probed (clock of the caller, ms); 0 when closed. */
  get probeAt(): number {
    return this.current === 'closed' ? 0 : this.until;
  }

  /** Whether a request may be sent at time `now` (see `EndpointAvailability`). */
  availability(now: number): EndpointAvailability {
    if (this.current === 'closed') return 'closed';
    return this.current === 'open' && now >= this.until ? 'probe' : 'no';
  }

  /** The request about to be sent is the probe of an open endpoint whose cool-down has passed. */
  startProbe(): void {
    this.current = 'half-open';
  }

  /** The endpoint answered: closed, failure count and cool-down reset. */
  success(): void {
    this.current = 'closed';
    this.consecutive = 0;
    this.coolDown = this.baseCoolDown;
  }

  /**
   * A request failed at time `now` with a server error, a timeout or no connection. A failed probe opens the endpoint
   * again for twice the cool-down (at most `maxCoolDownMs`); the `failures`-th consecutive failure of a closed endpoint
   * opens it for the cool-down. A failure of a request sent before the endpoint opened changes nothing more.
   * @returns true when this failure opened the endpoint.
   */
  failure(now: number): boolean {
    this.consecutive++;
    if (this.current === 'half-open') {
      this.coolDown = Math.min(this.maxCoolDown, this.coolDown * 2);
      this.current = 'open';
      this.until = now + this.coolDown;
      return true;
    }
    if (this.current === 'closed' && this.consecutive >= this.failures) {
      this.current = 'open';
      this.until = now + this.coolDown;
      return true;
    }
    return false;
  }

  /** A request ended without saying whether the endpoint is up: a probe in flight is released (the endpoint stays open). */
  abandon(): void {
    if (this.current === 'half-open') this.current = 'open';
  }
}
