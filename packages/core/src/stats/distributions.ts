/**
 * Pure distribution functions for the statistics modules (`paired`, `clustered`, `power`): the standard normal CDF and
 * quantile, the complementary error function, log-gamma and the binomial pmf / cdf. No dependencies; every function is
 * deterministic and throws `RangeError` on invalid input.
 *
 * Sources: erfc by its Taylor series (Abramowitz & Stegun 7.1.6) below x = 2 and its continued fraction (A&S 7.1.14,
 * evaluated by the modified Lentz method, Numerical Recipes 3rd ed. §5.2) above; normal quantile by P. J. Acklam's
 * rational approximation (2003) refined by one Halley step; log-gamma by the Lanczos approximation (g = 7, n = 9;
 * Lanczos 1964, Numerical Recipes §6.1); binomial pmf by C. Loader (2000), "Fast and Accurate Computation of Binomial
 * Probabilities" (saddle-point form with `stirlerr` and `bd0`, as in R's `dbinom`).
 */

const SQRT2 = Math.SQRT2;
const SQRT_PI = Math.sqrt(Math.PI);
const LN_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

function assertFinite(name: string, x: number): void {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new RangeError(`${name} must be a finite number, got ${x}`);
}

function assertProbability(name: string, p: number, open: boolean): void {
  if (typeof p !== 'number' || Number.isNaN(p) || p < 0 || p > 1 || (open && (p === 0 || p === 1))) {
    throw new RangeError(`${name} must be in ${open ? '(0, 1)' : '[0, 1]'}, got ${p}`);
  }
}

/** erfc(x) for x >= 0, relative error around 1e-15 (series below 2, continued fraction above). */
function erfcNonNegative(x: number): number {
  if (x < 2) {
    // erf(x) = 2/√π · e^{-x²} · Σ_{k≥0} 2^k x^{2k+1} / (1·3·…·(2k+1))  (A&S 7.1.6; all terms positive)
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let k = 1; k < 500; k++) {
      term *= (2 * x2) / (2 * k + 1);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return 1 - ((2 / SQRT_PI) * Math.exp(-x2) * sum);
  }
  if (x > 27.3) return 0; // e^{-x²} underflows
  // erfc(x) = e^{-x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))  (A&S 7.1.14), modified Lentz
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const a = k / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = x + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / (SQRT_PI * f);
}

/**
 * Complementary error function erfc(x) = 1 − erf(x) = (2/√π)∫ₓ^∞ e^{−t²} dt, for any finite x (±Infinity give 0 / 2).
 * Absolute error below 1e-15; relative error below 1e-12 for x > 0 (checked against scipy down to 1e-300).
 * @throws RangeError when x is NaN.
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) throw new RangeError('erfc: x is NaN');
  if (x === Infinity) return 0;
  if (x === -Infinity) return 2;
  return x >= 0 ? erfcNonNegative(x) : 2 - erfcNonNegative(-x);
}

/**
 * Standard normal CDF Φ(z) = P(Z ≤ z), Z ~ N(0, 1), computed as erfc(−z/√2)/2 so that the lower tail keeps its
 * relative accuracy (Φ(−10) ≈ 7.6e-24). Absolute error below 1e-15. ±Infinity give 0 / 1.
 * @throws RangeError when z is NaN.
 */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) throw new RangeError('normalCdf: z is NaN');
  return 0.5 * erfc(-z / SQRT2);
}

/** Standard normal upper tail 1 − Φ(z) = Φ(−z), without cancellation for large z. @throws RangeError when z is NaN. */
export function normalSf(z: number): number {
  if (Number.isNaN(z)) throw new RangeError('normalSf: z is NaN');
  return 0.5 * erfc(z / SQRT2);
}

/** Standard normal density φ(z) = e^{−z²/2}/√(2π). @throws RangeError when z is NaN. */
export function normalPdf(z: number): number {
  if (Number.isNaN(z)) throw new RangeError('normalPdf: z is NaN');
  return Math.exp(-0.5 * z * z - LN_SQRT_2PI);
}

// Acklam's rational approximation coefficients (relative error 1.15e-9 before refinement)
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];

function acklam(p: number): number {
  const pLow = 0.02425;
  if (p < pLow) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) / ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) / (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1);
}

/**
 * Standard normal quantile Φ⁻¹(p): the z with Φ(z) = p. Acklam's approximation followed by one Halley step on the
 * lower tail (p ≤ 0.5; upper quantiles as −Φ⁻¹(1 − p), where 1 − p is exact), relative error around 1e-15.
 * p = 0 gives −Infinity and p = 1 gives +Infinity.
 * @throws RangeError when p is NaN or outside [0, 1].
 */
export function normalQuantile(p: number): number {
  assertProbability('normalQuantile: p', p, false);
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  if (p > 0.5) return -normalQuantile(1 - p);
  const x = acklam(p);
  // Halley: e = Φ(x) − p, u = e·√(2π)·e^{x²/2}, x ← x − u/(1 + x·u/2)
  const e = normalCdf(x) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/**
 * ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9), relative error around 1e-15; ln Γ(1) = ln Γ(2) = 0 exactly.
 * @throws RangeError when x is not a finite number > 0.
 */
export function logGamma(x: number): number {
  assertFinite('logGamma: x', x);
  if (!(x > 0)) throw new RangeError(`logGamma: x must be > 0, got ${x}`);
  if (x === 1 || x === 2) return 0;
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x); // reflection
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i);
  return LN_SQRT_2PI + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Loader's stirlerr(n) = ln Γ(n+1) − (n+½)ln n + n − ln√(2π) (the Stirling-formula error), n > 0. */
function stirlerr(n: number): number {
  if (n > 15) {
    const nn = n * n;
    return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * nn)) / nn) / nn) / nn) / n;
  }
  return logGamma(n + 1) - (n + 0.5) * Math.log(n) + n - LN_SQRT_2PI;
}

/** Loader's bd0(x, np) = x·ln(x/np) + np − x, with a series near x = np to avoid cancellation. */
function bd0(x: number, np: number): number {
  if (Math.abs(x - np) < 0.1 * (x + np)) {
    const v = (x - np) / (x + np);
    let s = (x - np) * v;
    let ej = 2 * x * v;
    const v2 = v * v;
    for (let j = 1; j < 1000; j++) {
      ej *= v2;
      const s1 = s + ej / (2 * j + 1);
      if (s1 === s) return s1;
      s = s1;
    }
    return s;
  }
  return x * Math.log(x / np) + np - x;
}

function assertBinomialArgs(fn: string, n: number, p: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`${fn}: n must be an integer >= 0, got ${n}`);
  assertProbability(`${fn}: p`, p, false);
}

/**
 * ln P(X = k) for X ~ Binomial(n, p): Loader's (2000) saddle-point formula, relative error of the log about 1e-12 or
 * better for n up to millions. Returns −Infinity when the probability is 0 (k outside 0..n, or p ∈ {0, 1} with k not
 * the sure value).
 * @throws RangeError when n is not a non-negative integer, p is outside [0, 1], or k is not an integer.
 */
export function binomialLogPmf(k: number, n: number, p: number): number {
  assertBinomialArgs('binomialLogPmf', n, p);
  if (!Number.isInteger(k)) throw new RangeError(`binomialLogPmf: k must be an integer, got ${k}`);
  if (k < 0 || k > n) return -Infinity;
  const q = 1 - p;
  if (p === 0) return k === 0 ? 0 : -Infinity;
  if (p === 1) return k === n ? 0 : -Infinity;
  if (k === 0) return n * Math.log1p(-p);
  if (k === n) return n * Math.log(p);
  const lc = stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(k, n * p) - bd0(n - k, n * q);
  const lf = Math.log(2 * Math.PI) + Math.log(k) + Math.log1p(-k / n);
  return lc - 0.5 * lf;
}

/** P(X = k) for X ~ Binomial(n, p) (see `binomialLogPmf`). @throws RangeError as `binomialLogPmf`. */
export function binomialPmf(k: number, n: number, p: number): number {
  return Math.exp(binomialLogPmf(k, n, p));
}

/** ln Σ exp(terms), stable (the largest term factored out); −Infinity for no terms. */
function logSumExp(terms: number[]): number {
  let max = -Infinity;
  for (const t of terms) if (t > max) max = t;
  if (max === -Infinity) return -Infinity;
  let s = 0;
  for (const t of terms) s += Math.exp(t - max);
  return max + Math.log(s);
}

/**
 * P(X ≤ k) for X ~ Binomial(n, p), summing the pmf in log space (log-sum-exp) over the shorter side: the lower tail
 * directly when k < n·p, else 1 − P(X > k). Exact up to floating rounding (relative error around 1e-12 in the lower tail)
 * for n up to several thousand; O(n) time. k < 0 gives 0, k ≥ n gives 1; non-integer k is floored.
 * @throws RangeError when n is not a non-negative integer, p is outside [0, 1] or k is NaN.
 */
export function binomialCdf(k: number, n: number, p: number): number {
  assertBinomialArgs('binomialCdf', n, p);
  if (Number.isNaN(k)) throw new RangeError('binomialCdf: k is NaN');
  const kk = Math.floor(k);
  if (kk < 0) return 0;
  if (kk >= n) return 1;
  if (kk < n * p) {
    const terms: number[] = [];
    for (let i = 0; i <= kk; i++) terms.push(binomialLogPmf(i, n, p));
    return Math.min(1, Math.exp(logSumExp(terms)));
  }
  const terms: number[] = [];
  for (let i = kk + 1; i <= n; i++) terms.push(binomialLogPmf(i, n, p));
  return Math.max(0, 1 - Math.exp(logSumExp(terms)));
}

/**
 * Upper tail P(X² > x) of the chi-square distribution with 1 degree of freedom: erfc(√(x/2)) = 2·Φ(−√x).
 * x ≤ 0 gives 1.
 * @throws RangeError when x is NaN.
 */
export function chiSquare1Sf(x: number): number {
  if (Number.isNaN(x)) throw new RangeError('chiSquare1Sf: x is NaN');
  if (x <= 0) return 1;
  return erfc(Math.sqrt(x / 2));
}
