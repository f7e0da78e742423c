/**
 * Sample-size planning for paired comparisons of two runs on the same samples: a mean difference (e.g. per-sample HPI)
 * by the paired z-test, and an accuracy difference by McNemar's test. Normal approximations; defaults α = 0.05
 * (two-sided) and power 0.8. Pure functions.
 *
 * Sources: Chow, Shao & Wang, Sample Size Calculations in Clinical Research (2nd ed., 2008) §3.1 (paired means);
 * Connor (1987), "Sample size for testing differences in proportions for the paired-sample design", Biometrics
 * 43:207–211 (McNemar).
 */

import { normalCdf, normalQuantile } from './distributions.js';

/** Test settings: two-sided significance `alpha` in (0, 1) (default 0.05) and target `power` in (0, 1) (default 0.8). */
export interface PowerSettings {
  alpha?: number;
  power?: number;
}

/**
 * The spread of paired differences: either `sdDiff` (σ_d, sd of per-sample differences) or the per-run sds `sdA`, `sdB`
 * with their correlation `rho` in [−1, 1] (σ_d² = σ_A² + σ_B² − 2ρσ_Aσ_B). Same unit as `delta`.
 */
export type DiffSpread = { sdDiff: number } | { sdA: number; sdB: number; rho: number };

/** Input of the mean-difference planners: the difference `delta` to detect (≠ 0, unit of the values) and its spread. */
export type MeanDifferenceInput = { delta: number } & DiffSpread & PowerSettings;

function checkAlpha(alpha: number): void {
  if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
}

function settings(s: PowerSettings): { alpha: number; power: number } {
  const alpha = s.alpha ?? 0.05;
  const power = s.power ?? 0.8;
  checkAlpha(alpha);
  if (typeof power !== 'number' || !(power > 0 && power < 1)) throw new RangeError(`power must be in (0, 1), got ${power}`);
  return { alpha, power };
}

function checkDelta(delta: number): void {
  if (typeof delta !== 'number' || !Number.isFinite(delta) || delta === 0) throw new RangeError(`delta must be a finite nonzero number, got ${delta}`);
}

/**
 * σ_d = √(σ_A² + σ_B² − 2ρσ_Aσ_B), the sd of the difference of two correlated variables (unit of the sds).
 * @throws RangeError when an sd is negative or not finite, rho is outside [−1, 1], or σ_d would be 0.
 */
export function sdOfDifference(sdA: number, sdB: number, rho: number): number {
  for (const [name, v] of [['sdA', sdA], ['sdB', sdB]] as const) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`${name} must be a finite number >= 0, got ${v}`);
  }
  if (typeof rho !== 'number' || Number.isNaN(rho) || rho < -1 || rho > 1) throw new RangeError(`rho must be in [-1, 1], got ${rho}`);
  const v = sdA * sdA + sdB * sdB - 2 * rho * sdA * sdB;
  if (!(v > 1e-24 * Math.max(1, sdA * sdA + sdB * sdB))) throw new RangeError('sd of the difference is 0 (rho = 1 with equal sds): nothing to plan');
  return Math.sqrt(v);
}

function spread(input: DiffSpread): number {
  if ('sdDiff' in input) {
    const s = input.sdDiff;
    if (typeof s !== 'number' || !Number.isFinite(s) || !(s > 0)) throw new RangeError(`sdDiff must be a finite number > 0, got ${s}`);
    return s;
  }
  return sdOfDifference(input.sdA, input.sdB, input.rho);
}

function checkN(n: number): void {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new RangeError(`n must be an integer >= 1, got ${n}`);
}

/**
 * Power of the two-sided paired z-test at level α with n pairs, for a true mean difference δ and sd of differences σ_d:
 * Φ(√n·|δ|/σ_d − z_{1−α/2}) (the far rejection tail, below 1e-6 at usual settings, is ignored, as in the
 * sample-size formula). Returns a probability in (0, 1).
 * @throws RangeError when n is not an integer ≥ 1, delta is 0 or not finite, the spread is invalid, or α ∉ (0, 1).
 */
export function powerForMeanDifference(n: number, input: { delta: number } & DiffSpread & { alpha?: number }): number {
  checkN(n);
  checkDelta(input.delta);
  const alpha = input.alpha ?? 0.05;
  checkAlpha(alpha);
  const sd = spread(input);
  return normalCdf((Math.sqrt(n) * Math.abs(input.delta)) / sd - normalQuantile(1 - alpha / 2));
}

/**
 * Pairs needed to detect a mean difference δ with the two-sided paired z-test:
 * n = ⌈((z_{1−α/2} + z_{power})·σ_d/δ)²⌉ (Chow, Shao & Wang 2008, §3.1), the smallest n with
 * `powerForMeanDifference(n) ≥ power` (checked after rounding). For per-sample HPI, σ_d comes from a pilot
 * comparison (sd of per-sample HPI differences) or from per-run sds and their correlation.
 * @throws RangeError when delta is 0 or not finite, the spread is invalid, or alpha / power is outside (0, 1).
 */
export function samplesForMeanDifference(input: MeanDifferenceInput): number {
  checkDelta(input.delta);
  const { alpha, power } = settings(input);
  const sd = spread(input);
  const raw = ((normalQuantile(1 - alpha / 2) + normalQuantile(power)) * sd / input.delta) ** 2;
  let n = Math.max(1, Math.ceil(raw));
  const pw = (m: number) => powerForMeanDifference(m, { ...input, alpha });
  while (pw(n) < power) n++;
  while (n > 1 && pw(n - 1) >= power) n--;
  return n;
}

/**
 * Default discordance ψ when none is known: 0.5 + δ²/2, the largest share of discordant pairs two *independent* runs
 * whose accuracies differ by δ can have (at accuracies ½ ± δ/2). Runs of models on the same items are positively
 * correlated, so real ψ is usually smaller and this default is conservative (plans more samples than needed).
 */
export function defaultDiscordance(delta: number): number {
  return 0.5 + (delta * delta) / 2;
}

/**
 * Input of the McNemar planners: `delta` = π₁₀ − π₀₁, the accuracy difference acc(A) − acc(B) to detect (share, 0 < |δ| < 1);
 * `discordance` ψ = π₁₀ + π₀₁, the probability that a sample is solved by exactly one run (|δ| ≤ ψ ≤ 1); when omitted,
 * `defaultDiscordance(delta)`.
 */
export type PairedProportionsInput = { delta: number; discordance?: number } & PowerSettings;

function discordanceOf(delta: number, discordance: number | undefined): number {
  if (typeof delta !== 'number' || Number.isNaN(delta) || !(Math.abs(delta) > 0 && Math.abs(delta) < 1)) {
    throw new RangeError(`delta must satisfy 0 < |delta| < 1, got ${delta}`);
  }
  const psi = discordance ?? defaultDiscordance(delta);
  if (typeof psi !== 'number' || Number.isNaN(psi) || psi < Math.abs(delta) || psi > 1) {
    throw new RangeError(`discordance must be in [|delta|, 1] = [${Math.abs(delta)}, 1], got ${psi}`);
  }
  return psi;
}

/**
 * Power of the two-sided McNemar test (normal approximation, Connor 1987) with n pairs:
 * Φ((|δ|√n − z_{1−α/2}√ψ) / √(ψ − δ²)).
 * @throws RangeError when n is not an integer ≥ 1, |δ| ∉ (0, 1), ψ ∉ [|δ|, 1] or α ∉ (0, 1).
 */
export function powerForPairedProportions(n: number, input: { delta: number; discordance?: number; alpha?: number }): number {
  checkN(n);
  const psi = discordanceOf(input.delta, input.discordance);
  const alpha = input.alpha ?? 0.05;
  checkAlpha(alpha);
  const d = Math.abs(input.delta);
  return normalCdf((d * Math.sqrt(n) - normalQuantile(1 - alpha / 2) * Math.sqrt(psi)) / Math.sqrt(psi - d * d));
}

/**
 * Pairs needed to detect an accuracy difference δ with McNemar's test (Connor 1987, eq. 3):
 * n = ⌈(z_{1−α/2}·√ψ + z_{power}·√(ψ − δ²))² / δ²⌉, the smallest n with `powerForPairedProportions(n) ≥ power`.
 * ψ is the discordant-pair probability; pass the observed share of a pilot comparison, otherwise the conservative
 * `defaultDiscordance(delta)` = 0.5 + δ²/2 is used.
 * @throws RangeError when |δ| ∉ (0, 1), ψ ∉ [|δ|, 1], or alpha / power is outside (0, 1).
 */
export function samplesForPairedProportions(input: PairedProportionsInput): number {
  const psi = discordanceOf(input.delta, input.discordance);
  const { alpha, power } = settings(input);
  const d = Math.abs(input.delta);
  const raw = (normalQuantile(1 - alpha / 2) * Math.sqrt(psi) + normalQuantile(power) * Math.sqrt(psi - d * d)) ** 2 / (d * d);
  let n = Math.max(1, Math.ceil(raw));
  const pw = (m: number) => powerForPairedProportions(m, { delta: input.delta, discordance: psi, alpha });
  while (pw(n) < power) n++;
  while (n > 1 && pw(n - 1) >= power) n--;
  return n;
}
