/**
 * HPI_Dataset sensitivity (packages/core/src/stats/sensitivity.ts): HPI lines, the grid of HPIs and ranks, and the
 * exact crossovers. Expected values are worked out by hand, or recomputed here from the units directly (mean of
 * hp_j = level or m + h) and checked just left / right of each crossover.
 */
import { describe, expect, it } from 'vitest';
import { hashSeed, mulberry32 } from '../../packages/core/src/report/bootstrap.js';
import { hpiDatasetSensitivity, hpiLine, type SensitivityModel } from '../../packages/core/src/stats/sensitivity.js';

const units = (levels: (number | null)[]) => levels.map((level) => ({ level }));

/**
 * m = 5. X: levels 1 1 – – → HPI = (1 + 1 + 2·(5 + h))/4 = 3 + h/2.  Y: 2 3 4 – → (9 + 5 + h)/4 = 3.5 + h/4.
 * Z: 1 2 3 4 → 2.5. X = Y at h = 2 (HPI 4): X better below, Y above. Z meets X at h = −1 and Y at h = −4 (outside).
 */
const X: SensitivityModel = { label: 'X', levels: 5, units: units([1, 1, null, null]) };
const Y: SensitivityModel = { label: 'Y', levels: 5, units: units([2, 3, 4, null]) };
const Z: SensitivityModel = { label: 'Z', levels: 5, units: units([1, 2, 3, 4]) };

/** HPI straight from the definition: mean of hp_j = level, or m + h when unsolved. */
function directHpi(model: SensitivityModel, h: number): number {
  return model.units.reduce((acc, u) => acc + (u.level === null ? model.levels + h : u.level), 0) / model.units.length;
}

/** Average rank (1 = lowest): 1 + #strictly lower + #other ties / 2. */
function bruteRanks(values: number[], tol = 1e-9): number[] {
  return values.map((v, i) => {
    const lower = values.filter((w) => w < v - tol).length;
    const ties = values.filter((w, j) => j !== i && Math.abs(w - v) <= tol).length;
    return 1 + lower + ties / 2;
  });
}

describe('hpiLine', () => {
  it('gives intercept, slope and accuracy by hand', () => {
    expect(hpiLine(X)).toEqual({ label: 'X', levels: 5, n: 4, intercept: 3, slope: 0.5, accuracy: 0.5 });
    expect(hpiLine(Y)).toEqual({ label: 'Y', levels: 5, n: 4, intercept: 3.5, slope: 0.25, accuracy: 0.75 });
    expect(hpiLine(Z)).toEqual({ label: 'Z', levels: 5, n: 4, intercept: 2.5, slope: 0, accuracy: 1 });
  });

  it('uses each model’s own m (a 3-level ladder: penalty 3 + h)', () => {
    const line = hpiLine({ label: 'short', levels: 3, units: units([2, null]) });
    expect(line.intercept).toBe((2 + 3) / 2);
    expect(line.slope).toBe(0.5);
  });
});

describe('hpiDatasetSensitivity', () => {
  it('works the X / Y / Z example on [0, 4] with 5 steps', () => {
    const s = hpiDatasetSensitivity([X, Y, Z], { range: [0, 4], steps: 5 });
    expect(s.grid.map((g) => g.hpiDataset)).toEqual([0, 1, 2, 3, 4]);
    expect(s.grid.map((g) => g.hpi)).toEqual([
      [3, 3.5, 2.5],
      [3.5, 3.75, 2.5],
      [4, 4, 2.5],
      [4.5, 4.25, 2.5],
      [5, 4.5, 2.5],
    ]);
    expect(s.grid.map((g) => g.rank)).toEqual([
      [2, 3, 1],
      [2, 3, 1],
      [2.5, 2.5, 1],
      [3, 2, 1],
      [3, 2, 1],
    ]);
    expect(s.crossovers).toEqual([{ hpiDataset: 2, models: ['X', 'Y'], hpi: 4, below: 'X', above: 'Y' }]);
    expect(s.changes).toEqual([2]);
    expect(s.identical).toEqual([]);
  });

  it('finds the Z crossings once the range reaches them, ends included', () => {
    const s = hpiDatasetSensitivity([X, Y, Z], { range: [-4, 2], steps: 7 });
    // X–Z at −1 (X better below: 3 − 0.5 < 2.5), Y–Z at −4 (the lower end), X–Y at 2 (the upper end)
    expect(s.crossovers.map((c) => [c.hpiDataset, c.models, c.below, c.above])).toEqual([
      [-4, ['Y', 'Z'], 'Y', 'Z'],
      [-1, ['X', 'Z'], 'X', 'Z'],
      [2, ['X', 'Y'], 'X', 'Y'],
    ]);
    expect(s.changes).toEqual([-4, -1, 2]);
    // at h = −3: X 1.5, Y 2.75, Z 2.5 → X 1, Z 2, Y 3
    expect(s.grid[1]!.hpiDataset).toBe(-3);
    expect(s.grid[1]!.rank).toEqual([1, 3, 2]);
  });

  it('reports identical lines as always tied, never crossing; parallel lines never cross', () => {
    const W: SensitivityModel = { label: 'W', levels: 5, units: units([null, 1, null, 1]) }; // same line as X
    const P: SensitivityModel = { label: 'P', levels: 5, units: units([2, 2, null, null]) }; // 3.5 + h/2, parallel to X
    const s = hpiDatasetSensitivity([X, W, P], { range: [0, 10], steps: 3 });
    expect(s.identical).toEqual([['X', 'W']]);
    expect(s.crossovers).toEqual([]);
    expect(s.changes).toEqual([]);
    for (const g of s.grid) expect(g.rank).toEqual([1.5, 1.5, 3]);
  });

  it('ends the grid exactly at hi and spaces it evenly', () => {
    const s = hpiDatasetSensitivity([X], { range: [0.1, 0.7], steps: 4 });
    [0.1, 0.3, 0.5, 0.7].forEach((h, i) => expect(s.grid[i]!.hpiDataset).toBeCloseTo(h, 12));
    expect(s.grid[3]!.hpiDataset).toBe(0.7);
    expect(s.grid.map((g) => g.rank)).toEqual([[1], [1], [1], [1]]);
  });

  it('on random models: grid HPIs and ranks match the definition; each crossover swaps the pair just left/right of it', () => {
    const rnd = mulberry32(hashSeed('sensitivity'));
    let checked = 0;
    for (let t = 0; t < 20; t++) {
      const models: SensitivityModel[] = Array.from({ length: 2 + Math.floor(rnd() * 5) }, (_, k) => {
        const m = 3 + Math.floor(rnd() * 3);
        const skill = rnd();
        const n = 5 + Math.floor(rnd() * 30);
        const levels = Array.from({ length: n }, () => (rnd() < skill ? 1 + Math.floor(rnd() * m) : null));
        return { label: `M${k}`, levels: m, units: units(levels) };
      });
      const [lo, hi] = [rnd() * 2, 2 + rnd() * 4];
      const s = hpiDatasetSensitivity(models, { range: [lo, hi], steps: 9 });
      s.grid.forEach((g, i) => {
        expect(g.hpiDataset).toBeCloseTo(lo + ((hi - lo) * i) / 8, 12);
        const direct = models.map((model) => directHpi(model, g.hpiDataset));
        g.hpi.forEach((v, j) => expect(v).toBeCloseTo(direct[j]!, 10));
        expect(g.rank).toEqual(bruteRanks(direct));
      });
      for (const c of s.crossovers) {
        const [a, b] = c.models.map((label) => models.find((model) => model.label === label)!);
        expect(directHpi(a!, c.hpiDataset)).toBeCloseTo(directHpi(b!, c.hpiDataset), 10);
        expect(c.hpiDataset).toBeGreaterThanOrEqual(lo);
        expect(c.hpiDataset).toBeLessThanOrEqual(hi);
        const eps = 1e-6;
        const better = (h: number) => (directHpi(a!, h) < directHpi(b!, h) ? a!.label : b!.label);
        expect(better(c.hpiDataset - eps)).toBe(c.below);
        expect(better(c.hpiDataset + eps)).toBe(c.above);
        expect(c.below).not.toBe(c.above);
        checked++;
      }
      // no crossing missed: a pair whose order differs at the two ends has a crossover between them
      for (let i = 0; i < models.length; i++) {
        for (let j = i + 1; j < models.length; j++) {
          const dLo = directHpi(models[i]!, lo) - directHpi(models[j]!, lo);
          const dHi = directHpi(models[i]!, hi) - directHpi(models[j]!, hi);
          const found = s.crossovers.some((c) => c.models[0] === models[i]!.label && c.models[1] === models[j]!.label);
          if (dLo * dHi < 0) expect(found).toBe(true);
          if (dLo * dHi > 0) expect(found).toBe(false);
        }
      }
      const sorted = [...s.changes].sort((p, q) => p - q);
      expect(s.changes).toEqual(sorted);
    }
    expect(checked).toBeGreaterThan(5); // the random models do cross
  });

  it('rejects invalid input with RangeError', () => {
    const ok = { range: [0, 4] as [number, number], steps: 5 };
    expect(() => hpiDatasetSensitivity([], ok)).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([X, { ...Y, label: 'X' }], ok)).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([{ label: 'e', levels: 5, units: [] }], ok)).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([{ label: 'b', levels: 5, units: units([6]) }], ok)).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([{ label: 'b', levels: 5, units: units([0]) }], ok)).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([{ label: 'b', levels: 5, units: units([1.5]) }], ok)).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([{ label: 'b', levels: 5, units: [{ level: undefined as unknown as null }] }], ok)).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([{ label: 'b', levels: 0, units: units([null]) }], ok)).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([X], { range: [4, 0], steps: 5 })).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([X], { range: [1, 1], steps: 5 })).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([X], { range: [Number.NaN, 1], steps: 5 })).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([X], { range: [0, Infinity], steps: 5 })).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([X], { range: [0, 1], steps: 1 })).toThrow(RangeError);
    expect(() => hpiDatasetSensitivity([X], { range: [0, 1], steps: 2.5 })).toThrow(RangeError);
  });
});
