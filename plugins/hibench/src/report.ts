/**
 * The HiBench report view (the code part of this plugin's `reports` contribution; the contract is `ReportViewCode`
 * of `@hpt-bench/sdk`): the leaderboard, per-scenario task tables and capability-dimension table of specs/hibench.md
 * §4.5-4.6 from the runs' `metrics.hibench` (written by the `hierarchy` scorer's aggregator, `aggregateScores`), and
 * the charts of HPI by preset and by capability dimension (§1.3) from the sample units. Scenario labels and their
 * order are the manifest's (`labels`, `datasets`).
 */
import type { Json, ReportBar, ReportChart, ReportRun, ReportTable, ReportViewCode, ReportViewContext, SampleUnit, UnitEstimate } from '@hpt-bench/sdk';
import { DIMENSIONS, dimensionOf } from './match/aggregate.js';
import type { Scenario } from './scenario.js';
import { SCENARIOS } from './scenarios.js';

/**
 * The report's preset order of `scenarios` (their `report.presets`, ./scenario.ts `ReportPreset`): the presets with a
 * difficulty level first — easy, then medium, then hard — then those without one, each group in list order; a preset id
 * declared twice keeps its first place.
 */
export function presetOrder(scenarios: readonly Scenario[]): string[] {
  const declared = scenarios.flatMap((s) => s.report.presets ?? []);
  const ordered = [...(['easy', 'medium', 'hard'] as const).flatMap((level) => declared.filter((p) => p.level === level)), ...declared.filter((p) => p.level === undefined)];
  return [...new Set(ordered.map((p) => p.id))];
}

/**
 * Presets in display order (the "HPI by preset" chart), from the scenario list (`presetOrder`): tree `easy`..`hard-2`,
 * JSON `small`..`large-2`, then the Paper sources; presets not in it sort by name after them.
 */
export const PRESET_ORDER: readonly string[] = presetOrder(SCENARIOS);

/** The leaderboard aggregate of a run's summary (`metrics.hibench` or `metrics.hibenchAll`, §4.5), fractions in [0, 1]. */
export interface LeaderboardAggregate {
  scenarios: Record<string, number>;
  tasks: Record<string, number>;
  dimensions: Record<string, number>;
  overall: number;
  n: number;
}

/** The HiBench aggregate of a run's summary (`metrics.hibench`: zero-shot and non-nonsense, §4.5), if present. */
export function leaderboardAggregate(run: Pick<ReportRun, 'metrics'>, key: 'hibench' | 'hibenchAll' = 'hibench'): LeaderboardAggregate | undefined {
  const m = run.metrics?.[key];
  if (!m || typeof m !== 'object' || Array.isArray(m)) return undefined;
  const rec = (v: Json | undefined) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number>) : {});
  return { scenarios: rec(m.scenarios), tasks: rec(m.tasks), dimensions: rec(m.dimensions), overall: typeof m.overall === 'number' ? m.overall : 0, n: typeof m.n === 'number' ? m.n : 0 };
}

/** One group of a breakdown: its key, recorded scores n, HPI (with bootstrap interval) and accuracy (fraction). */
export interface BreakdownRow {
  group: string;
  n: number;
  hpi: number;
  hpiCi95: UnitEstimate['hpiCi95'];
  accuracy: number;
}

type Estimator = (units: readonly SampleUnit[], stream: string) => UnitEstimate;

function breakdown(units: readonly SampleUnit[], keyOf: (u: SampleUnit) => string | undefined, estimate: Estimator, stream: string, order?: readonly string[]): BreakdownRow[] {
  const groups = new Map<string, SampleUnit[]>();
  for (const u of units) {
    const k = keyOf(u);
    if (k === undefined) continue;
    const list = groups.get(k);
    if (list) list.push(u);
    else groups.set(k, [u]);
  }
  const keys = [...groups.keys()];
  if (order) keys.sort((a, b) => (order.indexOf(a) + 1 || 1e9) - (order.indexOf(b) + 1 || 1e9) || a.localeCompare(b));
  return keys.map((k) => {
    const us = groups.get(k)!;
    const e = estimate(us, `${stream}|${k}`);
    return { group: k, n: us.reduce((a, u) => a + u.scores, 0), hpi: e.hpi, hpiCi95: e.hpiCi95, accuracy: e.accuracy };
  });
}

/**
 * HPI and accuracy of a run's samples by `meta.preset` (difficulty), by capability dimension of `meta.task` (§1.3) and
 * by task; samples without the field are left out. Intervals: `estimate` per group, stream `<stream>|<kind>|<group>`.
 */
export function hibenchBreakdown(units: readonly SampleUnit[], estimate: Estimator, stream: string): { byPreset: BreakdownRow[]; byDimension: BreakdownRow[]; byTask: BreakdownRow[] } {
  const str = (u: SampleUnit, k: string) => (typeof u.meta?.[k] === 'string' ? (u.meta[k] as string) : undefined);
  return {
    byPreset: breakdown(units, (u) => str(u, 'preset'), estimate, `${stream}|preset`, PRESET_ORDER),
    byDimension: breakdown(units, (u) => { const t = str(u, 'task'); return t === undefined ? undefined : dimensionOf(t); }, estimate, `${stream}|dimension`, DIMENSIONS),
    byTask: breakdown(units, (u) => str(u, 'task'), estimate, `${stream}|task`),
  };
}

/** The leaderboard cell of a scenario a model has no run of. */
export const NOT_RUN = 'not run';

/**
 * Scenarios of this plugin beyond HiBench's six (§1.1; those whose `report.extension` is true), in list order. The
 * leaderboard shows them after Avg and never averages them into it, and the capability-dimension table leaves them
 * out, so the overall and the five dimensions stay those of §4.5-4.6.
 */
export const EXTENSION_SCENARIOS: readonly string[] = SCENARIOS.filter((s) => s.report.extension === true).map((s) => s.name);

function orderColumns(present: string[], order: readonly string[]): string[] {
  return [...order.filter((c) => present.includes(c)), ...present.filter((c) => !order.includes(c))];
}

/**
 * The HiBench report view: tables (hibench.md §4.5-4.6, in %): the leaderboard (a column per scenario of the view,
 * `NOT_RUN` where a model has no run of it, + Avg = the mean of all scenario scores, left empty unless every one was
 * run; then the `EXTENSION_SCENARIOS` that were run, outside Avg), one task table per scenario (task columns + Avg = the
 * scenario score), and the capability
 * dimensions (per model, the mean over its scenarios' dimension scores, §4.6); charts: HPI by preset and by
 * capability dimension (bootstrap intervals per group) and the leaderboard accuracy by dimension.
 */
export class HibenchReportView implements ReportViewCode {
  tables(ctx: ReportViewContext): ReportTable[] {
    const models: string[] = [];
    // per model, per scenario: the newest run's aggregate
    const perModel = new Map<string, Map<string, { run: ReportRun; agg: LeaderboardAggregate }>>();
    let hidden = 0;
    let empty = 0;
    for (const r of ctx.runs) {
      const agg = leaderboardAggregate(r);
      const m = ctx.modelLabel(r);
      if (!models.includes(m)) models.push(m);
      if (!agg || agg.n === 0) {
        empty++;
        continue;
      }
      const byScenario = perModel.get(m) ?? new Map<string, { run: ReportRun; agg: LeaderboardAggregate }>();
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
    // the scenarios' own notes (`report.note`), for those some model ran
    for (const s of SCENARIOS) if (s.report.note !== undefined && [...perModel.values()].some((by) => by.has(s.name))) notes.push(s.report.note);
    const scenarios = orderColumns([...new Set([...perModel.values()].flatMap((m) => [...m.keys()]))], ctx.order);
    // the leaderboard always shows every scenario of the view (the six of §1.1), so a scenario a model did not run is
    // marked as such, and Avg (the overall score, §4.5: the mean of the six) is given only when all of them were run
    const columns = [...ctx.order, ...scenarios.filter((s) => !ctx.order.includes(s))].filter((s) => !EXTENSION_SCENARIOS.includes(s));
    // extension scenarios get a column only when some model ran them
    const extensions = scenarios.filter((s) => EXTENSION_SCENARIOS.includes(s));
    const incomplete: string[] = [];
    const cell = (v: number | undefined) => ({ value: typeof v === 'number' ? v * 100 : NOT_RUN });
    const rows = models.map((m) => {
      const by = perModel.get(m);
      const vals = columns.map((s) => by?.get(s)?.agg.scenarios[s]);
      const missing = columns.filter((_, i) => typeof vals[i] !== 'number');
      if (missing.length && by) incomplete.push(`${m}: ${missing.map((s) => ctx.label(s)).join(', ')}`);
      const avg = missing.length === 0 && vals.length > 0 ? (100 * (vals as number[]).reduce((a, b) => a + b, 0)) / vals.length : null;
      return [{ value: m }, ...vals.map(cell), { value: avg }, ...extensions.map((s) => cell(by?.get(s)?.agg.scenarios[s]))];
    });
    if (incomplete.length) notes.push(`Not run, so no Avg (the mean of all ${columns.length} scenarios, never of fewer): ${incomplete.join('; ')}.`);
    if (extensions.length) notes.push(`${extensions.map((s) => ctx.label(s)).join(' and ')}: this plugin's scenarios beyond HiBench's six, shown after Avg and not part of it or of the capability dimensions.`);
    const tables: ReportTable[] = [];
    // the leaderboard compares models across the six scenarios: not for the summary of one run
    if (ctx.purpose !== 'run') tables.push({
      id: 'hibench-leaderboard',
      title: 'HiBench leaderboard: accuracy (%) per scenario',
      source: 'hibench.md §4.5 (HiBench Table 2 layout)',
      notes,
      columns: [{ label: 'Model' }, ...columns.map((s) => ({ label: ctx.label(s), digits: 2 })), { label: 'Avg', digits: 2 }, ...extensions.map((s) => ({ label: ctx.label(s), digits: 2 }))],
      rows,
    });
    for (const s of scenarios) {
      const tasks: string[] = [];
      for (const by of perModel.values()) for (const t of Object.keys(by.get(s)?.agg.tasks ?? {})) if (t.startsWith(`${s}/`) && !tasks.includes(t)) tasks.push(t);
      tables.push({
        id: `hibench-${s}`,
        title: `HiBench ${ctx.label(s)}: accuracy (%) per task`,
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
    const dims = DIMENSIONS.filter((d) => [...perModel.values()].some((by) => [...by.entries()].some(([sc, x]) => !EXTENSION_SCENARIOS.includes(sc) && typeof x.agg.dimensions[d] === 'number')));
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
            const runsOfModel = [...new Set([...perModel.get(m)!.entries()].filter(([sc]) => !EXTENSION_SCENARIOS.includes(sc)).map(([, x]) => x.agg))];
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

  charts(ctx: ReportViewContext): ReportChart[] {
    const runs = ctx.runs;
    if (runs.length === 0) return [];
    const series = runs.map((r) => ctx.runLabel(r));
    const byPreset: ReportBar[] = [];
    const byDim: ReportBar[] = [];
    const accDim: ReportBar[] = [];
    const presets: string[] = [];
    for (const r of runs) {
      const label = ctx.runLabel(r);
      const b = hibenchBreakdown(ctx.units(r.runId), ctx.estimate, r.runId);
      for (const p of b.byPreset) {
        if (!presets.includes(p.group)) presets.push(p.group);
        byPreset.push({ series: label, group: p.group, value: p.hpi, lo: p.hpiCi95?.[0] ?? null, hi: p.hpiCi95?.[1] ?? null });
      }
      for (const d of b.byDimension) byDim.push({ series: label, group: d.group, value: d.hpi, lo: d.hpiCi95?.[0] ?? null, hi: d.hpiCi95?.[1] ?? null });
      const agg = leaderboardAggregate(r);
      for (const [dim, v] of Object.entries(agg?.dimensions ?? {})) if (agg && agg.n > 0) accDim.push({ series: label, group: dim, value: v * 100, lo: null, hi: null });
    }
    // presets in difficulty order across scenarios (`PRESET_ORDER`), not in the order the runs first show them
    presets.sort((a, b) => (PRESET_ORDER.indexOf(a) + 1 || 1e9) - (PRESET_ORDER.indexOf(b) + 1 || 1e9) || a.localeCompare(b));
    const dims = DIMENSIONS.filter((d) => byDim.some((x) => x.group === d) || accDim.some((x) => x.group === d));
    return [
      byPreset.length
        ? { id: 'hibench-preset', title: 'HiBench: HPI by preset', caption: 'HPI of the samples of each preset (difficulty), per run; bars: bootstrap 95% intervals.', bars: { heading: 'HPI by preset (lower is better)', axis: 'HPI', groups: presets, series, values: byPreset } }
        : { id: 'hibench-preset', title: 'HiBench: HPI by preset', caption: '', note: 'The samples carry no preset.' },
      byDim.length
        ? { id: 'hibench-dimension-hpi', title: 'HiBench: HPI by capability dimension', caption: 'HPI of the samples whose task belongs to each capability dimension (hibench.md §1.3), per run.', bars: { heading: 'HPI by capability dimension (lower is better)', axis: 'HPI', groups: [...dims], series, values: byDim } }
        : { id: 'hibench-dimension-hpi', title: 'HiBench: HPI by capability dimension', caption: '', note: 'No sample task maps to a capability dimension.' },
      accDim.length
        ? { id: 'hibench-dimension-accuracy', title: 'HiBench: accuracy by capability dimension', caption: 'Leaderboard dimension scores (zero-shot, non-nonsense queries solved at some level; hibench.md §4.6), %.', bars: { heading: 'Accuracy by capability dimension (%)', axis: 'accuracy %', groups: [...dims], series, values: accDim, domain: [0, 100] } }
        : { id: 'hibench-dimension-accuracy', title: 'HiBench: accuracy by capability dimension', caption: '', note: 'No run has zero-shot queries, so there are no leaderboard dimension scores.' },
    ];
  }
}
