/**
 * On synthetic data: bootstrap percentile intervals (contain the estimate, shrink with n, deterministic
 * for a seed), the records-weighted HPI/accuracy of adaptive reference runs, the paired comparison, and the pure table
 * renderers. Expected values are computed here independently of the report module.
 */
import { describe, expect, it } from 'vitest';
import {
  bootstrapMean,
  bootstrapRatios,
  HptError,
  mulberry32,
  pairedCompare,
  quantile,
  tableToCsv,
  tableToMarkdown,
  unitEstimates,
  type ReportTable,
  type SampleUnit,
} from '@hpt-bench/core';
import * as core from '@hpt-bench/core';
import { CAPABILITY_DIMENSIONS, dimensionOf } from '../../plugins/hibench/src/match/aggregate.js';

/** Synthetic data from a generator the report module does not use (an LCG), so the test is independent of its PRNG. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** HPI-like per-sample values: a level 1..5, or 5 + 1.71 (unsolved) with probability 0.15. */
function hpiValues(n: number, seed: number): number[] {
  const r = lcg(seed);
  return Array.from({ length: n }, () => (r() < 0.15 ? 6.71 : 1 + Math.floor(r() * 5)));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const width = (ci: [number, number] | null) => ci![1] - ci![0];

describe('bootstrap percentile intervals', () => {
  it('quantile interpolates between order statistics (type 7)', () => {
    expect(quantile([1, 2, 3, 4], 0)).toBe(1);
    expect(quantile([1, 2, 3, 4], 1)).toBe(4);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10, 20], 0.25)).toBe(12.5);
  });

  it('mulberry32 is deterministic per seed and uniform-looking', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 10000 }, () => a());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(Math.abs(mean(xs) - 0.5)).toBeLessThan(0.02);
  });

  it('the interval contains the point estimate (the plain mean) for many datasets', () => {
    for (let k = 0; k < 30; k++) {
      const values = hpiValues(20 + 37 * k, 1000 + k);
      const e = bootstrapMean(values, { seed: k, resamples: 500 });
      expect(e.estimate).toBeCloseTo(mean(values), 12);
      expect(e.ci![0]).toBeLessThanOrEqual(e.estimate);
      expect(e.ci![1]).toBeGreaterThanOrEqual(e.estimate);
      expect(e.ci![0]).toBeLessThan(e.ci![1]);
    }
  });

  it('is deterministic for a seed, and another seed gives other intervals', () => {
    const values = hpiValues(300, 7);
    const a = bootstrapMean(values, { seed: 3 });
    const b = bootstrapMean(values, { seed: 3 });
    const c = bootstrapMean(values, { seed: 4 });
    expect(b).toEqual(a);
    expect(c.estimate).toBe(a.estimate);
    expect(c.ci).not.toEqual(a.ci);
  });

  it('intervals shrink as n grows (n = 50, 500, 5000), for HPI and for accuracy', () => {
    const hpiWidths = [50, 500, 5000].map((n) => width(bootstrapMean(hpiValues(n, 11), { seed: 0 }).ci));
    expect(hpiWidths[0]!).toBeGreaterThan(hpiWidths[1]!);
    expect(hpiWidths[1]!).toBeGreaterThan(hpiWidths[2]!);
    const r = lcg(5);
    const solved = (n: number) => Array.from({ length: n }, () => (r() < 0.7 ? 1 : 0));
    const accWidths = [50, 500, 5000].map((n) => width(bootstrapMean(solved(n), { seed: 0 }).ci));
    expect(accWidths[0]!).toBeGreaterThan(accWidths[1]!);
    expect(accWidths[1]!).toBeGreaterThan(accWidths[2]!);
    // roughly the 1/sqrt(n) law: each tenfold n narrows the interval about 3.2-fold
    expect(hpiWidths[0]! / hpiWidths[2]!).toBeGreaterThan(6);
    // and close to the normal-approximation width 2 * 1.96 * sd / sqrt(n)
    const v = hpiValues(5000, 11);
    const sd = Math.sqrt(mean(v.map((x) => (x - mean(v)) ** 2)));
    expect(hpiWidths[2]!).toBeGreaterThan(0.8 * ((2 * 1.96 * sd) / Math.sqrt(5000)));
    expect(hpiWidths[2]!).toBeLessThan(1.2 * ((2 * 1.96 * sd) / Math.sqrt(5000)));
  });

  it('constant data gives a zero-width interval at the value; no data gives none', () => {
    expect(bootstrapMean([2, 2, 2, 2])).toEqual({ estimate: 2, ci: [2, 2] });
    expect(bootstrapMean([])).toEqual({ estimate: 0, ci: null });
    expect(() => bootstrapMean([1, 2], { resamples: 0 })).toThrow(RangeError);
  });

  it('weights samples by their recorded scores (adaptive --compat reference: 0 or 2 records)', () => {
    // stored hpi = sum of the sample's records; scores = their count; solved = solved records
    const units: SampleUnit[] = [
      { sampleId: 'a', index: 0, hpi: 3, scores: 1, solved: 1, level: 2 },
      { sampleId: 'b', index: 1, hpi: 0, scores: 0, solved: 0, level: null }, // dropped by the reference accounting
      { sampleId: 'c', index: 2, hpi: 7 + 6.71, scores: 2, solved: 1, level: 2 }, // solved at iteration m, then the penalty
      { sampleId: 'd', index: 3, hpi: 6.71, scores: 1, solved: 0, level: null },
      { sampleId: 'e', index: 4, hpi: 4, scores: 1, solved: 1, level: 3 },
    ];
    const e = unitEstimates(units, { seed: 0, stream: 'x' });
    expect(e.hpi).toBeCloseTo((3 + 7 + 6.71 + 6.71 + 4) / 5, 12); // n = Σ scores = 5
    expect(e.accuracy).toBeCloseTo(3 / 5, 12);
    expect(e.hpiCi95![0]).toBeLessThanOrEqual(e.hpi);
    expect(e.hpiCi95![1]).toBeGreaterThanOrEqual(e.hpi);
    expect(e.accuracyCi95![0]).toBeLessThanOrEqual(e.accuracy);
    expect(e.accuracyCi95![1]).toBeGreaterThanOrEqual(e.accuracy);
    // bootstrapRatios: the two numerators share their resamples, and a stream name changes the draws
    const values = hpiValues(100, 3);
    const ones = values.map(() => 1);
    const [h1, s1] = bootstrapRatios([values, values.map((v) => 10 * v)], ones, { seed: 0, stream: 'a' });
    const [h2] = bootstrapRatios([values], ones, { seed: 0, stream: 'b' });
    expect(h1!.estimate).toBeCloseTo(mean(values), 12);
    expect(s1!.ci![0]).toBeCloseTo(10 * h1!.ci![0], 9);
    expect(s1!.ci![1]).toBeCloseTo(10 * h1!.ci![1], 9);
    expect(h1!.ci).not.toEqual(h2!.ci);
  });
});

describe('paired comparison', () => {
  function units(spec: [id: string, hpi: number, scores: number, solved: number, replicate?: number][]): SampleUnit[] {
    return spec.map(([sampleId, hpi, scores, solved, replicate], index) => ({ sampleId, index, hpi, scores, solved, level: solved ? 1 : null, ...(replicate !== undefined ? { replicate } : {}) }));
  }

  it('the paired difference is the mean of per-sample differences on the shared samples', () => {
    const r = lcg(99);
    const a: [string, number, number, number][] = [];
    const b: [string, number, number, number][] = [];
    for (let i = 0; i < 400; i++) {
      const ha = 1 + Math.floor(r() * 5);
      const hb = r() < 0.2 ? 6.71 : 1 + Math.floor(r() * 5);
      if (i % 10 !== 3) a.push([`s${i}`, ha, 1, ha <= 4 ? 1 : 0]);
      if (i % 10 !== 7) b.push([`s${i}`, hb, 1, hb < 6 ? 1 : 0]);
    }
    b.reverse(); // order does not matter: matched by id
    const A = units(a);
    const B = units(b);
    const res = pairedCompare({ runId: 'A', dataset: 'd', model: 'm1', mode: 'manual', units: A }, { runId: 'B', dataset: 'd', model: 'm2', mode: 'manual', units: B }, { seed: 0 });
    // independent computation
    const byId = new Map(B.map((u) => [u.sampleId, u]));
    const diffs: number[] = [];
    const accDiffs: number[] = [];
    for (const u of A) {
      const v = byId.get(u.sampleId);
      if (!v) continue;
      diffs.push(u.hpi - v.hpi);
      accDiffs.push(u.solved - v.solved);
    }
    expect(res.paired).toBe(diffs.length);
    expect(res.paired).toBe(320);
    expect(res.onlyA).toBe(40);
    expect(res.onlyB).toBe(40);
    expect(res.hpiDiff).toBeCloseTo(mean(diffs), 12);
    expect(res.accuracyDiff).toBeCloseTo(mean(accDiffs), 12);
    expect(res.a.hpi - res.b.hpi).toBeCloseTo(res.hpiDiff, 12);
    expect(res.hpiDiffCi95![0]).toBeLessThanOrEqual(res.hpiDiff);
    expect(res.hpiDiffCi95![1]).toBeGreaterThanOrEqual(res.hpiDiff);
    expect(res.accuracyDiffCi95![0]).toBeLessThanOrEqual(res.accuracyDiff);
    expect(res.accuracyDiffCi95![1]).toBeGreaterThanOrEqual(res.accuracyDiff);
    // deterministic for a seed
    const again = pairedCompare({ runId: 'A', dataset: 'd', model: 'm1', mode: 'manual', units: A }, { runId: 'B', dataset: 'd', model: 'm2', mode: 'manual', units: B }, { seed: 0 });
    expect(again).toEqual(res);
  });

  it('matches replicates by index, uses hpi / scores per sample and leaves unscored samples out', () => {
    const A = units([
      ['p', 1, 1, 1, 0],
      ['p', 3, 1, 1, 1],
      ['q', 13.71, 2, 1, 0], // two records: per-sample HPI 6.855, solved fraction 0.5
      ['r', 0, 0, 0, 0], // no record
    ]);
    const B = units([
      ['p', 2, 1, 1, 1],
      ['p', 6.71, 1, 0, 0],
      ['q', 2, 1, 1, 0],
      ['r', 4, 1, 1, 0],
      ['z', 1, 1, 1, 0],
    ]);
    const res = pairedCompare({ runId: 'A', dataset: 'd', model: 'm', mode: 'adaptive', units: A }, { runId: 'B', dataset: 'd', model: 'm', mode: 'manual', units: B }, { seed: 1 });
    const diffs = [1 - 6.71, 3 - 2, 13.71 / 2 - 2];
    const acc = [1 - 0, 1 - 1, 0.5 - 1];
    expect(res.paired).toBe(3);
    expect(res.unscored).toBe(1);
    expect(res.onlyB).toBe(1);
    expect(res.onlyA).toBe(0);
    expect(res.hpiDiff).toBeCloseTo(mean(diffs), 12);
    expect(res.accuracyDiff).toBeCloseTo(mean(acc), 12);
  });

  it('fails clearly when the runs share no sample', () => {
    const A = units([['a', 1, 1, 1]]);
    const B = units([['b', 1, 1, 1]]);
    let err: unknown;
    try {
      pairedCompare({ runId: 'A', dataset: 'boolq', model: 'm', mode: 'manual', units: A }, { runId: 'B', dataset: 'csqa', model: 'm', mode: 'manual', units: B });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HptError);
    expect((err as HptError).message).toMatch(/share no scored sample/);
  });
});

describe('table renderers', () => {
  const table: ReportTable = {
    id: 't',
    title: 'T',
    notes: ['a note'],
    columns: [{ label: 'Model' }, { label: 'X HPI', ci: true, digits: 2 }, { label: 'Y', digits: 1 }],
    rows: [
      [{ value: 'm|1, "quoted"' }, { value: 1.23456, ci: [1.1, 1.4] }, { value: null }],
      [{ value: 'm2' }, { value: 2, ci: null }, { value: 3.14159 }],
    ],
  };

  it('CSV: full precision, interval columns, RFC 4180 quoting, empty for no value', () => {
    expect(tableToCsv(table).split('\r\n')).toEqual(['Model,X HPI,X HPI lo,X HPI hi,Y', '"m|1, ""quoted""",1.23456,1.1,1.4,', 'm2,2,,,3.14159', '']);
  });

  it('Markdown: rounded for display, intervals in brackets, pipes escaped, numbers right-aligned', () => {
    const md = tableToMarkdown(table).split('\n');
    expect(md).toContain('| Model | X HPI | Y |');
    expect(md).toContain('| --- | ---: | ---: |');
    expect(md).toContain('| m\\|1, "quoted" | 1.23 [1.10, 1.40] | - |');
    expect(md).toContain('| m2 | 2.00 | 3.1 |');
  });

  it('the capability-dimension map is the hibench plugin\'s alone (hibench.md §1.3): the core exports none', () => {
    const coreValues = Object.values(core as Record<string, unknown>);
    const isDimensionMap = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).includes('Local Relationship Awareness');
    expect(coreValues.filter(isDimensionMap)).toEqual([]);
    // §1.3's 32 sub-tasks + the 4 code-structure tasks (plugins/hibench/README.md "Code structure")
    expect(Object.keys(CAPABILITY_DIMENSIONS)).toHaveLength(32 + 4);
    expect(dimensionOf('all-ancestor')).toBe('Local Relationship Awareness');
    expect(dimensionOf('space_complexity')).toBe('Analytical Reasoning');
    expect(dimensionOf('not_a_task')).toBeUndefined();
  });
});
