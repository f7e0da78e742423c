/**
 * Cache lookups of the model client: the key of a call (model id, credential-free endpoint, generation settings,
 * messages and, when sampling is stochastic, where in the run the call is made) and whether a response may be cached.
 * The table the entries live in is the store's (`CallCache`, store/cache.ts).
 */
import { createHash } from 'node:crypto';
import type { Model, ModelRequest, ModelResponse } from '@hpt-bench/sdk';

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
 * The canonical JSON the cache key hashes, with a fixed field order:
 * `v` (format version), `model` (model id), `endpoint` (base URL without credentials, or null), `temperature`, `topP`,
 * `maxTokens`, `seed` (or null), `logprobs` (boolean), `messages` (`[role, content]` pairs), `responseFormat` when structured output is asked for, and `draw`: when sampling
 * is stochastic (temperature > 0) and the request has a `context`, the call's coordinates — sample id, replicate
 * (`sample.meta.replicate`, default 0), level, strategy, purpose, seq, the run seed, and in adaptive runs the
 * iteration — else null (at temperature 0
 * the same request gives the same answer wherever it is made, so identical calls share one entry).
 * Never contains secrets: only the model id, the credential-free endpoint and the request.
 */
export function cacheKeyMaterial(model: Pick<Model, 'id' | 'endpoint'>, request: ModelRequest): string {
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
    endpoint: endpointForCache(model.endpoint),
    temperature: request.temperature,
    topP: request.topP,
    maxTokens: request.maxTokens,
    seed: request.seed ?? null,
    logprobs: request.logprobs ?? false,
    messages: request.messages.map((m) => [m.role, m.content]),
    draw,
    // structured output (the judge); absent otherwise, so keys of plain calls are unchanged
    ...(request.responseFormat ? { responseFormat: request.responseFormat } : {}),
  });
}

/** The cache key of a call: hex SHA-256 of `cacheKeyMaterial(model, request)`. */
export function cacheKey(model: Pick<Model, 'id' | 'endpoint'>, request: ModelRequest): string {
  return createHash('sha256').update(cacheKeyMaterial(model, request)).digest('hex');
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
