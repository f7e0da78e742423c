/**
 * Cluster-robust standard errors for means over correlated units (`--replicates N`: each sample is climbed N times,
 * so its N units form one cluster). Pure functions; normal (z) intervals.
 *
 * Source: E. Miller (2024), "Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations",
 * arXiv:2411.00640, §2.2 (clustered standard errors); Liang & Zeger (1986), Biometrika 73:13–22; Cameron & Miller
 * (2015), "A Practitioner's Guide to Cluster-Robust Inference", J. Human Resources 50:317–372, §II.C (the C/(C − 1)
 * small-sample factor).
 */

import type { Interval } from '@hpt-bench/sdk';
import { normalQuantile } from './distributions.js';

/** Options of `clusteredMean`: confidence `level` in (0, 1) (default 0.95); `smallSample` C/(C − 1) factor (default true). */
export interface ClusteredOptions {
  level?: number;
  /**
   * multiply the clustered variance by C/(C − 1) (CR1, C = number of clusters; default true). With it, singleton
   * clusters give exactly the naive SE; without it, Miller's plain formula.
   */
  smallSample?: boolean;
}

/** Result of `clusteredMean`: mean and SEs in the unit of the values; intervals are [lo, hi] = mean ∓ z·SE. */
export interface ClusteredMean {
  mean: number;
  /** number of units */
  n: number;
  /** number of distinct clusters C */
  clusters: number;
  se: { naive: number; clustered: number };
  ci: { naive: Interval; clustered: Interval };
  /** (clustered SE / naive SE)², the design effect; null when the naive SE is 0 */
  designEffect: number | null;
}

/**
 * Mean of unit values with a naive and a cluster-robust standard error and normal confidence intervals.
 * Shapes: `values[i]` is unit i's value (e.g. its HPI level, or 1/0 solved), `clusters[i]` its cluster key (the sample
 * id; string or number, any order). n ≥ 2 units in C ≥ 2 clusters.
 * - naive SE = s/√n with the sample sd s (n − 1 denominator): right for independent units.
 * - clustered SE = √(F · Σ_c (Σ_{i∈c} (x_i − x̄))²) / n (Miller 2024 eq. 4), F = C/(C − 1) when `smallSample`
 *   (default) else 1. Valid when clusters are independent; units inside a cluster may be correlated.
 * - intervals: mean ± z_{(1+level)/2}·SE for both.
 * @throws RangeError when the lengths differ, n < 2, C < 2, a value is not finite, or level is outside (0, 1).
 */
export function clusteredMean(values: ArrayLike<number>, clusters: ArrayLike<string | number>, options: ClusteredOptions = {}): ClusteredMean {
  const n = values.length;
  if (clusters.length !== n) throw new RangeError(`clusteredMean: values and clusters differ in length (${n} vs ${clusters.length})`);
  if (n < 2) throw new RangeError(`clusteredMean: need at least 2 units, got ${n}`);
  const level = options.level ?? 0.95;
  if (typeof level !== 'number' || !(level > 0 && level < 1)) throw new RangeError(`clusteredMean: level must be in (0, 1), got ${level}`);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`clusteredMean: values[${i}] must be a finite number, got ${v}`);
    sum += v;
  }
  const mean = sum / n;
  const residualSums = new Map<string | number, number>();
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const key = clusters[i]!;
    if (typeof key === 'number' && Number.isNaN(key)) throw new RangeError(`clusteredMean: clusters[${i}] is NaN`);
    const r = values[i]! - mean;
    ss += r * r;
    residualSums.set(key, (residualSums.get(key) ?? 0) + r);
  }
  const c = residualSums.size;
  if (c < 2) throw new RangeError(`clusteredMean: need at least 2 clusters, got ${c}`);
  let between = 0;
  for (const s of residualSums.values()) between += s * s;
  const factor = (options.smallSample ?? true) ? c / (c - 1) : 1;
  const naive = Math.sqrt(ss / (n - 1) / n);
  const clustered = Math.sqrt(factor * between) / n;
  const z = normalQuantile((1 + level) / 2);
  return {
    mean,
    n,
    clusters: c,
    se: { naive, clustered },
    ci: { naive: [mean - z * naive, mean + z * naive], clustered: [mean - z * clustered, mean + z * clustered] },
    designEffect: naive > 0 ? (clustered / naive) ** 2 : null,
  };
}

/**
 * Paired version: the clustered mean of per-unit differences a[i] − b[i] (runs A and B on the same units, unit i of
 * both runs being the same sample and replicate), so the result is the mean difference (e.g. HPI(A) − HPI(B)) with
 * naive and cluster-robust SEs and intervals, exactly `clusteredMean(a − b, clusters, options)`.
 * Source: Miller (2024) §2.2 and §4 (paired differences).
 * @throws RangeError when the three lengths differ, or as `clusteredMean`.
 */
export function clusteredMeanDifference(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  clusters: ArrayLike<string | number>,
  options: ClusteredOptions = {},
): ClusteredMean {
  if (a.length !== b.length) throw new RangeError(`clusteredMeanDifference: a and b differ in length (${a.length} vs ${b.length})`);
  const d = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) d[i] = a[i]! - b[i]!;
  return clusteredMean(d, clusters, options);
}
