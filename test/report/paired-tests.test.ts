/**
 * The paired tests of `compare` (issue 28, item 1): McNemar's exact test, the sign-flip permutation test on per-sample
 * differences, d_z, clustered intervals with replicates, and the Holm adjustment across comparisons. Expected values
 * are computed here independently (binomial sums, brute-force enumeration of sign assignments, Miller's formula).
 */
import { describe, expect, it } from 'vitest';
import type { SampleUnit } from '@hpt-bench/sdk';
import { holmAdjust, normalCdf, pairedCompare, pairedTests, pairUnits, twoProportionZ } from '@hpt-bench/core';

const unit = (sampleId: string, level: number | null, m = 5, hpiDataset = 2, replicate?: number): SampleUnit => ({
  sampleId,
  index: 0,
  ...(replicate !== undefined ? { replicate } : {}),
  hpi: level ?? m + hpiDataset,
  scores: 1,
  solved: level === null ? 0 : 1,
  level,
});

/** C(n, k) as a float (small n). */
function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

describe('pairedTests', () => {
  it('McNemar counts the discordant pairs and gives the exact binomial p; the permutation p is the brute-force share', () => {
    // 12 samples: A solves 10 that B does not (B unsolved), B solves 2 that A does not, 3 both solve at the same level
    const a: SampleUnit[] = [];
    const b: SampleUnit[] = [];
    for (let i = 0; i < 10; i++) {
      a.push(unit(`x${i}`, 1 + (i % 3)));
      b.push(unit(`x${i}`, null));
    }
    for (let i = 0; i < 2; i++) {
      a.push(unit(`y${i}`, null));
      b.push(unit(`y${i}`, 4));
    }
    for (let i = 0; i < 3; i++) {
      a.push(unit(`z${i}`, 2));
      b.push(unit(`z${i}`, 2));
    }
    const t = pairedTests(pairUnits(a, b).pairs, { seed: 0 });
    expect(t.samples).toBe(15);
    expect(t.replicates).toBe(false);
    const m = t.accuracy.mcnemar!;
    expect([m.b, m.c]).toEqual([10, 2]);
    // 2 * P(X <= 2), X ~ Bin(12, 1/2)
    const exact = (2 * (choose(12, 0) + choose(12, 1) + choose(12, 2))) / 2 ** 12;
    expect(m.p).toBeCloseTo(exact, 12);
    expect(m.pHolm).toBe(m.p);
    expect(m.oddsRatio).toBe(5);
    // HPI differences per sample, and the sign-flip p by enumerating all 2^k sign vectors of the nonzero ones
    const diffs = a.map((u, i) => u.hpi - b[i]!.hpi);
    const nz = diffs.filter((d) => d !== 0);
    expect(nz.length).toBe(12);
    const obs = Math.abs(nz.reduce((s, d) => s + d, 0));
    let extreme = 0;
    for (let mask = 0; mask < 2 ** nz.length; mask++) {
      let s = 0;
      nz.forEach((d, j) => (s += mask & (1 << j) ? -d : d));
      if (Math.abs(s) >= obs - 1e-9) extreme++;
    }
    expect(t.hpi.permutation.exact).toBe(true);
    expect(t.hpi.permutation.p).toBeCloseTo(extreme / 2 ** nz.length, 12);
    expect(t.hpi.permutation.meanDiff).toBeCloseTo(diffs.reduce((s, d) => s + d, 0) / diffs.length, 12);
    // d_z = mean / sd (n - 1)
    const mean = diffs.reduce((s, d) => s + d, 0) / diffs.length;
    const sd = Math.sqrt(diffs.reduce((s, d) => s + (d - mean) ** 2, 0) / (diffs.length - 1));
    expect(t.hpi.effect.dz).toBeCloseTo(mean / sd, 12);
    expect(t.hpi.clustered).toBeNull();
  });

  it('the lm-eval #3868 contrast: paired (McNemar) significant where the unpaired two-proportion z-test is not', () => {
    // 200 samples; A solves 120, B solves 108; discordant: A only 16, B only 4 (agreement elsewhere)
    const a: SampleUnit[] = [];
    const b: SampleUnit[] = [];
    let i = 0;
    const add = (la: number | null, lb: number | null, k: number) => {
      for (let j = 0; j < k; j++, i++) {
        a.push(unit(`s${i}`, la));
        b.push(unit(`s${i}`, lb));
      }
    };
    add(1, 1, 104);
    add(1, null, 16);
    add(null, 1, 4);
    add(null, null, 76);
    const r = pairedCompare({ runId: 'A', dataset: 'd', model: 'a', mode: 'manual', units: a }, { runId: 'B', dataset: 'd', model: 'b', mode: 'manual', units: b });
    expect(r.accuracyDiff).toBeCloseTo(0.06, 12);
    const m = r.tests.accuracy.mcnemar!;
    expect(m.p).toBeCloseTo((2 * [0, 1, 2, 3, 4].reduce((s, k) => s + choose(20, k), 0)) / 2 ** 20, 12);
    expect(m.p).toBeLessThan(0.05);
    const unpaired = twoProportionZ(120, 200, 108, 200);
    expect(unpaired.p).toBeGreaterThan(0.05);
    // the figures README "Statistics" quotes: 0.012 paired, 0.23 unpaired (z = 0.06 / sqrt(0.57 * 0.43 * 2 / 200))
    expect(m.p).toBeCloseTo(0.0118, 4);
    expect(unpaired.p).toBeCloseTo(2 * (1 - normalCdf(0.06 / Math.sqrt((0.57 * 0.43 * 2) / 200))), 12);
    expect(unpaired.p).toBeCloseTo(0.2255, 4);
  });

  it('with replicates: tests on per-sample means, no McNemar, clustered intervals by Miller’s formula', () => {
    const a: SampleUnit[] = [];
    const b: SampleUnit[] = [];
    const levelsA = [
      [1, 1, 2],
      [3, null, 3],
      [2, 2, 2],
      [null, null, 5],
    ];
    const levelsB = [
      [2, 3, 2],
      [null, null, 4],
      [2, 1, 2],
      [null, null, null],
    ];
    levelsA.forEach((row, s) =>
      row.forEach((l, r) => {
        a.push(unit(`q${s}`, l, 5, 2, r));
        b.push(unit(`q${s}`, levelsB[s]![r]!, 5, 2, r));
      }),
    );
    const t = pairedTests(pairUnits(a, b).pairs);
    expect([t.samples, t.units, t.replicates]).toEqual([4, 12, true]);
    expect(t.accuracy.mcnemar).toBeNull();
    expect(t.accuracy.mcnemarNote).toMatch(/replicates/);
    const d = a.map((u, i) => u.hpi - b[i]!.hpi);
    const perSample = [0, 1, 2, 3].map((s) => (d[3 * s]! + d[3 * s + 1]! + d[3 * s + 2]!) / 3);
    expect(t.hpi.effect.meanDiff).toBeCloseTo(perSample.reduce((x, y) => x + y, 0) / 4, 12);
    expect(t.hpi.permutation.exact).toBe(true);
    // Miller 2024 eq. 4 with the C/(C-1) factor: sqrt(C/(C-1) * sum_c (sum_i (d_i - mean))^2) / n
    const mean = d.reduce((x, y) => x + y, 0) / d.length;
    const sums = [0, 1, 2, 3].map((s) => d.slice(3 * s, 3 * s + 3).reduce((x, y) => x + (y - mean), 0));
    const se = Math.sqrt((4 / 3) * sums.reduce((x, y) => x + y * y, 0)) / d.length;
    expect(t.hpi.clustered!.se).toBeCloseTo(se, 12);
    expect(t.hpi.clustered!.ci95[0]).toBeCloseTo(mean - 1.959963984540054 * se, 9);
    expect(t.accuracy.clustered).not.toBeNull();
  });

  it('holmAdjust: each test adjusted across the comparisons that have it (Holm 1979 step-down)', () => {
    const fake = (pHpi: number, pMc: number | null) => ({
      tests: {
        hpi: { permutation: { p: pHpi, pHolm: pHpi } },
        accuracy: { mcnemar: pMc === null ? null : { p: pMc, pHolm: pMc }, permutation: { p: 0.5, pHolm: 0.5 } },
      } as never,
    });
    const family = [fake(0.01, 0.04), fake(0.04, null), fake(0.03, 0.001)];
    holmAdjust(family);
    // sorted 0.01, 0.03, 0.04 -> 3 * 0.01 = 0.03, max(0.03, 2 * 0.03) = 0.06, max(0.06, 1 * 0.04) = 0.06
    expect(family.map((f) => (f.tests as { hpi: { permutation: { pHolm: number } } }).hpi.permutation.pHolm)).toEqual([0.03, 0.06, 0.06].map((x) => expect.closeTo(x, 12)));
    // McNemar in two comparisons: 0.001 -> 0.002, 0.04 -> max(0.002, 0.04) = 0.04
    const mc = family.map((f) => (f.tests as { accuracy: { mcnemar: { pHolm: number } | null } }).accuracy.mcnemar?.pHolm ?? null);
    expect(mc[0]).toBeCloseTo(0.04, 12);
    expect(mc[1]).toBeNull();
    expect(mc[2]).toBeCloseTo(0.002, 12);
    expect(family.map((f) => (f.tests as { accuracy: { permutation: { pHolm: number } } }).accuracy.permutation.pHolm)).toEqual([1, 1, 1]);
  });

  it('no pairs is an error', () => {
    expect(() => pairedTests([])).toThrow(RangeError);
  });
});
