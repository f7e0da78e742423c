/**
 * Report tables (issue #7 items 2 and 4): a runs overview, usage per level, and the paper layouts — HPT Tables 1-3
 * (specs/hpt.md §7.1-7.3: rows = models, columns = datasets, IWSLT/SamSum one column per threshold, HumanEval pass@1)
 * and the HiBench leaderboard, task and capability tables (specs/hibench.md §4.5-4.6) — plus Markdown and CSV
 * renderers. Values are kept at full precision in the tables; Markdown (and the CLI's text table) round for display.
 */
import type { Interval } from './bootstrap.js';
import type { ReportData, ReportRun } from './gather.js';
import { HIBENCH_DIMENSION_NAMES, HIBENCH_SCENARIOS, hibenchAggregate, isHibenchRun, scenarioLabel } from './hibench.js';

/** A column: its header, whether its cells carry a 95% interval, and the decimals shown (display only). */
export interface ReportColumn {
  label: string;
  ci?: boolean;
  digits?: number;
}

/** A cell: a number (full precision), a string, or null (no value: shown as `-`), with its interval if any. */
export interface ReportCell {
  value: number | string | null;
  ci?: Interval | null;
}

/**
 * A table of a report. `id` selects it (`--table`), `title` and `source` (the spec section of its layout) head it,
 * `notes` explain it. `rows[i][j]` is the cell of column `columns[j]`.
 */
export interface ReportTable {
  id: string;
  title: string;
  source?: string;
  notes: string[];
  columns: ReportColumn[];
  rows: ReportCell[][];
}

const DATASET_LABELS: Record<string, string> = { boolq: 'BoolQ', csqa: 'CSQA', mmlu: 'MMLU', gsm8k: 'GSM8k', humaneval: 'HumanEval', iwslt: 'IWSLT', samsum: 'SamSum' };
/** Table 1's column order (hpt.md §7.1); other datasets follow in order of appearance. */
const TABLE1_ORDER = ['mmlu', 'gsm8k', 'boolq', 'csqa'];
const THRESHOLD_ORDER = ['iwslt', 'samsum'];

/** The dataset id without a plugin namespace (`hpt-datasets/boolq` -> `boolq`, `hibench/binary-tree` -> `binary-tree`). */
export function baseDatasetId(dataset: string): string {
  return dataset.slice(dataset.lastIndexOf('/') + 1);
}

/** A dataset's display name as the paper prints it (`boolq` -> `BoolQ`; HiBench scenarios -> `Binary`, ...; else the id). */
export function datasetLabel(run: Pick<ReportRun, 'dataset' | 'metrics'>): string {
  const base = baseDatasetId(run.dataset);
  if (isHibenchRun(run)) return scenarioLabel(base);
  return DATASET_LABELS[base] ?? run.dataset;
}

/** A threshold as the paper's column headers print it (`0.15`, `0.2` -> `0.20`). */
export function formatThreshold(t: number): string {
  return Math.abs(t * 100 - Math.round(t * 100)) < 1e-9 ? t.toFixed(2) : String(t);
}

/** The row label of a run in the paper tables: the model, plus the mode (adaptive + selector) and `[reference]` compat. */
export function modelLabel(run: Pick<ReportRun, 'model' | 'mode' | 'selector' | 'compat'>): string {
  let s = run.model;
  if (run.mode === 'adaptive') s += ` (adaptive${run.selector ? `, ${run.selector}` : ''})`;
  if (run.compat === 'reference') s += ' [reference]';
  return s;
}

/** A short label of one run (model · dataset @threshold, mode), used in charts and the runs table. */
export function runLabel(run: ReportRun): string {
  return `${modelLabel(run)} · ${datasetLabel(run)}${run.threshold !== undefined ? ` @${formatThreshold(run.threshold)}` : ''}`;
}

const pct = (ci: Interval | null | undefined): Interval | null => (ci ? [ci[0] * 100, ci[1] * 100] : null);
const kindOf = (r: ReportRun): 'hibench' | 'humaneval' | 'threshold' | 'standard' =>
  isHibenchRun(r) ? 'hibench' : baseDatasetId(r.dataset) === 'humaneval' ? 'humaneval' : r.threshold !== undefined ? 'threshold' : 'standard';

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

/** HPT Table 1 layout (hpt.md §7.1): per dataset `<D> HPI` and `<D> Acc` (accuracy %), with 95% intervals. */
export function hptTable(runs: readonly ReportRun[], kind: 'standard' | 'hibench' = 'standard'): ReportTable | undefined {
  const mine = runs.filter((r) => kindOf(r) === kind);
  if (mine.length === 0) return undefined;
  const grid = new Grid();
  const cols: string[] = [];
  const labels = new Map<string, string>();
  for (const r of mine) {
    const c = baseDatasetId(r.dataset);
    if (!cols.includes(c)) cols.push(c);
    labels.set(c, datasetLabel(r));
    grid.put(modelLabel(r), c, r);
  }
  const ordered = orderColumns(cols, kind === 'hibench' ? HIBENCH_SCENARIOS.map(([s]) => s) : TABLE1_ORDER);
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
  return kind === 'hibench'
    ? {
        id: 'hibench',
        title: 'HiBench: HPI and accuracy (%) per model and scenario',
        source: 'hpt.md §7.1 layout over generated datasets',
        notes: ['HPI: lower is better (unsolved = m + HPI_Dataset). Acc: samples solved at some ladder level, all ICL modes. [lo, hi]: bootstrap 95% interval.', ...grid.note()],
        columns,
        rows,
      }
    : {
        id: 'hpt',
        title: 'HPI (lower is better) and accuracy (%)',
        source: 'hpt.md §7.1 (HPT Table 1 layout)',
        notes: ['[lo, hi]: bootstrap 95% percentile interval over samples.', ...grid.note()],
        columns,
        rows,
      };
}

/** HPT Table 2 layout (hpt.md §7.2): HumanEval HPI and pass@1 (fraction). */
export function humanevalTable(runs: readonly ReportRun[]): ReportTable | undefined {
  const mine = runs.filter((r) => kindOf(r) === 'humaneval');
  if (mine.length === 0) return undefined;
  const grid = new Grid();
  for (const r of mine) grid.put(modelLabel(r), 'humaneval', r);
  const rows = grid.rows.map((m) => {
    const r = grid.get(m, 'humaneval')!;
    const p = r.metrics?.['pass@1'];
    const pass1 = typeof p === 'number' ? p : r.accuracy;
    return [{ value: m }, { value: r.hpi, ci: r.hpiCi95 }, { value: pass1, ci: Math.abs(pass1 - r.accuracy) < 1e-12 ? r.accuracyCi95 : null }];
  });
  return {
    id: 'humaneval',
    title: 'HumanEval: HPI and pass@1',
    source: 'hpt.md §7.2 (HPT Table 2 layout)',
    notes: ['pass@1 as a fraction; its interval is the accuracy bootstrap (pass@1 = accuracy with one completion per problem).', ...grid.note()],
    columns: [{ label: 'Model' }, { label: 'HPI', ci: true, digits: 2 }, { label: 'Pass@1', ci: true, digits: 2 }],
    rows,
  };
}

/** The dataset metric of a threshold dataset's run: IWSLT corpus BLEU (0-1), SamSum ROUGE-L F1 (0-1), else accuracy %. */
function thresholdMetric(base: string): { label: string; value(r: ReportRun): number | null; ci(r: ReportRun): Interval | null } {
  const metric = (key: string) => (r: ReportRun) => (typeof r.metrics?.[key] === 'number' ? (r.metrics[key] as number) : null);
  if (base === 'iwslt') return { label: 'BLEU', value: metric('bleu'), ci: () => null };
  if (base === 'samsum') return { label: 'ROUGE-L', value: metric('rougeL'), ci: () => null };
  return { label: `${DATASET_LABELS[base] ?? base} Acc`, value: (r) => r.accuracy * 100, ci: (r) => pct(r.accuracyCi95) };
}

/**
 * HPT Table 3 layout (hpt.md §7.3): per threshold dataset, `<D> HPI <t>` for each threshold t of its runs, then the
 * metric per threshold (`BLEU <t>` corpus BLEU 0-1 for IWSLT, `ROUGE-L <t>` mean ROUGE-L F1 0-1 for SamSum).
 */
export function thresholdTable(runs: readonly ReportRun[]): ReportTable | undefined {
  const mine = runs.filter((r) => kindOf(r) === 'threshold');
  if (mine.length === 0) return undefined;
  const grid = new Grid();
  const byDataset = new Map<string, number[]>();
  const labels = new Map<string, string>();
  for (const r of mine) {
    const base = baseDatasetId(r.dataset);
    const ts = byDataset.get(base) ?? [];
    if (!ts.includes(r.threshold!)) ts.push(r.threshold!);
    byDataset.set(base, ts);
    labels.set(base, datasetLabel(r));
    grid.put(modelLabel(r), `${base}\u0000${r.threshold}`, r);
  }
  const datasets = orderColumns([...byDataset.keys()], THRESHOLD_ORDER);
  const columns: ReportColumn[] = [{ label: 'Model' }];
  const getters: ((m: string) => ReportCell)[] = [];
  for (const d of datasets) {
    const ts = byDataset.get(d)!.sort((a, b) => a - b);
    const metric = thresholdMetric(d);
    for (const t of ts) {
      columns.push({ label: `${labels.get(d)} HPI ${formatThreshold(t)}`, ci: true, digits: 2 });
      getters.push((m) => {
        const r = grid.get(m, `${d}\u0000${t}`);
        return r ? { value: r.hpi, ci: r.hpiCi95 } : { value: null };
      });
    }
    for (const t of ts) {
      columns.push({ label: `${metric.label} ${formatThreshold(t)}`, ci: metric.label.endsWith('Acc'), digits: 2 });
      getters.push((m) => {
        const r = grid.get(m, `${d}\u0000${t}`);
        return r ? { value: metric.value(r), ci: metric.ci(r) } : { value: null };
      });
    }
  }
  return {
    id: 'threshold',
    title: 'Threshold-solved datasets: HPI and metric per threshold',
    source: 'hpt.md §7.3 (HPT Table 3 layout)',
    notes: ['A sample counts as solved when its sentence BLEU (IWSLT) or ROUGE-1 F1 (SamSum) reaches the threshold. BLEU: corpus BLEU 0-1; ROUGE-L: mean F1 0-1 over every recorded prediction (not bootstrapped).', ...grid.note()],
    columns,
    rows: grid.rows.map((m) => [{ value: m }, ...getters.map((g) => g(m))]),
  };
}

/**
 * HiBench leaderboard layouts (hibench.md §4.5-4.6) from the runs' `metrics.hibench` (zero-shot, non-nonsense; accuracy
 * = solved at some ladder level), in %: the overall table (scenario columns + Avg = mean of the scenario scores), one
 * task table per scenario (task columns + Avg = the scenario score), and the capability dimensions (per model, the
 * mean over its scenarios' dimension scores, §4.6).
 */
export function hibenchTables(runs: readonly ReportRun[]): ReportTable[] {
  const mine = runs.filter((r) => isHibenchRun(r));
  if (mine.length === 0) return [];
  const models: string[] = [];
  // per model, per scenario: the newest run's aggregate
  const perModel = new Map<string, Map<string, { run: ReportRun; agg: NonNullable<ReturnType<typeof hibenchAggregate>> }>>();
  let hidden = 0;
  let empty = 0;
  for (const r of mine) {
    const agg = hibenchAggregate(r);
    const m = modelLabel(r);
    if (!models.includes(m)) models.push(m);
    if (!agg || agg.n === 0) {
      empty++;
      continue;
    }
    const byScenario = perModel.get(m) ?? new Map();
    perModel.set(m, byScenario);
    for (const sc of Object.keys(agg.scenarios)) {
      const old = byScenario.get(sc);
      if (old) hidden++;
      if (!old || old.run.createdAt <= r.createdAt) byScenario.set(sc, { run: r, agg });
    }
  }
  const notes: string[] = ['Accuracy (%) of zero-shot, non-nonsense queries (hibench.md §4.5 step 1) solved at some ladder level; task = mean of its configurations, scenario = mean of its tasks, Avg = mean of the scenarios.'];
  if (hidden) notes.push(`${hidden} older run(s) of the same model and scenario are not shown (the newest is).`);
  if (empty) notes.push(`${empty} run(s) have no zero-shot queries, so no leaderboard score (see metrics.hibenchAll in the JSON report).`);
  const scenarios = orderColumns([...new Set([...perModel.values()].flatMap((m) => [...m.keys()]))], HIBENCH_SCENARIOS.map(([s]) => s));
  const tables: ReportTable[] = [];
  tables.push({
    id: 'hibench-leaderboard',
    title: 'HiBench leaderboard: accuracy (%) per scenario',
    source: 'hibench.md §4.5 (HiBench Table 2 layout)',
    notes,
    columns: [{ label: 'Model' }, ...scenarios.map((s) => ({ label: scenarioLabel(s), digits: 2 })), { label: 'Avg', digits: 2 }],
    rows: models.map((m) => {
      const by = perModel.get(m);
      const vals = scenarios.map((s) => by?.get(s)?.agg.scenarios[s]);
      const present = vals.filter((v): v is number => typeof v === 'number');
      return [{ value: m }, ...vals.map((v) => ({ value: typeof v === 'number' ? v * 100 : null })), { value: present.length ? (100 * present.reduce((a, b) => a + b, 0)) / present.length : null }];
    }),
  });
  for (const s of scenarios) {
    const tasks: string[] = [];
    for (const by of perModel.values()) for (const t of Object.keys(by.get(s)?.agg.tasks ?? {})) if (t.startsWith(`${s}/`) && !tasks.includes(t)) tasks.push(t);
    tables.push({
      id: `hibench-${s}`,
      title: `HiBench ${scenarioLabel(s)}: accuracy (%) per task`,
      source: 'hibench.md §4.5 (HiBench Tables 13-18 layout)',
      notes: ['Zero-shot, non-nonsense queries; Avg = the scenario score (mean of the task columns).'],
      columns: [{ label: 'Model' }, ...tasks.map((t) => ({ label: t.slice(s.length + 1), digits: 2 })), { label: 'Avg', digits: 2 }],
      rows: models
        .filter((m) => perModel.get(m)?.has(s))
        .map((m) => {
          const agg = perModel.get(m)!.get(s)!.agg;
          return [{ value: m }, ...tasks.map((t) => ({ value: typeof agg.tasks[t] === 'number' ? agg.tasks[t] * 100 : null })), { value: typeof agg.scenarios[s] === 'number' ? agg.scenarios[s] * 100 : null }];
        }),
    });
  }
  const dims = HIBENCH_DIMENSION_NAMES.filter((d) => [...perModel.values()].some((by) => [...by.values()].some((x) => typeof x.agg.dimensions[d] === 'number')));
  if (dims.length) {
    tables.push({
      id: 'hibench-dimensions',
      title: 'HiBench capability dimensions: accuracy (%)',
      source: 'hibench.md §1.3, §4.6',
      notes: ["Per model: each run's (scenario's) dimension score, averaged across scenarios (mean of scenario means, not task-weighted)."],
      columns: [{ label: 'Model' }, ...dims.map((d) => ({ label: d, digits: 2 }))],
      rows: models
        .filter((m) => perModel.has(m))
        .map((m) => {
          const runsOfModel = [...new Set([...perModel.get(m)!.values()].map((x) => x.agg))];
          return [
            { value: m },
            ...dims.map((d) => {
              const v = runsOfModel.map((a) => a.dimensions[d]).filter((x): x is number => typeof x === 'number');
              return { value: v.length ? (100 * v.reduce((a, b) => a + b, 0)) / v.length : null };
            }),
          ];
        }),
    });
  }
  return tables;
}

/** The runs overview: one row per run with n, HPI and accuracy (with intervals), level counts, calls, tokens, cost. */
export function runsTable(runs: readonly ReportRun[]): ReportTable {
  const m = Math.max(0, ...runs.map((r) => r.ladder.length || Object.keys(r.levelCounts).filter((k) => k !== 'unsolved').length));
  const columns: ReportColumn[] = [
    { label: 'Run' }, { label: 'Dataset' }, { label: 'Model' }, { label: 'Mode' }, { label: 'n' },
    { label: 'HPI', ci: true, digits: 3 }, { label: 'Acc %', ci: true, digits: 2 },
    ...Array.from({ length: m }, (_, i) => ({ label: `L${i + 1}` })), { label: 'Unsolved' },
    { label: 'Calls' }, { label: 'Prompt tokens' }, { label: 'Completion tokens' }, { label: 'Cost USD', digits: 4 },
  ];
  const rows = runs.map((r) => [
    { value: r.runId },
    { value: r.threshold !== undefined ? `${r.dataset} @${formatThreshold(r.threshold)}` : r.dataset },
    { value: r.model },
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
  return { id: 'runs', title: 'Runs', notes: ['L1..Lm: samples solved at each level; HPI/Acc [lo, hi]: bootstrap 95% interval.'], columns, rows };
}

/** Usage per level: one row per run and level (and the adaptive selector): calls, cached calls, tokens, cost. */
export function usageTable(runs: readonly ReportRun[]): ReportTable {
  const rows: ReportCell[][] = [];
  for (const r of runs) {
    const levels = Object.keys(r.levels).sort((a, b) => Number(a) - Number(b));
    for (const l of levels) {
      const u = r.levels[l]!;
      const name = r.ladder[Number(l) - 1];
      rows.push([{ value: r.runId }, { value: name ? `${l} (${name})` : l }, { value: u.calls }, { value: u.cachedCalls }, { value: u.promptTokens }, { value: u.completionTokens }, { value: u.cost ?? null }]);
    }
    if (r.selectorUsage && r.selectorUsage.calls) {
      const u = r.selectorUsage;
      rows.push([{ value: r.runId }, { value: 'selector' }, { value: u.calls }, { value: u.cachedCalls }, { value: u.promptTokens }, { value: u.completionTokens }, { value: u.cost ?? null }]);
    }
  }
  return {
    id: 'usage',
    title: 'Calls, tokens and cost per level',
    notes: ['Cost: USD of uncached calls, when the run had --prices.'],
    columns: [{ label: 'Run' }, { label: 'Level' }, { label: 'Calls' }, { label: 'Cached' }, { label: 'Prompt tokens' }, { label: 'Completion tokens' }, { label: 'Cost USD', digits: 4 }],
    rows,
  };
}

/** Every table of a report, in order: runs, usage, HPT Tables 1-3 (those with runs), HiBench HPI and leaderboards. */
export function reportTables(runs: readonly ReportRun[]): ReportTable[] {
  return [runsTable(runs), usageTable(runs), hptTable(runs), humanevalTable(runs), thresholdTable(runs), hptTable(runs, 'hibench'), ...hibenchTables(runs)].filter((t): t is ReportTable => t !== undefined);
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
export function reportToMarkdown(data: Pick<ReportData, 'runs' | 'bootstrap' | 'store'>, tables: readonly ReportTable[] = reportTables(data.runs)): string {
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

/** The JSON report (`--format json`): `{ runs, bootstrap }` (sample units are not included). */
export function reportToJson(data: Pick<ReportData, 'runs' | 'bootstrap' | 'store'>): { store: string; runs: ReportRun[]; bootstrap: ReportData['bootstrap'] } {
  return { store: data.store, runs: data.runs, bootstrap: data.bootstrap };
}

