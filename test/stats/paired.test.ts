/**
 * Paired comparisons: McNemar (exact p-values against exact BigInt binomial sums and R's binom.test/mcnemar.test
 * values), the sign-flip test (against an independent integer convolution of the permutation distribution), paired
 * effect sizes (hand-computed), Holm/Bonferroni (R's p.adjust values worked by hand), and the paired-vs-unpaired
 * contrast of lm-eval issue #3868.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../packages/core/src/report/bootstrap.js';
import {
  bonferroni,
  holm,
  mcnemarExact,
  pairedDifferences,
  pairedEffectSize,
  signFlipTest,
  twoProportionZ,
} from '../../packages/core/src/stats/paired.js';
import { choose, ratio } from './helpers.js';

/** Exact two-sided McNemar p from BigInt sums: min(1, 2·Σ_{i≤min(b,c)} C(b+c, i) / 2^(b+c)). */
function exactMcNemar(b: number, c: number): number {
  const d = b + c;
  if (d === 0) return 1;
  let s = 0n;
  for (let i = 0; i <= Math.min(b, c); i++) s += choose(d, i);
  return Math.min(1, ratio(2n * s, 2n ** BigInt(d)));
}

/**
 * Exact two-sided sign-flip p for integer differences by convolution of the distribution of Σ s_i·d_i (counts of sign
 * assignments per sum), independent of the enumeration in `signFlipTest`.
 */
function signFlipByConvolution(diffs: number[]): number {
  const total = diffs.reduce((s, d) => s + Math.abs(d), 0);
  let dist = new Map<number, bigint>([[0, 1n]]);
  for (const d of diffs) {
    const next = new Map<number, bigint>();
    for (const [s, c] of dist) {
      next.set(s + d, (next.get(s + d) ?? 0n) + c);
      next.set(s - d, (next.get(s - d) ?? 0n) + c);
    }
    dist = next;
  }
  const obs = Math.abs(diffs.reduce((s, d) => s + d, 0));
  let extreme = 0n;
  let all = 0n;
  for (const [s, c] of dist) {
    all += c;
    if (Math.abs(s) >= obs) extreme += c;
  }
  expect(total).toBeGreaterThanOrEqual(obs);
  return ratio(extreme, all);
}

describe('mcnemarExact', () => {
  it('b = 10, c = 2: exact p = 158/4096 (binom.test(2, 12)), chi-square 49/12 with p = 0.0433 (mcnemar.test)', () => {
    const r = mcnemarExact(10, 2, 50);
    expect(r.pExact).toBeCloseTo(158 / 4096, 14);
    expect(r.statistic).toBeCloseTo(49 / 12, 14);
    expect(r.pAsymptotic).toBeCloseTo(0.04330814281079206, 12);
    expect(r.discordant).toBe(12);
    expect(r.oddsRatio).toBe(5);
    expect(r.accuracyDiff).toBeCloseTo(8 / 50, 15);
    expect(mcnemarExact(2, 10, 50).accuracyDiff).toBeCloseTo(-8 / 50, 15);
    expect(mcnemarExact(2, 10).pExact).toBeCloseTo(158 / 4096, 14);
    expect(mcnemarExact(2, 10).accuracyDiff).toBeNull();
  });

  it('equals the exact BigInt binomial sum for every b, c in 0..40 and a large case (b = 300, c = 250)', () => {
    for (let b = 0; b <= 40; b++) {
      for (let c = 0; c <= 40; c++) {
        const want = exactMcNemar(b, c);
        expect(Math.abs(mcnemarExact(b, c).pExact - want)).toBeLessThanOrEqual(1e-13 * Math.max(want, 1e-300));
      }
    }
    const want = exactMcNemar(300, 250);
    expect(want).toBeGreaterThan(0.01);
    expect(want).toBeLessThan(0.1);
    expect(Math.abs(mcnemarExact(300, 250).pExact - want) / want).toBeLessThan(1e-11);
  });

  it('handles no discordant pairs, one-sided discordance and ties explicitly', () => {
    const none = mcnemarExact(0, 0, 20);
    expect(none).toMatchObject({ pExact: 1, pAsymptotic: 1, statistic: 0, oddsRatio: null, accuracyDiff: 0, discordant: 0 });
    const onlyA = mcnemarExact(7, 0);
    expect(onlyA.oddsRatio).toBe(Infinity);
    expect(onlyA.pExact).toBeCloseTo(2 / 128, 15);
    expect(mcnemarExact(0, 3).oddsRatio).toBe(0);
    expect(mcnemarExact(0, 3).pExact).toBeCloseTo(0.25, 15);
    const tie = mcnemarExact(5, 5);
    expect(tie.pExact).toBe(1);
    expect(tie.statistic).toBe(0);
    expect(tie.pAsymptotic).toBe(1);
  });

  it('rejects invalid counts with RangeError', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(Number.NaN, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1, 2, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1, 2, Number.NaN)).toThrow(RangeError);
  });
});

describe('paired vs unpaired (lm-eval issue #3868)', () => {
  it('McNemar is significant at 0.05 where the unpaired two-proportion z-test is not', () => {
    // 200 samples: A solves 110, B solves 95; 20 solved by A only, 5 by B only (90 by both)
    const paired = mcnemarExact(20, 5, 200);
    expect(paired.pExact).toBeCloseTo(2 * (1 + 25 + 300 + 2300 + 12650 + 53130) / 2 ** 25, 14); // 0.004077
    expect(paired.pExact).toBeLessThan(0.05);
    expect(paired.accuracyDiff).toBeCloseTo(0.075, 15);
    const unpaired = twoProportionZ(110, 200, 95, 200);
    // by hand: pooled 205/400 = 0.5125, SE = √(0.5125·0.4875·2/200) = 0.0499844, z = 0.075/SE = 1.500469, p = 0.13349
    expect(unpaired.pooled).toBeCloseTo(0.5125, 15);
    expect(unpaired.z).toBeCloseTo(1.5004689698410671, 10);
    expect(unpaired.p).toBeCloseTo(0.13349296556737383, 10);
    expect(unpaired.p).toBeGreaterThan(0.05);
    expect(unpaired.diff).toBeCloseTo(paired.accuracyDiff!, 15);
  });

  it('twoProportionZ: sign, degenerate pooled share and invalid input', () => {
    expect(twoProportionZ(95, 200, 110, 200).z).toBeCloseTo(-1.5004689698410671, 10);
    expect(twoProportionZ(0, 10, 0, 20)).toMatchObject({ z: 0, p: 1 });
    expect(twoProportionZ(10, 10, 20, 20)).toMatchObject({ z: 0, p: 1 });
    expect(() => twoProportionZ(11, 10, 1, 10)).toThrow(RangeError);
    expect(() => twoProportionZ(1, 0, 1, 10)).toThrow(RangeError);
    expect(() => twoProportionZ(Number.NaN, 10, 1, 10)).toThrow(RangeError);
  });
});

describe('signFlipTest', () => {
  it('all five differences positive: exact p = 2/32; zeros do not change p but count in the mean', () => {
    expect(signFlipTest([1, 2, 3, 4, 5])).toEqual({ meanDiff: 3, p: 2 / 32, exact: true, resamples: 32 });
    const withZero = signFlipTest([0, 1, 2, 3, 4, 5, 0]);
    expect(withZero.p).toBe(2 / 32);
    expect(withZero.meanDiff).toBeCloseTo(15 / 7, 15);
  });

  it('counts ties as extreme: [1, 1, 1, −1] gives p = 1 − 6/16', () => {
    expect(signFlipTest([1, 1, 1, -1]).p).toBe(10 / 16);
  });

  it('decimal differences give the p of the same differences scaled to integers (ties within rounding)', () => {
    const random = mulberry32(12345);
    for (let t = 0; t < 200; t++) {
      const k = 1 + Math.floor(random() * 12);
      const ints = Array.from({ length: k }, () => Math.floor(random() * 9) - 4);
      const decimals = ints.map((v) => v / 10);
      const nonzero = ints.filter((v) => v !== 0);
      const want = nonzero.length === 0 ? 1 : signFlipByConvolution(nonzero);
      expect(signFlipTest(decimals).p).toBeCloseTo(want, 14);
    }
    expect(signFlipTest([0.1, 0.2, 0.3, -0.6]).p).toBe(1); // observed sum 0 up to rounding
  });

  it('exact enumeration with k = 20 matches the convolution', () => {
    const random = mulberry32(7);
    const d = Array.from({ length: 20 }, () => Math.floor(random() * 7) - 2);
    const nonzero = d.filter((v) => v !== 0);
    const r = signFlipTest(d);
    expect(r.exact).toBe(true);
    expect(r.resamples).toBe(2 ** nonzero.length);
    expect(r.p).toBeCloseTo(signFlipByConvolution(nonzero), 14);
  });

  it('Monte Carlo for k > 20: within 0.01 of the exact p, deterministic per seed and stream, never 0', () => {
    const d = [3, -1, 2, 2, -2, 1, 4, -3, 1, 2, 0, 1, -1, 3, 2, -2, 1, 1, 2, -4, 3, 1, -1, 2, 1, 2, -3, 1, 2, 1, 1];
    const want = signFlipByConvolution(d.filter((v) => v !== 0));
    expect(want).toBeGreaterThan(0.005);
    expect(want).toBeLessThan(0.2);
    const r = signFlipTest(d, { resamples: 20000, seed: 1 });
    expect(r.exact).toBe(false);
    expect(r.resamples).toBe(20000);
    expect(Math.abs(r.p - want)).toBeLessThan(0.01);
    expect(signFlipTest(d, { resamples: 20000, seed: 1 }).p).toBe(r.p);
    expect(signFlipTest(d, { resamples: 20000, seed: 1, stream: 'other' }).p).not.toBe(r.p);
    const allPositive = Array.from({ length: 25 }, (_, i) => i + 1);
    const mc = signFlipTest(allPositive, { resamples: 999 });
    expect(mc.p).toBe(1 / 1000); // (0 + 1)/(999 + 1): the exact p 2/2^25 is far below
  });

  it('empty and all-zero input give p = 1; invalid input throws RangeError', () => {
    expect(signFlipTest([])).toMatchObject({ meanDiff: 0, p: 1 });
    expect(signFlipTest([0, 0, 0])).toMatchObject({ meanDiff: 0, p: 1 });
    expect(() => signFlipTest([1, Number.NaN])).toThrow(RangeError);
    expect(() => signFlipTest([1, Infinity])).toThrow(RangeError);
    expect(() => signFlipTest([1, 2], { resamples: 0 })).toThrow(RangeError);
  });
});

describe('paired effect sizes', () => {
  it('d = [1, 2, 3, 4]: mean 2.5, sd √(5/3), d_z = 1.936492', () => {
    const e = pairedEffectSize([1, 2, 3, 4]);
    expect(e.n).toBe(4);
    expect(e.meanDiff).toBe(2.5);
    expect(e.sdDiff).toBeCloseTo(Math.sqrt(5 / 3), 15);
    expect(e.dz).toBeCloseTo(1.9364916731037085, 13);
  });

  it('per-sample HPI differences of two runs (lower is better, so negative favours A)', () => {
    const hpiA = [1, 1, 2, 7.14, 3, 1];
    const hpiB = [2, 1, 3, 7.14, 7.14, 2];
    const d = pairedDifferences(hpiA, hpiB);
    expect(Array.from(d)).toEqual([-1, 0, -1, 0, 3 - 7.14, -1]);
    const e = pairedEffectSize(d);
    // by hand: mean = −7.14/6 = −1.19; deviations 0.19, 1.19, 0.19, 1.19, −2.95, 0.19; Σ² = 0.1083 + 2.8322 + 8.7025 = 11.643
    expect(e.meanDiff).toBeCloseTo(-1.19, 14);
    expect(e.sdDiff).toBeCloseTo(Math.sqrt(11.643 / 5), 12);
    expect(e.dz).toBeCloseTo(-1.19 / Math.sqrt(11.643 / 5), 12);
  });

  it('sd = 0 gives d_z null, one pair gives sd null; invalid input throws', () => {
    expect(pairedEffectSize([0.3, 0.3, 0.3]).dz).toBeNull();
    expect(pairedEffectSize([2])).toEqual({ n: 1, meanDiff: 2, sdDiff: null, dz: null });
    expect(() => pairedEffectSize([])).toThrow(RangeError);
    expect(() => pairedEffectSize([1, Number.NaN])).toThrow(RangeError);
    expect(() => pairedDifferences([1, 2], [1])).toThrow(RangeError);
  });
});

describe('Holm and Bonferroni', () => {
  it('match p.adjust worked by hand, in input order', () => {
    // sorted 0.005, 0.01, 0.03, 0.04 × 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 → running max 0.02, 0.03, 0.06, 0.06
    const h = holm([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((v, i) => expect(h[i]).toBeCloseTo(v, 15));
    const h2 = holm([0.01, 0.02, 0.03, 0.04, 0.05]);
    [0.05, 0.08, 0.09, 0.09, 0.09].forEach((v, i) => expect(h2[i]).toBeCloseTo(v, 15));
    const b = bonferroni([0.01, 0.04, 0.03, 0.005]);
    [0.04, 0.16, 0.12, 0.02].forEach((v, i) => expect(b[i]).toBeCloseTo(v, 15));
  });

  it('caps at 1, keeps ties, and lies between the raw and the Bonferroni p-values', () => {
    expect(holm([0.5, 0.01])).toEqual([0.5, 0.02]);
    expect(holm([0.6, 0.7])).toEqual([1, 1]);
    expect(holm([0.02, 0.02])).toEqual([0.04, 0.04]);
    expect(holm([])).toEqual([]);
    expect(bonferroni([0.4, 0.9])).toEqual([0.8, 1]);
    const random = mulberry32(3);
    for (let t = 0; t < 100; t++) {
      const p = Array.from({ length: 1 + Math.floor(random() * 10) }, () => random() ** 3);
      const h = holm(p);
      const bf = bonferroni(p);
      p.forEach((v, i) => {
        expect(h[i]).toBeGreaterThanOrEqual(v);
        expect(h[i]).toBeLessThanOrEqual(bf[i]! + 1e-15);
      });
      // monotone in the raw order
      const order = p.map((_, i) => i).sort((i, j) => p[i]! - p[j]!);
      for (let r = 1; r < order.length; r++) expect(h[order[r]!]).toBeGreaterThanOrEqual(h[order[r - 1]!]!);
    }
  });

  it('rejects p-values outside [0, 1] with RangeError', () => {
    expect(() => holm([0.1, Number.NaN])).toThrow(RangeError);
    expect(() => holm([1.2])).toThrow(RangeError);
    expect(() => bonferroni([-0.1])).toThrow(RangeError);
  });
});
