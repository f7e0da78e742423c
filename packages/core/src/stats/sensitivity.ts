/**
 * Sensitivity of HPI rankings to the HPI_Dataset penalty constant.
 *
 * Source: HPI = mean hp_j with hp_j = solving level, or m + HPI_Dataset when unsolved (`hpt.md` §2.1; the constants
 * of §2.4 are human estimates, e.g. 2.14 for GSM8K, so their effect on a comparison is worth seeing). For a model
 * with n units, solving levels ℓ_j on the solved ones and a share u unsolved, HPI(h) = a + u·h with
 * a = (Σ ℓ_j + n_unsolved · m) / n: linear in h = HPI_Dataset, so two models' order can change at most once, at the
 * exact crossing h* = (a_B − a_A) / (u_A − u_B).
 *
 * Pure functions, no I/O.
 */

/**
 * One model's ordinary (early-exit) results: a `label` (unique among the models), its ladder length `levels` m
 * (integer ≥ 1), and one entry per unit with `level` = the level (1..m) that solved it, or `null` when none did —
 * the shape of the SDK's `SampleUnit` (replicates are separate units; HPI is the mean over units).
 */
export interface SensitivityModel {
  label: string;
  levels: number;
  units: readonly { level: number | null }[];
}

/** The HPI_Dataset range `[lo, hi]` (finite, lo < hi) and the number of evenly spaced grid points `steps` (integer ≥ 2, both ends included). */
export interface SensitivityOptions {
  range: readonly [number, number];
  steps: number;
}

/** One model's HPI line: HPI(h) = `intercept` + `slope`·h; `slope` = unsolved share, `accuracy` = 1 − slope, `n` units. */
export interface HpiLine {
  label: string;
  levels: number;
  n: number;
  intercept: number;
  slope: number;
  accuracy: number;
}

/** One grid point: the HPI_Dataset value `hpiDataset`, and per model (in input order) its `hpi` and `rank` (1 = lowest HPI; tied models share the mean of their ranks). */
export interface SensitivityPoint {
  hpiDataset: number;
  hpi: number[];
  rank: number[];
}

/**
 * Where two models' HPI lines cross inside the range: `hpiDataset` h*, the two `models` labels (input order), the
 * common `hpi` there, and which model is better (lower HPI) just `below` h* and just `above` it (the one with the
 * smaller unsolved share wins above).
 */
export interface Crossover {
  hpiDataset: number;
  models: [string, string];
  hpi: number;
  below: string;
  above: string;
}

/**
 * `hpiDatasetSensitivity`'s answer: the `lines`, the `grid`, the `crossovers` inside [lo, hi] (ends included) sorted
 * by h then by model order, `changes` = the distinct crossover values, ascending (values within 1e-12·(1 + |h|) merged;
 * the HPI_Dataset values at which the ranking changes), and `identical` = pairs of models whose lines coincide (tied at every h, so never crossing).
 */
export interface HpiSensitivity {
  lines: HpiLine[];
  grid: SensitivityPoint[];
  crossovers: Crossover[];
  changes: number[];
  identical: [string, string][];
}

/**
 * A model's HPI as a line in HPI_Dataset: HPI(h) = a + u·h (see the module comment).
 * @throws RangeError when `levels` is not an integer ≥ 1, `units` is empty, or a level is not null / an integer in 1..m.
 */
export function hpiLine(model: SensitivityModel): HpiLine {
  const m = model.levels;
  if (!Number.isInteger(m) || m < 1) throw new RangeError(`sensitivity: model ${model.label} levels must be an integer >= 1, got ${m}`);
  if (!Array.isArray(model.units) || model.units.length === 0) throw new RangeError(`sensitivity: model ${model.label} has no units`);
  let levelSum = 0;
  let unsolved = 0;
  model.units.forEach((u, i) => {
    const level = u?.level;
    if (level === null) unsolved++;
    else if (Number.isInteger(level) && level! >= 1 && level! <= m) levelSum += level!;
    else throw new RangeError(`sensitivity: model ${model.label} unit ${i} level must be null or an integer in 1..${m}, got ${String(level)}`);
  });
  const n = model.units.length;
  return { label: model.label, levels: m, n, intercept: (levelSum + unsolved * m) / n, slope: unsolved / n, accuracy: (n - unsolved) / n };
}

/** Ranks of `values` (1 = smallest); values within `tol` of each other in a sorted run tie and share their mean rank. */
function averageRanks(values: readonly number[], tol: number): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((p, q) => p.v - q.v || p.i - q.i);
  const ranks = new Array<number>(values.length);
  let start = 0;
  while (start < order.length) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.v - order[start]!.v <= tol) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]!.i] = rank;
    start = end + 1;
  }
  return ranks;
}

/**
 * HPI and rank of each model over a grid of HPI_Dataset values, with the exact crossover points of their HPI lines.
 * Grid: `steps` values h_i = lo + i·(hi − lo)/(steps − 1), i = 0..steps−1 (the last is exactly hi). Ranks: 1 = lowest
 * HPI (best); HPIs within 1e-9·(1 + max |HPI|) of each other count as tied (absorbs floating rounding at a grid point
 * that is an exact crossover) and share the mean of their ranks. Crossovers: for each pair with different unsolved
 * shares, h* = (a_B − a_A)/(u_A − u_B), kept when lo ≤ h* ≤ hi; pairs with equal slopes never cross (`identical`
 * when the intercepts are equal too). HPI_Dataset may be any finite value (the paper's are in 1..5).
 * Source: HPI definition, `hpt.md` §2.1; HPI_Dataset constants §2.4.
 * @throws RangeError when `models` is empty, labels repeat, a model is invalid (`hpiLine`), the range is not finite
 *   with lo < hi, or `steps` is not an integer ≥ 2.
 */
export function hpiDatasetSensitivity(models: readonly SensitivityModel[], options: SensitivityOptions): HpiSensitivity {
  if (!Array.isArray(models) || models.length === 0) throw new RangeError('sensitivity: at least one model is needed');
  const labels = new Set<string>();
  for (const model of models) {
    if (typeof model?.label !== 'string') throw new RangeError('sensitivity: every model needs a string label');
    if (labels.has(model.label)) throw new RangeError(`sensitivity: label ${model.label} appears twice`);
    labels.add(model.label);
  }
  const range = options?.range;
  if (!Array.isArray(range) || range.length !== 2) throw new RangeError('sensitivity: range must be [lo, hi]');
  const [lo, hi] = range as [number, number];
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || !(lo < hi)) throw new RangeError(`sensitivity: range must be finite with lo < hi, got [${lo}, ${hi}]`);
  const steps = options.steps;
  if (!Number.isInteger(steps) || steps < 2) throw new RangeError(`sensitivity: steps must be an integer >= 2, got ${steps}`);
  const lines = models.map(hpiLine);
  const grid: SensitivityPoint[] = [];
  for (let i = 0; i < steps; i++) {
    const h = i === steps - 1 ? hi : lo + (i * (hi - lo)) / (steps - 1);
    const hpi = lines.map((l) => l.intercept + l.slope * h);
    const tol = 1e-9 * (1 + Math.max(...hpi.map(Math.abs)));
    grid.push({ hpiDataset: h, hpi, rank: averageRanks(hpi, tol) });
  }
  const crossovers: Crossover[] = [];
  const identical: [string, string][] = [];
  for (let a = 0; a < lines.length; a++) {
    for (let b = a + 1; b < lines.length; b++) {
      const A = lines[a]!;
      const B = lines[b]!;
      if (A.slope === B.slope) {
        if (A.intercept === B.intercept) identical.push([A.label, B.label]);
        continue;
      }
      const h = (B.intercept - A.intercept) / (A.slope - B.slope);
      if (h < lo || h > hi) continue;
      // above h*, the line with the smaller slope (unsolved share) is lower
      const [flatter, steeper] = A.slope < B.slope ? [A, B] : [B, A];
      crossovers.push({ hpiDataset: h, models: [A.label, B.label], hpi: A.intercept + A.slope * h, below: steeper.label, above: flatter.label });
    }
  }
  // sort by h; the pair loop already yields model order within equal h (stable sort)
  crossovers.sort((p, q) => p.hpiDataset - q.hpiDataset);
  // distinct values; crossings of several pairs at one point may differ by rounding, so merge within 1e-12·(1 + |h|)
  const changes: number[] = [];
  for (const c of crossovers) {
    const last = changes[changes.length - 1];
    if (last === undefined || c.hpiDataset - last > 1e-12 * (1 + Math.abs(last))) changes.push(c.hpiDataset);
  }
  return { lines, grid, crossovers, changes, identical };
}
