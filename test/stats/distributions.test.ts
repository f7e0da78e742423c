/**
 * Distribution functions of the stats modules against independent references: published normal-table values
 * (R `pnorm`/`qnorm`, 16 digits), Simpson integration of the normal density, exact BigInt binomial sums, and log
 * factorials summed term by term.
 */
import { describe, expect, it } from 'vitest';
import {
  binomialCdf,
  binomialLogPmf,
  binomialPmf,
  chiSquare1Sf,
  erfc,
  logGamma,
  normalCdf,
  normalPdf,
  normalQuantile,
  normalSf,
} from '../../packages/core/src/stats/distributions.js';
import { exactBinomialCdf, exactBinomialPmf } from './helpers.js';

/** R: pnorm(z) (equal to scipy.stats.norm.cdf to the printed digits). */
const PNORM: [number, number][] = [
  [-10, 7.61985302416047e-24],
  [-5, 2.866515718791933e-7],
  [-3, 0.0013498980316300933],
  [-1.96, 0.024997895148220435],
  [-1, 0.15865525393145707],
  [0, 0.5],
  [0.5, 0.6914624612740131],
  [1, 0.8413447460685429],
  [1.96, 0.9750021048517795],
  [3, 0.9986501019683699],
];

/** R: qnorm(p). */
const QNORM: [number, number][] = [
  [1e-10, -6.361340902404056],
  [0.001, -3.090232306167813],
  [0.01, -2.3263478740408408],
  [0.025, -1.9599639845400545],
  [0.05, -1.6448536269514729],
  [0.1, -1.2815515655446004],
  [0.2, -0.8416212335729142],
  [0.8, 0.8416212335729143],
  [0.9, 1.2815515655446004],
  [0.975, 1.959963984540054],
  [0.995, 2.5758293035489004],
];

describe('normal distribution', () => {
  it('matches pnorm table values (relative error < 1e-12)', () => {
    for (const [z, p] of PNORM) expect(Math.abs(normalCdf(z) - p) / p).toBeLessThan(1e-12);
    for (const [z, p] of PNORM) expect(Math.abs(normalSf(-z) - p) / p).toBeLessThan(1e-12);
  });

  it('matches Simpson integration of the density from 0 (absolute error < 1e-13)', () => {
    // Φ(z) − ½ = ∫₀^z e^{−t²/2}/√(2π) dt, composite Simpson with 2000 panels (error ~1e-16 here)
    const phi = (t: number) => Math.exp(-t * t / 2) / Math.sqrt(2 * Math.PI);
    for (let z = -6; z <= 6; z += 0.37) {
      const m = 2000;
      const h = z / m;
      let s = phi(0) + phi(z);
      for (let i = 1; i < m; i++) s += (i % 2 ? 4 : 2) * phi(i * h);
      expect(Math.abs(normalCdf(z) - (0.5 + (s * h) / 3))).toBeLessThan(1e-13);
    }
  });

  it('density, erfc identities and limits', () => {
    expect(normalPdf(0)).toBeCloseTo(0.3989422804014327, 15);
    expect(erfc(0)).toBe(1);
    expect(erfc(1) + erfc(-1)).toBeCloseTo(2, 15);
    expect(erfc(0.5)).toBeCloseTo(0.4795001221869535, 15); // A&S table 7.1
    expect(erfc(3)).toBeCloseTo(2.209049699858544e-5, 18);
    expect(normalCdf(Infinity)).toBe(1);
    expect(normalCdf(-Infinity)).toBe(0);
    expect(normalCdf(-40)).toBe(0);
  });

  it('quantile matches qnorm table values and inverts the CDF', () => {
    for (const [p, z] of QNORM) expect(Math.abs(normalQuantile(p) - z)).toBeLessThan(1e-12 * Math.max(1, Math.abs(z)));
    for (let e = -300; e <= -1; e += 7) {
      const p = 10 ** e;
      expect(Math.abs(normalCdf(normalQuantile(p)) - p) / p).toBeLessThan(1e-12);
    }
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
  });

  it('chi-square(1) upper tail at the 5% critical value 3.841459 is 0.05', () => {
    expect(chiSquare1Sf(3.841458820694124)).toBeCloseTo(0.05, 14);
    expect(chiSquare1Sf(6.634896601021214)).toBeCloseTo(0.01, 14);
    expect(chiSquare1Sf(0)).toBe(1);
  });

  it('rejects invalid input with RangeError', () => {
    expect(() => normalCdf(Number.NaN)).toThrow(RangeError);
    expect(() => normalQuantile(Number.NaN)).toThrow(RangeError);
    expect(() => normalQuantile(-0.1)).toThrow(RangeError);
    expect(() => normalQuantile(1.1)).toThrow(RangeError);
    expect(() => erfc(Number.NaN)).toThrow(RangeError);
  });
});

describe('log-gamma', () => {
  it('equals ln((x−1)!) summed term by term, and ln √π at ½', () => {
    for (const n of [1, 2, 3, 5, 10, 20, 50, 171, 1000]) {
      let s = 0;
      for (let i = 2; i < n; i++) s += Math.log(i);
      expect(Math.abs(logGamma(n) - s)).toBeLessThan(1e-13 * Math.max(1, s));
    }
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 14);
    expect(logGamma(0.1)).toBeCloseTo(2.252712651734206, 13); // R lgamma(0.1)
    expect(() => logGamma(0)).toThrow(RangeError);
    expect(() => logGamma(Number.NaN)).toThrow(RangeError);
  });
});

describe('binomial distribution', () => {
  it('pmf and cdf equal exact BigInt sums (n = 30, p = 0.3 and 0.5)', () => {
    for (const [a, b] of [[3, 10], [1, 2]] as const) {
      for (let k = 0; k <= 30; k++) {
        const pmf = exactBinomialPmf(k, 30, a, b);
        expect(Math.abs(binomialPmf(k, 30, a / b) - pmf) / pmf).toBeLessThan(1e-12);
        const cdf = exactBinomialCdf(k, 30, a, b);
        expect(Math.abs(binomialCdf(k, 30, a / b) - cdf) / cdf).toBeLessThan(1e-12);
      }
    }
  });

  it('lower tails stay exact for n in the thousands (n = 2000, p = ½, down to 1e-41; n = 3000, p = 0.01)', () => {
    for (const k of [700, 850, 950, 990, 1000]) {
      const exact = exactBinomialCdf(k, 2000, 1, 2);
      expect(Math.abs(binomialCdf(k, 2000, 0.5) - exact) / exact).toBeLessThan(1e-11);
    }
    for (const k of [0, 10, 25, 30]) {
      const exact = exactBinomialCdf(k, 3000, 1, 100);
      expect(Math.abs(binomialCdf(k, 3000, 0.01) - exact) / exact).toBeLessThan(1e-11);
    }
    expect(Math.abs(binomialCdf(1100, 2000, 0.5) - exactBinomialCdf(1100, 2000, 1, 2))).toBeLessThan(1e-13);
  });

  it('handles the edges', () => {
    expect(binomialCdf(-1, 10, 0.5)).toBe(0);
    expect(binomialCdf(10, 10, 0.5)).toBe(1);
    expect(binomialCdf(0, 0, 0.5)).toBe(1);
    expect(binomialPmf(0, 5, 0)).toBe(1);
    expect(binomialPmf(5, 5, 1)).toBe(1);
    expect(binomialLogPmf(6, 5, 0.5)).toBe(-Infinity);
    expect(binomialPmf(3, 3, 0.5)).toBeCloseTo(0.125, 15);
    expect(() => binomialCdf(1, 2.5, 0.5)).toThrow(RangeError);
    expect(() => binomialCdf(1, 5, 1.5)).toThrow(RangeError);
    expect(() => binomialCdf(Number.NaN, 5, 0.5)).toThrow(RangeError);
    expect(() => binomialPmf(1.5, 5, 0.5)).toThrow(RangeError);
  });
});
