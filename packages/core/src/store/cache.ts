/**
 * The model-call cache (issue #5 item 1; DESIGN.md "store"): one table in the SQLite store, so a rerun or a resumed run
 * never pays twice for the same call.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Model, ModelRequest, ModelResponse } from '@hpt-bench/sdk';
import type { WriteQueue } from './store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS call_cache (
  key TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  endpoint TEXT,
  response TEXT NOT NULL,
  created_at TEXT NOT NULL,
  hits INTEGER NOT NULL DEFAULT 0
);
`;

/** What `CallCache.stats` reports: entries, stored bytes (key + response + model + endpoint), total hits, and per model id. */
export interface CacheStats {
  entries: number;
  bytes: number;
  hits: number;
  byModel: Record<string, { entries: number; hits: number }>;
}

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
 * distinct calls and the cache key includes where in the run the call is made (issue #5 item 1).
 */
export function isStochastic(request: Pick<ModelRequest, 'temperature'>): boolean {
  return request.temperature > 0;
}

/**
 * The canonical JSON the cache key hashes (issue #5 item 1), with a fixed field order:
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

/** The cache key of a call: hex SHA-256 of `cacheKeyMaterial(model, request)` (issue #5 item 1). */
export function cacheKey(model: Pick<Model, 'id' | 'endpoint'>, request: ModelRequest): string {
  return createHash('sha256').update(cacheKeyMaterial(model, request)).digest('hex');
}

/**
 * Whether a response may be cached (issue #5 item 1: errors, refusals and empty outputs are never cached): its text is
 * non-empty after trimming and its `finishReason` is not `content_filter` (the provider refused or withheld the
 * output). Errors never reach the cache (they are thrown, not returned). A `length`-truncated answer is cached: the
 * same settings would truncate it again.
 */
export function cacheable(response: ModelResponse): boolean {
  return response.text.trim() !== '' && response.finishReason !== 'content_filter';
}

interface StoredResponse {
  text: string;
  logprobs?: number[];
  usage: ModelResponse['usage'];
  finishReason: string;
}

/**
 * The model-call cache over the run store's SQLite handle (`new CallCache(store.db, store)`; issue #5 item 1). Table
 * `call_cache (key, model, endpoint, response JSON, created_at ISO-8601, hits)`; a response is stored as
 * `{text, logprobs?, usage, finishReason}` (latency and the `cached` flag are not stored). Safe to share between
 * processes on one file (SQLite WAL); first writer wins.
 *
 * With a `WriteQueue` (the run store), new entries and hit counts are written in the store's group commit instead of
 * one transaction per call; entries waiting for it are served from memory. A SIGKILL then loses at most the entries of
 * the last group window (`GroupCommit.maxDelayMs`, default 100 ms) — fewer calls than are in flight at any moment at
 * real endpoint latencies, which a crash loses anyway. Without one, every put and hit commits on its own.
 */
export class CallCache {
  private readonly getStmt: Database.Statement<[string], { response: string }>;
  private readonly hitStmt: Database.Statement<[string]>;
  private readonly putStmt: Database.Statement<[string, string, string | null, string, string]>;
  /** entries put but not yet committed (queued in `writes`), by key */
  private readonly unwritten = new Map<string, string>();

  /** Creates the `call_cache` table when missing. */
  constructor(private readonly db: Database.Database, private readonly writes?: WriteQueue) {
    db.exec(SCHEMA);
    this.getStmt = db.prepare('SELECT response FROM call_cache WHERE key = ?');
    this.hitStmt = db.prepare('UPDATE call_cache SET hits = hits + 1 WHERE key = ?');
    this.putStmt = db.prepare('INSERT OR IGNORE INTO call_cache (key, model, endpoint, response, created_at) VALUES (?, ?, ?, ?, ?)');
  }

  /** The stored response for `key` (counting a hit), or undefined. The result has no `latencyMs` and no `cached` flag. */
  get(key: string): ModelResponse | undefined {
    const json = this.unwritten.get(key) ?? this.getStmt.get(key)?.response;
    if (json === undefined) return undefined;
    if (this.writes) this.writes.defer(() => this.hitStmt.run(key));
    else this.hitStmt.run(key);
    const s = JSON.parse(json) as StoredResponse;
    return { text: s.text, ...(s.logprobs ? { logprobs: s.logprobs } : {}), usage: s.usage, finishReason: s.finishReason };
  }

  /**
   * Store `response` under `key` for model id `model` at `endpoint` (stored without credentials). An existing entry is
   * kept (INSERT OR IGNORE). Does not check `cacheable` — callers do.
   */
  put(key: string, model: string, endpoint: string | undefined, response: ModelResponse): void {
    const stored: StoredResponse = {
      text: response.text,
      ...(response.logprobs ? { logprobs: response.logprobs } : {}),
      usage: { promptTokens: response.usage.promptTokens, completionTokens: response.usage.completionTokens },
      finishReason: response.finishReason,
    };
    const json = JSON.stringify(stored);
    const row: [string, string, string | null, string, string] = [key, model, endpointForCache(endpoint), json, new Date().toISOString()];
    if (!this.writes) {
      this.putStmt.run(...row);
      return;
    }
    if (this.unwritten.has(key)) return; // first writer wins, as INSERT OR IGNORE
    this.unwritten.set(key, json);
    this.writes.defer(() => {
      this.unwritten.delete(key);
      this.putStmt.run(...row);
    });
  }

  /** Entries, bytes (UTF-8 bytes of key, response, model and endpoint), hits, and the same per model id. */
  stats(): CacheStats {
    this.writes?.flush();
    const total = this.db
      .prepare(
        `SELECT COUNT(*) AS entries, COALESCE(SUM(hits), 0) AS hits,
                COALESCE(SUM(LENGTH(CAST(key AS BLOB)) + LENGTH(CAST(response AS BLOB)) + LENGTH(CAST(model AS BLOB)) + COALESCE(LENGTH(CAST(endpoint AS BLOB)), 0)), 0) AS bytes
         FROM call_cache`,
      )
      .get() as { entries: number; hits: number; bytes: number };
    const rows = this.db.prepare('SELECT model, COUNT(*) AS entries, COALESCE(SUM(hits), 0) AS hits FROM call_cache GROUP BY model ORDER BY model').all() as {
      model: string;
      entries: number;
      hits: number;
    }[];
    const byModel: CacheStats['byModel'] = {};
    for (const r of rows) byModel[r.model] = { entries: r.entries, hits: r.hits };
    return { entries: total.entries, bytes: total.bytes, hits: total.hits, byModel };
  }

  /** Delete every entry, or only those of model id `model`; returns the number of rows deleted. */
  clear(model?: string): number {
    this.writes?.flush();
    const r = model === undefined ? this.db.prepare('DELETE FROM call_cache').run() : this.db.prepare('DELETE FROM call_cache WHERE model = ?').run(model);
    return r.changes;
  }
}
