/**
 * Full-ladder diagnostics (packages/core/src/stats/ladder.ts): per-level accuracy with Wilson intervals, order
 * violations, Kendall's τ-b, the early-exit HPI of (sub-)ladders and the hazard curve. Expected values are worked out
 * by hand in the comments, taken from textbook / scipy examples, or recomputed here by brute force written
 * differently from the module (prefix sums, first-true / last-false indices, sign-matrix correlation).
 */
import { describe, expect, it } from 'vitest';
import { hashSeed, mulberry32 } from '../../packages/core/src/report/bootstrap.js';
import {
  earlyExitHpi,
  hazardCurve,
  kendallTauB,
  orderViolations,
  perLevelAccuracy,
  ladderPositions,
  tauLevelVsAccuracy,
  validateLadderData,
  wilsonInterval,
  Z95,
  type LadderAttempts,
  type LadderData,
} from '../../packages/core/src/stats/ladder.js';

const T = true;
const F = false;
const N = null;

/**
 * The hand-worked run: m = 3, HPI_Dataset = 2.
 *   A [T T T]   B [F T T]   C [F F T]   D [T F T] (violates: 1 solved, 2 failed)
 *   E [F F F]   F [- T F]   (level 1 not attempted; violates: 2 solved, 3 failed)
 */
const HAND: LadderData = {
  levels: 3,
  hpiDataset: 2,
  units: [
    { sampleId: 'A', solved: [T, T, T] },
    { sampleId: 'B', solved: [F, T, T] },
    { sampleId: 'C', solved: [F, F, T] },
    { sampleId: 'D', solved: [T, F, T] },
    { sampleId: 'E', solved: [F, F, F] },
    { sampleId: 'F', solved: [N, T, F] },
  ],
};

/** Seeded random full-ladder run: m levels, accuracy rising with the level, a share `pNull` of verdicts missing. */
function randomRun(seed: string, n: number, m: number, pNull: number, replicates = 1): LadderData {
  const rnd = mulberry32(hashSeed(seed));
  const units: LadderAttempts[] = [];
  for (let s = 0; s < n; s++) {
    const difficulty = rnd();
    for (let r = 0; r < replicates; r++) {
      const solved: (boolean | null)[] = [];
      for (let k = 0; k < m; k++) {
        if (rnd() < pNull) solved.push(null);
        else solved.push(rnd() < 0.15 + 0.6 * (1 - difficulty) * ((k + 1) / m) + 0.1 * rnd());
      }
      units.push(replicates > 1 ? { sampleId: `s${s}`, replicate: r, solved } : { sampleId: `s${s}`, solved });
    }
  }
  return { levels: m, hpiDataset: 1 + 3 * rnd(), units };
}

/** Random ladders over m levels: the default, a reversal, and random subsets in random orders. */
function randomLadders(seed: string, m: number, count: number): number[][] {
  const rnd = mulberry32(hashSeed(seed));
  const out: number[][] = [Array.from({ length: m }, (_, k) => k + 1), Array.from({ length: m }, (_, k) => m - k)];
  for (let c = 0; c < count; c++) {
    const pool = Array.from({ length: m }, (_, k) => k + 1);
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    out.push(pool.slice(0, 1 + Math.floor(rnd() * m)));
  }
  return out;
}

/** A unit's verdicts in ladder order. */
const walk = (u: LadderAttempts, ladder: number[]) => ladder.map((level) => u.solved[level - 1]!);

describe('wilsonInterval', () => {
  it('matches the closed forms at 0 and n successes: [0, z²/(n+z²)] and [n/(n+z²), 1]', () => {
    const z2 = 1.959963984540054 ** 2;
    expect(wilsonInterval(0, 10)![0]).toBe(0);
    expect(wilsonInterval(0, 10)![1]).toBeCloseTo(z2 / (10 + z2), 12);
    expect(wilsonInterval(10, 10)![0]).toBeCloseTo(10 / (10 + z2), 12);
    expect(wilsonInterval(10, 10)![1]).toBe(1);
    expect(z2 / (10 + z2)).toBeCloseTo(0.27753, 5); // the textbook value
  });

  it('gives the textbook 8/10 and 5/10 intervals', () => {
    const [lo, hi] = wilsonInterval(8, 10)!;
    expect(lo).toBeCloseTo(0.49016, 5);
    expect(hi).toBeCloseTo(0.94332, 5);
    const [lo5, hi5] = wilsonInterval(5, 10)!;
    expect(lo5).toBeCloseTo(0.23659, 5);
    expect(hi5).toBeCloseTo(0.76341, 5);
  });

  it('is symmetric: the interval of s/n mirrors that of (n−s)/n', () => {
    for (let n = 1; n <= 12; n++) {
      for (let s = 0; s <= n; s++) {
        const [a, b] = wilsonInterval(s, n)!;
        const [c, d] = wilsonInterval(n - s, n)!;
        expect(a).toBeCloseTo(1 - d, 12);
        expect(b).toBeCloseTo(1 - c, 12);
        expect(a).toBeLessThanOrEqual(s / n);
        expect(b).toBeGreaterThanOrEqual(s / n);
      }
    }
  });

  it('a wider z gives a wider interval; z is Φ⁻¹(0.975)', () => {
    const [a, b] = wilsonInterval(3, 7)!;
    const [c, d] = wilsonInterval(3, 7, 2.576)!;
    expect(c).toBeLessThan(a);
    expect(d).toBeGreaterThan(b);
    expect(Z95).toBeCloseTo(1.96, 2);
  });

  it('is null with no trials and rejects invalid counts', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(1, Number.NaN)).toThrow(RangeError);
    expect(() => wilsonInterval(1, 2, 0)).toThrow(RangeError);
  });
});

describe('perLevelAccuracy', () => {
  it('counts the hand run per level, missing verdicts out of the denominator', () => {
    const acc = perLevelAccuracy(HAND);
    // L1: solved A D, failed B C E, missing F; L2: solved A B F, failed C D E; L3: solved A B C D, failed E F
    expect(acc.map((a) => [a.level, a.solved, a.failed, a.attempted, a.missing])).toEqual([
      [1, 2, 3, 5, 1],
      [2, 3, 3, 6, 0],
      [3, 4, 2, 6, 0],
    ]);
    expect(acc[0]!.accuracy).toBeCloseTo(0.4, 12);
    expect(acc[1]!.accuracy).toBeCloseTo(0.5, 12);
    expect(acc[2]!.accuracy).toBeCloseTo(2 / 3, 12);
    // Wilson 2/3 of 6 = 4/6 by hand: centre (4/6 + z²/12)/(1 + z²/6)
    const z2 = Z95 * Z95;
    const centre = (4 / 6 + z2 / 12) / (1 + z2 / 6);
    const half = (Z95 * Math.sqrt(((4 / 6) * (2 / 6)) / 6 + z2 / 144)) / (1 + z2 / 6);
    expect(acc[2]!.ci![0]).toBeCloseTo(centre - half, 12);
    expect(acc[2]!.ci![1]).toBeCloseTo(centre + half, 12);
  });

  it('gives null accuracy and interval for a level nobody attempted', () => {
    const acc = perLevelAccuracy({ levels: 2, hpiDataset: 1, units: [{ sampleId: 'a', solved: [T, N] }, { sampleId: 'b', solved: [F, N] }] });
    expect(acc[1]).toEqual({ level: 2, solved: 0, failed: 0, attempted: 0, missing: 2, accuracy: null, ci: null });
  });

  it('agrees with a per-level filter count on random runs with missing verdicts', () => {
    for (const seed of ['a', 'b', 'c']) {
      const run = randomRun(`acc-${seed}`, 150, 5, 0.07, seed === 'c' ? 3 : 1);
      const acc = perLevelAccuracy(run);
      for (let k = 0; k < 5; k++) {
        const solved = run.units.filter((u) => u.solved[k] === true).length;
        const attempted = run.units.filter((u) => typeof u.solved[k] === 'boolean').length;
        expect(acc[k]!.solved).toBe(solved);
        expect(acc[k]!.attempted).toBe(attempted);
        expect(acc[k]!.missing).toBe(run.units.length - attempted);
        expect(acc[k]!.accuracy).toBeCloseTo(solved / attempted, 12);
      }
    }
  });
});

describe('orderViolations', () => {
  it('finds the hand run’s two violating units and its pair matrix', () => {
    const v = orderViolations(HAND);
    expect(v.ladder).toEqual([1, 2, 3]);
    expect(v.units).toBe(6);
    expect(v.evaluable).toBe(6);
    expect(v.violating).toBe(2); // D (1 → 2), F (2 → 3)
    expect(v.share).toBeCloseTo(1 / 3, 12);
    // [a][b]: solved at a, failed at b. [0][1] D; [0][2] none; [1][2] F; [1][0] B; [2][0] B C; [2][1] C D
    expect(v.solvedThenFailed).toEqual([
      [0, 1, 0],
      [1, 0, 1],
      [2, 2, 0],
    ]);
    // F is missing at level 1, so every pair with level 1 has 5 comparable units
    expect(v.comparable).toEqual([
      [5, 5, 5],
      [5, 6, 6],
      [5, 6, 6],
    ]);
    expect(v.pairShare[0]![1]).toBeCloseTo(1 / 5, 12);
    expect(v.pairShare[1]![2]).toBeCloseTo(1 / 6, 12);
    expect(v.pairShare[2]![0]).toBeCloseTo(2 / 5, 12);
    expect(v.pairShare[1]![1]).toBeNull();
  });

  it('in the reversed ladder, violations are the ladder’s gains of the default order', () => {
    const v = orderViolations(HAND, { ladder: [3, 2, 1] });
    // walking 3, 2, 1: A no; B (3 T, 1 F) yes; C yes; D (3 T, 2 F) yes; E no; F (2 T, 3 F: 3 before 2, 2 T then 1 null) no
    expect(v.violating).toBe(3);
    expect(v.solvedThenFailed).toEqual([
      [0, 2, 2],
      [1, 0, 1],
      [0, 1, 0],
    ]);
  });

  it('ignores null verdicts: a unit with fewer than two verdicts is not evaluable', () => {
    const v = orderViolations({ levels: 3, hpiDataset: 1, units: [{ sampleId: 'x', solved: [T, N, F] }, { sampleId: 'y', solved: [N, T, N] }, { sampleId: 'z', solved: [N, N, N] }] });
    expect(v.evaluable).toBe(1);
    expect(v.violating).toBe(1);
    expect(v.share).toBe(1);
    expect(v.solvedThenFailed[0]![2]).toBe(1);
    expect(v.comparable[0]![1]).toBe(0);
    expect(v.pairShare[0]![1]).toBeNull();
  });

  it('agrees with brute force (first solved before last failed; per-pair filters) on random runs and ladders', () => {
    for (const seed of ['1', '2', '3']) {
      const run = randomRun(`viol-${seed}`, 120, 5, seed === '1' ? 0 : 0.1);
      for (const ladder of randomLadders(`viol-ladders-${seed}`, 5, 6)) {
        const v = orderViolations(run, { ladder });
        let violating = 0;
        let evaluable = 0;
        for (const u of run.units) {
          const w = walk(u, ladder);
          const firstTrue = w.indexOf(true);
          const lastFalse = w.lastIndexOf(false);
          if (firstTrue >= 0 && lastFalse > firstTrue) violating++;
          if (w.filter((x) => x !== null).length >= 2) evaluable++;
        }
        expect(v.violating).toBe(violating);
        expect(v.evaluable).toBe(evaluable);
        for (let a = 0; a < ladder.length; a++) {
          for (let b = 0; b < ladder.length; b++) {
            const ka = ladder[a]! - 1;
            const kb = ladder[b]! - 1;
            const expected = a === b ? 0 : run.units.filter((u) => u.solved[ka] === true && u.solved[kb] === false).length;
            expect(v.solvedThenFailed[a]![b]).toBe(expected);
            expect(v.comparable[a]![b]).toBe(run.units.filter((u) => u.solved[ka] !== null && u.solved[kb] !== null).length);
          }
        }
      }
    }
  });
});

/** τ-b as the correlation of the pairwise sign matrices (Kendall 1945), a different route from pair counting. */
function tauBySigns(x: number[], y: number[]): number {
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < x.length; j++) {
      const a = Math.sign(x[i]! - x[j]!);
      const b = Math.sign(y[i]! - y[j]!);
      sxy += a * b;
      sxx += a * a;
      syy += b * b;
    }
  }
  return sxy / Math.sqrt(sxx * syy);
}

describe('kendallTauB', () => {
  it('is ±1 for perfectly (anti-)monotone data', () => {
    expect(kendallTauB([1, 2, 3, 4, 5], [10, 20, 30, 40, 50])).toBeCloseTo(1, 12);
    expect(kendallTauB([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])).toBeCloseTo(-1, 12);
  });

  it('reproduces the scipy.stats.kendalltau doc example with ties in both: −0.4714045', () => {
    // x = [12 2 1 12 2], y = [1 4 7 1 0]: C = 2 ((0,4), (3,4)), D = 6, n0 = 10, x ties n1 = 2 (12s, 2s), y ties n2 = 1 (1s)
    // τb = (2 − 6)/√(8·9) = −4/√72
    const tau = kendallTauB([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]);
    expect(tau).toBeCloseTo(-4 / Math.sqrt(72), 12);
    expect(tau).toBeCloseTo(-0.4714045207910316, 12);
  });

  it('handles a tie in one variable only: (1..5) vs (.2 .5 .5 .7 .9) = 9/√90', () => {
    expect(kendallTauB([1, 2, 3, 4, 5], [0.2, 0.5, 0.5, 0.7, 0.9])).toBeCloseTo(9 / Math.sqrt(90), 12);
    expect(kendallTauB([1, 2, 3, 4, 5], [0.2, 0.5, 0.5, 0.7, 0.9])).toBeCloseTo(0.9486832980505138, 12);
  });

  it('is NaN when a variable is constant, and symmetric in x and y', () => {
    expect(kendallTauB([1, 2, 3], [4, 4, 4])).toBeNaN();
    expect(kendallTauB([1, 3, 2, 5], [2, 2, 9, 1])).toBeCloseTo(kendallTauB([2, 2, 9, 1], [1, 3, 2, 5]), 12);
  });

  it('agrees with the sign-matrix correlation on random data with many ties', () => {
    const rnd = mulberry32(hashSeed('tau'));
    for (let t = 0; t < 40; t++) {
      const n = 2 + Math.floor(rnd() * 25);
      const x = Array.from({ length: n }, () => Math.floor(rnd() * 5));
      const y = Array.from({ length: n }, () => Math.floor(rnd() * 4));
      if (new Set(x).size < 2 || new Set(y).size < 2) continue;
      expect(kendallTauB(x, y)).toBeCloseTo(tauBySigns(x, y), 12);
    }
  });

  it('rejects mismatched lengths, fewer than 2 pairs and non-finite values', () => {
    expect(() => kendallTauB([1, 2], [1])).toThrow(RangeError);
    expect(() => kendallTauB([1], [1])).toThrow(RangeError);
    expect(() => kendallTauB([1, Number.NaN], [1, 2])).toThrow(RangeError);
    expect(() => kendallTauB([1, 2], [1, Infinity])).toThrow(RangeError);
  });
});

describe('tauLevelVsAccuracy', () => {
  it('is +1 on the hand run (accuracy .4 < .5 < .67) and −1 on its reversed ladder', () => {
    const t = tauLevelVsAccuracy(HAND);
    expect(t.tau).toBeCloseTo(1, 12);
    expect(t.position).toEqual([1, 2, 3]);
    expect(t.accuracy[0]).toBeCloseTo(0.4, 12);
    expect(tauLevelVsAccuracy(HAND, { ladder: [3, 2, 1] }).tau).toBeCloseTo(-1, 12);
    expect(tauLevelVsAccuracy(HAND, { ladder: [3, 1] }).tau).toBeCloseTo(-1, 12);
  });

  it('uses τ-b with tied accuracies, drops unattempted levels, and is null when undefined', () => {
    // accuracies .5, .5, 1: pairs (1,2) tied, (1,3) and (2,3) concordant → 2/√(3·2)
    const tied: LadderData = {
      levels: 4,
      hpiDataset: 1,
      units: [
        { sampleId: 'a', solved: [T, F, T, N] },
        { sampleId: 'b', solved: [F, T, T, N] },
      ],
    };
    const t = tauLevelVsAccuracy(tied);
    expect(t.dropped).toEqual([4]);
    expect(t.levels).toEqual([1, 2, 3]);
    expect(t.tau).toBeCloseTo(2 / Math.sqrt(6), 12);
    expect(tauLevelVsAccuracy(tied, { ladder: [1, 2] }).tau).toBeNull(); // both .5
    expect(tauLevelVsAccuracy(tied, { ladder: [3, 4] }).tau).toBeNull(); // one level left
  });

  it('agrees with the sign-matrix τ of (position, accuracy) on random runs', () => {
    const run = randomRun('tau-run', 80, 6, 0.05);
    for (const ladder of randomLadders('tau-ladders', 6, 8)) {
      const accuracy = ladder.map((level) => {
        const att = run.units.filter((u) => u.solved[level - 1] !== null);
        return att.filter((u) => u.solved[level - 1]).length / att.length;
      });
      const got = tauLevelVsAccuracy(run, { ladder }).tau;
      if (ladder.length < 2) expect(got).toBeNull();
      else expect(got).toBeCloseTo(tauBySigns(ladder.map((_, p) => p + 1), accuracy), 12);
    }
  });
});

describe('earlyExitHpi', () => {
  it('rebuilds the hand run’s early-exit HPI on the full ladder', () => {
    const e = earlyExitHpi(HAND);
    // hp: A 1, B 2, C 3, D 1, E 3 + 2 = 5, F 2 (level 1 missing, counted as failed) → 14/6
    expect(e.units.map((u) => u.hp)).toEqual([1, 2, 3, 1, 5, 2]);
    expect(e.hpi).toBeCloseTo(14 / 6, 12);
    expect(e.accuracy).toBeCloseTo(5 / 6, 12);
    expect(e.penalty).toBe(5);
    expect(e.length).toBe(3);
    expect(e.solvedAt).toEqual([2, 2, 1]);
    expect(e.unsolved).toBe(1);
    expect(e.missingVerdicts).toBe(1);
    expect(e.unitsWithMissing).toBe(1);
    expect(e.units[5]).toEqual({ sampleId: 'F', position: 2, level: 2, hp: 2, missing: 1 });
    expect(e.units[4]).toEqual({ sampleId: 'E', position: null, level: null, hp: 5, missing: 0 });
  });

  it('scores the sub-ladders [1,3], [3,1] and [2] with m′ = their length', () => {
    // [1,3], penalty 2 + 2 = 4: A 1 (L1), B 2 (L3), C 2, D 1, E 4, F 4 (L1 missing, L3 failed) → 14/6
    const a = earlyExitHpi(HAND, { ladder: [1, 3] });
    expect(a.units.map((u) => u.hp)).toEqual([1, 2, 2, 1, 4, 4]);
    expect(a.units.map((u) => u.level)).toEqual([1, 3, 3, 1, null, null]);
    expect(a.hpi).toBeCloseTo(14 / 6, 12);
    expect(a.accuracy).toBeCloseTo(4 / 6, 12);
    expect(a.penalty).toBe(4);
    // [3,1]: A B C D solved at L3 (position 1), E 4, F 4 (L3 failed, L1 missing) → 12/6
    const b = earlyExitHpi(HAND, { ladder: [3, 1] });
    expect(b.units.map((u) => u.hp)).toEqual([1, 1, 1, 1, 4, 4]);
    expect(b.hpi).toBeCloseTo(2, 12);
    expect(b.missingVerdicts).toBe(1);
    // [2], penalty 1 + 2 = 3: solved A B F; C D E 3 → (1+1+3+3+3+1)/6 = 2
    const c = earlyExitHpi(HAND, { ladder: [2] });
    expect(c.units.map((u) => u.hp)).toEqual([1, 1, 3, 3, 3, 1]);
    expect(c.hpi).toBeCloseTo(2, 12);
    expect(c.missingVerdicts).toBe(0);
  });

  it('averages replicates per sample and over units', () => {
    const run: LadderData = {
      levels: 2,
      hpiDataset: 1.5,
      units: [
        { sampleId: 's1', replicate: 0, solved: [T, T] }, // 1
        { sampleId: 's1', replicate: 1, solved: [F, F] }, // 2 + 1.5
        { sampleId: 's2', replicate: 0, solved: [F, T] }, // 2
      ],
    };
    const e = earlyExitHpi(run);
    expect(e.hpi).toBeCloseTo(6.5 / 3, 12);
    expect(e.hpiBySample).toBeCloseTo((2.25 + 2) / 2, 12);
    expect(e.accuracy).toBeCloseTo(2 / 3, 12);
    expect(e.accuracyBySample).toBeCloseTo((0.5 + 1) / 2, 12);
    expect(e.samples).toEqual([
      { sampleId: 's1', replicates: 2, hp: 2.25, solved: 0.5 },
      { sampleId: 's2', replicates: 1, hp: 2, solved: 1 },
    ]);
    expect(e.units[1]!.replicate).toBe(1);
  });

  it('on the full default ladder equals the first-solved-level HPI (Algorithm 1) when nothing is missing', () => {
    for (const seed of ['p', 'q', 'r']) {
      const run = randomRun(`ee-${seed}`, 200, 5, 0, seed === 'r' ? 2 : 1);
      const hp = run.units.map((u) => {
        const first = u.solved.indexOf(true);
        return first < 0 ? 5 + run.hpiDataset : first + 1;
      });
      const e = earlyExitHpi(run);
      expect(e.units.map((u) => u.hp)).toEqual(hp);
      expect(e.hpi).toBeCloseTo(hp.reduce((a, b) => a + b, 0) / hp.length, 12);
      expect(e.accuracy).toBeCloseTo(run.units.filter((u) => u.solved.includes(true)).length / run.units.length, 12);
      // the paper's bounds (hpt.md §7.8): p·1 + (1−p)·P ≤ HPI ≤ p·m + (1−p)·P
      const P = 5 + run.hpiDataset;
      expect(e.hpi).toBeGreaterThanOrEqual(e.accuracy + (1 - e.accuracy) * P - 1e-12);
      expect(e.hpi).toBeLessThanOrEqual(e.accuracy * 5 + (1 - e.accuracy) * P + 1e-12);
      if (seed === 'r') expect(e.hpiBySample).toBeCloseTo(e.hpi, 12); // 2 replicates each
    }
  });

  it('agrees with the prefix-sum form hp = Σ_{k<L}[first k unsolved] + h·[all unsolved] on random sub-ladders', () => {
    for (const seed of ['x', 'y']) {
      const run = randomRun(`ee-sub-${seed}`, 150, 5, seed === 'y' ? 0.1 : 0);
      for (const ladder of randomLadders(`ee-ladders-${seed}`, 5, 10)) {
        const L = ladder.length;
        const hp = run.units.map((u) => {
          const w = walk(u, ladder);
          let total = 0;
          for (let k = 0; k < L; k++) if (w.slice(0, k).every((x) => x !== true)) total++;
          if (w.every((x) => x !== true)) total += run.hpiDataset;
          return total;
        });
        const missing = run.units.map((u) => {
          const w = walk(u, ladder);
          const first = w.indexOf(true);
          return (first < 0 ? w : w.slice(0, first)).filter((x) => x === null).length;
        });
        const e = earlyExitHpi(run, { ladder });
        e.units.forEach((u, i) => expect(u.hp).toBeCloseTo(hp[i]!, 12));
        expect(e.hpi).toBeCloseTo(hp.reduce((a, b) => a + b, 0) / hp.length, 12);
        expect(e.units.map((u) => u.missing)).toEqual(missing);
        expect(e.missingVerdicts).toBe(missing.reduce((a, b) => a + b, 0));
        expect(e.unitsWithMissing).toBe(missing.filter((x) => x > 0).length);
        expect(e.penalty).toBeCloseTo(L + run.hpiDataset, 12);
      }
    }
  });
});

describe('hazardCurve', () => {
  it('gives the hand run’s at-risk counts and hazards', () => {
    const h = hazardCurve(HAND);
    // L1: 6 at risk, F missing, A D solved → 2/5; L2: B C E F at risk, B F solved → 2/4; L3: C E at risk, C solved → 1/2
    expect(h.map((s) => [s.position, s.level, s.atRisk, s.attempted, s.missing, s.solved])).toEqual([
      [1, 1, 6, 5, 1, 2],
      [2, 2, 4, 4, 0, 2],
      [3, 3, 2, 2, 0, 1],
    ]);
    expect(h.map((s) => s.hazard)).toEqual([0.4, 0.5, 0.5]);
    expect(h.map((s) => s.cumulativeSolved)).toEqual([2 / 6, 4 / 6, 5 / 6]);
    expect(h[0]!.ci).toEqual(wilsonInterval(2, 5));
  });

  it('follows a sub-ladder [3, 1]', () => {
    const h = hazardCurve(HAND, { ladder: [3, 1] });
    // L3 first: A B C D solved of 6; then E F at risk at L1: E failed, F missing → 0/1
    expect(h.map((s) => [s.level, s.atRisk, s.attempted, s.solved])).toEqual([
      [3, 6, 6, 4],
      [1, 2, 1, 0],
    ]);
    expect(h[1]!.hazard).toBe(0);
  });

  it('agrees with brute force and with earlyExitHpi on random runs; 1 − Π(1 − hazard) = accuracy without missing', () => {
    for (const pNull of [0, 0.12]) {
      const run = randomRun(`hz-${pNull}`, 160, 5, pNull);
      for (const ladder of randomLadders(`hz-ladders-${pNull}`, 5, 5)) {
        const h = hazardCurve(run, { ladder });
        const e = earlyExitHpi(run, { ladder });
        expect(h.map((s) => s.solved)).toEqual(e.solvedAt);
        ladder.forEach((level, p) => {
          const atRisk = run.units.filter((u) => !walk(u, ladder).slice(0, p).includes(true));
          const attempted = atRisk.filter((u) => u.solved[level - 1] !== null);
          const solved = attempted.filter((u) => u.solved[level - 1] === true);
          expect(h[p]!.atRisk).toBe(atRisk.length);
          expect(h[p]!.attempted).toBe(attempted.length);
          expect(h[p]!.solved).toBe(solved.length);
        });
        if (pNull === 0) {
          const survive = h.reduce((acc, s) => acc * (1 - (s.hazard ?? 0)), 1);
          expect(1 - survive).toBeCloseTo(e.accuracy, 12);
          expect(h[h.length - 1]!.cumulativeSolved).toBeCloseTo(e.accuracy, 12);
        }
      }
    }
  });
});

describe('invalid input', () => {
  const fns = [
    (d: LadderData) => perLevelAccuracy(d),
    (d: LadderData) => orderViolations(d),
    (d: LadderData) => tauLevelVsAccuracy(d),
    (d: LadderData) => earlyExitHpi(d),
    (d: LadderData) => hazardCurve(d),
    (d: LadderData) => validateLadderData(d),
  ];
  const bad: [string, LadderData][] = [
    ['empty units', { levels: 3, hpiDataset: 2, units: [] }],
    ['verdict count ≠ levels', { levels: 3, hpiDataset: 2, units: [{ sampleId: 'a', solved: [T, F] }] }],
    ['too many verdicts', { levels: 2, hpiDataset: 2, units: [{ sampleId: 'a', solved: [T, F, T] }] }],
    ['NaN hpiDataset', { levels: 2, hpiDataset: Number.NaN, units: [{ sampleId: 'a', solved: [T, F] }] }],
    ['infinite hpiDataset', { levels: 2, hpiDataset: Infinity, units: [{ sampleId: 'a', solved: [T, F] }] }],
    ['levels 0', { levels: 0, hpiDataset: 2, units: [{ sampleId: 'a', solved: [] }] }],
    ['fractional levels', { levels: 2.5, hpiDataset: 2, units: [{ sampleId: 'a', solved: [T, F] }] }],
    ['non-boolean verdict', { levels: 2, hpiDataset: 2, units: [{ sampleId: 'a', solved: [T, 1 as unknown as boolean] }] }],
    ['undefined verdict', { levels: 2, hpiDataset: 2, units: [{ sampleId: 'a', solved: [T, undefined as unknown as boolean] }] }],
    ['duplicate unit', { levels: 1, hpiDataset: 2, units: [{ sampleId: 'a', solved: [T] }, { sampleId: 'a', solved: [F] }] }],
    ['duplicate replicate', { levels: 1, hpiDataset: 2, units: [{ sampleId: 'a', replicate: 1, solved: [T] }, { sampleId: 'a', replicate: 1, solved: [F] }] }],
    ['negative replicate', { levels: 1, hpiDataset: 2, units: [{ sampleId: 'a', replicate: -1, solved: [T] }] }],
  ];
  it.each(bad)('%s throws RangeError from every function', (_, data) => {
    for (const fn of fns) expect(() => fn(data)).toThrow(RangeError);
  });

  it('accepts the same sample under different replicates', () => {
    expect(() => validateLadderData({ levels: 1, hpiDataset: 2, units: [{ sampleId: 'a', replicate: 0, solved: [T] }, { sampleId: 'a', replicate: 1, solved: [F] }] })).not.toThrow();
  });

  it('rejects bad ladders: empty, repeated, out of range, fractional', () => {
    for (const ladder of [[], [1, 1], [0], [4], [1.5], [2, Number.NaN]]) {
      expect(() => ladderPositions(3, ladder)).toThrow(RangeError);
      expect(() => earlyExitHpi(HAND, { ladder })).toThrow(RangeError);
      expect(() => hazardCurve(HAND, { ladder })).toThrow(RangeError);
      expect(() => orderViolations(HAND, { ladder })).toThrow(RangeError);
      expect(() => tauLevelVsAccuracy(HAND, { ladder })).toThrow(RangeError);
    }
    expect(ladderPositions(3)).toEqual([1, 2, 3]);
    expect(ladderPositions(5, [5, 1, 3])).toEqual([5, 1, 3]);
  });
});
