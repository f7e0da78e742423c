/**
 * Paired comparisons of two runs on the same samples (`hpt-bench compare`): McNemar's exact test for solved/unsolved
 * pairs, a sign-flip permutation test for per-sample differences (e.g. per-sample HPI), paired effect sizes, Holm and
 * Bonferroni adjustment, and the unpaired two-proportion z-test (to show what pairing gains; lm-eval issue #3868).
 * Pure and deterministic (seeded randomness only).
 */

import { hashSeed, mulberry32 } from '../report/bootstrap.js';
import { binomialCdf, chiSquare1Sf, normalSf } from './distributions.js';

function assertCount(name: string, x: number): void {
  if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) throw new RangeError(`${name} must be an integer >= 0, got ${x}`);
}

function assertFiniteArray(name: string, xs: ArrayLike<number>): void {
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i]!;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`${name}[${i}] must be a finite number, got ${v}`);
  }
}

/** Result of `mcnemarExact`. Probabilities are in [0, 1]; `accuracyDiff` is a share (A minus B), not percent. */
export interface McNemarResult {
  /** pairs solved by A only */
  b: number;
  /** pairs solved by B only */
  c: number;
  /** discordant pairs b + c */
  discordant: number;
  /** exact two-sided p-value min(1, 2·P(X ≤ min(b, c))), X ~ Binomial(b + c, ½); 1 when b + c = 0 */
  pExact: number;
  /** continuity-corrected chi-square statistic max(0, |b − c| − 1)² / (b + c); 0 when b + c = 0 */
  statistic: number;
  /** upper tail of chi-square(1) at `statistic` (1 when b + c = 0) */
  pAsymptotic: number;
  /** b / c; Infinity when c = 0 < b; null when b = c = 0 (undefined) */
  oddsRatio: number | null;
  /** (b − c) / n, the paired accuracy difference acc(A) − acc(B); null when `n` was not given */
  accuracyDiff: number | null;
}

/**
 * McNemar's test for paired binary outcomes (solved / unsolved of runs A and B on the same n samples).
 * Inputs: `b` = pairs solved by A only, `c` = pairs solved by B only (non-negative integers), optional `n` = total pairs
 * (integer ≥ b + c) for the accuracy difference. The exact p-value is the two-sided conditional binomial test
 * (as R's `binom.test(b, b + c)` and `exact2x2`); the asymptotic one uses the continuity-corrected statistic
 * (|b − c| − 1)²/(b + c) of Edwards (1948), clamped at 0 when b = c (R's `mcnemar.test` does not clamp, so it differs
 * only when b = c).
 * Source: McNemar (1947), Psychometrika 12:153–157; Agresti, Categorical Data Analysis (3rd ed.) §11.1.
 * @throws RangeError when b, c or n is not a non-negative integer, or n < b + c.
 */
export function mcnemarExact(b: number, c: number, n?: number): McNemarResult {
  assertCount('mcnemarExact: b', b);
  assertCount('mcnemarExact: c', c);
  if (n !== undefined) {
    assertCount('mcnemarExact: n', n);
    if (n < b + c) throw new RangeError(`mcnemarExact: n (${n}) must be >= b + c (${b + c})`);
  }
  const d = b + c;
  const pExact = d === 0 ? 1 : Math.min(1, 2 * binomialCdf(Math.min(b, c), d, 0.5));
  const statistic = d === 0 ? 0 : Math.max(0, Math.abs(b - c) - 1) ** 2 / d;
  const pAsymptotic = d === 0 ? 1 : chiSquare1Sf(statistic);
  const oddsRatio = d === 0 ? null : c === 0 ? Infinity : b / c;
  const accuracyDiff = n === undefined ? null : n === 0 ? 0 : (b - c) / n;
  return { b, c, discordant: d, pExact, statistic, pAsymptotic, oddsRatio, accuracyDiff };
}

/** Options of `signFlipTest`: Monte Carlo `resamples` B (default 10000), `seed` (default 0) and random `stream` name. */
export interface SignFlipOptions {
  resamples?: number;
  seed?: number;
  stream?: string;
}

/** Result of `signFlipTest`: the observed mean difference (unit of the inputs), the two-sided p-value, and how it was got. */
export interface SignFlipResult {
  meanDiff: number;
  p: number;
  /** true when all 2^k sign assignments were enumerated (k ≤ 20 nonzero differences) */
  exact: boolean;
  /** sign assignments evaluated: 2^k when exact, B when Monte Carlo */
  resamples: number;
}

/** Largest number of nonzero differences whose 2^k sign assignments are enumerated exactly. */
export const SIGN_FLIP_EXACT_MAX = 20;

/**
 * Paired permutation (sign-flip) test of H0: mean(diff) = 0, two-sided, for per-pair differences `diffs` (e.g. per-sample
 * HPI of A minus B; any finite unit). Under H0 each difference is symmetric about 0, so its sign is exchangeable.
 * Zero differences do not change the statistic and are left out of the enumeration. With k ≤ 20 nonzero differences
 * all 2^k assignments are enumerated (p = share with |Σ s·d| ≥ |Σ d|); otherwise B random assignments (seeded mulberry32
 * stream `${seed}:${stream}`) give p = (count + 1)/(B + 1) (Phipson & Smyth 2010). A resampled sum counts as extreme when
 * |S*| ≥ |S_obs| − 1e-12·Σ|d| (ties within rounding count). Empty or all-zero input gives p = 1.
 * Source: Fisher (1935), The Design of Experiments §21; Good, Permutation Tests (2nd ed.) §3.
 * @throws RangeError when a difference is not finite or `resamples` is not an integer ≥ 1.
 */
export function signFlipTest(diffs: ArrayLike<number>, options: SignFlipOptions = {}): SignFlipResult {
  assertFiniteArray('signFlipTest: diffs', diffs);
  const b = options.resamples ?? 10000;
  if (!Number.isInteger(b) || b < 1) throw new RangeError(`signFlipTest: resamples must be an integer >= 1, got ${b}`);
  const n = diffs.length;
  const nz: number[] = [];
  let total = 0;
  let scale = 0;
  for (let i = 0; i < n; i++) {
    const v = diffs[i]!;
    total += v;
    if (v !== 0) {
      nz.push(v);
      scale += Math.abs(v);
    }
  }
  const meanDiff = n === 0 ? 0 : total / n;
  const k = nz.length;
  if (k === 0) return { meanDiff, p: 1, exact: true, resamples: 1 };
  let observed = 0;
  for (const v of nz) observed += v;
  const threshold = Math.abs(observed) - 1e-12 * scale;
  if (k <= SIGN_FLIP_EXACT_MAX) {
    // meet in the middle: every sum is (sum over a sign pattern of the first half) + (one of the second half)
    const h = k >> 1;
    const sums = (from: number, to: number): Float64Array => {
      const len = to - from;
      const out = new Float64Array(1 << len);
      for (let mask = 0; mask < out.length; mask++) {
        let s = 0;
        for (let j = 0; j < len; j++) s += (mask >> j) & 1 ? -nz[from + j]! : nz[from + j]!;
        out[mask] = s;
      }
      return out;
    };
    const left = sums(0, h);
    const right = sums(h, k);
    let count = 0;
    for (let i = 0; i < left.length; i++) {
      const l = left[i]!;
      for (let j = 0; j < right.length; j++) if (Math.abs(l + right[j]!) >= threshold) count++;
    }
    const all = 2 ** k;
    return { meanDiff, p: Math.min(1, count / all), exact: true, resamples: all };
  }
  const random = mulberry32(hashSeed(`${options.seed ?? 0}:${options.stream ?? ''}`));
  let count = 0;
  for (let r = 0; r < b; r++) {
    let s = 0;
    for (let j = 0; j < k; j++) s += random() < 0.5 ? -nz[j]! : nz[j]!;
    if (Math.abs(s) >= threshold) count++;
  }
  return { meanDiff, p: (count + 1) / (b + 1), exact: false, resamples: b };
}

/** Paired effect sizes of per-pair differences (unit of the inputs, e.g. HPI levels). */
export interface PairedEffect {
  n: number;
  /** mean difference d̄ */
  meanDiff: number;
  /** sample standard deviation of the differences (n − 1 denominator); null when n < 2 */
  sdDiff: number | null;
  /** Cohen's d_z = d̄ / sd; null when n < 2 or sd = 0 */
  dz: number | null;
}

/**
 * Per-pair differences a[i] − b[i] of two runs on the same samples, in sample order (same unit as the inputs).
 * @throws RangeError when the lengths differ or a value is not finite.
 */
export function pairedDifferences(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  if (a.length !== b.length) throw new RangeError(`pairedDifferences: lengths differ (${a.length} vs ${b.length})`);
  assertFiniteArray('pairedDifferences: a', a);
  assertFiniteArray('pairedDifferences: b', b);
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! - b[i]!;
  return out;
}

/**
 * Effect sizes of paired differences `diffs` (e.g. per-sample HPI of A minus B; lower HPI is better, so a negative
 * mean favours A): mean, sample sd (n − 1) and Cohen's d_z = mean / sd.
 * Source: Cohen, Statistical Power Analysis for the Behavioral Sciences (2nd ed., 1988) §2.3.5; Lakens (2013),
 * Front. Psychol. 4:863, eq. 4.
 * @throws RangeError when `diffs` is empty or holds a non-finite value.
 */
export function pairedEffectSize(diffs: ArrayLike<number>): PairedEffect {
  const n = diffs.length;
  if (n === 0) throw new RangeError('pairedEffectSize: no differences');
  assertFiniteArray('pairedEffectSize: diffs', diffs);
  let s = 0;
  for (let i = 0; i < n; i++) s += diffs[i]!;
  const meanDiff = s / n;
  if (n < 2) return { n, meanDiff, sdDiff: null, dz: null };
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (diffs[i]! - meanDiff) ** 2;
  const sdDiff = Math.sqrt(ss / (n - 1));
  // an sd that is rounding noise relative to the values counts as 0 (all differences equal)
  const dz = sdDiff <= 1e-14 * Math.max(1, Math.abs(meanDiff)) ? null : meanDiff / sdDiff;
  return { n, meanDiff, sdDiff, dz };
}

function assertPValues(fn: string, ps: ArrayLike<number>): void {
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    if (typeof p !== 'number' || Number.isNaN(p) || p < 0 || p > 1) throw new RangeError(`${fn}: p-value [${i}] must be in [0, 1], got ${p}`);
  }
}

/**
 * Holm–Bonferroni adjusted p-values (step-down): with p sorted ascending p₍₁₎ ≤ … ≤ p₍ₘ₎,
 * p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1)·p₍ⱼ₎); returned in the input order (as R's `p.adjust(p, "holm")`).
 * Reject H₍ᵢ₎ at family-wise level α when p̃₍ᵢ₎ ≤ α. Empty input gives an empty array.
 * Source: Holm (1979), Scand. J. Statist. 6:65–70.
 * @throws RangeError when a p-value is NaN or outside [0, 1].
 */
export function holm(pValues: ArrayLike<number>): number[] {
  assertPValues('holm', pValues);
  const m = pValues.length;
  const order = Array.from({ length: m }, (_, i) => i).sort((i, j) => pValues[i]! - pValues[j]! || i - j);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach((idx, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[idx]!));
    out[idx] = running;
  });
  return out;
}

/**
 * Bonferroni adjusted p-values min(1, m·p), in the input order (as R's `p.adjust(p, "bonferroni")`).
 * Source: Dunn (1961), JASA 56:52–64.
 * @throws RangeError when a p-value is NaN or outside [0, 1].
 */
export function bonferroni(pValues: ArrayLike<number>): number[] {
  assertPValues('bonferroni', pValues);
  const m = pValues.length;
  return Array.from({ length: m }, (_, i) => Math.min(1, m * pValues[i]!));
}

/** Result of `twoProportionZ`: shares (not percent), pooled share, z statistic and two-sided p-value. */
export interface TwoProportionResult {
  p1: number;
  p2: number;
  /** p1 − p2 */
  diff: number;
  /** pooled share (x1 + x2)/(n1 + n2) */
  pooled: number;
  /** (p1 − p2)/√(p̂(1 − p̂)(1/n1 + 1/n2)); 0 when the pooled share is 0 or 1 */
  z: number;
  /** 2·(1 − Φ(|z|)) */
  p: number;
}

/**
 * Unpaired pooled two-proportion z-test (two-sided) of H0: π1 = π2 for x1 successes of n1 and x2 of n2 (the same as
 * R's `prop.test(c(x1, x2), c(n1, n2), correct = FALSE)`, whose X² = z²). It ignores pairing: for two runs on the same
 * samples use `mcnemarExact`, which is usually far more powerful (lm-eval issue #3868: p = 0.008 paired vs 0.080 unpaired).
 * Source: Agresti, Categorical Data Analysis (3rd ed.) §3.1.3; Fleiss, Levin & Paik (2003) §2.3.
 * @throws RangeError when a count is not a non-negative integer, n1 or n2 is 0, or x > n.
 */
export function twoProportionZ(x1: number, n1: number, x2: number, n2: number): TwoProportionResult {
  assertCount('twoProportionZ: x1', x1);
  assertCount('twoProportionZ: n1', n1);
  assertCount('twoProportionZ: x2', x2);
  assertCount('twoProportionZ: n2', n2);
  if (n1 === 0 || n2 === 0) throw new RangeError('twoProportionZ: n1 and n2 must be >= 1');
  if (x1 > n1 || x2 > n2) throw new RangeError('twoProportionZ: successes exceed trials');
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const z = se === 0 ? 0 : (p1 - p2) / se;
  return { p1, p2, diff: p1 - p2, pooled, z, p: Math.min(1, 2 * normalSf(Math.abs(z))) };
}
