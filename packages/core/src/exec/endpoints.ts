/**
 * Several endpoints serving one model (data-parallel vLLM / Ollama replicas, `--base-url` given several times): a
 * `Model` that spreads calls over its inner models by least outstanding requests, each endpoint with its own AIMD
 * limiter (the session's `EndpointLimiters`, keyed by endpoint) and its own `EndpointBreaker`; an endpoint that answers
 * for another model is drained for good (issue 25).
 */
import { askedModelName, HptError, isModelCallError, type Model, ModelCallError, type ModelRequest, type ModelResponse, otherModelReason, servesModel, shownModelName } from '@hpt-bench/sdk';
import { EndpointBreaker, type EndpointBreakerOptions, type EndpointState } from './endpoint-breaker.js';
import type { EndpointLimiters, ReleaseSlot } from './limiter.js';

/**
 * Requests one endpoint of an `EndpointSpread` received from this object (since construction):
 * - `endpoint`: the credential-free base URL (`Model.endpoint` of the inner model);
 * - `calls`: requests sent to it; `errors`: those that failed (any error);
 * - `meanLatencyMs`: mean wall time of its answered requests in ms (0 when none), the limiter wait excluded;
 * - `state`: its breaker's state now (`open` for good when it serves another model);
 * - `servedModel`, `reason`: when it answered for another model than the spread's (`servesModel`), the name it gave
 *   (control characters as spaces, at most 200 characters) and why it was drained (`serves model X, not Y`); its
 *   refused answers count in `errors`. Absent otherwise.
 */
export interface EndpointStats {
  endpoint: string;
  calls: number;
  errors: number;
  meanLatencyMs: number;
  state: EndpointState;
  servedModel?: string;
  reason?: string;
}

/** Options of an `EndpointSpread`: the breakers' tuning, and the clock (ms; default `performance.now`, inject in tests). */
export interface EndpointSpreadOptions {
  breaker?: EndpointBreakerOptions;
  now?: () => number;
}

/** One endpoint of a spread: its model, breaker and counters. */
interface Lane {
  readonly model: Model;
  readonly endpoint: string;
  readonly breaker: EndpointBreaker;
  /** requests picked for this endpoint and not finished (waiting for a limiter slot or in flight) */
  outstanding: number;
  calls: number;
  errors: number;
  answered: number;
  latencySum: number;
  /** the other model it answered for (shown form): drained for good, never picked again */
  servedModel?: string;
}

/** Whether an error says the endpoint itself is down (server error, timeout, no connection), not the request or the load. */
function endpointFault(e: ModelCallError): boolean {
  return e.kind === 'server' || e.kind === 'timeout' || e.kind === 'connection';
}

/**
 * A `Model` over several inner models of the same id, each at its own endpoint.
 *
 * `generate(request, limiters?)`:
 * 1. pick an endpoint: one whose cool-down has passed is probed first (one probe at a time); otherwise, among the
 *    endpoints whose breaker is closed, the one with the fewest outstanding requests (waiting for a slot or in flight),
 *    ties broken round-robin — so a faster replica, which finishes sooner, gets more calls;
 * 2. with `limiters` (the `ModelClient` passes its session's), take a slot of that endpoint's `AimdLimiter` for the
 *    request itself (released `ok`, `rate-limited` on a 429, else `error`);
 * 3. call the inner model. A success, a 429 or a non-retryable `ModelCallError` tells the breaker the endpoint is up; a
 *    server error, timeout or connection failure counts against it (`EndpointBreaker`: drained after 3 in a row, probed
 *    again after a cool-down). A retryable `ModelCallError` is sent at once to another endpoint not yet tried by this
 *    call, if one is available; when none is, the last error is thrown (the `ModelClient` backs off and retries);
 * 4. when no endpoint is available at all (all drained and cooling down), a retryable `ModelCallError` `connection`
 *    "all N endpoints ... are down" is thrown without a request: the client retries after its backoff, and samples
 *    that fail every retry stop the run through the run's `OutageBreaker`, as with one endpoint.
 * Any other error (e.g. `HptError` `E_AUTH`) is rethrown at once.
 *
 * An answer whose `model` does not name the spread's model (`servesModel(askedModelName(id), response.model)`: another
 * model; no name, the same one or a dated snapshot of it are accepted) is not returned: the endpoint is drained for good
 * (never picked or probed again; its `stats()` say which model it served), the request counts as one of its errors, and
 * the call goes at once to another endpoint not yet tried. When every endpoint serves another model, `HptError`
 * `E_ENDPOINT` (exit 1) ends the run; when the others are only down, the retryable error of step 4 is thrown.
 *
 * `id` is the inner models' id, `endpoint` the first endpoint (standing for the set where one URL is expected),
 * `endpoints` all of them in the order given.
 */
export class EndpointSpread implements Model {
  readonly id: string;
  readonly endpoint: string;
  readonly endpoints: readonly string[];
  private readonly lanes: Lane[];
  private readonly now: () => number;
  /** the model name the endpoints are asked for (`askedModelName(id)`) */
  private readonly asked: string;
  /** where the round-robin tie-break starts */
  private cursor = 0;

  /**
   * @param models at least 2 models with the same `id`, each with a distinct `endpoint`.
   * @throws RangeError for fewer than 2 models, differing ids, a model without an endpoint or an endpoint given twice.
   */
  constructor(models: readonly Model[], options: EndpointSpreadOptions = {}) {
    if (models.length < 2) throw new RangeError(`an endpoint spread needs at least 2 models, got ${models.length}`);
    const first = models[0]!;
    const seen = new Set<string>();
    for (const m of models) {
      if (m.id !== first.id) throw new RangeError(`the models of an endpoint spread must have one id, got ${first.id} and ${m.id}`);
      if (m.endpoint === undefined) throw new RangeError(`model ${m.id} has no endpoint to spread calls over`);
      if (seen.has(m.endpoint)) throw new RangeError(`endpoint ${m.endpoint} is given twice`);
      seen.add(m.endpoint);
    }
    this.id = first.id;
    this.endpoint = first.endpoint!;
    this.endpoints = models.map((m) => m.endpoint!);
    this.lanes = models.map((model) => ({ model, endpoint: model.endpoint!, breaker: new EndpointBreaker(options.breaker), outstanding: 0, calls: 0, errors: 0, answered: 0, latencySum: 0 }));
    this.now = options.now ?? (() => performance.now());
    this.asked = askedModelName(this.id);
  }

  /** The inner models, in the order of `endpoints`. */
  get models(): readonly Model[] {
    return this.lanes.map((l) => l.model);
  }

  /** Requests, errors, mean latency and breaker state per endpoint (see `EndpointStats`), in the order of `endpoints`. */
  stats(): EndpointStats[] {
    return this.lanes.map((l) => ({
      endpoint: l.endpoint,
      calls: l.calls,
      errors: l.errors,
      meanLatencyMs: l.answered ? l.latencySum / l.answered : 0,
      state: l.servedModel === undefined ? l.breaker.state : 'open',
      ...(l.servedModel === undefined ? {} : { servedModel: l.servedModel, reason: otherModelReason(this.asked, l.servedModel) }),
    }));
  }

  /**
   * One call on the best available endpoint, failing over to the others (see the class doc).
   * @param limiters per-endpoint adaptive concurrency (the session's); without it requests are not limited.
   * @throws the last endpoint's `ModelCallError`, the retryable `connection` error "all N endpoints ... are down", or
   *   any other error of an inner model at once; `HptError` `E_ENDPOINT` when every endpoint serves another model.
   */
  async generate(request: ModelRequest, limiters?: EndpointLimiters): Promise<ModelResponse> {
    let tried: boolean[] | undefined;
    let last: ModelCallError | undefined;
    for (;;) {
      const i = this.pick(tried);
      if (i < 0) break;
      const lane = this.lanes[i]!;
      lane.outstanding++;
      let release: ReleaseSlot | undefined;
      try {
        if (limiters) release = await limiters.for(lane.endpoint).acquire();
        lane.calls++;
        const started = this.now();
        const response = await lane.model.generate(request);
        release?.('ok');
        if (!servesModel(this.asked, response.model)) {
          // another model answered: not returned (so neither scored nor cached); the endpoint is drained for good
          lane.errors++;
          lane.servedModel ??= shownModelName(response.model!);
          (tried ??= new Array<boolean>(this.lanes.length).fill(false))[i] = true;
          continue;
        }
        lane.breaker.success();
        lane.answered++;
        lane.latencySum += this.now() - started;
        return response;
      } catch (e) {
        lane.errors++;
        const callError = isModelCallError(e);
        release?.(callError && e.kind === 'rate-limit' ? 'rate-limited' : 'error');
        if (!callError) {
          lane.breaker.abandon();
          throw e;
        }
        if (endpointFault(e)) lane.breaker.failure(this.now());
        else lane.breaker.success();
        if (!e.retryable) throw e;
        last = e;
        (tried ??= new Array<boolean>(this.lanes.length).fill(false))[i] = true;
      } finally {
        lane.outstanding--;
      }
    }
    const other = this.lanes.filter((l) => l.servedModel !== undefined);
    if (other.length === this.lanes.length) {
      throw new HptError(
        'E_ENDPOINT',
        `every endpoint of ${this.id} serves another model (${other.map((l) => `${l.endpoint} ${otherModelReason(this.asked, l.servedModel!)}`).join('; ')}): their answers are neither scored nor cached. Check --base-url: each must serve ${this.asked} (a dated snapshot of it is accepted; --served-model <name> when they serve it under another name)`,
      );
    }
    if (last) throw last;
    if (other.length) {
      throw new ModelCallError('connection', `no endpoint of ${this.id} is available: ${other.map((l) => l.endpoint).join(', ')} ${other.length === 1 ? 'serves' : 'serve'} another model and the others are down (${this.lanes.filter((l) => l.servedModel === undefined).map((l) => l.endpoint).join(', ')}); they are probed again after their cool-down`);
    }
    throw new ModelCallError('connection', `all ${this.lanes.length} endpoints of ${this.id} are down (${this.endpoints.join(', ')}); each is probed again after its cool-down`);
  }

  /** The index of the endpoint for the next request (see the class doc), or -1 when none not yet `tried` is available. */
  private pick(tried: boolean[] | undefined): number {
    const n = this.lanes.length;
    const now = this.now();
    let best = -1;
    let bestLoad = Infinity;
    for (let k = 0; k < n; k++) {
      const i = (this.cursor + k) % n;
      if (tried?.[i]) continue;
      const lane = this.lanes[i]!;
      if (lane.servedModel !== undefined) continue;
      const a = lane.breaker.availability(now);
      if (a === 'probe') {
        lane.breaker.startProbe();
        best = i;
        break;
      }
      if (a === 'closed' && lane.outstanding < bestLoad) {
        best = i;
        bestLoad = lane.outstanding;
      }
    }
    if (best >= 0) this.cursor = (best + 1) % n;
    return best;
  }
}

/**
 * The endpoints of a model: an `EndpointSpread`'s (or a wrapper's `endpoints`, e.g. a `ModelClient` over one), else
 * `[model.endpoint]`, else `[]` (local baselines).
 */
export function modelEndpoints(model: Pick<Model, 'endpoint'> & { endpoints?: readonly string[] }): readonly string[] {
  if (model.endpoints) return model.endpoints;
  return model.endpoint === undefined ? [] : [model.endpoint];
}
