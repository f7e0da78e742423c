/**
 * Server-side charts of the HTML report: Vega-Lite specs compiled with `vega-lite` and rendered to
 * an SVG string by `vega` in Node (`renderer: 'none'`, no DOM, no canvas, no network: every spec carries its data
 * inline). Each function returns one self-contained `<svg>` element. The generic charts know no dataset (labels come
 * from the plugins' report views); a view's own charts arrive as data (`ReportChart`) and are drawn here.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { dataDifferences, datasetLabel, formatThreshold, hazardCurve, levelTransitions, modelLabel, pairUnits, ReportViews, uniqueRunLabels, viewContext, type ReportBar, type ReportChart, type ReportData, type ReportRun, type TransitionSample } from '@hpt-bench/core';

export { uniqueRunLabels };

/** Shared look: system sans-serif fonts (nothing to download), no view border, axis and legend labels never truncated. */
export const CONFIG = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  view: { stroke: null },
  // no label is ever cut: run labels differ at their ends (the run id `uniqueRunLabels` appends, the group parts), and
  // the headless renderer only estimates text widths (too wide), so a limit cuts labels that would fit
  axis: { labelLimit: 0, labelFontSize: 11, titleFontSize: 12 },
  legend: { labelLimit: 0, titleLimit: 0, labelFontSize: 11, titleFontSize: 12 },
  title: { fontSize: 14, anchor: 'start' as const },
  background: 'white',
};

/** The start of the warning Vega-Lite gives for every layered facet with independent scales (`groupedBars`). */
const FACET_UNION_WARNING = 'Detected faceted independent scales that union domain';

/**
 * Vega-Lite's compile logger (warnings to the console, as its default) less `FACET_UNION_WARNING`: the grouped bars'
 * layers (bars, interval rules) read one facet's data, so the domain union the warning announces is the right one.
 */
class CompileLogger implements vega.LoggerInterface {
  private readonly base = vega.logger(vega.Warn);
  level(l?: number): number | vega.LoggerInterface {
    if (l === undefined) return this.base.level();
    this.base.level(l);
    return this;
  }
  error(...args: unknown[]): this {
    this.base.error(...args);
    return this;
  }
  warn(...args: unknown[]): this {
    if (!(typeof args[0] === 'string' && args[0].startsWith(FACET_UNION_WARNING))) this.base.warn(...args);
    return this;
  }
  info(...args: unknown[]): this {
    this.base.info(...args);
    return this;
  }
  debug(...args: unknown[]): this {
    this.base.debug(...args);
    return this;
  }
}

/**
 * Render a Vega-Lite spec to an SVG string (compile -> parse -> headless View -> toSVG). The view is finalized after
 * rendering. Throws whatever vega throws for an invalid spec (a bug, not user input).
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // the page heads each chart (h3), so the spec's own title is dropped
  const { title: _title, ...rest } = spec as TopLevelSpec & { title?: unknown };
  const vgSpec = compile({ ...rest, config: { ...CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec, { logger: new CompileLogger() }).spec;
  const view = new vega.View(vega.parse(vgSpec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Level colours: early levels green, later ones orange/red; `unsolved` grey (hpt.md §2.1 ladder order). */
const LEVEL_COLOURS = ['#1a9850', '#91cf60', '#d9ef8b', '#fee08b', '#fc8d59', '#d73027', '#a50026', '#7b3294', '#5e3c99', '#2b83ba'];
const UNSOLVED_COLOUR = '#9e9e9e';

/** A chart of the report: its id, caption and SVG (or a note when there is nothing to draw). */
export interface Chart {
  id: string;
  title: string;
  caption: string;
  svg?: string;
  note?: string;
}

function columnOf(r: ReportRun, views: ReportViews): string {
  return `${datasetLabel(r, views)}${r.threshold !== undefined ? ` ${formatThreshold(r.threshold)}` : ''}`;
}

/** Newest run per (model label, dataset column), in order of first appearance. */
function gridCells(runs: readonly ReportRun[], views: ReportViews): { rows: string[]; cols: string[]; cells: { row: string; col: string; run: ReportRun }[] } {
  const rows: string[] = [];
  const cols: string[] = [];
  const cells = new Map<string, { row: string; col: string; run: ReportRun }>();
  for (const r of runs) {
    const row = modelLabel(r);
    const col = columnOf(r, views);
    if (!rows.includes(row)) rows.push(row);
    if (!cols.includes(col)) cols.push(col);
    const k = `${row}\u0000${col}`;
    const old = cells.get(k);
    if (!old || old.run.createdAt <= r.createdAt) cells.set(k, { row, col, run: r });
  }
  return { rows, cols, cells: [...cells.values()] };
}

function heatmap(title: string, legend: string, scheme: string, reverse: boolean, values: { row: string; col: string; value: number; text: string }[], rows: string[], cols: string[], domain?: [number, number], axisTitles?: { x: string; y: string }): TopLevelSpec {
  const lo = domain?.[0] ?? Math.min(...values.map((v) => v.value));
  const hi = domain?.[1] ?? Math.max(...values.map((v) => v.value));
  const dark = (v: number) => {
    const t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    return (reverse ? 1 - t : t) > 0.62;
  };
  return {
    title,
    data: { values: values.map((v) => ({ ...v, dark: dark(v.value) })) },
    width: { step: Math.max(64, Math.min(120, 8 * Math.max(...cols.map((c) => c.length)))) },
    height: { step: 30 },
    encoding: {
      x: { field: 'col', type: 'nominal', sort: cols, title: axisTitles?.x ?? null, axis: { labelAngle: 0, orient: 'top', labelLimit: 120, titleLimit: 600 } },
      y: { field: 'row', type: 'nominal', sort: rows, title: axisTitles?.y ?? null, axis: { titleLimit: 400 } },
    },
    layer: [
      { mark: { type: 'rect' }, encoding: { color: { field: 'value', type: 'quantitative', title: legend, scale: { scheme, reverse, ...(domain ? { domain } : {}) } } } },
      { mark: { type: 'text', fontSize: 11 }, encoding: { text: { field: 'text', type: 'nominal' }, color: { condition: { test: 'datum.dark', value: 'white' }, value: 'black' } } },
    ],
  } as TopLevelSpec;
}

/** HPI and accuracy per model x dataset (threshold datasets one column per threshold): two heatmaps. */
export async function heatmapCharts(runs: readonly ReportRun[], views: ReportViews = ReportViews.none): Promise<Chart[]> {
  const { rows, cols, cells } = gridCells(runs, views);
  const hpi = cells.map((c) => ({ row: c.row, col: c.col, value: c.run.hpi, text: c.run.hpi.toFixed(2) }));
  const acc = cells.map((c) => ({ row: c.row, col: c.col, value: c.run.accuracy * 100, text: (c.run.accuracy * 100).toFixed(1) }));
  return [
    {
      id: 'heatmap-hpi',
      title: 'HPI per model and dataset',
      caption: `Mean solving level (unsolved: m + HPI_Dataset); lower is better. The newest run of each row (model and group) and dataset (and threshold).${ladderNote(runs)}`,
      // colour scale from level 1 to the largest penalty m + HPI_Dataset of these runs, so runs compare by colour
      svg: await renderSvg(heatmap('HPI (lower is better)', 'HPI', 'orangered', false, hpi, rows, cols, [1, Math.max(2, ...runs.map((r) => Math.max(r.hpi, (r.ladder.length || 5) + r.hpiDataset)))])),
    },
    {
      id: 'heatmap-accuracy',
      title: 'Accuracy per model and dataset',
      caption: 'Samples solved at some level, in %.',
      svg: await renderSvg(heatmap('Accuracy (%)', 'accuracy %', 'greens', false, acc, rows, cols, [0, 100])),
    },
  ];
}

/**
 * A caption note when the runs' ladders differ in length (one HPI axis or colour scale then spans HPI values of
 * different ranges: a 2-level ladder's HPI is not a 6-level ladder's); '' when all ladders have one length.
 */
export function ladderNote(runs: readonly ReportRun[]): string {
  const lengths = [...new Set(runs.map((r) => r.ladder.length))].sort((a, b) => a - b);
  return lengths.length > 1 ? ` Note: these runs use ladders of ${lengths.join(', ')} levels; their HPI values are on different scales (rows say which ladder) and are not comparable across ladders.` : '';
}

/** The distribution of solving levels per run (stacked, normalised to 100%), unsolved included. */
export async function levelChart(runs: readonly ReportRun[], labels: Map<string, string>): Promise<Chart> {
  const m = Math.max(1, ...runs.map((r) => r.ladder.length || Object.keys(r.levelCounts).filter((k) => k !== 'unsolved').length));
  const domain = [...Array.from({ length: m }, (_, i) => `L${i + 1}`), 'unsolved'];
  const range = [...Array.from({ length: m }, (_, i) => LEVEL_COLOURS[i % LEVEL_COLOURS.length]!), UNSOLVED_COLOUR];
  const values = runs.flatMap((r) => domain.map((level, order) => ({ run: labels.get(r.runId)!, level, order, count: level === 'unsolved' ? (r.levelCounts.unsolved ?? 0) : (r.levelCounts[level.slice(1)] ?? 0) })));
  const spec = {
    title: 'Solving level per run',
    data: { values },
    width: 560,
    height: { step: 26 },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'run', type: 'nominal', sort: runs.map((r) => labels.get(r.runId)), title: null },
      x: { field: 'count', type: 'quantitative', stack: 'normalize', title: 'share of recorded scores', axis: { format: '%' } },
      color: { field: 'level', type: 'nominal', title: 'solved at', scale: { domain, range }, sort: domain },
      order: { field: 'order', type: 'quantitative' },
    },
  } as TopLevelSpec;
  return { id: 'levels', title: 'Distribution of solving levels', caption: 'Share of samples first solved at each level, and unsolved, per run.', svg: await renderSvg(spec) };
}

/** Tokens and calls per level (stacked per run) and, only when some run has prices, USD cost per level. */
export async function usageCharts(runs: readonly ReportRun[], labels: Map<string, string>): Promise<Chart[]> {
  const levelsOf = (r: ReportRun) => Object.keys(r.levels).sort((a, b) => Number(a) - Number(b));
  const allLevels = [...new Set(runs.flatMap(levelsOf))].sort((a, b) => Number(a) - Number(b)).map((l) => `L${l}`);
  const selector = runs.some((r) => r.selectorUsage?.calls);
  const domain = [...allLevels, ...(selector ? ['selector'] : [])];
  const range = [...allLevels.map((_, i) => LEVEL_COLOURS[i % LEVEL_COLOURS.length]!), ...(selector ? ['#6a51a3'] : [])];
  const rows = runs.flatMap((r) => [
    ...levelsOf(r).map((l) => ({ run: labels.get(r.runId)!, level: `L${l}`, order: Number(l), tokens: r.levels[l]!.promptTokens + r.levels[l]!.completionTokens, calls: r.levels[l]!.calls, cost: r.levels[l]!.cost ?? null })),
    ...(r.selectorUsage?.calls ? [{ run: labels.get(r.runId)!, level: 'selector', order: 999, tokens: r.selectorUsage.promptTokens + r.selectorUsage.completionTokens, calls: r.selectorUsage.calls, cost: r.selectorUsage.cost ?? null }] : []),
  ]);
  const bar = (title: string, field: string, axisTitle: string, values: typeof rows): TopLevelSpec =>
    ({
      title,
      data: { values },
      width: 560,
      height: { step: 26 },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'run', type: 'nominal', sort: runs.map((r) => labels.get(r.runId)), title: null },
        x: { field, type: 'quantitative', title: axisTitle, stack: 'zero' },
        color: { field: 'level', type: 'nominal', title: 'level', scale: { domain, range }, sort: domain },
        order: { field: 'order', type: 'quantitative' },
      },
    }) as TopLevelSpec;
  const charts: Chart[] = [
    { id: 'tokens', title: 'Tokens per level', caption: 'Prompt + completion tokens of every recorded call, by ladder level (and the adaptive selector).', svg: rows.length ? await renderSvg(bar('Tokens per level', 'tokens', 'tokens (prompt + completion)', rows)) : undefined, ...(rows.length ? {} : { note: 'No calls recorded.' }) },
    { id: 'calls', title: 'Calls per level', caption: 'Model calls by ladder level (levels 4 and 5 make 4 calls each).', svg: rows.length ? await renderSvg(bar('Calls per level', 'calls', 'calls', rows)) : undefined, ...(rows.length ? {} : { note: 'No calls recorded.' }) },
  ];
  // the cost card only when some run was made with --prices (an empty card is noise)
  const costed = rows.filter((r) => r.cost !== null);
  if (costed.length) charts.push({ id: 'cost', title: 'Cost per level', caption: 'USD of uncached calls by level, for runs made with --prices.', svg: await renderSvg(bar('Cost per level (USD)', 'cost', 'USD', costed)) });
  return charts;
}

/** Accuracy vs HPI, one point per run, with the bootstrap 95% intervals of both as error bars. */
export async function scatterChart(runs: readonly ReportRun[], views: ReportViews = ReportViews.none): Promise<Chart> {
  const values = runs.map((r) => ({
    model: modelLabel(r),
    dataset: columnOf(r, views),
    hpi: r.hpi,
    acc: r.accuracy * 100,
    hlo: r.hpiCi95?.[0] ?? null,
    hhi: r.hpiCi95?.[1] ?? null,
    alo: r.accuracyCi95 ? r.accuracyCi95[0] * 100 : null,
    ahi: r.accuracyCi95 ? r.accuracyCi95[1] * 100 : null,
  }));
  const x = { field: 'hpi', type: 'quantitative', title: 'HPI (lower is better)', scale: { zero: false, nice: true } };
  const y = { field: 'acc', type: 'quantitative', title: 'accuracy %', scale: { domain: [0, 100] } };
  const color = { field: 'dataset', type: 'nominal', title: 'dataset' };
  const spec = {
    title: 'Accuracy vs HPI',
    data: { values },
    width: 560,
    height: 360,
    layer: [
      { transform: [{ filter: 'datum.hlo != null' }], mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x: { ...x, field: 'hlo' }, x2: { field: 'hhi' }, y, color } },
      { transform: [{ filter: 'datum.alo != null' }], mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { y: { ...y, field: 'alo' }, y2: { field: 'ahi' }, x, color } },
      { mark: { type: 'point', filled: true, size: 90, opacity: 0.9 }, encoding: { x, y, color, shape: { field: 'model', type: 'nominal', title: 'model' } } },
    ],
  } as TopLevelSpec;
  return { id: 'scatter', title: 'Accuracy vs HPI', caption: `One point per run; bars: bootstrap 95% intervals of HPI (horizontal) and accuracy (vertical).${ladderNote(runs)}`, svg: await renderSvg(spec) };
}

/** Height of one bar's band in a grouped bar chart (`groupedBars`), px. */
export const BAR_STEP = 18;

/**
 * A grouped bar chart (a view's `ReportChart.bars`): one small panel per group (a row facet headed by the group,
 * in `groups` order), each with a bar per series that has a value in that group, labelled on its own y axis (series
 * in `runOrder`; `resolve: { scale: { y: 'independent' } }`, so a group holds only its own series and a panel is as
 * tall as its bars: `BAR_STEP` px each), and the intervals (`lo`..`hi`) as rules. The x scale is shared, so panels
 * compare; colours follow the series (no legend: the axis names each bar).
 */
export function groupedBars(title: string, axisTitle: string, values: readonly ReportBar[], groups: string[], runOrder: string[], domain?: [number, number]): TopLevelSpec {
  const x = { field: 'value', type: 'quantitative', title: axisTitle, ...(domain ? { scale: { domain } } : {}) };
  const y = { field: 'run', type: 'nominal', sort: runOrder, title: null };
  const order = [...groups, ...[...new Set(values.map((v) => v.group))].filter((g) => !groups.includes(g))];
  return {
    title,
    data: { values: values.map((v) => ({ run: v.series, group: v.group, value: v.value, lo: v.lo, hi: v.hi })) },
    facet: {
      // the group's name heads its panel (above its first bar, at the panel's left edge)
      row: { field: 'group', type: 'nominal', sort: order, title: null, header: { labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelAlign: 'left', labelFontSize: 12, labelFontWeight: 'bold', labelPadding: 3, labelLimit: 0 } },
    },
    spacing: 6,
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 520,
      height: { step: BAR_STEP },
      layer: [
        { mark: { type: 'bar' }, encoding: { y, x: { ...x, stack: null }, color: { field: 'run', type: 'nominal', sort: runOrder, legend: null } } },
        // a bar without an interval has null lo / hi: its rule is left out (Vega-Lite filters invalid values)
        { mark: { type: 'rule', color: '#333' }, encoding: { y, x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } } },
      ],
    },
  } as TopLevelSpec;
}

/**
 * The charts the report views compute (`ReportViewCode.charts`, in view order), drawn as grouped bars; a chart
 * without bars keeps its note. Views that cover no run of the report are not called.
 */
export async function viewCharts(data: ReportData, views: ReportViews): Promise<Chart[]> {
  const out: Chart[] = [];
  for (const view of views.list) {
    if (!view.code?.charts) continue;
    const ctx = viewContext(view, data, views);
    if (ctx.runs.length === 0) continue;
    for (const c of view.code.charts(ctx)) out.push(await drawChart(c));
  }
  return out;
}

/** A view's chart as an SVG chart (or its note when it has no bars). */
async function drawChart(c: ReportChart): Promise<Chart> {
  if (!c.bars) return { id: c.id, title: c.title, caption: c.caption, note: c.note ?? 'Nothing to show.' };
  const b = c.bars;
  return { id: c.id, title: c.title, caption: c.caption, svg: await renderSvg(groupedBars(b.heading, b.axis, b.values, b.groups, b.series, b.domain)) };
}

/** Pairs of runs the HTML report draws level transitions for, at most (`transitionCharts`). */
export const MAX_TRANSITION_PAIRS = 6;

/** Fixed / broken sample ids named in a transition chart's caption, at most. */
const CAPTION_IDS = 20;

/** A pair of runs of one dataset left out of the level transitions because their data differ (issue 25). */
export interface DifferentDataPair {
  a: string;
  b: string;
  /** the differing fields (`dataDifferences`: `data.source`, `data.split`, `data.contentHash`, ...) */
  fields: string[];
}

/**
 * Level-transition heatmaps (as `compare A B` counts them) for pairs of runs on the same dataset (and threshold): in
 * each group of such runs every pair A, B with A before B in report order (oldest first unless runs are named), the
 * first `maxPairs` pairs that share a scored sample. Cells: paired samples A solved at the row's level and B at the
 * column's (`unsolved` last), coloured and labelled by their count; the caption gives the fixed/broken totals and ids.
 * A pair whose data differ (`data.dataIdentities`, `dataDifferences`: another data file, split, or a generated
 * dataset's seed or compat) is never drawn, as `compare` refuses it: pairs that share sample ids are listed in
 * `differentData` instead. Runs without a recorded identity count as the same data.
 * @returns the charts, how many further pairs with shared samples were left out (`omitted`), and the pairs left out
 *   for their different data (`differentData`).
 */
export async function transitionCharts(data: ReportData, labels: Map<string, string>, maxPairs = MAX_TRANSITION_PAIRS): Promise<{ charts: Chart[]; omitted: number; differentData: DifferentDataPair[] }> {
  const groups = new Map<string, ReportRun[]>();
  for (const r of data.runs) {
    const k = `${r.dataset}\u0000${r.threshold ?? ''}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const charts: Chart[] = [];
  const differentData: DifferentDataPair[] = [];
  let omitted = 0;
  for (const runs of groups.values()) {
    for (let i = 0; i < runs.length; i++) {
      for (let j = i + 1; j < runs.length; j++) {
        const a = runs[i]!;
        const b = runs[j]!;
        const ia = data.dataIdentities?.get(a.runId);
        const ib = data.dataIdentities?.get(b.runId);
        const diff = ia && ib ? dataDifferences(ia, ib) : [];
        if (diff.length > 0) {
          if (pairUnits(data.units.get(a.runId) ?? [], data.units.get(b.runId) ?? []).pairs.length > 0) differentData.push({ a: a.runId, b: b.runId, fields: diff.map((d) => d.field) });
          continue;
        }
        const t = levelTransitions({ units: data.units.get(a.runId) ?? [], levels: a.ladder.length }, { units: data.units.get(b.runId) ?? [], levels: b.ladder.length });
        if (t.transitions.paired === 0) continue;
        if (charts.length >= maxPairs) {
          omitted++;
          continue;
        }
        const tr = t.transitions;
        const max = Math.max(1, ...tr.counts.flat());
        const values = tr.rows.flatMap((row, ri) => tr.columns.map((col, ci) => ({ row, col, value: tr.counts[ri]![ci]!, text: String(tr.counts[ri]![ci]!) })));
        const la = labels.get(a.runId) ?? a.runId;
        const lb = labels.get(b.runId) ?? b.runId;
        const ids = (xs: TransitionSample[]) => (xs.length ? `${xs.slice(0, CAPTION_IDS).map((x) => `${x.sampleId}${x.replicate !== undefined ? ` #${x.replicate}` : ''}`).join(', ')}${xs.length > CAPTION_IDS ? ` and ${xs.length - CAPTION_IDS} more` : ''}` : 'none');
        const k = tr.totals;
        charts.push({
          id: `transitions-${a.runId}-${b.runId}`,
          title: `Level transitions: ${la} → ${lb}`,
          caption: `${tr.paired} paired samples of ${a.runId} (A, rows) and ${b.runId} (B, columns). B fixes ${k.fixed} (A unsolved, B solved): ${ids(t.fixed)}. B breaks ${k.broken} (A solved, B unsolved): ${ids(t.broken)}. Both solved: B at a lower level ${k.improved}, the same level ${k.sameLevel}, a higher level ${k.worse}; both unsolved ${k.bothUnsolved}.`,
          svg: await renderSvg(heatmap('Level transitions', 'samples', 'blues', false, values, tr.rows, tr.columns, [0, max], { x: 'B solved at', y: 'A solved at' })),
        });
      }
    }
  }
  return { charts, omitted, differentData };
}

/**
 * The per-level hazard curve of each full-ladder run (`hazardCurve` of its stored verdicts, issue 28): P(solved at
 * level k | unsolved at every earlier level), with its Wilson 95% interval as an error bar. None without full-ladder runs.
 */
export async function hazardChart(data: ReportData, labels: Map<string, string>): Promise<Chart[]> {
  const verdicts = data.ladderVerdicts;
  if (!verdicts?.size) return [];
  const values = data.runs
    .filter((r) => verdicts.has(r.runId))
    .flatMap((r) =>
      hazardCurve(verdicts.get(r.runId)!)
        .filter((h) => h.hazard !== null)
        .map((h) => ({ run: labels.get(r.runId)!, level: `L${h.level}`, order: h.level, hazard: h.hazard!, lo: h.ci?.[0] ?? h.hazard!, hi: h.ci?.[1] ?? h.hazard!, atRisk: h.atRisk })),
    );
  const levels = [...new Set(values.sort((a, b) => a.order - b.order).map((v) => v.level))];
  const x = { field: 'level', type: 'ordinal', sort: levels, title: 'level (ladder order)' };
  const spec = {
    title: 'Per-level hazard',
    data: { values },
    width: 560,
    height: 260,
    layer: [
      { mark: { type: 'rule' }, encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color: { field: 'run', type: 'nominal', title: null } } },
      {
        mark: { type: 'line', point: true },
        encoding: {
          x,
          y: { field: 'hazard', type: 'quantitative', title: 'P(solved at level | unsolved before)', axis: { format: '%' }, scale: { domain: [0, 1] } },
          color: { field: 'run', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 1, labelLimit: 0 } },
        },
      },
    ],
  } as TopLevelSpec;
  return [{ id: 'hazard', title: 'Per-level hazard (full-ladder runs)', caption: 'For each level, the share of the samples still unsolved before it that it solves, with Wilson 95% intervals; from the stored verdicts of runs made with --full-ladder.', svg: await renderSvg(spec) }];
}

/** Every chart of the HTML report, in page order. */
export async function reportCharts(data: ReportData, views: ReportViews = ReportViews.none): Promise<Chart[]> {
  const labels = uniqueRunLabels(data.runs, views);
  return [...(await heatmapCharts(data.runs, views)), await levelChart(data.runs, labels), ...(await hazardChart(data, labels)), ...(await usageCharts(data.runs, labels)), await scatterChart(data.runs, views), ...(await viewCharts(data, views))];
}
