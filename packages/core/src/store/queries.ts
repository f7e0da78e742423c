/**
 * The read side of the store: the queries of reports (`hpt-bench report`, `compare`) and of the cache commands
 * (`hpt-bench cache stats`). Plain reads of the store's tables (store/schema.ts); callers go through `RunStore`
 * methods (`sampleUnitRows`, `ladderVerdictRows`, `cacheStats`), which commit pending writes first.
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

/**
 * One stored attempt of a done sample of a manual run, as the ladder diagnostics read it (issue 28): the sample's id,
 * its index (`samples.idx`), its replicate (`meta.replicate`, only when the sample has one: `--replicates n`), the
 * attempt's level (1..m) and whether the scorer accepted it. An early-exit run stores levels 1..k (k the first solved
 * level, or m); a `--full-ladder` run (`RunConfig.fullLadder`) levels 1..m of every sample.
 */
export interface LadderVerdictRow {
  sampleId: string;
  index: number;
  replicate?: number;
  level: number;
  solved: boolean;
}

/**
 * The verdicts of a run's stored attempts: one row per attempt of each done sample (errored samples are left out),
 * ordered by sample index, then attempt. `[]` for a run of the adaptive HPF (its attempts follow the selector, not
 * the ladder; hpt.md §2.3) or an unknown run id. Portable SQL: SQLite and PostgreSQL alike.
 */
export function ladderVerdictRows(handle: SqlHandle, runId: string): LadderVerdictRow[] {
  const rows = sqlHandle(handle)
    .prepare(
      `SELECT s.sample_id, s.idx, s.meta, a.level, a.solved
       FROM attempts a
       JOIN samples s ON s.run_id = a.run_id AND s.idx = a.idx
       JOIN runs r ON r.id = a.run_id
       WHERE a.run_id = ? AND s.status = 'done' AND r.mode = 'manual'
       ORDER BY a.idx, a.attempt`,
    )
    .all(runId) as { sample_id: string; idx: number; meta: string | null; level: number; solved: number }[];
  return rows.map((r) => {
    const replicate = r.meta ? (JSON.parse(r.meta) as Record<string, Json>).replicate : undefined;
    return { sampleId: r.sample_id, index: r.idx, ...(typeof replicate === 'number' ? { replicate } : {}), level: r.level, solved: r.solved === 1 };
  });
}
