/**
 * Sample-size planning: hand-computed textbook values (z quantiles from R's qnorm), the planned n being the smallest n
 * whose closed-form power reaches the target, and seeded Monte Carlo checks that the empirical power at the planned n is
 * within 2 points of 80% (paired normal differences; McNemar pairs).
 */
import { describe, expect, it } from 'vitest';
import { hashSeed, mulberry32 } from '../../packages/core/src/report/bootstrap.js';
import {
  defaultDiscordance,
  powerForMeanDifference,
  powerForPairedProportions,
  samplesForMeanDifference,
  samplesForPairedProportions,
  sdOfDifference,
} from '../../packages/core/src/stats/power.js';

const Z975 = 1.959963984540054; // qnorm(0.975)
const Z80 = 0.8416212335729143; // qnorm(0.8)

/** Standard normal draws by Box–Muller from a seeded uniform stream. */
function normals(random: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const u = 1 - random();
    const v = random();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

describe('samplesForMeanDifference', () => {
  it('δ = 0.1, σ_d = 0.5: n = ⌈(1.959964 + 0.841621)²·25⌉ = ⌈196.22⌉ = 197', () => {
    expect(((Z975 + Z80) * 5) ** 2).toBeCloseTo(196.222, 3);
    expect(samplesForMeanDifference({ delta: 0.1, sdDiff: 0.5 })).toBe(197);
    expect(samplesForMeanDifference({ delta: -0.1, sdDiff: 0.5 })).toBe(197);
  });

  it('from per-run sds and correlation: σ_A = σ_B = 1, ρ = 0.5 gives σ_d = 1; δ = 0.2 → 197', () => {
    expect(sdOfDifference(1, 1, 0.5)).toBeCloseTo(1, 15);
    expect(sdOfDifference(3, 4, 0)).toBeCloseTo(5, 15);
    expect(sdOfDifference(1, 1, -1)).toBeCloseTo(2, 15);
    expect(samplesForMeanDifference({ delta: 0.2, sdA: 1, sdB: 1, rho: 0.5 })).toBe(197);
  });

  it('α = 0.01, power 0.9: ⌈(2.575829 + 1.281552)²·25⌉ = ⌈371.98⌉ = 372', () => {
    expect(samplesForMeanDifference({ delta: 0.1, sdDiff: 0.5, alpha: 0.01, power: 0.9 })).toBe(372);
  });

  it('the planned n reaches the target power under Φ(√n·|δ|/σ − z) and n − 1 does not', () => {
    const random = mulberry32(5);
    for (let t = 0; t < 300; t++) {
      const delta = 0.01 + random();
      const sdDiff = 0.1 + 3 * random();
      const alpha = [0.01, 0.05, 0.1][t % 3]!;
      const power = [0.8, 0.9, 0.95, 0.5][t % 4]!;
      const n = samplesForMeanDifference({ delta, sdDiff, alpha, power });
      const zAlpha = { 0.01: 2.5758293035489004, 0.05: Z975, 0.1: 1.6448536269514722 }[alpha]!;
      // by hand: √n·δ/σ − z_α ≥ z_power  ⇔  power(n) ≥ target
      const zPower = { 0.8: Z80, 0.9: 1.2815515655446004, 0.95: 1.6448536269514722, 0.5: 0 }[power]!;
      expect(Math.sqrt(n) * delta / sdDiff - zAlpha).toBeGreaterThanOrEqual(zPower - 1e-9);
      if (n > 1) expect(Math.sqrt(n - 1) * delta / sdDiff - zAlpha).toBeLessThan(zPower + 1e-9);
      expect(powerForMeanDifference(n, { delta, sdDiff, alpha })).toBeGreaterThanOrEqual(power);
      if (n > 1) expect(powerForMeanDifference(n - 1, { delta, sdDiff, alpha })).toBeLessThan(power);
    }
  });

  it('power at n = 197 is Φ(√197·0.2 − 1.959964) = Φ(0.847170) = 0.801550 (R: pnorm)', () => {
    expect(powerForMeanDifference(197, { delta: 0.1, sdDiff: 0.5 })).toBeCloseTo(0.8015497538272747, 12);
  });

  it('Monte Carlo: 4,000 paired normal datasets at n = 197 reject in 78–82% (z-test with the sample sd)', () => {
    const z = normals(mulberry32(hashSeed('power-mc')));
    const n = samplesForMeanDifference({ delta: 0.1, sdDiff: 0.5 });
    let rejections = 0;
    const runs = 4000;
    for (let r = 0; r < runs; r++) {
      let s = 0;
      let ss = 0;
      for (let i = 0; i < n; i++) {
        const d = 0.1 + 0.5 * z();
        s += d;
        ss += d * d;
      }
      const mean = s / n;
      const sd = Math.sqrt((ss - n * mean * mean) / (n - 1));
      if (Math.abs(mean / (sd / Math.sqrt(n))) > Z975) rejections++;
    }
    expect(Math.abs(rejections / runs - 0.8)).toBeLessThan(0.02);
  });

  it('rejects invalid input with RangeError', () => {
    expect(() => samplesForMeanDifference({ delta: 0, sdDiff: 1 })).toThrow(RangeError);
    expect(() => samplesForMeanDifference({ delta: Number.NaN, sdDiff: 1 })).toThrow(RangeError);
    expect(() => samplesForMeanDifference({ delta: 0.1, sdDiff: 0 })).toThrow(RangeError);
    expect(() => samplesForMeanDifference({ delta: 0.1, sdDiff: 1, alpha: 0 })).toThrow(RangeError);
    expect(() => samplesForMeanDifference({ delta: 0.1, sdDiff: 1, alpha: 1 })).toThrow(RangeError);
    expect(() => samplesForMeanDifference({ delta: 0.1, sdDiff: 1, alpha: Number.NaN })).toThrow(RangeError);
    expect(() => samplesForMeanDifference({ delta: 0.1, sdDiff: 1, power: 1 })).toThrow(RangeError);
    expect(() => samplesForMeanDifference({ delta: 0.1, sdA: 1, sdB: 1, rho: 1 })).toThrow(RangeError);
    expect(() => samplesForMeanDifference({ delta: 0.1, sdA: 1, sdB: 1, rho: 1.5 })).toThrow(RangeError);
    expect(() => samplesForMeanDifference({ delta: 0.1, sdA: -1, sdB: 1, rho: 0 })).toThrow(RangeError);
    expect(() => powerForMeanDifference(0, { delta: 0.1, sdDiff: 1 })).toThrow(RangeError);
    expect(() => powerForMeanDifference(2.5, { delta: 0.1, sdDiff: 1 })).toThrow(RangeError);
  });
});

describe('samplesForPairedProportions (McNemar, Connor 1987)', () => {
  it('δ = 0.1, ψ = 0.3: n = ⌈(1.959964·√0.3 + 0.841621·√0.29)²/0.01⌉ = ⌈233.09⌉ = 234', () => {
    const raw = (Z975 * Math.sqrt(0.3) + Z80 * Math.sqrt(0.29)) ** 2 / 0.01;
    expect(raw).toBeCloseTo(233.0945, 3);
    expect(samplesForPairedProportions({ delta: 0.1, discordance: 0.3 })).toBe(234);
    expect(samplesForPairedProportions({ delta: -0.1, discordance: 0.3 })).toBe(234);
  });

  it('default discordance 0.5 + δ²/2 (independent runs at ½ ± δ/2): δ = 0.05 → ⌈1571.34⌉ = 1572', () => {
    expect(defaultDiscordance(0.05)).toBeCloseTo(0.50125, 15);
    // independence check: accuracies 0.525 and 0.475 → P(exactly one solves) = 0.525·0.525 + 0.475·0.475
    expect(defaultDiscordance(0.05)).toBeCloseTo(0.525 * 0.525 + 0.475 * 0.475, 15);
    expect(samplesForPairedProportions({ delta: 0.05 })).toBe(1572);
    // smaller discordance (correlated runs) needs fewer pairs
    expect(samplesForPairedProportions({ delta: 0.05, discordance: 0.15 })).toBeLessThan(1572);
  });

  it('the planned n reaches the target power and n − 1 does not', () => {
    const random = mulberry32(11);
    for (let t = 0; t < 300; t++) {
      const delta = 0.01 + 0.5 * random();
      const discordance = delta + (1 - delta) * random();
      const alpha = [0.01, 0.05][t % 2]!;
      const power = [0.8, 0.9][t % 3 === 0 ? 1 : 0]!;
      const n = samplesForPairedProportions({ delta, discordance, alpha, power });
      const zAlpha = alpha === 0.01 ? 2.5758293035489004 : Z975;
      const zPower = power === 0.9 ? 1.2815515655446004 : Z80;
      // by hand: (|δ|√n − z_α√ψ)/√(ψ − δ²) ≥ z_power
      const stat = (m: number) => (delta * Math.sqrt(m) - zAlpha * Math.sqrt(discordance)) / Math.sqrt(discordance - delta * delta);
      expect(stat(n)).toBeGreaterThanOrEqual(zPower - 1e-9);
      if (n > 1) expect(stat(n - 1)).toBeLessThan(zPower + 1e-9);
      expect(powerForPairedProportions(n, { delta, discordance, alpha })).toBeGreaterThanOrEqual(power);
      if (n > 1) expect(powerForPairedProportions(n - 1, { delta, discordance, alpha })).toBeLessThan(power);
    }
  });

  it('Monte Carlo: 4,000 McNemar comparisons at the planned n = 234 reject in 78–82%', () => {
    // π₁₀ = 0.2 (A only), π₀₁ = 0.1 (B only): δ = 0.1, ψ = 0.3; test (b − c)/√(b + c) against 1.959964
    const random = mulberry32(hashSeed('mcnemar-mc'));
    const n = samplesForPairedProportions({ delta: 0.1, discordance: 0.3 });
    let rejections = 0;
    const runs = 4000;
    for (let r = 0; r < runs; r++) {
      let b = 0;
      let c = 0;
      for (let i = 0; i < n; i++) {
        const u = random();
        if (u < 0.2) b++;
        else if (u < 0.3) c++;
      }
      if (b + c > 0 && Math.abs(b - c) / Math.sqrt(b + c) > Z975) rejections++;
    }
    expect(Math.abs(rejections / runs - 0.8)).toBeLessThan(0.02);
  });

  it('rejects invalid input with RangeError', () => {
    expect(() => samplesForPairedProportions({ delta: 0 })).toThrow(RangeError);
    expect(() => samplesForPairedProportions({ delta: 1 })).toThrow(RangeError);
    expect(() => samplesForPairedProportions({ delta: Number.NaN })).toThrow(RangeError);
    expect(() => samplesForPairedProportions({ delta: 0.2, discordance: 0.1 })).toThrow(RangeError);
    expect(() => samplesForPairedProportions({ delta: 0.2, discordance: 1.1 })).toThrow(RangeError);
    expect(() => samplesForPairedProportions({ delta: 0.2, discordance: 0.5, alpha: 1.5 })).toThrow(RangeError);
    expect(() => samplesForPairedProportions({ delta: 0.2, discordance: 0.5, power: 0 })).toThrow(RangeError);
    expect(() => powerForPairedProportions(0, { delta: 0.2 })).toThrow(RangeError);
  });
});
