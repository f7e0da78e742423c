/**
 * The model-call cache (DESIGN.md "store"): one table in the run store (SQLite or PostgreSQL), so a rerun or a resumed run never pays twice
 * for the same call. Its keys are computed by exec/cache-key.ts; every statement on the table is here.
 */
import { type SqlDatabase, type SqlHandle, sqlHandle, type SqlStatement } from './sql.js';
import type { ModelResponse } from '@hpt-bench/sdk';
import { endpointForCache } from '../exec/cache-key.js';
import { CACHE_SCHEMA } from './schema.js';
import { cacheStats, type CacheStats } from './queries.js';
import type { WriteQueue } from './store.js';

interface StoredResponse {
  text: string;
  /** the provider's reasoning field (issue #24) */
  reasoning?: string;
  logprobs?: number[];
  usage: ModelResponse['usage'];
  finishReason: string;
}

/**
 * The model-call cache over the run store's database handle (`new CallCache(store.db, store)`). Table
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
  private readonly getStmt: SqlStatement<{ response: string }>;
  private readonly hitStmt: SqlStatement;
  private readonly putStmt: SqlStatement;
  /** entries put but not yet committed (queued in `writes`), by key */
  private readonly unwritten = new Map<string, string>();

  private readonly db: SqlDatabase;

  /** Creates the `call_cache` table when missing. `handle`: the store's `db` (or a raw better-sqlite3 connection). */
  constructor(handle: SqlHandle, private readonly writes?: WriteQueue) {
    const db = (this.db = sqlHandle(handle));
    if (!db.hasTable('call_cache')) db.exec(CACHE_SCHEMA);
    this.getStmt = db.prepare<{ response: string }>('SELECT response FROM call_cache WHERE key = ?');
    this.hitStmt = db.prepare('UPDATE call_cache SET hits = hits + 1 WHERE key = ?');
    this.putStmt = db.prepare('INSERT INTO call_cache (key, model, endpoint, response, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING');
  }

  /** The stored response for `key` (counting a hit), or undefined. The result has no `latencyMs` and no `cached` flag. */
  get(key: string): ModelResponse | undefined {
    const json = this.unwritten.get(key) ?? this.getStmt.get(key)?.response;
    if (json === undefined) return undefined;
    if (this.writes) this.writes.defer(() => this.hitStmt.run(key));
    else this.hitStmt.run(key);
    const s = JSON.parse(json) as StoredResponse;
    return { text: s.text, ...(s.reasoning !== undefined ? { reasoning: s.reasoning } : {}), ...(s.logprobs ? { logprobs: s.logprobs } : {}), usage: s.usage, finishReason: s.finishReason };
  }

  /**
   * Store `response` under `key` for model id `model` at `endpoint` (stored without credentials). An existing entry is
   * kept (ON CONFLICT DO NOTHING). Does not check `cacheable` — callers do.
   */
  put(key: string, model: string, endpoint: string | undefined, response: ModelResponse): void {
    const stored: StoredResponse = {
      text: response.text,
      ...(response.reasoning !== undefined ? { reasoning: response.reasoning } : {}),
      ...(response.logprobs ? { logprobs: response.logprobs } : {}),
      usage: { promptTokens: response.usage.promptTokens, completionTokens: response.usage.completionTokens, ...(response.usage.reasoningTokens !== undefined ? { reasoningTokens: response.usage.reasoningTokens } : {}) },
      finishReason: response.finishReason,
    };
    const json = JSON.stringify(stored);
    const row: [string, string, string | null, string, string] = [key, model, endpointForCache(endpoint), json, new Date().toISOString()];
    if (!this.writes) {
      this.putStmt.run(...row);
      return;
    }
    if (this.unwritten.has(key)) return; // first writer wins, as ON CONFLICT DO NOTHING
    this.unwritten.set(key, json);
    this.writes.defer(() => {
      this.unwritten.delete(key);
      this.putStmt.run(...row);
    });
  }

  /** Entries, bytes (UTF-8 bytes of key, response, model and endpoint), hits, and the same per model id (`cacheStats`). */
  stats(): CacheStats {
    this.writes?.flush();
    return cacheStats(this.db);
  }

  /**
   * Whether the cache holds any answer of model id `model` (a lookup that stops at the first matching row): a run
   * against an endpoint that cannot be reached goes on when it may be a replay of cached answers.
   */
  holds(model: string): boolean {
    this.writes?.flush();
    return this.db.prepare('SELECT 1 FROM call_cache WHERE model = ? LIMIT 1').get(model) !== undefined;
  }

  /** Delete every entry, or only those of model id `model`; returns the number of rows deleted. */
  clear(model?: string): number {
    this.writes?.flush();
    const r = model === undefined ? this.db.prepare('DELETE FROM call_cache').run() : this.db.prepare('DELETE FROM call_cache WHERE model = ?').run(model);
    return r.changes;
  }
}

/**
 * A read-only lookup of the cache table of a store opened for reading (`hpt-bench plan`): whether an entry exists for
 * a key, without counting a hit or creating the table (a store without one has no entries).
 */
export function cacheLookup(handle: SqlHandle): (key: string) => boolean {
  const db = sqlHandle(handle);
  if (!db.hasTable('call_cache')) return () => false;
  const stmt = db.prepare('SELECT 1 FROM call_cache WHERE key = ?');
  return (key) => stmt.get(key) !== undefined;
}
