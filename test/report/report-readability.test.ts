/**
 * Issue 29, item 2: defects a new user found in the HTML report. Run ids are shown short (the full id on hover) in the
 * HTML tables and kept whole in Markdown and CSV; the runs table names an evaluation file's model `name`; grouped bar
 * charts (HiBench's HPI by preset, HPI / accuracy by capability dimension) show in each group only the series it has,
 * each bar on its own label, and are as tall as their bars; chart legends and axes never cut a label.
 */
import { describe, expect, it } from 'vitest';
import { ReportViews, runsTable, shortRunIds, usageTable, viewContext, tableToCsv, tableToMarkdown, type LoadedReportView, type PluginManifest, type ReportBar, type ReportRun, type ReportViewDecl, type SampleUnit } from '@hpt-bench/core';
import { BAR_STEP, CONFIG, groupedBars, renderSvg, scatterChart, viewCharts } from '../../packages/cli/src/report/charts.js';
import { tableHtml } from '../../packages/cli/src/report/html.js';
import { HibenchReportView } from '../../plugins/hibench/src/report.js';
import { SCENARIOS } from '../../plugins/hibench/src/scenarios.js';

let clock = 0;
function run(over: Partial<ReportRun> & Pick<ReportRun, 'runId' | 'dataset'>): ReportRun {
  clock++;
  return {
    model: 'baseline:random', mode: 'manual', compat: 'strict', seed: 0, createdAt: `2026-01-01T00:00:${String(clock).padStart(2, '0')}.000Z`, ladder: ['a', 'b'],
    n: 10, samples: 10, hpi: 1.5, hpiCi95: [1.2, 1.8], hpiDataset: 1, accuracy: 0.6, accuracyCi95: [0.4, 0.8], levelCounts: { 1: 6, unsolved: 4 },
    calls: 10, cachedCalls: 0, usage: { promptTokens: 1, completionTokens: 1 }, levels: {}, errored: 0,
    ...over,
  };
}

/** The SVG's height attribute. */
const svgHeight = (svg: string) => Number(/<svg[^>]*\sheight="([\d.]+)"/.exec(svg)![1]);
/** The texts of the SVG's `<text>` elements (axis labels, headers, legend labels), entities decoded. */
const svgTexts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'"));

describe('run ids in the runs and usage tables', () => {
  const ids = ['20261127T160923-4d027f', '20261127T161020-896f0a'];
  const runs = ids.map((runId) => run({ runId, dataset: 'boolq', levels: { 1: { calls: 3, cachedCalls: 0, promptTokens: 5, completionTokens: 2 } } }));

  it('shortRunIds: the random suffix of a generated id, the tail of a long other id, short ids as they are, never two alike', () => {
    const s = shortRunIds([...ids, 'r1-old', 'a-very-long-hand-made-run-id', 'x-4d027f', '20261128T000000-4d027f']);
    expect(s.get('20261127T161020-896f0a')).toBe('896f0a');
    expect(s.get('r1-old')).toBe('r1-old');
    expect(s.get('a-very-long-hand-made-run-id')).toBe('…e-run-id');
    // two generated ids with one suffix keep their full ids
    expect(s.get('20261127T160923-4d027f')).toBe('20261127T160923-4d027f');
    expect(s.get('20261128T000000-4d027f')).toBe('20261128T000000-4d027f');
    expect(new Set(s.values()).size).toBe(s.size);
  });

  it('HTML: the cell shows the short id on one line with the full id as its title; Markdown and CSV keep the full id', () => {
    const t = runsTable(runs);
    const html = tableHtml(t);
    expect(html).toContain('<td class="runid" title="20261127T160923-4d027f">4d027f</td>');
    expect(html).toContain('<td class="runid" title="20261127T161020-896f0a">896f0a</td>');
    expect(html).not.toMatch(/>20261127T16\d{4}-[0-9a-f]{6}</);
    expect(tableToMarkdown(t)).toContain('| 20261127T160923-4d027f |');
    expect(tableToCsv(t)).toContain('\r\n20261127T160923-4d027f,');
    // the usage table too
    const usage = tableHtml(usageTable(runs));
    expect(usage).toContain('title="20261127T161020-896f0a">896f0a<');
  });
});

describe("the model's name from an evaluation file", () => {
  it('the runs table shows the name with the model id; the other tables and charts label by the name (modelLabel)', async () => {
    const named = run({ runId: 'r-named', dataset: 'boolq', model: 'openai:llama3', name: 'llama3' });
    const t = runsTable([named, run({ runId: 'r-plain', dataset: 'boolq', model: 'openai:llama3', groupParts: ['split mini'] })]);
    expect(t.rows.map((r) => r[2]!.value)).toEqual(['llama3 (openai:llama3)', 'openai:llama3 · split mini']);
    const scatter = await scatterChart([named]);
    expect(svgTexts(scatter.svg!)).toContain('llama3');
    expect(svgTexts(scatter.svg!)).not.toContain('openai:llama3');
  });
});

describe('legends never cut labels', () => {
  it('the shared chart config has no label limit on legends or axes', () => {
    expect(CONFIG.legend.labelLimit).toBe(0);
    expect(CONFIG.axis.labelLimit).toBe(0);
  });

  it('a long model label is drawn whole in the scatter legend', async () => {
    const label = 'baseline:oracle · data @hpt-bench/hpt-datasets:./data/boolq-mini.jsonl';
    const c = await scatterChart([run({ runId: 'a', dataset: 'boolq', model: 'baseline:oracle', groupParts: ['data @hpt-bench/hpt-datasets:./data/boolq-mini.jsonl'] }), run({ runId: 'b', dataset: 'boolq', hpi: 2 })]);
    const texts = svgTexts(c.svg!);
    expect(texts).toContain(label);
    expect(texts.some((x) => x.endsWith('…'))).toBe(false);
  });
});

/**
 * Checks a grouped bar chart drawn from `values`: each series is labelled once in each group it has a value in (its
 * bar sits on its label; no group lists series it lacks, and no legend repeats them), and the chart is no taller than
 * its bars plus a header per group and the x axis.
 */
function expectCompact(svg: string, values: readonly ReportBar[]): void {
  const groups = [...new Set(values.map((v) => v.group))];
  const texts = svgTexts(svg);
  for (const series of new Set(values.map((v) => v.series))) expect(texts.filter((x) => x === series).length, series).toBe(values.filter((v) => v.series === series).length);
  for (const g of groups) expect(texts.filter((x) => x === g)).toHaveLength(1);
  expect(svgHeight(svg)).toBeLessThanOrEqual(values.length * BAR_STEP + groups.length * 40 + 80);
}

describe('grouped bar charts (a view chart: HiBench HPI by preset, by capability dimension)', () => {
  it('shows in each group only the series that have a value there, on their labels, and is as tall as its bars', async () => {
    // 10 series (runs of 5 scenarios by 2 models), 6 groups (presets) with 1 or 2 series each
    const series = Array.from({ length: 10 }, (_, i) => `model-${i % 2} · scenario ${Math.floor(i / 2)}`);
    const values: ReportBar[] = [];
    for (let g = 0; g < 6; g++) for (const s of series.filter((_, i) => Math.floor(i / 2) === g % 5 && (g < 5 || i % 2 === 0))) values.push({ series: s, group: `preset-${g}`, value: 1 + g, lo: g, hi: g + 2 });
    const svg = await renderSvg(groupedBars('t', 'HPI', values, values.map((v) => v.group).filter((g, i, a) => a.indexOf(g) === i), series));
    expectCompact(svg, values);
    // 11 bars: under 11 x 18 + 6 x 40 + 80 px, where the chart of every series in every group was 6 x 120 px and more
    expect(svgHeight(svg)).toBeLessThan(520);
  });

  it("HiBench's three charts over runs of four scenarios by two models", async () => {
    const scenarios = SCENARIOS.filter((s) => (s.report.presets?.length ?? 0) > 0 && Object.keys(s.dimensions).length > 0).slice(0, 4);
    expect(scenarios.length).toBe(4);
    const runs: ReportRun[] = [];
    const units = new Map<string, SampleUnit[]>();
    for (const model of ['baseline:random', 'baseline:oracle']) {
      for (const s of scenarios) {
        const runId = `${model}-${s.name}`;
        const tasks = Object.keys(s.dimensions);
        const us: SampleUnit[] = [];
        for (let i = 0; i < 24; i++) {
          const solved = model === 'baseline:oracle' || i % 3 === 0 ? 1 : 0;
          us.push({ sampleId: `s${i}`, index: i, hpi: solved ? 1 + (i % 2) : 7.6, scores: 1, solved, level: solved ? 1 : null, meta: { preset: s.report.presets![i % s.report.presets!.length]!.id, task: tasks[i % tasks.length]!, icl: 'zero-shot' } });
        }
        units.set(runId, us);
        const dims = Object.fromEntries([...new Set(Object.values(s.dimensions))].map((d) => [d, model === 'baseline:oracle' ? 1 : 0.4]));
        runs.push(run({ runId, dataset: s.name, model, metrics: { hibench: { scenarios: { [s.name]: 0.5 }, tasks: {}, dimensions: dims, overall: 0.5, n: 24 } } }));
      }
    }
    const decl: ReportViewDecl = { id: 'hibench', datasets: SCENARIOS.map((s) => s.name), labels: Object.fromEntries(SCENARIOS.map((s) => [s.name, s.report.label])) };
    const manifest = { apiVersion: 1, contributes: { datasets: SCENARIOS.map((s) => ({ id: s.name, scorer: 'hierarchy', hpiDataset: 2.6 })), reports: [decl] } } as unknown as PluginManifest;
    const plugin = { name: '@hpt-bench/hibench', namespace: 'hibench', version: '0', root: '/nowhere', manifest, origin: 'local' as const };
    const view: LoadedReportView = { contribution: { kind: 'reports', id: 'hibench', qualifiedId: 'hibench/hibench', plugin, decl }, decl, code: new HibenchReportView() };
    const views = new ReportViews([view]);
    const data = { store: 's', runs, units, bootstrap: { resamples: 50, seed: 0, level: 0.95, units: '' } };
    const charts = await viewCharts(data, views);
    expect(charts.map((c) => c.id)).toEqual(['hibench-preset', 'hibench-dimension-hpi', 'hibench-dimension-accuracy']);
    // the bars each chart was drawn from
    const bars = new HibenchReportView().charts(viewContext(view, data, views));
    for (const [i, c] of charts.entries()) {
      expect(c.svg, c.id).toBeDefined();
      expectCompact(c.svg!, bars[i]!.bars!.values);
    }
  });
});
