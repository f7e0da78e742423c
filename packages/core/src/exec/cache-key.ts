/**
 * Cache lookups of the model client: the key of a call (model id, generation settings, messages, with
 * `--cache-key-endpoint` the credential-free endpoint(s), and, when sampling is stochastic, where in the run the call
 * is made) and whether a response may be cached.
 * The table the entries live in is the store's (`CallCache`, store/cache.ts).
 */
import { createHash } from 'node:crypto';
import type { Model, ModelRequest, ModelResponse } from '@hpt-bench/sdk';
import { modelEndpoints } from './endpoints.js';

/**
 * `endpoint` without credentials: user info (`https://user:pass@host`) and the query string are dropped, so a key
 * smuggled into a base URL never reaches the cache table or the cache key (DESIGN.md "Conventions": secrets).
 */
export function endpointForCache(endpoint: string | undefined): string | null {
  if (endpoint === undefined) return null;
  try {
    const u = new URL(endpoint);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return endpoint;
  }
}

/**
 * Whether sampling is stochastic for this request (temperature > 0): then repeated draws of the same prompt are
 * distinct calls and the cache key includes where in the run the call is made.
 */
export function isStochastic(request: Pick<ModelRequest, 'temperature'>): boolean {
  return request.temperature > 0;
}

/**
 * A model as the cache key sees it: its id and endpoint, and the endpoints of a model served by several
 * (`EndpointSpread`, or a `ModelClient` over one).
 */
export type CacheKeyModel = Pick<Model, 'id' | 'endpoint'> & { endpoints?: readonly string[] };

/** The `endpoint` field of a key with `--cache-key-endpoint`: the one endpoint (or null), or the sorted list of several. */
function keyEndpoint(model: CacheKeyModel): string | string[] | null {
  const all = modelEndpoints(model);
  if (all.length < 2) return endpointForCache(model.endpoint);
  return all.map((e) => endpointForCache(e)!).sort();
}

/**
 * The canonical JSON the cache key hashes, with a fixed field order:
 * `v` (format version), `model` (model id — the model served), `endpoint` only when `withEndpoint`
 * (`--cache-key-endpoint`: the base URL without credentials, or null without an endpoint, or the sorted list of a
 * model's several endpoints; with one endpoint the key is then the same as before endpoints were left out), `temperature`, `topP`,
 * `maxTokens`, `seed` (or null), `logprobs` (boolean), `messages` (`[role, content]` pairs), `responseFormat` when structured output is asked for, and `draw`: when sampling
 * is stochastic (temperature > 0) and the request has a `context`, the call's coordinates — sample id, replicate
 * (`sample.meta.replicate`, default 0), level, strategy, purpose, seq, the run seed, and in adaptive runs the
 * iteration — else null (at temperature 0
 * the same request gives the same answer wherever it is made, so identical calls share one entry).
 * Without `withEndpoint` the endpoints of one model share cached answers (replicas of the same weights), and a run
 * resumed with another endpoint list still finds them.
 * Never contains secrets: only the model id, the credential-free endpoint and the request.
 */
export function cacheKeyMaterial(model: CacheKeyModel, request: ModelRequest, withEndpoint = false): string {
  const ctx = request.context;
  const draw =
    isStochastic(request) && ctx
      ? {
          sample: ctx.sample.id,
          replicate: typeof ctx.sample.meta?.replicate === 'number' ? ctx.sample.meta.replicate : 0,
          level: ctx.level,
          strategy: ctx.strategy,
          purpose: ctx.purpose,
          seq: ctx.seq,
          runSeed: ctx.seed,
          // adaptive HPF: the same level can be drawn again at a later iteration (absent in manual runs: keys unchanged)
          ...(ctx.iteration !== undefined ? { iteration: ctx.iteration } : {}),
        }
      : null;
  return JSON.stringify({
    v: 1,
    model: model.id,
    ...(withEndpoint ? { endpoint: keyEndpoint(model) } : {}),
    temperature: request.temperature,
    topP: request.topP,
    maxTokens: request.maxTokens,
    seed: request.seed ?? null,
    logprobs: request.logprobs ?? false,
    messages: request.messages.map((m) => [m.role, m.content]),
    draw,
    // structured output (the judge); absent otherwise, so keys of plain calls are unchanged
    ...(request.responseFormat ? { responseFormat: request.responseFormat } : {}),
    // reasoning settings (issue #24): another effort is another answer; absent otherwise, keys unchanged
    ...(request.reasoningEffort !== undefined ? { reasoningEffort: request.reasoningEffort } : {}),
    ...(request.maxCompletionTokens !== undefined ? { maxCompletionTokens: request.maxCompletionTokens } : {}),
  });
}

/** The cache key of a call: hex SHA-256 of `cacheKeyMaterial(model, request, withEndpoint)`. */
export function cacheKey(model: CacheKeyModel, request: ModelRequest, withEndpoint = false): string {
  return createHash('sha256').update(cacheKeyMaterial(model, request, withEndpoint)).digest('hex');
}

/**
 * Whether a response may be cached (errors, refusals and empty outputs are never cached): its text is
 * non-empty after trimming and its `finishReason` is not `content_filter` (the provider refused or withheld the
 * output). Errors never reach the cache (they are thrown, not returned). A `length`-truncated answer is cached: the
 * same settings would truncate it again.
 */
export function cacheable(response: ModelResponse): boolean {
  return response.text.trim() !== '' && response.finishReason !== 'content_filter';
}
