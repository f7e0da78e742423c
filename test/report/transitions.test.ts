/**
 * Level transitions between two runs (`compare A B`): the matrix (rows: the level at which A solved each paired
 * sample, columns: B's, `unsolved` last), the fixed / broken lists and the totals, on hand-made runs — as pure sample
 * units, written into a real RunStore read back by `compareRuns`, and drawn as the HTML report's heatmaps. The expected values are computed here by a direct
 * loop over the hand-made samples, independently of `pairUnits` / `levelTransitions`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRuns, levelTransitions, pairedCompare, RunStore, uniqueRunLabels, type ReportData, type ReportRun, type SampleResult, type SampleUnit } from '@hpt-bench/core';
import { transitionCharts } from '../../packages/cli/src/report/charts.js';

/** A hand-made sample: id, replicate (or undefined), solving level (null: unsolved), recorded scores. */
type Spec = [id: string, replicate: number | undefined, level: number | null, scores: number];

function units(spec: Spec[]): SampleUnit[] {
  return spec.map(([sampleId, replicate, level, scores], index) => ({
    sampleId,
    index,
    ...(replicate !== undefined ? { replicate } : {}),
    hpi: scores === 0 ? 0 : level ?? 6.71,
    scores,
    solved: level === null || scores === 0 ? 0 : 1,
    level: scores === 0 ? null : level,
  }));
}

/**
 * The expected matrix by brute force: for every sample of A, look for the sample of B with the same id and replicate
 * (these specs have unique (id, replicate) pairs), skip unscored ones, and count (row, column).
 */
function expected(a: Spec[], b: Spec[], mA: number, mB: number) {
  const counts = Array.from({ length: mA + 1 }, () => Array.from({ length: mB + 1 }, () => 0));
  const fixed: { sampleId: string; levelA: null; levelB: number }[] = [];
  const broken: { sampleId: string; levelA: number; levelB: null }[] = [];
  let improved = 0;
  let worse = 0;
  let same = 0;
  let both = 0;
  let paired = 0;
  for (const [id, rep, la, sa] of a) {
    const m = b.find(([idB, repB]) => idB === id && repB === rep);
    if (!m || sa === 0 || m[3] === 0) continue;
    const lb = m[2];
    paired++;
    counts[la === null ? mA : la - 1]![lb === null ? mB : lb - 1]! += 1;
    if (la === null && lb === null) both++;
    else if (la === null) fixed.push({ sampleId: id, levelA: null, levelB: lb! });
    else if (lb === null) broken.push({ sampleId: id, levelA: la, levelB: null });
    else if (lb < la) improved++;
    else if (lb > la) worse++;
    else same++;
  }
  return { counts, fixed, broken, paired, totals: { fixed: fixed.length, broken: broken.length, improved, worse, sameLevel: same, bothUnsolved: both } };
}

/** A 5-level run A and a 3-level run B with every kind of transition, samples of one run only and unscored samples. */
const A: Spec[] = [
  ['s1', undefined, 1, 1], // L1 -> L1 (same)
  ['s2', undefined, 3, 1], // L3 -> L1 (improved)
  ['s3', undefined, null, 1], // unsolved -> L2 (fixed)
  ['s4', undefined, 2, 1], // L2 -> unsolved (broken)
  ['s5', undefined, null, 1], // unsolved -> unsolved
  ['s6', undefined, 1, 1], // L1 -> L3 (worse)
  ['s7', undefined, 5, 2], // L5 with two score records -> unsolved (broken)
  ['s8', undefined, 4, 1], // only in A
  ['s9', undefined, null, 0], // unscored in A
  ['s10', undefined, null, 1], // unsolved -> L3 (fixed)
  ['s11', undefined, 2, 1], // L2 -> L2 (same)
];
const B: Spec[] = [
  ['s11', undefined, 2, 1],
  ['s10', undefined, 3, 1],
  ['s9', undefined, 1, 1],
  ['s7', undefined, null, 1],
  ['s6', undefined, 3, 1],
  ['s5', undefined, null, 1],
  ['s4', undefined, null, 1],
  ['s3', undefined, 2, 1],
  ['s2', undefined, 1, 1],
  ['s1', undefined, 1, 1],
  ['s12', undefined, 1, 1], // only in B
];

describe('levelTransitions (pure)', () => {
  it('counts A level x B level on the paired samples, sized by each ladder, with the fixed and broken samples in A order', () => {
    const res = levelTransitions({ units: units(A), levels: 5 }, { units: units(B), levels: 3 });
    const exp = expected(A, B, 5, 3);
    expect(res.transitions.rows).toEqual(['L1', 'L2', 'L3', 'L4', 'L5', 'unsolved']);
    expect(res.transitions.columns).toEqual(['L1', 'L2', 'L3', 'unsolved']);
    expect(res.transitions.counts).toEqual(exp.counts);
    expect(res.transitions.paired).toBe(exp.paired);
    expect(res.transitions.paired).toBe(9);
    expect(res.transitions.counts.flat().reduce((s, c) => s + c, 0)).toBe(9);
    expect(res.transitions.totals).toEqual(exp.totals);
    expect(res.transitions.totals).toEqual({ fixed: 2, broken: 2, improved: 1, worse: 1, sameLevel: 2, bothUnsolved: 1 });
    expect(res.fixed).toEqual(exp.fixed);
    expect(res.fixed.map((s) => s.sampleId)).toEqual(['s3', 's10']);
    expect(res.broken).toEqual(exp.broken);
    expect(res.broken.map((s) => s.sampleId)).toEqual(['s4', 's7']);
  });

  it('B = A gives a diagonal matrix with nothing fixed or broken; swapping A and B transposes it and swaps fixed and broken', () => {
    const self = levelTransitions({ units: units(A), levels: 5 }, { units: units(A), levels: 5 });
    const c = self.transitions.counts;
    for (let i = 0; i < c.length; i++) for (let j = 0; j < c[i]!.length; j++) if (i !== j) expect(c[i]![j]).toBe(0);
    expect(self.fixed).toEqual([]);
    expect(self.broken).toEqual([]);
    const ab = levelTransitions({ units: units(A), levels: 5 }, { units: units(B), levels: 3 });
    const ba = levelTransitions({ units: units(B), levels: 3 }, { units: units(A), levels: 5 });
    expect(ba.transitions.counts).toEqual(ab.transitions.columns.map((_, j) => ab.transitions.rows.map((_, i) => ab.transitions.counts[i]![j]!)));
    expect(new Set(ba.fixed.map((s) => s.sampleId))).toEqual(new Set(ab.broken.map((s) => s.sampleId)));
    expect(ba.transitions.totals.improved).toBe(ab.transitions.totals.worse);
  });

  it('matches replicates by index; a level above the ladder widens it; no ladder length means the highest level seen', () => {
    const a: Spec[] = [
      ['p', 0, 1, 1],
      ['p', 1, null, 1],
      ['q', 0, 7, 1],
    ];
    const b: Spec[] = [
      ['p', 1, 2, 1],
      ['p', 0, null, 1],
      ['q', 0, 1, 1],
    ];
    const res = levelTransitions({ units: units(a), levels: 5 }, { units: units(b) });
    expect(res.transitions.rows).toHaveLength(8); // L1..L7 + unsolved: the stored level 7 is kept
    expect(res.transitions.columns).toEqual(['L1', 'L2', 'unsolved']);
    expect(res.transitions.counts).toEqual(expected(a, b, 7, 2).counts);
    expect(res.fixed).toEqual([{ sampleId: 'p', replicate: 1, levelA: null, levelB: 2 }]);
    expect(res.broken).toEqual([{ sampleId: 'p', replicate: 0, levelA: 1, levelB: null }]);
  });

  it('pairedCompare carries the transitions next to the unchanged paired differences', () => {
    const res = pairedCompare({ runId: 'A', dataset: 'd', model: 'm1', mode: 'manual', units: units(A), levels: 5 }, { runId: 'B', dataset: 'd', model: 'm2', mode: 'manual', units: units(B), levels: 3 });
    expect(res.paired).toBe(res.transitions.paired);
    expect(res.onlyA).toBe(1);
    expect(res.onlyB).toBe(1);
    expect(res.unscored).toBe(1);
    expect(res.transitions.counts).toEqual(expected(A, B, 5, 3).counts);
    expect(res.fixed.map((s) => s.sampleId)).toEqual(['s3', 's10']);
  });
});

describe('compareRuns over a real RunStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hpt-transitions-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the stored levels and sizes rows and columns by each run summary\'s ladder', () => {
    const path = join(dir, 's.db');
    const store = new RunStore(path);
    const write = (id: string, spec: Spec[], ladder: string[]) => {
      store.createRun({ id, dataset: 'boolq', model: `m-${id}`, mode: 'manual', config: {} });
      for (const [index, [sampleId, , level, scores]] of spec.entries()) {
        const result: SampleResult = { sampleId, index, level, hpi: level ?? 6.71, solved: level !== null, prediction: null, target: true, attempts: [] };
        // scores 0 / 2: the adaptive --compat reference records (none, or the solve plus the penalty record)
        if (scores === 0) Object.assign(result, { level: null, solved: false, hpi: 0, records: [] });
        if (scores === 2) Object.assign(result, { hpi: level! + 6.71, records: [{ hpi: level!, solved: true, prediction: null }, { hpi: 6.71, solved: false, prediction: null }] });
        store.saveSample(id, result);
      }
      store.finishRun(id, { dataset: 'boolq', model: `m-${id}`, ladder });
    };
    // ladders longer than any level reached: the matrix still has a row / column per ladder level
    write('runA', A, ['l1', 'l2', 'l3', 'l4', 'l5', 'l6']);
    write('runB', B, ['l1', 'l2', 'l3', 'l4']);
    store.close();
    const ro = new RunStore(path, { readonly: true });
    try {
      const res = compareRuns(ro, path, 'runA', 'runB', { resamples: 50 });
      expect(res.transitions.rows).toEqual(['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'unsolved']);
      expect(res.transitions.columns).toEqual(['L1', 'L2', 'L3', 'L4', 'unsolved']);
      expect(res.transitions.counts).toEqual(expected(A, B, 6, 4).counts);
      expect(res.transitions.totals).toEqual(expected(A, B, 6, 4).totals);
      expect(res.fixed).toEqual(expected(A, B, 6, 4).fixed);
      expect(res.broken).toEqual(expected(A, B, 6, 4).broken);
      expect(res.unscored).toBe(1);
    } finally {
      ro.close();
    }
  });
});

describe('transitionCharts (the HTML report\'s heatmaps)', () => {
  /** A minimal ReportRun: only the fields the transition charts read matter (id, dataset, threshold, ladder). */
  const run = (runId: string, dataset: string, threshold?: number) =>
    ({ runId, dataset, model: `m-${runId}`, mode: 'manual', compat: 'strict', seed: 0, createdAt: runId, ladder: ['a', 'b', 'c', 'd', 'e'], n: 0, samples: 0, hpi: 0, hpiCi95: null, hpiDataset: 0, accuracy: 0, accuracyCi95: null, levelCounts: {}, calls: 0, cachedCalls: 0, usage: { promptTokens: 0, completionTokens: 0 }, levels: {}, errored: 0, ...(threshold !== undefined ? { threshold } : {}) }) as ReportRun;

  it('draws one heatmap per pair of runs on the same dataset and threshold that share samples, A before B, at most maxPairs', async () => {
    const runs = [run('r1', 'boolq'), run('r2', 'boolq'), run('t15', 'iwslt', 0.15), run('t20', 'iwslt', 0.2), run('r3', 'boolq'), run('other', 'boolq')];
    const other: Spec[] = [['zzz', undefined, 1, 1]]; // same dataset, no shared sample: no chart, not counted
    const data = { store: 's', runs, units: new Map<string, SampleUnit[]>([['r1', units(A)], ['r2', units(B)], ['t15', units(A)], ['t20', units(A)], ['r3', units(A)], ['other', units(other)]]), bootstrap: { resamples: 1, seed: 0, level: 0.95, units: '' } } as ReportData;
    const labels = uniqueRunLabels(runs);
    const all = await transitionCharts(data, labels);
    expect(all.charts.map((c) => c.id)).toEqual(['transitions-r1-r2', 'transitions-r1-r3', 'transitions-r2-r3']); // iwslt 0.15 and 0.20 never paired
    expect(all.omitted).toBe(0);
    const capped = await transitionCharts(data, labels, 2);
    expect(capped.charts).toHaveLength(2);
    expect(capped.omitted).toBe(1);

    // the r1 -> r2 heatmap: one rect per cell (6 x 6: both ladders have 5 levels) with the count of that cell
    const c = all.charts[0]!;
    const exp = expected(A, B, 5, 5);
    const rectGroup = c.svg!.slice(c.svg!.indexOf('layer_0_marks'), c.svg!.indexOf('layer_1_marks'));
    const rects = [...rectGroup.matchAll(/aria-label="B solved at: ([^;]+); A solved at: ([^;]+); samples: (\d+)"/g)];
    expect(rects).toHaveLength(36);
    const rows = ['L1', 'L2', 'L3', 'L4', 'L5', 'unsolved'];
    for (const [, col, row, count] of rects) expect(Number(count)).toBe(exp.counts[rows.indexOf(row!)]![rows.indexOf(col!)]);
    expect(c.caption).toContain('B fixes 2 (A unsolved, B solved): s3, s10. B breaks 2 (A solved, B unsolved): s4, s7.');
  });
});
