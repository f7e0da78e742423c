/** Independent exact references for the stats tests: BigInt binomial coefficients and exact rationals as numbers. */

/** C(n, k) as an exact BigInt. */
export function choose(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}

/** num / den (BigInts, den > 0) to a double with ~60 bits kept, for any magnitude. */
export function ratio(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const shift = den.toString(2).length - num.toString(2).length + 64;
  const q = shift >= 0 ? (num << BigInt(shift)) / den : num / (den << BigInt(-shift));
  return Number(q) * 2 ** -shift;
}

/** Exact P(X ≤ k), X ~ Binomial(n, a/b) with integers a ≤ b, as a double (terms built incrementally). */
export function exactBinomialCdf(k: number, n: number, a: number, b: number): number {
  const last = Math.min(k, n);
  const A = BigInt(a);
  const Q = BigInt(b - a);
  const qPow: bigint[] = [1n];
  for (let j = 1; j <= n; j++) qPow.push(qPow[j - 1]! * Q);
  let num = 0n;
  let coef = 1n; // C(n, i)
  let aPow = 1n; // a^i
  for (let i = 0; i <= last; i++) {
    num += coef * aPow * qPow[n - i]!;
    coef = (coef * BigInt(n - i)) / BigInt(i + 1);
    aPow *= A;
  }
  return ratio(num, BigInt(b) ** BigInt(n));
}

/** Exact P(X = k), X ~ Binomial(n, a/b), as a double. */
export function exactBinomialPmf(k: number, n: number, a: number, b: number): number {
  return ratio(choose(n, k) * BigInt(a) ** BigInt(k) * BigInt(b - a) ** BigInt(n - k), BigInt(b) ** BigInt(n));
}
