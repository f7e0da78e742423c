/**
 * Seeded bootstrap percentile intervals (`hpt-bench report`, `hpt-bench compare`). Everything here is pure and
 * deterministic for a seed: the resampling stream is a 32-bit mulberry32 generator seeded from a string hash of
 * `${seed}:${stream}`, so the interval of one run does not depend on which other runs are in the same report.
 */

import type { Interval } from '@hpt-bench/sdk';

/** A closed interval `[lo, hi]` (same unit as the estimate it belongs to; defined in the SDK). */
export type { Interval };

/** Bootstrap settings: `resamples` B (default 2000), `seed` (default 0), confidence `level` (default 0.95). */
export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  level?: number;
  /** names the random stream (e.g. a run id), so different quantities draw independent, reproducible streams */
  stream?: string;
}

/** Default number of bootstrap resamples (B = 2000). */
export const DEFAULT_RESAMPLES = 2000;

/** A point estimate with its bootstrap percentile interval (`ci` is null when there is nothing to resample). */
export interface Estimate {
  estimate: number;
  ci: Interval | null;
}

/** 32-bit string hash (xmur3 finaliser over FNV-1a); the seed of `mulberry32`. */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** mulberry32: a small, fast 32-bit PRNG; returns a function yielding uniform numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The `q`-quantile (0..1) of ascending `sorted` values, linear interpolation between order statistics (R type 7). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

function settings(options: BootstrapOptions): { b: number; level: number; random: () => number } {
  const b = Math.floor(options.resamples ?? DEFAULT_RESAMPLES);
  if (!(b >= 1)) throw new RangeError(`bootstrap resamples must be >= 1, got ${options.resamples}`);
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrap level must be in (0, 1), got ${level}`);
  return { b, level, random: mulberry32(hashSeed(`${options.seed ?? 0}:${options.stream ?? ''}`)) };
}

function interval(values: Float64Array, count: number, level: number): Interval | null {
  if (count === 0) return null;
  const v = values.subarray(0, count).sort();
  const alpha = (1 - level) / 2;
  return [quantile(v, alpha), quantile(v, 1 - alpha)];
}

/**
 * Ratio-of-sums estimates Σ num_k[i] / Σ den[i] over units i (one per numerator k), with bootstrap percentile
 * intervals: units are drawn with replacement, n per resample, the same draws for every numerator (so HPI and accuracy
 * of a run come from one resampling). With every `den` = 1 this is the bootstrap of a plain mean; a unit with `den` = 0
 * contributes nothing to either sum (a resample whose Σ den is 0 is skipped). Returns one `Estimate` per numerator;
 * `ci` is null when there are no units or Σ den = 0.
 * @throws RangeError when the arrays differ in length or the options are out of range.
 */
export function bootstrapRatios(nums: readonly ArrayLike<number>[], den: ArrayLike<number>, options: BootstrapOptions = {}): Estimate[] {
  const n = den.length;
  for (const num of nums) if (num.length !== n) throw new RangeError('bootstrap: numerator and denominator lengths differ');
  const { b, level, random } = settings(options);
  let denSum = 0;
  for (let i = 0; i < n; i++) denSum += den[i]!;
  const points = nums.map((num) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += num[i]!;
    return denSum > 0 ? s / denSum : Number.NaN;
  });
  if (n === 0 || denSum <= 0) return points.map((estimate) => ({ estimate: Number.isNaN(estimate) ? 0 : estimate, ci: null }));
  const k = nums.length;
  const stats = nums.map(() => new Float64Array(b));
  const sums = new Float64Array(k);
  let kept = 0;
  for (let r = 0; r < b; r++) {
    sums.fill(0);
    let d = 0;
    for (let j = 0; j < n; j++) {
      const i = Math.floor(random() * n);
      d += den[i]!;
      for (let m = 0; m < k; m++) sums[m]! += nums[m]![i]!;
    }
    if (d <= 0) continue;
    for (let m = 0; m < k; m++) stats[m]![kept] = sums[m]! / d;
    kept++;
  }
  return points.map((estimate, m) => ({ estimate, ci: interval(stats[m]!, kept, level) }));
}

/** Bootstrap of a plain mean (every unit weight 1): `bootstrapRatios([values], ones)`. */
export function bootstrapMean(values: ArrayLike<number>, options: BootstrapOptions = {}): Estimate {
  return bootstrapRatios([values], new Float64Array(values.length).fill(1), options)[0]!;
}
