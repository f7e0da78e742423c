/**
 * The generic report driven by report views (`@hpt-bench/sdk` report.ts): without a view the core makes only the runs
 * and usage tables and shows datasets by id; a view's data decides labels, column order, metrics and fallbacks
 * (layouts of specs/hpt.md §7.1-7.3); a code view (built from a plugin directory like any community plugin) gets its
 * runs, order, labels and the report's bootstrap. Synthetic runs and plugin names only: the core must not care.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assertValid,
  createRunContainer,
  discoverPlugins,
  loadReportViews,
  metricCell,
  reportTables,
  ReportViews,
  unitEstimates,
  type LoadedReportView,
  type PluginManifest,
  type ReportRun,
  type ReportTable,
  type ReportViewDecl,
  type SampleUnit,
} from '@hpt-bench/core';
import { HibenchReportView } from '../../plugins/hibench/src/report.js';

let clock = 0;
function run(over: Partial<ReportRun> & Pick<ReportRun, 'runId' | 'dataset'>): ReportRun {
  clock++;
  return {
    model: 'm:a', mode: 'manual', compat: 'strict', seed: 0, createdAt: `2026-01-01T00:00:${String(clock).padStart(2, '0')}.000Z`, ladder: ['a', 'b'],
    n: 10, samples: 10, hpi: 1.5, hpiCi95: [1.2, 1.8], hpiDataset: 1, accuracy: 0.6, accuracyCi95: [0.4, 0.8], levelCounts: { 1: 6, unsolved: 4 },
    calls: 10, cachedCalls: 0, usage: { promptTokens: 1, completionTokens: 1 }, levels: {}, errored: 0,
    ...over,
  };
}

/** A view of plugin `ns` whose manifest declares `datasets` (with aliases). */
function view(ns: string, decl: ReportViewDecl, datasets: { id: string; aliases?: string[] }[], code?: LoadedReportView['code']): LoadedReportView {
  const manifest = { apiVersion: 1, contributes: { datasets: datasets.map((d) => ({ ...d, scorer: 's', hpiDataset: 1 })), reports: [decl] } } as unknown as PluginManifest;
  const plugin = { name: `@x/${ns}`, namespace: ns, version: '0', root: '/nowhere', manifest, origin: 'local' as const };
  return { contribution: { kind: 'reports', id: decl.id, qualifiedId: `${ns}/${decl.id}`, plugin, decl }, decl, ...(code ? { code } : {}) };
}

const byId = (tables: ReportTable[], id: string) => tables.find((t) => t.id === id);
const headers = (t: ReportTable | undefined) => t?.columns.map((c) => c.label);

const PAPER: ReportViewDecl = {
  id: 'paper',
  datasets: ['beta', 'alpha', 'gamma', 'delta'],
  labels: { alpha: 'Alpha', beta: 'BETA', gamma: 'Gamma', delta: 'Delta' },
  tables: [
    { id: 't1', layout: 'hpi-accuracy', title: 'T1', notes: ['n1'], datasets: ['beta', 'alpha'], fallback: true },
    { id: 't2', layout: 'hpi-metric', title: 'T2', datasets: ['gamma'], metrics: { gamma: { label: 'Pass@1', key: 'pass@1', fallback: 'accuracy', ci: true } } },
    { id: 't3', layout: 'threshold', title: 'T3', datasets: ['delta'], fallback: true, metrics: { delta: { label: 'SCORE', key: 'score' } } },
  ],
};
const paper = () => view('paper-ns', PAPER, [{ id: 'alpha', aliases: ['alpha-alias'] }, { id: 'beta' }, { id: 'gamma' }, { id: 'delta' }]);

describe('the generic report without views', () => {
  it('makes only the runs and usage tables and shows a dataset by its id', () => {
    const runs = [run({ runId: 'r1', dataset: 'alpha' }), run({ runId: 'r2', dataset: 'delta', threshold: 0.2 })];
    expect(reportTables({ runs }).map((t) => t.id)).toEqual(['runs', 'usage']);
    expect(ReportViews.none.datasetLabel(runs[0]!)).toBe('alpha');
  });
});

describe('declarative tables of a view', () => {
  it('hpi-accuracy: labels, the declared column order, aliases and qualified ids, the newest run per cell, fallback runs', () => {
    const runs = [
      run({ runId: 'a-old', dataset: 'alpha', hpi: 9 }),
      run({ runId: 'a-new', dataset: 'paper-ns/alpha-alias', hpi: 2 }),
      run({ runId: 'b', dataset: 'beta', model: 'm:b', hpi: 3, accuracy: 0.25, accuracyCi95: [0.1, 0.5] }),
      run({ runId: 'other', dataset: 'my-own', hpi: 4 }),
    ];
    const views = new ReportViews([paper()]);
    const t1 = byId(reportTables({ runs }, views), 't1')!;
    // beta before alpha (declared order), then the unclaimed dataset, by its id
    expect(headers(t1)).toEqual(['Model', 'BETA HPI', 'BETA Acc', 'Alpha HPI', 'Alpha Acc', 'my-own HPI', 'my-own Acc']);
    const row = (m: string) => t1.rows.find((r) => r[0]!.value === m)!;
    expect(row('m:a')[3]).toEqual({ value: 2, ci: [1.2, 1.8] }); // the newer of the two alpha runs
    expect(row('m:a')[5]!.value).toBe(4);
    expect(row('m:b')[1]).toEqual({ value: 3, ci: [1.2, 1.8] });
    expect(row('m:b')[2]).toEqual({ value: 25, ci: [10, 50] });
    expect(row('m:b')[3]).toEqual({ value: null });
    expect(t1.notes[0]).toBe('n1');
    expect(t1.notes[1]).toMatch(/^1 older run/);
    // a run of a dataset no table lists and no fallback table of its kind: only in the runs table
    const only = reportTables({ runs: [run({ runId: 'x', dataset: 'my-own', threshold: 0.5 })] }, new ReportViews([view('v', { id: 'v', datasets: ['alpha'], tables: [PAPER.tables![0]!] }, [{ id: 'alpha' }])]));
    expect(only.map((t) => t.id)).toEqual(['runs', 'usage']);
  });

  it('a dataset id the plugin does not declare matches no run (it only orders columns)', () => {
    const v = view('ns', { id: 'v', datasets: ['zeta'], tables: [{ id: 'z', layout: 'hpi-accuracy', title: 'Z' }] }, []);
    expect(reportTables({ runs: [run({ runId: 'r', dataset: 'zeta' })] }, new ReportViews([v])).map((t) => t.id)).toEqual(['runs', 'usage']);
  });

  it('hpi-metric: HPI and the declared metric, its interval only where it is the accuracy; prefixed with several datasets', () => {
    const runs = [run({ runId: 'g1', dataset: 'gamma', metrics: { 'pass@1': 0.6 } }), run({ runId: 'g2', dataset: 'gamma', model: 'm:b', metrics: { 'pass@1': 0.7 } }), run({ runId: 'g3', dataset: 'gamma', model: 'm:c' })];
    const t2 = byId(reportTables({ runs }, new ReportViews([paper()])), 't2')!;
    expect(headers(t2)).toEqual(['Model', 'HPI', 'Pass@1']);
    expect(t2.rows.map((r) => r[2])).toEqual([{ value: 0.6, ci: [0.4, 0.8] }, { value: 0.7, ci: null }, { value: 0.6, ci: [0.4, 0.8] }]);
    const two = view('ns', { id: 'v', datasets: ['p', 'q'], labels: { p: 'P' }, tables: [{ id: 'pq', layout: 'hpi-metric', title: 'PQ' }] }, [{ id: 'p' }, { id: 'q' }]);
    const pq = byId(reportTables({ runs: [run({ runId: '1', dataset: 'q' }), run({ runId: '2', dataset: 'p' })] }, new ReportViews([two])), 'pq')!;
    expect(headers(pq)).toEqual(['Model', 'P HPI', 'P Acc', 'q HPI', 'q Acc']);
    expect(pq.rows[0]![2]).toEqual({ value: 60, ci: [40, 80] });
  });

  it('threshold: one HPI column per threshold (sorted), then the metric per threshold; other datasets show accuracy %', () => {
    const runs = [
      run({ runId: 'd2', dataset: 'delta', threshold: 0.2, metrics: { score: 0.31 } }),
      run({ runId: 'd1', dataset: 'delta', threshold: 0.15, metrics: { score: 0.3 } }),
      run({ runId: 'a', dataset: 'alpha', threshold: 0.5 }), // alpha is listed by t1, whose layout does not take it
    ];
    const t3 = byId(reportTables({ runs }, new ReportViews([paper()])), 't3')!;
    expect(headers(t3)).toEqual(['Model', 'Delta HPI 0.15', 'Delta HPI 0.20', 'SCORE 0.15', 'SCORE 0.20', 'Alpha HPI 0.50', 'Alpha Acc 0.50']);
    expect(t3.columns.map((c) => c.ci ?? false)).toEqual([false, true, true, false, false, true, true]);
    expect(t3.rows[0]!.slice(3).map((c) => c.value)).toEqual([0.3, 0.31, 1.5, 60]);
  });

  it('metricCell: key, fallback, scale and the interval only for the accuracy', () => {
    const r = run({ runId: 'r', dataset: 'x', metrics: { bleu: 0.25, text: 'no' } });
    expect(metricCell(r, { label: 'B', key: 'bleu' })).toEqual({ value: 0.25, ci: null });
    expect(metricCell(r, { label: 'B', key: 'missing' })).toEqual({ value: null, ci: null });
    expect(metricCell(r, { label: 'B', key: 'text', fallback: 'accuracy', ci: true })).toEqual({ value: 0.6, ci: [0.4, 0.8] });
    expect(metricCell(r, { label: 'A', scale: 100, ci: true })).toEqual({ value: 60, ci: [40, 80] });
    expect(metricCell(r, { label: 'B', key: 'bleu', ci: true })).toEqual({ value: 0.25, ci: null });
  });
});

describe('code views', () => {
  it('a code view gets its runs, order, labels and the report bootstrap; its tables follow its declarative ones', () => {
    const seen: { runs: string[]; order: readonly string[]; label: string; est: unknown; units: number }[] = [];
    const units: SampleUnit[] = Array.from({ length: 12 }, (_, i) => ({ sampleId: `s${i}`, index: i, hpi: 1 + (i % 3), scores: 1, solved: i % 3 === 2 ? 0 : 1, level: i % 3 === 2 ? null : 1 + (i % 3) }));
    const code = {
      tables: (ctx: Parameters<NonNullable<LoadedReportView['code']>['tables'] & object>[0]) => {
        seen.push({ runs: ctx.runs.map((r) => r.runId), order: ctx.order, label: ctx.label('beta'), est: ctx.estimate(ctx.units('b'), 'k'), units: ctx.units('b').length });
        return [{ id: 'computed', title: 'C', notes: [], columns: [{ label: 'n' }], rows: [[{ value: ctx.runs.length }]] }];
      },
    };
    const first = view('first', { id: 'f', datasets: ['beta'], labels: { beta: 'B!' }, tables: [{ id: 'decl', layout: 'hpi-accuracy', title: 'D' }] }, [{ id: 'beta' }], code);
    const second = view('second', { id: 's', datasets: ['omega'], tables: [{ id: 'omega-t', layout: 'hpi-accuracy', title: 'O' }] }, [{ id: 'omega' }]);
    const runs = [run({ runId: 'b', dataset: 'beta' }), run({ runId: 'o', dataset: 'omega' })];
    const bootstrap = { resamples: 300, seed: 7, level: 0.95, units: '' };
    const tables = reportTables({ runs, units: new Map([['b', units]]), bootstrap }, new ReportViews([first, second]));
    expect(tables.map((t) => t.id)).toEqual(['runs', 'usage', 'decl', 'computed', 'omega-t']);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ runs: ['b'], order: ['beta'], label: 'B!', units: 12 });
    expect(seen[0]!.est).toEqual(unitEstimates(units, { resamples: 300, seed: 7, stream: 'k' }));
    // a view that covers no run of the report is not called
    reportTables({ runs: [runs[1]!] }, new ReportViews([first, second]));
    expect(seen).toHaveLength(1);
  });

  it('a plugin directory with a `reports` contribution is discovered, validated and its code view built like any plugin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-view-'));
    const manifest = { apiVersion: 1, contributes: { datasets: [{ id: 'items', scorer: 'exact', hpiDataset: 1, fields: { question: 'q' }, target: { field: 'a', type: 'string' } }], reports: [{ id: 'mine', datasets: ['items'], labels: { items: 'Items' }, module: './view.mjs', export: 'MyView' }] } };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hpt-plugin-mine', version: '1.0.0', type: 'module', 'hpt-bench': manifest }));
    writeFileSync(join(dir, 'view.mjs'), "export class MyView { tables(ctx) { return [{ id: 'mine-n', title: ctx.label('items'), notes: [], columns: [{ label: 'runs' }], rows: [[{ value: ctx.runs.length }]] }]; } }\n");
    const registry = discoverPlugins([{ root: dir, origin: 'local' }]);
    expect(registry.list('reports').map((c) => c.qualifiedId)).toEqual(['hpt-plugin-mine/mine']);
    const views = await loadReportViews(registry, createRunContainer(registry));
    const tables = reportTables({ runs: [run({ runId: 'i', dataset: 'items' }), run({ runId: 'z', dataset: 'zzz' })] }, views);
    expect(byId(tables, 'mine-n')).toMatchObject({ title: 'Items', rows: [[{ value: 1 }]] });
    expect(views.datasetLabel({ dataset: 'items' })).toBe('Items');
  });

  it('a code view that cannot be built fails the load, or with onCodeError is kept without its code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-view-bad-'));
    const manifest = { apiVersion: 1, contributes: { datasets: [{ id: 'items', scorer: 'exact', hpiDataset: 1, fields: { question: 'q' }, target: { field: 'a', type: 'string' } }], reports: [{ id: 'bad', datasets: ['items'], labels: { items: 'Items' }, tables: [{ id: 'plain', layout: 'hpi-accuracy', title: 'P' }], module: './view.mjs', export: 'Missing' }] } };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hpt-plugin-bad', version: '1.0.0', type: 'module', 'hpt-bench': manifest }));
    writeFileSync(join(dir, 'view.mjs'), 'export class Other {}\n');
    const registry = discoverPlugins([{ root: dir, origin: 'local' }]);
    await expect(loadReportViews(registry, createRunContainer(registry))).rejects.toMatchObject({ code: 'E_PLUGIN' });
    const failed: string[] = [];
    const views = await loadReportViews(registry, createRunContainer(registry), { onCodeError: (c) => failed.push(c.qualifiedId) });
    expect(failed).toEqual(['hpt-plugin-bad/bad']);
    expect(views.list[0]!.code).toBeUndefined();
    expect(headers(byId(reportTables({ runs: [run({ runId: 'i', dataset: 'items' })] }, views), 'plain'))).toEqual(['Model', 'Items HPI', 'Items Acc']);
  });

  it('the manifest schema accepts report views and rejects an unknown layout or a module without export', () => {
    const base = (reports: unknown) => ({ apiVersion: 1, contributes: { reports } });
    expect(() => assertValid('plugin-manifest', base([{ id: 'v', datasets: ['a'], tables: [{ id: 't', layout: 'threshold', title: 'T', metrics: { a: { label: 'X', key: 'x' } } }] }]), 'm')).not.toThrow();
    expect(() => assertValid('plugin-manifest', base([{ id: 'v', datasets: ['a'], tables: [{ id: 't', layout: 'pie', title: 'T' }] }]), 'm')).toThrow(/layout/);
    expect(() => assertValid('plugin-manifest', base([{ id: 'v', datasets: ['a'], module: './x.js' }]), 'm')).toThrow();
  });
});

describe('the HiBench view (plugins/hibench)', () => {
  it('leaderboard: per model the newest run per scenario, Avg = mean of the scenario scores; dimensions averaged over runs', () => {
    const agg = (scenarios: Record<string, number>, dims: Record<string, number>) => ({ hibench: { scenarios, tasks: {}, dimensions: dims, overall: 0, n: 5 } });
    const runs = [
      run({ runId: '1', dataset: 'binary-tree', metrics: agg({ 'binary-tree': 0.5 }, { 'Structural Manipulation': 0.2 }) }),
      run({ runId: '2', dataset: 'json', metrics: agg({ json: 0.9 }, { 'Structural Manipulation': 0.6 }) }),
      run({ runId: '3', dataset: 'binary-tree', model: 'm:b', metrics: agg({ 'binary-tree': 0.1 }, {}) }),
    ];
    const labels: Record<string, string> = { 'binary-tree': 'Bin', json: 'J' };
    const tables = new HibenchReportView().tables({
      runs, order: ['json', 'binary-tree'], bootstrap: { resamples: 10, seed: 0, level: 0.95, units: '' },
      units: () => [], estimate: () => ({ hpi: 0, hpiCi95: null, accuracy: 0, accuracyCi95: null }),
      label: (id) => labels[id] ?? id, modelLabel: (r) => r.model, runLabel: (r) => r.runId,
    });
    const lb = byId(tables, 'hibench-leaderboard')!;
    expect(headers(lb)).toEqual(['Model', 'J', 'Bin', 'Avg']);
    expect(lb.rows[0]!.map((c) => c.value)).toEqual(['m:a', 90, 50, 70]);
    // a scenario the model did not run is marked, and Avg is never a mean over fewer scenarios
    expect(lb.rows[1]!.map((c) => c.value)).toEqual(['m:b', 'not run', 10, null]);
    expect(lb.notes).toContain('Not run, so no Avg (the mean of all 2 scenarios, never of fewer): m:b: J.');
    // every scenario of the view is a column, run or not
    const six = ['binary-tree', 'multiple-tree', 'json', 'code', 'formula', 'paper'];
    const all = new HibenchReportView().tables({
      runs, order: six, bootstrap: { resamples: 10, seed: 0, level: 0.95, units: '' },
      units: () => [], estimate: () => ({ hpi: 0, hpiCi95: null, accuracy: 0, accuracyCi95: null }),
      label: (id) => id, modelLabel: (r) => r.model, runLabel: (r) => r.runId,
    });
    const lb6 = byId(all, 'hibench-leaderboard')!;
    expect(headers(lb6)).toEqual(['Model', ...six, 'Avg']);
    expect(lb6.rows[0]!.map((c) => c.value)).toEqual(['m:a', 50, 'not run', 90, 'not run', 'not run', 'not run', null]);
    const dims = byId(tables, 'hibench-dimensions')!;
    expect(headers(dims)).toEqual(['Model', 'Structural Manipulation']);
    expect(dims.rows[0]![1]!.value).toBeCloseTo(40, 12);
  });

  it('extension scenarios (code-structure, code-gen) come after Avg, outside it and outside the capability dimensions', () => {
    const agg = (scenarios: Record<string, number>, dims: Record<string, number>) => ({ hibench: { scenarios, tasks: {}, dimensions: dims, overall: 0, n: 5 } });
    const six = ['binary-tree', 'multiple-tree', 'json', 'code', 'formula', 'paper'];
    const runs = [
      ...six.map((sc, i) => run({ runId: `s${i}`, dataset: sc, metrics: agg({ [sc]: (i + 1) / 10 }, { 'Analytical Reasoning': 0.5 }) })),
      run({ runId: 'g', dataset: 'code-gen', metrics: agg({ 'code-gen': 0.05 }, { 'Analytical Reasoning': 0.0 }) }),
      run({ runId: 'x', dataset: 'code-gen', model: 'm:b', metrics: agg({ 'code-gen': 0.25 }, {}) }),
    ];
    const tables = new HibenchReportView().tables({
      runs, order: [...six, 'code-structure', 'code-gen'], bootstrap: { resamples: 10, seed: 0, level: 0.95, units: '' },
      units: () => [], estimate: () => ({ hpi: 0, hpiCi95: null, accuracy: 0, accuracyCi95: null }),
      label: (id) => id, modelLabel: (r) => r.model, runLabel: (r) => r.runId,
    });
    const lb = byId(tables, 'hibench-leaderboard')!;
    // code-structure was run by nobody: no column; code-gen after Avg
    expect(headers(lb)).toEqual(['Model', ...six, 'Avg', 'code-gen']);
    expect(lb.rows[0]!.map((c) => c.value)).toEqual(['m:a', 10, 20, 30, 40, 50, 60, 35, 5]);
    expect(lb.rows[1]!.map((c) => c.value)).toEqual(['m:b', ...six.map(() => 'not run'), null, 25]);
    expect(lb.notes.join(' ')).toMatch(/code-gen: this plugin's scenarios beyond HiBench's six/);
    // the dimension score of m:a is the mean over its six HiBench runs (50), not pulled down by code-gen's 0
    expect(byId(tables, 'hibench-dimensions')!.rows[0]!.map((c) => c.value)).toEqual(['m:a', 50]);
  });
});
