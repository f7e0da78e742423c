/**
 * Report tables: a runs overview, usage per level, and the paper-style tables the report
 * views of the plugins declare or compute (`@hpt-bench/sdk` report.ts: the layouts of specs/hpt.md §7.1-7.3 as data,
 * computed tables as code) — plus Markdown and CSV renderers. The core knows no dataset: labels, column orders and
 * metrics come from the views. Values are kept at full precision in the tables; Markdown (and the CLI's text table)
 * round for display.
 */
import type { Interval, ReportCell, ReportColumn, ReportMetricDecl, ReportRun, ReportTable, ReportTableDecl, ReportViewContext, SampleUnit } from '@hpt-bench/sdk';
import type { BootstrapSettings, ReportData } from './gather.js';
import { unitEstimates } from './gather.js';
import { ReportViews, type LoadedReportView } from './views.js';
import { modelLabel } from './groups.js';
import { pairedTestsTable, reportComparisons } from './paired-table.js';
import { ladderTables, sensitivityTables, subLadderTable } from './ladder-tables.js';
import { earlyExitHpi, hazardCurve, type HazardStep, type LadderData, type LevelAccuracy, orderViolations, type OrderViolations, perLevelAccuracy, tauLevelVsAccuracy } from '../stats/ladder.js';
import type { CompareResult } from './compare.js';
import { dataDifferences } from '../run/fingerprint.js';

/** The table shapes live in the SDK (code report views build them); re-exported here for host code. */
export type { ReportCell, ReportColumn, ReportTable };

/** The dataset id without a plugin namespace (`hpt-datasets/boolq` -> `boolq`). */
export function baseDatasetId(dataset: string): string {
  return dataset.slice(dataset.lastIndexOf('/') + 1);
}

/** A dataset's display name: the label the report view covering it declares, else the dataset id. */
export function datasetLabel(run: Pick<ReportRun, 'dataset'>, views: ReportViews = ReportViews.none): string {
  return views.datasetLabel(run);
}

/** A threshold as the paper's column headers print it (`0.15`, `0.2` -> `0.20`). */
export function formatThreshold(t: number): string {
  return Math.abs(t * 100 - Math.round(t * 100)) < 1e-9 ? t.toFixed(2) : String(t);
}

/** A short label of one run (model · dataset @threshold, mode), used in charts and the runs table. */
export function runLabel(run: ReportRun, views: ReportViews = ReportViews.none): string {
  return `${modelLabel(run)} · ${datasetLabel(run, views)}${run.threshold !== undefined ? ` @${formatThreshold(run.threshold)}` : ''}`;
}

/** Unique chart labels of the runs (`runLabel`, with the run id appended where two runs would share a label). */
export function uniqueRunLabels(runs: readonly ReportRun[], views: ReportViews = ReportViews.none): Map<string, string> {
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(runLabel(r, views), (counts.get(runLabel(r, views)) ?? 0) + 1);
  return new Map(runs.map((r) => [r.runId, (counts.get(runLabel(r, views)) ?? 0) > 1 ? `${runLabel(r, views)} (${r.runId})` : runLabel(r, views)]));
}

/**
 * The short form of each run id (pure), by id, for tables that show run ids in little space (the HTML report's `runId`
 * columns, with the full id on hover): a generated id (`20261127T160923-4d027f`: UTC time, `-`, random hex) becomes
 * its random suffix (`4d027f`); another id of more than 12 characters its last 8 after `…`; a shorter id stays as it
 * is. Ids whose short forms would collide (or equal another id) keep their full id, so the short forms stay distinct.
 */
export function shortRunIds(ids: Iterable<string>): Map<string, string> {
  const unique = [...new Set(ids)];
  const short = (id: string) => /^\d{8}T\d{6}Z?-[0-9a-z]+$/i.test(id) ? id.slice(id.lastIndexOf('-') + 1) : id.length > 12 ? `…${id.slice(-8)}` : id;
  const count = new Map<string, number>();
  for (const id of unique) count.set(short(id), (count.get(short(id)) ?? 0) + 1);
  const all = new Set(unique);
  return new Map(unique.map((id) => {
    const s = short(id);
    return [id, count.get(s)! > 1 || (s !== id && all.has(s)) ? id : s];
  }));
}

const pct = (ci: Interval | null | undefined): Interval | null => (ci ? [ci[0] * 100, ci[1] * 100] : null);

/**
 * A model x column grid where each (row, column) keeps the newest run (by `createdAt`, then input order); returns the
 * row labels in order of first appearance and a note when older runs were hidden.
 */
class Grid {
  readonly rows: string[] = [];
  private readonly cells = new Map<string, ReportRun>();
  hidden = 0;
  put(row: string, col: string, run: ReportRun): void {
    if (!this.rows.includes(row)) this.rows.push(row);
    const k = `${row}\u0000${col}`;
    const old = this.cells.get(k);
    if (old) {
      this.hidden++;
      if (old.createdAt > run.createdAt) return;
    }
    this.cells.set(k, run);
  }
  get(row: string, col: string): ReportRun | undefined {
    return this.cells.get(`${row}\u0000${col}`);
  }
  note(): string[] {
    return this.hidden ? [`${this.hidden} older run(s) of the same model and column are not shown here (the newest is); see the runs table.`] : [];
  }
}

function orderColumns(present: string[], order: readonly string[]): string[] {
  const known = order.filter((c) => present.includes(c));
  return [...known, ...present.filter((c) => !order.includes(c))];
}

/** A run placed in a declarative table: its column key (the view's dataset id, else the base id) and label. */
interface Placed {
  run: ReportRun;
  key: string;
  label: string;
}

/** Whether a table of this layout takes the run: `threshold` takes runs with a threshold, the others runs without. */
const layoutTakes = (t: ReportTableDecl, r: ReportRun) => (t.layout === 'threshold' ? r.threshold !== undefined : r.threshold === undefined);

/**
 * The value of a metric for a run (`ReportMetricDecl`): the summary's `metrics[key]` (or the accuracy without `key`,
 * or as the `fallback`), times `scale`; with `ci`, the accuracy's interval (scaled) when the value is the accuracy.
 */
export function metricCell(r: ReportRun, m: ReportMetricDecl): ReportCell {
  let v: number | null = m.key === undefined ? r.accuracy : typeof r.metrics?.[m.key] === 'number' ? (r.metrics[m.key] as number) : null;
  if (v === null && m.fallback === 'accuracy') v = r.accuracy;
  if (v === null) return { value: null, ci: null };
  const scale = m.scale ?? 1;
  const ci: Interval | null = m.ci && r.accuracyCi95 && Math.abs(v - r.accuracy) < 1e-12 ? [r.accuracyCi95[0] * scale, r.accuracyCi95[1] * scale] : null;
  return { value: v * scale, ci };
}

/** The metric of a dataset without a declared one: its accuracy in %, with the interval (hpt.md §7.3 for other datasets). */
const accuracyMetric = (label: string): ReportMetricDecl => ({ label: `${label} Acc`, scale: 100, ci: true });

/**
 * The runs placed in a per-dataset layout as a grid: one row per model (in first-seen order), one column per dataset
 * key (`order` first, then the others as seen), the newest run per cell (`Grid`); `labels` maps each key to its label.
 */
function datasetGrid(placed: Placed[], order: readonly string[]): { grid: Grid; labels: Map<string, string>; ordered: string[] } {
  const grid = new Grid();
  const cols: string[] = [];
  const labels = new Map<string, string>();
  for (const p of placed) {
    if (!cols.includes(p.key)) cols.push(p.key);
    labels.set(p.key, p.label);
    grid.put(modelLabel(p.run), p.key, p.run);
  }
  return { grid, labels, ordered: orderColumns(cols, order) };
}

/** The HPT Table 1 layout (hpt.md §7.1): per dataset `<D> HPI` and `<D> Acc` (accuracy %), with 95% intervals. */
function hpiAccuracyTable(t: ReportTableDecl, placed: Placed[], order: readonly string[]): ReportTable {
  const { grid, labels, ordered } = datasetGrid(placed, order);
  const columns: ReportColumn[] = [{ label: 'Model' }];
  for (const c of ordered) columns.push({ label: `${labels.get(c)} HPI`, ci: true, digits: 2 }, { label: `${labels.get(c)} Acc`, ci: true, digits: 2 });
  const rows = grid.rows.map((m) => {
    const row: ReportCell[] = [{ value: m }];
    for (const c of ordered) {
      const r = grid.get(m, c);
      row.push(r ? { value: r.hpi, ci: r.hpiCi95 } : { value: null }, r ? { value: r.accuracy * 100, ci: pct(r.accuracyCi95) } : { value: null });
    }
    return row;
  });
  return { id: t.id, title: t.title, ...(t.source ? { source: t.source } : {}), notes: [...(t.notes ?? []), ...grid.note()], columns, rows };
}

/**
 * The HPT Table 2 layout (hpt.md §7.2): `HPI` and the dataset's metric (e.g. HumanEval pass@1); with several datasets
 * each pair of headers is prefixed by the dataset label.
 */
function hpiMetricTable(t: ReportTableDecl, placed: Placed[], order: readonly string[]): ReportTable {
  const { grid, labels, ordered } = datasetGrid(placed, order);
  const prefix = (c: string) => (ordered.length > 1 || (t.datasets?.length ?? 0) > 1 ? `${labels.get(c)} ` : '');
  const metricOf = (c: string): ReportMetricDecl => t.metrics?.[c] ?? { label: 'Acc', scale: 100, ci: true };
  const columns: ReportColumn[] = [{ label: 'Model' }];
  for (const c of ordered) columns.push({ label: `${prefix(c)}HPI`, ci: true, digits: 2 }, { label: `${prefix(c)}${metricOf(c).label}`, ci: metricOf(c).ci ?? false, digits: 2 });
  const rows = grid.rows.map((m) => {
    const row: ReportCell[] = [{ value: m }];
    for (const c of ordered) {
      const r = grid.get(m, c);
      row.push(r ? { value: r.hpi, ci: r.hpiCi95 } : { value: null }, r ? metricCell(r, metricOf(c)) : { value: null });
    }
    return row;
  });
  return { id: t.id, title: t.title, ...(t.source ? { source: t.source } : {}), notes: [...(t.notes ?? []), ...grid.note()], columns, rows };
}

/**
 * The HPT Table 3 layout (hpt.md §7.3): per dataset, `<D> HPI <t>` for each threshold t of its runs, then the metric
 * per threshold (`<metric label> <t>`; a dataset without a declared metric shows `<D> Acc <t>`, accuracy %).
 */
function thresholdTable(t: ReportTableDecl, placed: Placed[], order: readonly string[]): ReportTable {
  const grid = new Grid();
  const byDataset = new Map<string, number[]>();
  const labels = new Map<string, string>();
  for (const p of placed) {
    const ts = byDataset.get(p.key) ?? [];
    if (!ts.includes(p.run.threshold!)) ts.push(p.run.threshold!);
    byDataset.set(p.key, ts);
    labels.set(p.key, p.label);
    grid.put(modelLabel(p.run), `${p.key}\u0000${p.run.threshold}`, p.run);
  }
  const datasets = orderColumns([...byDataset.keys()], order);
  const columns: ReportColumn[] = [{ label: 'Model' }];
  const getters: ((m: string) => ReportCell)[] = [];
  for (const d of datasets) {
    const ts = byDataset.get(d)!.sort((a, b) => a - b);
    const metric = t.metrics?.[d] ?? accuracyMetric(labels.get(d)!);
    for (const th of ts) {
      columns.push({ label: `${labels.get(d)} HPI ${formatThreshold(th)}`, ci: true, digits: 2 });
      getters.push((m) => {
        const r = grid.get(m, `${d}\u0000${th}`);
        return r ? { value: r.hpi, ci: r.hpiCi95 } : { value: null };
      });
    }
    for (const th of ts) {
      columns.push({ label: `${metric.label} ${formatThreshold(th)}`, ci: metric.ci ?? false, digits: 2 });
      getters.push((m) => {
        const r = grid.get(m, `${d}\u0000${th}`);
        return r ? metricCell(r, metric) : { value: null };
      });
    }
  }
  return {
    id: t.id,
    title: t.title,
    ...(t.source ? { source: t.source } : {}),
    notes: [...(t.notes ?? []), ...grid.note()],
    columns,
    rows: grid.rows.map((m) => [{ value: m }, ...getters.map((g) => g(m))]),
  };
}

const LAYOUTS: Record<ReportTableDecl['layout'], (t: ReportTableDecl, placed: Placed[], order: readonly string[]) => ReportTable> = {
  'hpi-accuracy': hpiAccuracyTable,
  'hpi-metric': hpiMetricTable,
  threshold: thresholdTable,
};

/**
 * The declarative tables of the views (`ReportTableDecl`), in view order, those with runs, each with its view. A run
 * goes into every table that lists its dataset and whose layout takes it (threshold or not); a run that no table
 * took goes into the `fallback` tables whose layout takes it, shown by its dataset label.
 */
export function declaredTables(runs: readonly ReportRun[], views: ReportViews): { view: LoadedReportView; table: ReportTable }[] {
  const decls = views.list.flatMap((view) => (view.decl.tables ?? []).map((table) => ({ view, table })));
  const placedAnywhere = new Set<string>();
  const placedIn = decls.map(({ view, table }) => {
    const entries = table.datasets ?? view.decl.datasets;
    const placed: Placed[] = [];
    for (const r of runs) {
      const key = views.entryOf(view, r, entries);
      if (key === undefined || !layoutTakes(table, r)) continue;
      placedAnywhere.add(r.runId);
      placed.push({ run: r, key, label: view.decl.labels?.[key] ?? key });
    }
    return placed;
  });
  const out: { view: LoadedReportView; table: ReportTable }[] = [];
  decls.forEach(({ view, table }, i) => {
    const placed = placedIn[i]!;
    if (table.fallback) {
      for (const r of runs) if (!placedAnywhere.has(r.runId) && layoutTakes(table, r)) placed.push({ run: r, key: baseDatasetId(r.dataset), label: views.datasetLabel(r) });
      placed.sort((a, b) => runs.indexOf(a.run) - runs.indexOf(b.run));
    }
    if (placed.length) out.push({ view, table: LAYOUTS[table.layout](table, placed, table.datasets ?? view.decl.datasets) });
  });
  return out;
}

/** What a code view computes over: the report's runs, their units (when gathered) and bootstrap settings. */
export type ReportViewData = Pick<ReportData, 'runs'> & Partial<Pick<ReportData, 'units' | 'bootstrap' | 'fingerprintNotes' | 'selectionNotes' | 'dataNotes' | 'dataIdentities' | 'ladderVerdicts'>>;

const NO_BOOTSTRAP: BootstrapSettings = { resamples: 2000, seed: 0, level: 0.95, units: '' };

/** The context a code view is called with (`ReportViewContext`): its runs, units, the report's bootstrap and labels. */
export function viewContext(view: LoadedReportView, data: ReportViewData, views: ReportViews, purpose: ReportViewContext['purpose'] = 'report'): ReportViewContext {
  const bootstrap = data.bootstrap ?? NO_BOOTSTRAP;
  const labels = uniqueRunLabels(data.runs, views);
  return {
    purpose,
    runs: views.runsOf(view, data.runs),
    order: view.decl.datasets,
    bootstrap,
    units: (runId: string) => data.units?.get(runId) ?? [],
    estimate: (units: readonly SampleUnit[], stream: string) => unitEstimates(units, { resamples: bootstrap.resamples, seed: bootstrap.seed, stream }),
    label: (id: string) => view.decl.labels?.[id] ?? id,
    modelLabel,
    runLabel: (run: ReportRun) => labels.get(run.runId) ?? runLabel(run, views),
  };
}

/** The tables of one code view (`ReportViewCode.tables`); empty when it has none or covers no run of the report. */
export function viewTables(view: LoadedReportView, data: ReportViewData, views: ReportViews, purpose: ReportViewContext['purpose'] = 'report'): ReportTable[] {
  if (!view.code?.tables) return [];
  const ctx = viewContext(view, data, views, purpose);
  return ctx.runs.length ? view.code.tables(ctx) : [];
}

/**
 * The tables `hpt-bench run` prints under the summary of the run in `data` (one run): the computed tables of every
 * view that covers its dataset, made with purpose `run` (README "The output": a HiBench run gets its scenario's task
 * table and capability dimensions instead of dotted metric keys). Empty when no view covers it.
 */
export function runSummaryTables(data: ReportViewData, views: ReportViews): ReportTable[] {
  return views.list.flatMap((view) => viewTables(view, data, views, 'run'));
}

/**
 * The runs overview: one row per run with n, HPI and accuracy (with intervals), level counts, calls, tokens, cost;
 * the Run column holds the full run id (marked `runId`: the HTML report shows it short, `shortRunIds`); the Model
 * cell is the model id, after the run's recorded `name` when it has one (`llama3 (openai:llama3)`), then the run's
 * group parts (`model · 2-level ladder (two)`) when it has any. `extraNotes` (the
 * selection, fingerprint and data notes of `gatherReport`) follow the table's own note.
 */
export function runsTable(runs: readonly ReportRun[], extraNotes: readonly string[] = []): ReportTable {
  const m = Math.max(0, ...runs.map((r) => r.ladder.length || Object.keys(r.levelCounts).filter((k) => k !== 'unsolved').length));
  const columns: ReportColumn[] = [
    { label: 'Run', runId: true }, { label: 'Dataset' }, { label: 'Model' }, { label: 'Mode' }, { label: 'n' },
    { label: 'HPI', ci: true, digits: 3 }, { label: 'Acc %', ci: true, digits: 2 },
    ...Array.from({ length: m }, (_, i) => ({ label: `L${i + 1}` })), { label: 'Unsolved' },
    { label: 'Calls' }, { label: 'Prompt tokens' }, { label: 'Completion tokens' }, { label: 'Cost USD', digits: 4 },
  ];
  const rows = runs.map((r) => [
    { value: r.runId },
    { value: r.threshold !== undefined ? `${r.dataset} @${formatThreshold(r.threshold)}` : r.dataset },
    { value: [r.name !== undefined ? `${r.name} (${r.model})` : r.model, ...(r.groupParts ?? [])].join(' · ') },
    { value: r.mode === 'adaptive' ? `adaptive${r.selector ? ` (${r.selector})` : ''}` : r.mode },
    { value: r.n },
    { value: r.hpi, ci: r.hpiCi95 },
    { value: r.accuracy * 100, ci: pct(r.accuracyCi95) },
    ...Array.from({ length: m }, (_, i) => ({ value: r.levelCounts[String(i + 1)] ?? 0 })),
    { value: r.levelCounts.unsolved ?? 0 },
    { value: r.calls },
    { value: r.usage.promptTokens },
    { value: r.usage.completionTokens },
    { value: r.cost ?? null },
  ]);
  const clustered = runs.filter((r) => r.interval === 'clustered').map((r) => r.runId);
  const interval = clustered.length
    ? `HPI/Acc [lo, hi]: 95% interval, a bootstrap percentile interval over samples; for the runs with replicates (${clustered.join(', ')}) a normal interval with standard errors clustered by sample (Miller 2024, "Adding Error Bars to Evals", §2.2), since a sample's replicates are correlated.`
    : 'HPI/Acc [lo, hi]: bootstrap 95% interval.';
  return { id: 'runs', title: 'Runs', notes: [`L1..Lm: samples solved at each level; ${interval}`, ...extraNotes], columns, rows };
}

/**
 * Usage per level: one row per run and level (and the adaptive selector): calls, cached calls, tokens, cost. When some
 * run reports reasoning tokens or replies cut off while thinking (issue #24), two more columns: the reasoning tokens
 * (part of the completion tokens) and the calls truncated while thinking.
 */
export function usageTable(runs: readonly ReportRun[]): ReportTable {
  const rows: ReportCell[][] = [];
  const reasoning = runs.some((r) => Object.values(r.levels).some((u) => u.reasoningTokens || u.truncatedThinking));
  const extra = (u: ReportRun['levels'][string]): ReportCell[] => (reasoning ? [{ value: u.reasoningTokens ?? 0 }, { value: u.truncatedThinking ?? 0 }] : []);
  for (const r of runs) {
    const levels = Object.keys(r.levels).sort((a, b) => Number(a) - Number(b));
    for (const l of levels) {
      const u = r.levels[l]!;
      const name = r.ladder[Number(l) - 1];
      rows.push([{ value: r.runId }, { value: name ? `${l} (${name})` : l }, { value: u.calls }, { value: u.cachedCalls }, { value: u.promptTokens }, { value: u.completionTokens }, ...extra(u), { value: u.cost ?? null }]);
    }
    if (r.selectorUsage && r.selectorUsage.calls) {
      const u = r.selectorUsage;
      rows.push([{ value: r.runId }, { value: 'selector' }, { value: u.calls }, { value: u.cachedCalls }, { value: u.promptTokens }, { value: u.completionTokens }, ...extra(u), { value: u.cost ?? null }]);
    }
  }
  return {
    id: 'usage',
    title: 'Calls, tokens and cost per level',
    notes: ['Cost: USD of uncached calls, when the run had --prices.', ...(reasoning ? ['Reasoning tokens are part of the completion tokens (and of the cost); truncated: calls whose reply ended inside a thinking block (no answer).'] : [])],
    columns: [
      { label: 'Run', runId: true }, { label: 'Level' }, { label: 'Calls' }, { label: 'Cached' }, { label: 'Prompt tokens' }, { label: 'Completion tokens' },
      ...(reasoning ? [{ label: 'Reasoning tokens' }, { label: 'Truncated while thinking' }] : []),
      { label: 'Cost USD', digits: 4 },
    ],
    rows,
  };
}

/** Options of `reportTables`: `ladder`, the levels of `report --ladder L1,L3,L5` (`subLadderTable`). */
export interface ReportTableOptions {
  ladder?: readonly number[];
}

/**
 * Every table of a report, in order: runs, the paired tests between runs of the same data (when the units were
 * gathered and some pair shares samples; `pairedTestsTable`), with `options.ladder` the HPI of that ladder
 * (`subLadderTable`), the ladder diagnostics and hazard of full-ladder runs (`ladderTables`), the HPI_Dataset
 * sensitivity of datasets with two or more models (`sensitivityTables`), usage, then per report view (discovery order) its declarative tables (those
 * with runs) followed by its code tables. Without views only the runs and usage tables are made.
 */
export function reportTables(data: ReportViewData, views: ReportViews = ReportViews.none, options: ReportTableOptions = {}): ReportTable[] {
  const declared = declaredTables(data.runs, views);
  const byView = views.list.flatMap((view) => [...declared.filter((d) => d.view === view).map((d) => d.table), ...viewTables(view, data, views)]);
  // as many random sign assignments as bootstrap resamples: a report may compare many pairs
  const paired = data.units && data.bootstrap ? pairedTestsTable(reportComparisons({ runs: data.runs, units: data.units, bootstrap: data.bootstrap, ...(data.dataIdentities ? { dataIdentities: data.dataIdentities } : {}) }, { permutations: data.bootstrap.resamples }), uniqueRunLabels(data.runs, views)) : undefined;
  const labels = uniqueRunLabels(data.runs, views);
  const verdicts = data.ladderVerdicts ?? new Map<string, LadderData>();
  const sameData = (a: string, b: string) => {
    const ia = data.dataIdentities?.get(a);
    const ib = data.dataIdentities?.get(b);
    return !ia || !ib || dataDifferences(ia, ib).length === 0;
  };
  const ladder = [
    ...(options.ladder ? [subLadderTable(data.runs, verdicts, options.ladder, labels, data.bootstrap ?? NO_BOOTSTRAP)] : []),
    ...ladderTables(data.runs, verdicts, labels),
    ...(data.units ? sensitivityTables(data.runs, data.units, labels, sameData) : []),
  ];
  return [runsTable(data.runs, [...(data.selectionNotes ?? []), ...(data.fingerprintNotes ?? []), ...(data.dataNotes ?? [])]), ...(paired ? [paired] : []), ...ladder, usageTable(data.runs), ...byView];
}

/** A value for display: numbers with `digits` decimals (as they are without `digits`); null as `-`. */
export function formatValue(v: number | string | null, digits?: number): string {
  if (v === null) return '-';
  if (typeof v === 'string') return v;
  return digits === undefined ? String(v) : v.toFixed(digits);
}

/** A cell for display: the value and, when it has one, its interval as `value [lo, hi]`. */
export function formatCell(cell: ReportCell, column: ReportColumn): string {
  const v = formatValue(cell.value, column.digits);
  if (!column.ci || !cell.ci || cell.value === null) return v;
  const d = column.digits ?? 3;
  return `${v} [${cell.ci[0].toFixed(d)}, ${cell.ci[1].toFixed(d)}]`;
}

/**
 * Text for one line of GitHub Markdown, shown as text: a backslash or pipe is escaped (table cells), line breaks become
 * spaces, `&`, `<` and `>` become entities (so raw HTML from a model completion or data — `<script>`, `<img onerror>` —
 * is printed, never rendered), and `](` is broken so `[text](url)` / `![alt](url)` cannot form a link or image.
 */
export function mdText(s: string): string {
  return s
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\]\(/g, ']\\(');
}

/** A Markdown code span holding `s` verbatim: a fence longer than any run of backticks in `s`, line breaks as spaces. */
function mdCode(s: string): string {
  const text = s.replace(/\r\n|\r|\n/g, ' ');
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * One table as GitHub Markdown (heading, source, notes, pipe table; numbers right-aligned, rounded for display). Every
 * text taken from the runs (model and dataset ids, labels, titles) passes through `mdText`, so HTML in it is shown as
 * text.
 */
export function tableToMarkdown(t: ReportTable, level = 2): string {
  const out = [`${'#'.repeat(level)} ${mdText(t.title)}`, ''];
  if (t.source) out.push(`Layout: ${mdText(t.source)}.`, '');
  const numeric = t.columns.map((_, j) => t.rows.some((r) => typeof r[j]?.value === 'number'));
  out.push(`| ${t.columns.map((c) => mdText(c.label)).join(' | ')} |`);
  out.push(`|${numeric.map((n) => (n ? ' ---: ' : ' --- ')).join('|')}|`);
  for (const r of t.rows) out.push(`| ${t.columns.map((c, j) => mdText(formatCell(r[j] ?? { value: null }, c))).join(' | ')} |`);
  if (t.notes.length) out.push('', ...t.notes.map((n) => `_${mdText(n)}_`));
  return out.join('\n');
}

/** The whole report as Markdown: a heading, the bootstrap settings, then every table. */
export function reportToMarkdown(data: Pick<ReportData, 'runs' | 'bootstrap' | 'store'>, tables: readonly ReportTable[] = reportTables(data)): string {
  const b = data.bootstrap;
  const head = [
    '# hpt-bench report',
    '',
    `${data.runs.length} run(s) from ${mdCode(data.store)}. Intervals: bootstrap 95% percentile intervals, B = ${b.resamples} resamples of the samples, seed ${b.seed}. HPI: lower is better.`,
  ].join('\n');
  return `${[head, ...tables.map((t) => tableToMarkdown(t))].join('\n\n')}\n`;
}

function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * One table as CSV (RFC 4180): a header row, then one row per table row. Numbers at full precision; a column with
 * intervals becomes three: `<label>`, `<label> lo`, `<label> hi`. Empty field = no value.
 */
export function tableToCsv(t: ReportTable): string {
  const head: string[] = [];
  for (const c of t.columns) head.push(c.label, ...(c.ci ? [`${c.label} lo`, `${c.label} hi`] : []));
  const lines = [head.map(csvField).join(',')];
  const str = (v: number | string | null | undefined) => (v === null || v === undefined ? '' : String(v));
  for (const r of t.rows) {
    const f: string[] = [];
    t.columns.forEach((c, j) => {
      const cell = r[j] ?? { value: null };
      f.push(str(cell.value));
      if (c.ci) f.push(str(cell.ci?.[0]), str(cell.ci?.[1]));
    });
    lines.push(f.map(csvField).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * Several tables as one CSV text: a single table is plain CSV; several are blocks separated by an empty line, each
 * introduced by a `# <id>: <title>` comment line (read one block with `--table ID` for a plain CSV file).
 */
export function tablesToCsv(tables: readonly ReportTable[]): string {
  if (tables.length === 1) return tableToCsv(tables[0]!);
  return tables.map((t) => `# ${t.id}: ${t.title}\r\n${tableToCsv(t)}`).join('\r\n');
}

/** The statistics of the JSON report (issue 28): what the md/csv/html tables show, at full precision. */
export interface ReportJsonStatistics {
  /** the paired comparisons of runs on the same data (`reportComparisons`: A before B, Holm across them) */
  pairedTests: { a: string; b: string; dataset: string; paired: number; hpiDiff: number; hpiDiffCi95: Interval | null; accuracyDiff: number; accuracyDiffCi95: Interval | null; tests: CompareResult['tests'] }[];
  /** per full-ladder run: per-level accuracy, order violations, τ-b of level vs accuracy, the early-exit HPI, the hazard */
  ladderDiagnostics: { runId: string; perLevelAccuracy: LevelAccuracy[]; orderViolations: OrderViolations; tau: number | null; earlyExitHpi: number; hazard: HazardStep[]; subLadder?: { ladder: number[]; hpi: number; accuracy: number; unsolved: number } }[];
}

/**
 * The JSON report (`--format json`): `{ store, runs, bootstrap, fingerprintNotes, selectionNotes, dataNotes,
 * pairedTests, ladderDiagnostics }` (sample units are not included; each run carries `group`, `groupParts`,
 * `groupLabel`; the notes: see `ReportData`, `[]` when none). `pairedTests` and `ladderDiagnostics` are present when
 * the data has its units (and, for the diagnostics, full-ladder verdicts); `options.ladder` adds each full-ladder run's
 * `subLadder` (`report --ladder`).
 */
export function reportToJson(
  data: Pick<ReportData, 'runs' | 'bootstrap' | 'store' | 'fingerprintNotes' | 'selectionNotes' | 'dataNotes'> & Partial<Pick<ReportData, 'units' | 'dataIdentities' | 'ladderVerdicts'>>,
  options: ReportTableOptions = {},
): { store: string; runs: ReportRun[]; bootstrap: ReportData['bootstrap']; fingerprintNotes: string[]; selectionNotes: string[]; dataNotes: string[] } & Partial<ReportJsonStatistics> {
  const out = { store: data.store, runs: data.runs, bootstrap: data.bootstrap, fingerprintNotes: data.fingerprintNotes ?? [], selectionNotes: data.selectionNotes ?? [], dataNotes: data.dataNotes ?? [] };
  if (!data.units) return out;
  const comparisons = reportComparisons({ runs: data.runs, units: data.units, bootstrap: data.bootstrap, ...(data.dataIdentities ? { dataIdentities: data.dataIdentities } : {}) }, { permutations: data.bootstrap.resamples });
  const pairedTests = comparisons.map(({ a, b, dataset, result: r }) => ({ a, b, dataset, paired: r.paired, hpiDiff: r.hpiDiff, hpiDiffCi95: r.hpiDiffCi95, accuracyDiff: r.accuracyDiff, accuracyDiffCi95: r.accuracyDiffCi95, tests: r.tests }));
  const verdicts = data.ladderVerdicts ?? new Map<string, LadderData>();
  // the errors of `report --ladder` as in the tables: no full-ladder run, a level beyond a run's ladder
  if (options.ladder) subLadderTable(data.runs, verdicts, options.ladder, new Map(), data.bootstrap);
  const ladderDiagnostics = data.runs
    .filter((r) => verdicts.has(r.runId))
    .map((r) => {
      const d = verdicts.get(r.runId)!;
      const sub = options.ladder ? earlyExitHpi(d, { ladder: options.ladder }) : undefined;
      return {
        runId: r.runId,
        perLevelAccuracy: perLevelAccuracy(d),
        orderViolations: orderViolations(d),
        tau: tauLevelVsAccuracy(d).tau,
        earlyExitHpi: earlyExitHpi(d).hpi,
        hazard: hazardCurve(d),
        ...(sub ? { subLadder: { ladder: [...options.ladder!], hpi: sub.hpi, accuracy: sub.accuracy, unsolved: sub.unsolved } } : {}),
      };
    });
  return { ...out, pairedTests, ladderDiagnostics };
}

