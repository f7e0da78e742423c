/**
 * Cluster-robust standard errors (Miller 2024 §2.2): a hand-worked example, the equivalent double-sum form of the
 * estimator, singleton clusters reducing to the naive SE, the paired version, and a seeded coverage simulation of
 * HPI with replicates (the Done-means of the issue): the clustered 95% interval covers the analytic expected HPI in
 * 94–96% of datasets, the naive interval does the same for independent units, and under-covers for correlated replicates.
 */
import { describe, expect, it } from 'vitest';
import { hashSeed, mulberry32 } from '../../packages/core/src/report/bootstrap.js';
import { clusteredMean, clusteredMeanDifference } from '../../packages/core/src/stats/clustered.js';

const Z975 = 1.959963984540054; // R: qnorm(0.975)

describe('clusteredMean', () => {
  it('hand-worked: [1..6] in clusters aa bb cc', () => {
    // mean 3.5; residual sums per cluster −4, 0, 4 → Σ = 32; naive sd² = 17.5/5 = 3.5
    const r = clusteredMean([1, 2, 3, 4, 5, 6], ['a', 'a', 'b', 'b', 'c', 'c']);
    expect(r.mean).toBe(3.5);
    expect(r.n).toBe(6);
    expect(r.clusters).toBe(3);
    expect(r.se.naive).toBeCloseTo(Math.sqrt(3.5 / 6), 15);
    expect(r.se.clustered).toBeCloseTo(Math.sqrt((3 / 2) * 32) / 6, 15); // with C/(C − 1) = 3/2: 1.154701
    expect(r.designEffect).toBeCloseTo((48 / 36) / (3.5 / 6), 13);
    expect(r.ci.clustered[0]).toBeCloseTo(3.5 - Z975 * Math.sqrt(48) / 6, 12);
    expect(r.ci.clustered[1]).toBeCloseTo(3.5 + Z975 * Math.sqrt(48) / 6, 12);
    expect(r.ci.naive[0]).toBeCloseTo(3.5 - Z975 * Math.sqrt(3.5 / 6), 12);
    const plain = clusteredMean([1, 2, 3, 4, 5, 6], ['a', 'a', 'b', 'b', 'c', 'c'], { smallSample: false, level: 0.9 });
    expect(plain.se.clustered).toBeCloseTo(Math.sqrt(32) / 6, 15); // Miller eq. 4 without the factor: 0.942809
    expect(plain.ci.clustered[1] - plain.mean).toBeCloseTo(1.6448536269514722 * Math.sqrt(32) / 6, 12);
  });

  it('equals the double-sum form Σ_c Σ_{i,j∈c} r_i r_j / n² (clusters given in any order)', () => {
    const random = mulberry32(99);
    for (let t = 0; t < 50; t++) {
      const n = 5 + Math.floor(random() * 60);
      const values = Array.from({ length: n }, () => random() * 10 - 3);
      const clusters = Array.from({ length: n }, () => Math.floor(random() * 8));
      const c = new Set(clusters).size;
      if (c < 2) continue;
      const mean = values.reduce((s, v) => s + v, 0) / n;
      let cross = 0;
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (clusters[i] === clusters[j]) cross += (values[i]! - mean) * (values[j]! - mean);
      const r = clusteredMean(values, clusters, { smallSample: false });
      expect(r.se.clustered).toBeCloseTo(Math.sqrt(cross) / n, 12);
      expect(clusteredMean(values, clusters).se.clustered).toBeCloseTo(Math.sqrt((c / (c - 1)) * cross) / n, 12);
    }
  });

  it('singleton clusters give exactly the naive SE (with the C/(C − 1) factor)', () => {
    const values = [2.5, 1, 7.14, 3, 1, 1, 2, 7.14];
    const r = clusteredMean(values, values.map((_, i) => i));
    expect(r.se.clustered).toBeCloseTo(r.se.naive, 14);
    expect(r.designEffect).toBeCloseTo(1, 13);
  });

  it('paired differences: same as clusteredMean of a − b', () => {
    const a = [1, 2, 7.14, 1, 3, 3];
    const b = [2, 2, 3, 1, 7.14, 4];
    const cl = ['s1', 's1', 's2', 's2', 's3', 's3'];
    const r = clusteredMeanDifference(a, b, cl);
    // d = −1, 0, 4.14, 0, −4.14, −1 → mean −1/3; residual sums −1 + 2/3 = −1/3, 4.14 + 2/3, −5.14 + 2/3
    const sums = [-1 / 3, 4.14 + 2 / 3, -5.14 + 2 / 3];
    expect(r.mean).toBeCloseTo(-1 / 3, 15);
    expect(r.se.clustered).toBeCloseTo(Math.sqrt(1.5 * sums.reduce((s, v) => s + v * v, 0)) / 6, 14);
    expect(() => clusteredMeanDifference([1, 2], [1], ['a', 'b'])).toThrow(RangeError);
    expect(() => clusteredMeanDifference([1, Number.NaN], [1, 2], ['a', 'b'])).toThrow(RangeError);
  });

  it('rejects invalid input with RangeError', () => {
    expect(() => clusteredMean([1, 2, 3], ['a', 'b'])).toThrow(RangeError);
    expect(() => clusteredMean([1], ['a'])).toThrow(RangeError);
    expect(() => clusteredMean([1, 2], ['a', 'a'])).toThrow(RangeError);
    expect(() => clusteredMean([1, Number.NaN], ['a', 'b'])).toThrow(RangeError);
    expect(() => clusteredMean([1, 2], ['a', 'b'], { level: 1 })).toThrow(RangeError);
    expect(() => clusteredMean([1, 2], ['a', 'b'], { level: 0 })).toThrow(RangeError);
    expect(() => clusteredMean([1, 2], ['a', 'b'], { level: Number.NaN })).toThrow(RangeError);
    expect(() => clusteredMean([1, 2], [1, Number.NaN])).toThrow(RangeError);
  });
});

/**
 * HPI simulation: m = 5 ladder levels, HPI_Dataset = 2.14 (unsolved = 7.14). Each sample has a latent difficulty type
 * (easy / medium / hard, drawn once per sample) with a per-level conditional solve probability (the chance to be
 * solved at level l given not solved before); every replicate of the sample climbs the ladder with the same type, so
 * replicates of a sample are correlated. The expected HPI follows analytically.
 */
const M = 5;
const HPI_DATASET = 2.14;
const TYPES = [
  { share: 0.4, hazard: [0.8, 0.5, 0.5, 0.5, 0.5] },
  { share: 0.35, hazard: [0.3, 0.3, 0.3, 0.3, 0.3] },
  { share: 0.25, hazard: [0.03, 0.03, 0.03, 0.03, 0.03] },
];

function expectedHpi(): number {
  let total = 0;
  for (const t of TYPES) {
    let alive = 1;
    let e = 0;
    for (let l = 1; l <= M; l++) {
      e += l * alive * t.hazard[l - 1]!;
      alive *= 1 - t.hazard[l - 1]!;
    }
    e += (M + HPI_DATASET) * alive;
    total += t.share * e;
  }
  return total;
}

function simulateCoverage(datasets: number, samples: number, replicates: number, seed: string): { clustered: number; naive: number } {
  const random = mulberry32(hashSeed(seed));
  const truth = expectedHpi();
  const n = samples * replicates;
  const values = new Float64Array(n);
  const clusters = new Int32Array(n);
  let coveredClustered = 0;
  let coveredNaive = 0;
  for (let d = 0; d < datasets; d++) {
    for (let s = 0; s < samples; s++) {
      const u = random();
      const type = u < TYPES[0]!.share ? TYPES[0]! : u < TYPES[0]!.share + TYPES[1]!.share ? TYPES[1]! : TYPES[2]!;
      for (let r = 0; r < replicates; r++) {
        let hpi = M + HPI_DATASET;
        for (let l = 1; l <= M; l++) {
          if (random() < type.hazard[l - 1]!) {
            hpi = l;
            break;
          }
        }
        values[s * replicates + r] = hpi;
        clusters[s * replicates + r] = s;
      }
    }
    const res = clusteredMean(values, clusters);
    if (res.ci.clustered[0] <= truth && truth <= res.ci.clustered[1]) coveredClustered++;
    if (res.ci.naive[0] <= truth && truth <= res.ci.naive[1]) coveredNaive++;
  }
  return { clustered: coveredClustered / datasets, naive: coveredNaive / datasets };
}

describe('coverage simulation (seeded)', () => {
  it('the analytic expected HPI matches a large simulation', () => {
    // 200,000 independent climbs; the sd of one climb is below 3, so the SE is below 0.007
    const random = mulberry32(hashSeed('truth'));
    let s = 0;
    const draws = 200_000;
    for (let i = 0; i < draws; i++) {
      const u = random();
      const type = u < 0.4 ? TYPES[0]! : u < 0.75 ? TYPES[1]! : TYPES[2]!;
      let hpi = M + HPI_DATASET;
      for (let l = 1; l <= M; l++) if (random() < type.hazard[l - 1]!) { hpi = l; break; }
      s += hpi;
    }
    expect(Math.abs(s / draws - expectedHpi())).toBeLessThan(0.025);
  });

  // 200 samples per dataset: with 100 the normal (z) interval's own small-sample shortfall puts coverage near 94.5%,
  // too close to the 94% edge for a seed-independent check; 10,000 datasets give a coverage SE of 0.22 points
  it('replicates = 4: the clustered 95% interval covers in 94–96% of 10,000 datasets; the naive one under-covers', () => {
    const cov = simulateCoverage(10_000, 200, 4, 'replicates-4');
    expect(cov.clustered).toBeGreaterThanOrEqual(0.94);
    expect(cov.clustered).toBeLessThanOrEqual(0.96);
    expect(cov.naive).toBeLessThan(0.9);
  });

  it('replicates = 1 (independent units): the naive 95% interval covers in 94–96% of 10,000 datasets', () => {
    const cov = simulateCoverage(10_000, 200, 1, 'replicates-1');
    expect(cov.naive).toBeGreaterThanOrEqual(0.94);
    expect(cov.naive).toBeLessThanOrEqual(0.96);
    expect(Math.abs(cov.clustered - cov.naive)).toBeLessThan(1e-9); // singleton clusters: the same interval
  });
});
