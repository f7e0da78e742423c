/**
 * The queries of `hpt-bench view` (issue 29): read-only views of a run store as JSON for the viewer's pages — the runs
 * list with its filters, a run page (report tables of a completed run, usage per level, live progress of a running
 * one), pages of a run's samples, one sample's ladder trace, and the paired comparison of two runs. Every function
 * here only reads the store (opened with `readonly: true`); stored text is returned as JSON strings, never as markup.
 */
import { compareRuns, formatCell, liveWorkers, ownerAlive, shortRunIds, gatherReport, HptError, isHptError, type Json, reportTables, ReportViews, type ReportTable, type RunRecord, type RunStore, type SampleResult, type SamplePageOptions, type SamplePageRow, type CompareResult } from '@hpt-bench/core';

/** One run in the runs list (`GET /api/runs`). `hpi` / `accuracy`: the summary's, for completed runs, else so far. */
export interface RunListItem {
  id: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  dataset: string;
  model: string;
  mode: string;
  /** the ladder's name (`--ladder`, e.g. `hpf`), '' when the run did not record one */
  ladder: string;
  /** the ladder's levels (strategy ids, L1 first) */
  levels: string[];
  /** done and errored sample rows */
  done: number;
  errored: number;
  /** HPI (levels; lower is better) and accuracy (a share in [0, 1]); null with no scored sample */
  hpi: number | null;
  accuracy: number | null;
  error: string | null;
}

/** Filters of the runs list (exact matches; absent: any). */
export interface RunFilters {
  model?: string;
  dataset?: string;
  ladder?: string;
  status?: string;
}

/** `GET /api/runs`: the store's label, the runs matching the filters (newest first), and every value each filter can take. */
export interface RunsListing {
  store: string;
  runs: RunListItem[];
  /** the runs in the store before filtering */
  total: number;
  facets: { model: string[]; dataset: string[]; ladder: string[]; status: string[] };
}

function ladderOf(r: RunRecord): { ladder: string; levels: string[] } {
  const c = r.config;
  const levels = Array.isArray(c.ladderLevels) ? c.ladderLevels.map(String) : Array.isArray(r.summary?.ladder) ? (r.summary!.ladder as Json[]).map(String) : [];
  return { ladder: typeof c.ladder === 'string' ? c.ladder : '', levels };
}

function num(v: Json | undefined): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * The runs list: every run of the store (newest first) with its sample counts (one grouped count over the samples
 * table) and HPI, filtered by `filters`; `facets` lists the values of the whole store (sorted).
 */
export function listRuns(store: RunStore, label: string, filters: RunFilters = {}): RunsListing {
  const counts = store.sampleCounts();
  const all = store.listRuns().map((r): RunListItem => {
    const c = counts.get(r.id) ?? { done: 0, errored: 0 };
    const s = r.summary ?? {};
    return { id: r.id, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt, dataset: r.dataset, model: r.model, mode: r.mode, ...ladderOf(r), done: c.done, errored: c.errored, hpi: num(s.hpi), accuracy: num(s.accuracy), error: r.error };
  });
  const facet = (k: keyof RunFilters) => [...new Set(all.map((r) => r[k]))].sort();
  const runs = all.filter((r) => (Object.keys(filters) as (keyof RunFilters)[]).every((k) => !filters[k] || r[k] === filters[k]));
  return { store: label, runs, total: all.length, facets: { model: facet('model'), dataset: facet('dataset'), ladder: facet('ladder'), status: facet('status') } };
}

/**
 * A running run's progress (`GET /api/runs/:id/progress`, the `progress` events of `/events`):
 * - `done` / `errored`: sample rows recorded; `total`: the samples the run is expected to hold, when known (the
 *   fingerprint's `limit` × replicates, else the rows of the newest completed run on the same data), else null;
 * - `hpi` (levels) and `accuracy` (share) of the done samples so far (null before the first);
 * - `etaSeconds`: time left at the rate `rate` (samples per second) when the total and a rate are known, else null.
 */
export interface RunProgress {
  id: string;
  status: string;
  updatedAt: string;
  done: number;
  errored: number;
  total: number | null;
  hpi: number | null;
  accuracy: number | null;
  rate: number | null;
  etaSeconds: number | null;
  /**
   * for a `running` run: whether a process still executes it (its owner's or a worker's heartbeat is recent and, on
   * this host, its process exists: `ownerAlive`, `liveWorkers`); false means it was interrupted (a kill, a crash) and
   * `hpt-bench run --resume ID` continues it; null for runs not running
   */
  alive: boolean | null;
}

/**
 * The number of samples a run will hold: `samplesTotal` of its stored configuration (counted when it started); for runs
 * made before that was recorded, the fingerprint's `limit` times its `replicates`, else the sample rows of the newest
 * completed run of the same dataset, split and source; null when none is known.
 */
export function expectedTotal(store: RunStore, run: RunRecord): number | null {
  // recorded when the run started (runs made since it is recorded)
  if (typeof run.config.samplesTotal === 'number') return run.config.samplesTotal;
  const fp = run.fingerprint ?? {};
  const replicates = typeof fp.replicates === 'number' && fp.replicates > 0 ? fp.replicates : 1;
  if (typeof fp.limit === 'number' && fp.limit > 0) return fp.limit * replicates;
  const key = JSON.stringify((fp.data as Json) ?? null);
  if (key === 'null') return null;
  const counts = store.sampleCounts();
  for (const r of store.listRuns()) {
    if (r.id === run.id || r.status !== 'completed' || r.dataset !== run.dataset) continue;
    const f = r.fingerprint ?? {};
    if (JSON.stringify((f.data as Json) ?? null) !== key || f.limit !== fp.limit || (f.replicates ?? 1) !== replicates) continue;
    const c = counts.get(r.id);
    return c ? c.done + c.errored : null;
  }
  return null;
}

/**
 * The progress of run `id` now. `rate` (samples per second) is measured by the caller between observations (the
 * events stream); without one, the run's samples over the time since it was created.
 * @throws HptError `E_UNKNOWN_ID` for an id the store does not hold.
 */
export function runProgress(store: RunStore, id: string, options: { total?: number | null; rate?: number | null; now?: number } = {}): RunProgress {
  const run = requireRun(store, id);
  const p = store.runProgress(id);
  const total = options.total !== undefined ? options.total : expectedTotal(store, run);
  const elapsed = ((options.now ?? Date.now()) - Date.parse(run.createdAt)) / 1000;
  const rate = options.rate ?? (p.done + p.errored > 0 && elapsed > 0 ? (p.done + p.errored) / elapsed : null);
  const left = total === null ? null : Math.max(0, total - p.done - p.errored);
  return {
    id,
    status: run.status,
    updatedAt: run.updatedAt,
    done: p.done,
    errored: p.errored,
    total,
    hpi: p.scores > 0 ? p.hpiSum / p.scores : null,
    accuracy: p.scores > 0 ? p.solved / p.scores : null,
    rate,
    etaSeconds: run.status !== 'running' ? 0 : left !== null && rate !== null && rate > 0 ? left / rate : null,
    alive: run.status !== 'running' ? null : ownerAlive(run, options.now) || liveWorkers(store, id, '', options.now).length > 0,
  };
}

/** A report table with its cells formatted as `hpt-bench report` prints them (`formatCell`), ready to show as text. */
export interface ViewTable {
  id: string;
  title: string;
  source?: string;
  notes: string[];
  columns: { label: string; numeric: boolean }[];
  /**
   * each cell's text, and its 95% interval as text when the column carries one; in run-id columns (`ReportColumn.runId`)
   * the text is the short id (`shortRunIds`) and `title` the full one
   */
  rows: { text: string; ci?: string; title?: string }[][];
}

/** `table` with formatted cells (`ViewTable`). */
export function viewTable(t: ReportTable): ViewTable {
  const ids = t.columns.flatMap((c, j) => (c.runId ? t.rows.map((r) => r[j]?.value).filter((v): v is string => typeof v === 'string') : []));
  const short = shortRunIds(ids);
  return {
    id: t.id,
    title: t.title,
    ...(t.source ? { source: t.source } : {}),
    notes: t.notes,
    columns: t.columns.map((c, j) => ({ label: c.label, numeric: t.rows.some((r) => typeof r[j]?.value === 'number') })),
    rows: t.rows.map((r) =>
      t.columns.map((c, j) => {
        const cell = r[j] ?? { value: null };
        const d = c.digits ?? 3;
        if (c.runId && typeof cell.value === 'string') return { text: short.get(cell.value) ?? cell.value, title: cell.value };
        return { text: formatCell({ value: cell.value }, c), ...(c.ci && cell.ci && cell.value !== null ? { ci: `[${cell.ci[0].toFixed(d)}, ${cell.ci[1].toFixed(d)}]` } : {}) };
      }),
    ),
  };
}

/**
 * `GET /api/runs/:id`: the run (its list item, configuration, preflight and fingerprint), its usage per level and model
 * (calls, tokens, reasoning tokens when present; `StoredAggregate.usageByLevel`), its progress, and — for a completed
 * run — the report tables (`gatherReport` + `reportTables`: runs overview, usage and cost per level, paper tables);
 * `tablesError` says why there are none (e.g. a running run).
 */
export interface RunPage {
  run: RunListItem & { config: Record<string, Json>; fingerprint: Record<string, Json> | null; preflight: Record<string, Json> | null; owner: string | null; heartbeatAt: string | null };
  usage: { level: number; model: string; cached: boolean; batched?: boolean; calls: number; promptTokens: number; completionTokens: number; reasoningTokens?: number; truncatedThinking?: number }[];
  progress: RunProgress;
  tables: ViewTable[];
  tablesError?: string;
}

/** Options of the run page: report views (paper tables of plugins; default none) and the bootstrap settings. */
export interface RunPageOptions {
  views?: ReportViews;
  resamples?: number;
  seed?: number;
}

/**
 * The run page of run `id` (`RunPage`).
 * @throws HptError `E_UNKNOWN_ID` for an id the store does not hold.
 */
export function runPage(store: RunStore, label: string, id: string, options: RunPageOptions = {}): RunPage {
  const r = requireRun(store, id);
  const item = listRuns(store, label).runs.find((x) => x.id === id)!;
  let tables: ViewTable[] = [];
  let tablesError: string | undefined;
  if (r.status === 'completed') {
    try {
      const data = gatherReport(store, label, { runIds: [id], resamples: options.resamples ?? 2000, seed: options.seed ?? 0 });
      tables = reportTables(data, options.views ?? ReportViews.none).map(viewTable);
    } catch (e) {
      tablesError = (e as Error).message;
    }
  } else tablesError = r.status === 'running' ? 'the run is still running: its tables come when it completes (progress above)' : `the run ${r.status}: ${r.error ?? 'no reason recorded'}`;
  return {
    run: { ...item, config: r.config, fingerprint: r.fingerprint, preflight: r.preflight, owner: r.owner, heartbeatAt: r.heartbeatAt },
    usage: store.aggregate(id).usageByLevel,
    progress: runProgress(store, id),
    tables,
    ...(tablesError ? { tablesError } : {}),
  };
}

/** `GET /api/runs/:id/samples`: one page of the run's samples (`samplePage`), the filter's total and the page bounds. */
export interface SamplesPage {
  runId: string;
  total: number;
  offset: number;
  limit: number;
  samples: SamplePageRow[];
}

/**
 * A page of run `id`'s samples (done and errored, input order).
 * @throws HptError `E_UNKNOWN_ID` for an unknown run.
 */
export function samplesPage(store: RunStore, id: string, options: SamplePageOptions): SamplesPage {
  requireRun(store, id);
  const { total, rows } = store.samplePage(id, options);
  return { runId: id, total, offset: Math.max(0, Math.floor(options.offset ?? 0)), limit: rows.length, samples: rows };
}

/**
 * `GET /api/runs/:id/samples/:index`: one sample's full record (`SampleResult`: target, prediction, each attempt's
 * level, strategy, verdict, extraction rule, calls with prompt messages, reply and reasoning), the run's ladder, and
 * for an errored sample its reason instead (`sample` null).
 */
export interface SampleDetail {
  runId: string;
  index: number;
  ladder: string[];
  sample: SampleResult | null;
  error?: string;
}

/**
 * Sample `index` of run `id`.
 * @throws HptError `E_UNKNOWN_ID` for an unknown run, or an index with no recorded sample.
 */
export function sampleDetail(store: RunStore, id: string, index: number): SampleDetail {
  const r = requireRun(store, id);
  const ladder = ladderOf(r).levels;
  const sample = store.getSample(id, index);
  if (sample) return { runId: id, index, ladder, sample };
  const errored = store.samplePage(id, { outcome: 'errored', index, limit: 1 }).rows[0];
  if (errored) return { runId: id, index, ladder, sample: null, error: errored.error ?? 'errored' };
  throw new HptError('E_UNKNOWN_ID', `run ${id} has no sample at index ${index}`);
}

/**
 * `GET /api/compare/:a/:b`: `compareRuns` (A − B on the paired samples: differences with bootstrap intervals, the paired
 * `tests`, the level-transition table, fixed and broken samples).
 * @throws HptError as `compareRuns` (unknown or unfinished runs, no shared sample, different data without `force`).
 */
export function compare(store: RunStore, label: string, a: string, b: string, options: { force?: boolean; resamples?: number; seed?: number } = {}): CompareResult {
  return compareRuns(store, label, a, b, { force: options.force === true, resamples: options.resamples ?? 2000, seed: options.seed ?? 0 });
}

/** The run `id`. @throws HptError `E_UNKNOWN_ID` when the store does not hold it. */
export function requireRun(store: RunStore, id: string): RunRecord {
  const r = store.getRun(id);
  if (!r) throw new HptError('E_UNKNOWN_ID', `no run ${id} in this store`);
  return r;
}

/** The HTTP status of an error of these queries: 404 unknown id, 400 a request the store cannot answer, else 500. */
export function errorStatus(e: unknown): 404 | 400 | 500 {
  if (!isHptError(e)) return 500;
  return e.code === 'E_UNKNOWN_ID' ? 404 : e.code === 'E_CONFIG' || e.code === 'E_DATA' ? 400 : 500;
}
