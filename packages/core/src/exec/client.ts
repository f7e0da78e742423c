/**
 * The model client every strategy call goes through (DESIGN.md "Data flow": cache -> rate limit -> retry -> Model
 * plugin).
 */
import { askedModelName, HptError, isModelCallError, type Model, ModelCallError, type ModelCallErrorKind, type ModelRequest, type ModelResponse, otherModelReason, servesModel } from '@hpt-bench/sdk';
import type { CallCache } from '../store/cache.js';
import type { Batcher } from './batcher.js';
import { cacheable, cacheKey, isStochastic } from './cache-key.js';
import { EndpointSpread } from './endpoints.js';
import type { AimdLimiter, EndpointLimiters } from './limiter.js';
import { retryDelayMs, type RetryPolicy } from './retry.js';

/** What `ModelClient.onRetry` is told before it waits: model id, 1-based retry number, the wait in ms, and the error. */
export interface RetryInfo {
  model: string;
  attempt: number;
  delayMs: number;
  error: ModelCallError;
}

/**
 * Options of a `ModelClient`:
 * - `cache`: the model-call cache; absent = no caching (`--no-cache`);
 * - `limiters`: per-endpoint adaptive concurrency (share one `EndpointLimiters` between all clients of a run);
 * - `retry`: the retry policy (`--max-retries`);
 * - `random`: float in [0, 1) for backoff jitter (default `Math.random`; jitter need not be reproducible);
 * - `sleep`: waits `ms` milliseconds (default a timer; inject a fake in tests);
 * - `onRetry`: called before each backoff wait (for logs / progress);
 * - `maxResponseBytes`: a completion longer than this many UTF-8 bytes fails the call (non-retryable `client`
 *   ModelCallError, so its sample is recorded as errored) instead of reaching the store. The
 *   OpenAI-compatible plugin also stops reading a larger HTTP body; this check covers every model plugin.
 * - `cacheKeyEndpoint`: put the endpoint URL(s) into the cache key (`--cache-key-endpoint`; default false: the key names
 *   the model and the generation settings, so the endpoints of one model share cached answers).
 * - `batcher`: `run --batch` — calls that miss the cache are queued on it (the inner model must have a `batch`
 *   interface) instead of sent; retries are then the batcher's (a failed line goes into a later round).
 */
export interface ModelClientOptions {
  cache?: CallCache;
  cacheKeyEndpoint?: boolean;
  batcher?: Batcher;
  maxResponseBytes?: number;
  limiters: EndpointLimiters;
  retry: RetryPolicy;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  onRetry?(info: RetryInfo): void;
}

/**
 * Counters of a `ModelClient` (since construction):
 * - `calls`: `generate` invocations; `requests`: requests sent to the inner model (first tries + retries; an inner
 *   `EndpointSpread`'s failovers within one try count once: see its `stats()` per endpoint);
 * - `cacheHits`: calls answered from the cache (no request); `shared`: calls answered by an identical call already in
 *   flight (no request); `retries`: backoff waits; `failures`: calls that ended in an error;
 * - `errors`: failed requests by `ModelCallError` kind, `other` for any other error (e.g. `E_AUTH`);
 * - `cacheWriteErrors`: responses that could not be queued for the cache; the store then failed, and the call throws
 *   the store's `E_STORE` error (a run must not go on when its results cannot be kept).
 */
export interface ModelClientStats {
  calls: number;
  requests: number;
  cacheHits: number;
  shared: number;
  retries: number;
  failures: number;
  errors: Partial<Record<ModelCallErrorKind | 'other', number>>;
  cacheWriteErrors: number;
}

/** Default of `--max-response-bytes`: 4 MiB, far above any completion of `--max-tokens` 1024 (about 4 bytes a token). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A `Model` wrapping another with the call cache, the endpoint's adaptive concurrency limit and retries.
 * `id` and `endpoint` are the inner model's.
 *
 * `generate(request)`:
 * 1. cache (when enabled): a hit returns the stored response with `cached: true, latencyMs: 0` — no request, no slot;
 *    an identical call already in flight is awaited instead of sent twice (when its response is cacheable).
 *    Stochastic requests (temperature > 0) without a `context` bypass the cache: without the call's coordinates
 *    repeated draws would collapse into one entry;
 * 2. a slot of the endpoint's `AimdLimiter`, held only for the request itself;
 * 3. the inner model; the slot is released as `ok`, `rate-limited` (kind `rate-limit`) or `error`. An inner
 *    `EndpointSpread` (several endpoints) picks the endpoint and takes that endpoint's slot itself (step 2 is its own);
 * 4. success: checked — a text within `maxResponseBytes`, and from the model asked for: a response whose `model` names
 *    another model (`servesModel(askedModelName(id), response.model)`; no name, the same one or a dated snapshot of it
 *    are accepted) throws `HptError` `E_ENDPOINT` (exit 1), neither cached nor returned, so the run ends (an inner
 *    `EndpointSpread` drains such an endpoint itself and returns only answers of the model) —, then stored in the cache
 *    when `cacheable` (non-empty, not a refusal) and returned as the inner model gave it;
 *    a retryable `ModelCallError` with retries left: wait `retryDelayMs` (outside the slot) and try again; anything
 *    else — a `client` error, exhausted retries (the last error), or a non-`ModelCallError` such as `HptError`
 *    `E_AUTH` — is rethrown at once.
 */
export class ModelClient implements Model {
  readonly id: string;
  readonly endpoint?: string;
  /** the endpoints of an inner `EndpointSpread` (absent for one endpoint) */
  readonly endpoints?: readonly string[];
  private readonly counters: ModelClientStats = { calls: 0, requests: 0, cacheHits: 0, shared: 0, retries: 0, failures: 0, errors: {}, cacheWriteErrors: 0 };
  private readonly pending = new Map<string, Promise<ModelResponse | undefined>>();
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** the inner model when it spreads calls over several endpoints (it takes the endpoints' limiter slots itself) */
  private readonly spread: EndpointSpread | undefined;
  /** the endpoint's limiter (one endpoint) */
  private readonly limiter: AimdLimiter | undefined;
  /** calls without a cache key sent through the batcher so far (their custom ids' suffix) */
  private uncachedLines = 0;
  /** the model name the endpoint is asked for (`askedModelName(id)`), which answers must name (or not name at all) */
  private readonly asked: string;

  /** @param inner the model plugin to call (`id` and `endpoint` are taken from it); @param options see `ModelClientOptions`. */
  constructor(readonly inner: Model, private readonly options: ModelClientOptions) {
    this.id = inner.id;
    if (inner.endpoint !== undefined) this.endpoint = inner.endpoint;
    this.spread = inner instanceof EndpointSpread ? inner : undefined;
    if (this.spread) this.endpoints = this.spread.endpoints;
    this.limiter = this.spread ? undefined : options.limiters.for(inner.endpoint);
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? defaultSleep;
    this.asked = askedModelName(inner.id);
  }

  /** The cache key this client gives `request` (`cacheKey` of the inner model, with the endpoint when `cacheKeyEndpoint`). */
  cacheKeyOf(request: ModelRequest): string {
    return cacheKey(this.inner, request, this.options.cacheKeyEndpoint);
  }

  /** A snapshot of the counters (see `ModelClientStats`). */
  get stats(): ModelClientStats {
    return { ...this.counters, errors: { ...this.counters.errors } };
  }

  /**
   * One call through cache, limiter and retries (see the class doc).
   * @throws the inner model's error: `ModelCallError` when not retryable or retries are exhausted (the last one),
   *   any other error (e.g. `HptError` `E_AUTH`, `E_ENDPOINT`) immediately.
   */
  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.counters.calls++;
    const cache = this.options.cache;
    const batcher = this.options.batcher;
    if (!cache || (isStochastic(request) && !request.context)) {
      // batched without the cache: a call that has a key (so an interrupted run finds its line again) is sent under it
      return this.send(request, batcher && !(isStochastic(request) && !request.context) ? this.cacheKeyOf(request) : undefined);
    }
    const key = this.cacheKeyOf(request);
    for (;;) {
      const hit = cache.get(key);
      if (hit) {
        this.counters.cacheHits++;
        return { ...hit, cached: true, latencyMs: 0 };
      }
      const inFlight = this.pending.get(key);
      if (!inFlight) return this.generateUncached(request, key, cache);
      const shared = batcher ? await batcher.block(inFlight) : await inFlight;
      if (shared) {
        this.counters.shared++;
        return { ...shared, cached: true, latencyMs: 0 };
      }
      // the identical call failed or gave an uncacheable answer: look again (the first waiter makes a new call)
    }
  }

  /** Send, cache when cacheable, and let identical calls arriving meanwhile wait for this one. */
  private async generateUncached(request: ModelRequest, key: string, cache: CallCache): Promise<ModelResponse> {
    let settle!: (r: ModelResponse | undefined) => void;
    const shared = new Promise<ModelResponse | undefined>((resolve) => (settle = resolve));
    this.pending.set(key, shared);
    try {
      const response = await this.send(request, key);
      const keep = cacheable(response);
      if (keep) {
        try {
          cache.put(key, this.inner.id, this.spread ? undefined : this.inner.endpoint, response);
        } catch (e) {
          this.counters.cacheWriteErrors++;
          throw e;
        }
      }
      settle(keep ? response : undefined);
      return response;
    } catch (e) {
      settle(undefined);
      throw e;
    } finally {
      if (this.pending.get(key) === shared) this.pending.delete(key);
    }
  }

  /**
   * `response` when its text is a string within `maxResponseBytes` (UTF-8) and it comes from the model asked for.
   * @throws ModelCallError `client` (not retried) for a larger completion or a non-string text; HptError `E_ENDPOINT`
   *   (ends the run, exit 1) when its `model` names another model (`servesModel`).
   */
  private checked(response: ModelResponse): ModelResponse {
    if (typeof response.text !== 'string') throw new ModelCallError('client', `model ${this.id} returned a ${typeof response.text} instead of a text completion`);
    if (!servesModel(this.asked, response.model)) {
      throw new HptError(
        'E_ENDPOINT',
        `${this.endpoint ?? `model ${this.id}`} ${otherModelReason(this.asked, response.model!)} (the run asked for ${this.id}): its answers are neither scored nor cached. Check --base-url: the server must serve ${this.asked} (a dated snapshot of it is accepted); when it is that model under another name (an Azure deployment, llama-server without --alias), give --served-model <name>`,
      );
    }
    const max = this.options.maxResponseBytes;
    // a UTF-8 byte is at least a third of a UTF-16 code unit, so only long texts need counting
    if (max !== undefined && response.text.length * 3 > max && Buffer.byteLength(response.text) > max) {
      throw new ModelCallError('client', `response larger than ${max} bytes (--max-response-bytes): ${Buffer.byteLength(response.text)} bytes from model ${this.id}`);
    }
    return response;
  }

  /**
   * The call without the cache: queued on the batcher (`run --batch`; `key` is the call's cache key, else one is made
   * unique to this call), else limiter slot + inner call + retries.
   */
  private send(request: ModelRequest, key?: string): Promise<ModelResponse> {
    const batcher = this.options.batcher;
    if (!batcher) return this.sendOnline(request);
    // without a cache key (no cache, or a stochastic call without coordinates) each call is its own line
    const customId = key ?? `${this.cacheKeyOf(request)}-${++this.uncachedLines}`;
    return batcher.block(this.sendBatched(batcher, request, customId));
  }

  /** One call through the batcher; counted as one request, its error as a failure (retries are the batcher's). */
  private async sendBatched(batcher: Batcher, request: ModelRequest, customId: string): Promise<ModelResponse> {
    this.counters.requests++;
    try {
      return this.checked(await batcher.enqueue(this.inner, customId, request));
    } catch (e) {
      if (isModelCallError(e)) this.counters.errors[e.kind] = (this.counters.errors[e.kind] ?? 0) + 1;
      else this.counters.errors.other = (this.counters.errors.other ?? 0) + 1;
      this.counters.failures++;
      throw e;
    }
  }

  /** Limiter slot + inner call + retries. */
  private async sendOnline(request: ModelRequest): Promise<ModelResponse> {
    const limiter = this.limiter;
    const spread = this.spread;
    const policy = this.options.retry;
    for (let attempt = 0; ; attempt++) {
      let error: unknown;
      let response: ModelResponse | undefined;
      if (limiter) {
        const release = await limiter.acquire();
        this.counters.requests++;
        try {
          response = await this.inner.generate(request);
          release('ok');
        } catch (e) {
          error = e;
          release(isModelCallError(e) && e.kind === 'rate-limit' ? 'rate-limited' : 'error');
        }
      } else {
        this.counters.requests++;
        try {
          response = await spread!.generate(request, this.options.limiters);
        } catch (e) {
          error = e;
        }
      }
      if (response) {
        try {
          return this.checked(response);
        } catch (e) {
          error = e;
        }
      }
      if (!isModelCallError(error)) {
        this.counters.errors.other = (this.counters.errors.other ?? 0) + 1;
        this.counters.failures++;
        throw error;
      }
      this.counters.errors[error.kind] = (this.counters.errors[error.kind] ?? 0) + 1;
      if (!error.retryable || attempt >= policy.maxRetries) {
        this.counters.failures++;
        throw error;
      }
      const delayMs = retryDelayMs(attempt, error, this.random, policy);
      this.counters.retries++;
      this.options.onRetry?.({ model: this.id, attempt: attempt + 1, delayMs, error });
      await this.sleep(delayMs);
    }
  }
}
