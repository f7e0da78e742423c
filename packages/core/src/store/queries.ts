/**
 * The read side of the store: the queries of reports (`hpt-bench report`, `compare`) and of the cache commands
 * (`hpt-bench cache stats`). Plain reads of the store's tables (store/schema.ts); callers go through `RunStore`
 * methods (`sampleUnitRows`, `cacheStats`), which commit pending writes first.
 */
import { type SqlHandle, sqlHandle } from './sql.js';
import type { Json } from '@hpt-bench/sdk';

/** What `cacheStats` reports: entries, stored bytes (key + response + model + endpoint), total hits, and per model id. */
export interface CacheStats {
  entries: number;
  bytes: number;
  hits: number;
  byModel: Record<string, { entries: number; hits: number }>;
}

/**
 * Size and use of the model-call cache: entries, bytes (UTF-8 bytes of key, response, model and endpoint), hits, and
 * entries and hits per model id (sorted by model id). Reads the `call_cache` table, which must exist.
 */
export function cacheStats(handle: SqlHandle): CacheStats {
  const db = sqlHandle(handle);
  const total = db
    .prepare(
      `SELECT COUNT(*) AS entries, COALESCE(SUM(hits), 0) AS hits,
              COALESCE(SUM(OCTET_LENGTH(key) + OCTET_LENGTH(response) + OCTET_LENGTH(model) + COALESCE(OCTET_LENGTH(endpoint), 0)), 0) AS bytes
       FROM call_cache`,
    )
    .get() as { entries: number; hits: number; bytes: number };
  const rows = db.prepare('SELECT model, COUNT(*) AS entries, COALESCE(SUM(hits), 0) AS hits FROM call_cache GROUP BY model ORDER BY model').all() as {
    model: string;
    entries: number;
    hits: number;
  }[];
  const byModel: CacheStats['byModel'] = {};
  for (const r of rows) byModel[r.model] = { entries: r.entries, hits: r.hits };
  return { entries: total.entries, bytes: total.bytes, hits: total.hits, byModel };
}

/**
 * A done sample of a run as reports read it (one row of `samples`): its id and position, the stored HPI sum, how many
 * scores that sum holds, how many of them are solves, the solving level (or null), and its `meta`.
 */
export interface SampleUnitRow {
  sampleId: string;
  index: number;
  hpi: number;
  scores: number;
  solved: number;
  level: number | null;
  meta?: Record<string, Json>;
}

/** A run's done samples in input order (errored rows are left out). */
export function sampleUnitRows(handle: SqlHandle, runId: string): SampleUnitRow[] {
  const rows = sqlHandle(handle)
    .prepare("SELECT sample_id, idx, level, hpi, solved, scores, meta FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx")
    .all(runId) as { sample_id: string; idx: number; level: number | null; hpi: number; solved: number; scores: number; meta: string | null }[];
  return rows.map((r) => ({
    sampleId: r.sample_id,
    index: r.idx,
    hpi: r.hpi,
    scores: r.scores,
    solved: r.solved,
    level: r.level,
    ...(r.meta ? { meta: JSON.parse(r.meta) as Record<string, Json> } : {}),
  }));
}
