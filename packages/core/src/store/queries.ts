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

/**
 * How far a run has got (`hpt-bench view`'s live progress; cheap enough to poll): its done and errored sample rows, the
 * stored HPI sum and recorded scores of the done rows (HPI so far = `hpiSum / scores`, null-safe: 0 scores gives no
 * HPI), and the solved scores among them. All zero for an unknown run id or a run with no sample yet.
 */
export interface RunProgressCounts {
  done: number;
  errored: number;
  hpiSum: number;
  scores: number;
  solved: number;
}

/** A run's progress counts (`RunProgressCounts`) in one aggregate over its sample rows (the primary key's range). */
export function runProgressCounts(handle: SqlHandle, runId: string): RunProgressCounts {
  const r = sqlHandle(handle)
    .prepare(
      `SELECT COALESCE(SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END), 0) AS done,
              COALESCE(SUM(CASE WHEN status = 'errored' THEN 1 ELSE 0 END), 0) AS errored,
              COALESCE(SUM(CASE WHEN status = 'done' THEN hpi ELSE 0 END), 0) AS hpi_sum,
              COALESCE(SUM(CASE WHEN status = 'done' THEN scores ELSE 0 END), 0) AS scores,
              COALESCE(SUM(CASE WHEN status = 'done' THEN solved ELSE 0 END), 0) AS solved
       FROM samples WHERE run_id = ?`,
    )
    .get(runId) as { done: number | string; errored: number | string; hpi_sum: number | string; scores: number | string; solved: number | string };
  return { done: Number(r.done), errored: Number(r.errored), hpiSum: Number(r.hpi_sum), scores: Number(r.scores), solved: Number(r.solved) };
}

/**
 * One row of a page of a run's samples (`samplePage`): position, id, state (`done` or `errored`, with the reason),
 * the solving level (null: unsolved or errored), the stored HPI sum and its recorded scores, solved scores, the number
 * of stored attempts and the sample's `meta`.
 */
export interface SamplePageRow {
  index: number;
  sampleId: string;
  status: 'done' | 'errored';
  error: string | null;
  level: number | null;
  hpi: number;
  scores: number;
  solved: number;
  attempts: number;
  meta?: Record<string, Json>;
}

/**
 * Which samples `samplePage` returns: `offset` (default 0) and `limit` (default 50, at most 500) rows in input order,
 * of the samples with `outcome` (`solved`: done with a solved score; `unsolved`: done without; `errored`; default all),
 * whose id contains `query` (case-insensitive), equals `sampleId`, or whose index is `index`.
 */
export interface SamplePageOptions {
  offset?: number;
  limit?: number;
  outcome?: 'solved' | 'unsolved' | 'errored';
  query?: string;
  sampleId?: string;
  index?: number;
}

/** Largest page `samplePage` returns. */
export const SAMPLE_PAGE_MAX = 500;

/**
 * A page of a run's sample rows (done and errored) in input order, with the number of rows the filter matches in all
 * (`total`). Reads only the page's rows (LIMIT/OFFSET over the primary key) plus one count: a 10,000-sample run costs
 * no more than a small one. Portable SQL (SQLite and PostgreSQL).
 */
export function samplePage(handle: SqlHandle, runId: string, options: SamplePageOptions = {}): { total: number; rows: SamplePageRow[] } {
  const db = sqlHandle(handle);
  const offset = Math.max(0, Math.floor(options.offset ?? 0));
  const limit = Math.min(SAMPLE_PAGE_MAX, Math.max(1, Math.floor(options.limit ?? 50)));
  const where = ['s.run_id = ?'];
  const args: (string | number)[] = [runId];
  if (options.outcome === 'solved') where.push("s.status = 'done' AND s.solved > 0");
  else if (options.outcome === 'unsolved') where.push("s.status = 'done' AND s.solved = 0");
  else if (options.outcome === 'errored') where.push("s.status = 'errored'");
  if (options.query) {
    // LIKE with the pattern characters escaped; LOWER on both sides: PostgreSQL's LIKE is case-sensitive
    where.push("LOWER(s.sample_id) LIKE ? ESCAPE '\\'");
    args.push(`%${options.query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (options.sampleId !== undefined) {
    where.push('s.sample_id = ?');
    args.push(options.sampleId);
  }
  if (options.index !== undefined) {
    where.push('s.idx = ?');
    args.push(options.index);
  }
  const cond = where.join(' AND ');
  const total = Number((db.prepare(`SELECT COUNT(*) AS c FROM samples s WHERE ${cond}`).get(...args) as { c: number | string }).c);
  const rows = db
    .prepare(
      `SELECT s.idx, s.sample_id, s.status, s.error, s.level, s.hpi, s.scores, s.solved, s.meta,
              (SELECT COUNT(*) FROM attempts a WHERE a.run_id = s.run_id AND a.idx = s.idx) AS attempts
       FROM samples s WHERE ${cond} ORDER BY s.idx LIMIT ? OFFSET ?`,
    )
    .all(...args, limit, offset) as { idx: number; sample_id: string; status: string; error: string | null; level: number | null; hpi: number; scores: number; solved: number; meta: string | null; attempts: number | string }[];
  return {
    total,
    rows: rows.map((r) => ({
      index: Number(r.idx),
      sampleId: r.sample_id,
      status: r.status === 'errored' ? 'errored' : 'done',
      error: r.error ?? null,
      level: r.status === 'errored' ? null : r.level,
      hpi: Number(r.hpi),
      scores: Number(r.scores),
      solved: Number(r.solved),
      attempts: Number(r.attempts),
      ...(r.meta ? { meta: JSON.parse(r.meta) as Record<string, Json> } : {}),
    })),
  };
}
