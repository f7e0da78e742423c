/**
 * Diagnostics of the HPF prompting ladder from full-ladder verdicts (`hpt-bench run --full-ladder`: every level is
 * tried on every sample, no early exit), so each unit (sample × replicate) has a solved / failed verdict per level.
 *
 * Source: the HPT paper's manual HPF (Algorithm 1; P-v1 eqs. 3–5) as restated in the spec `hpt.md` §2.1–2.2: levels
 * x = 1..m are tried in order, the sample scores hp_j = the first solving level, or m + HPI_Dataset when no level
 * solves it; HPI = mean hp_j (lower is better). The paper assumes a higher level solves what a lower one could not;
 * the functions here measure how far the observed verdicts agree with that (per-level accuracy, order violations,
 * Kendall's τ-b of level vs accuracy, the early-exit hazard), and rebuild the early-exit HPI of any (sub-)ladder.
 *
 * Conventions shared by every function:
 * - Levels are numbered 1..m in the API (`level`, `ladder` entries); `solved[k]` is the verdict at level k + 1.
 * - A verdict `null` means "not attempted" (e.g. the call errored). How each statistic treats it is stated on it.
 * - Every unit counts once (replicates are separate units); intervals treat units as independent trials, so with
 *   replicates of the same sample they are too narrow (use a clustered interval for inference across samples).
 * - Invalid input throws `RangeError` (see `LadderData`).
 *
 * Pure functions, no I/O, no randomness.
 */
import type { Interval } from '../report/bootstrap.js';

/**
 * One unit of a full-ladder run: a sample (and its replicate index when the run has replicates) with one verdict per
 * level: `solved[k]` is the verdict at level k + 1 (`true` solved, `false` failed, `null` not attempted).
 */
export interface LadderAttempts {
  sampleId: string;
  replicate?: number;
  solved: readonly (boolean | null)[];
}

/**
 * The full-ladder verdicts of one run: `levels` m (integer ≥ 1), the dataset's `hpiDataset` penalty constant
 * (finite; e.g. 2.14 for GSM8K, `hpt.md` §2.4), and the units.
 *
 * Valid when: `units` is non-empty; every `solved` has exactly m entries, each `true`, `false` or `null`;
 * `sampleId` is a string; `replicate`, when present, is an integer ≥ 0; no two units share (sampleId, replicate).
 * Anything else throws `RangeError` from every function taking a `LadderData`.
 */
export interface LadderData {
  levels: number;
  hpiDataset: number;
  units: readonly LadderAttempts[];
}

/**
 * A ladder to walk: distinct level numbers (1..m) in the order they are tried, e.g. `[1, 3, 5]` for
 * `report --ladder L1,L3,L5`. Default: `[1, 2, …, m]`. An empty ladder, a repeated level, or a level outside 1..m
 * throws `RangeError`.
 */
export interface LadderOptions {
  ladder?: readonly number[];
}

/** z of a two-sided 95 % normal interval (Φ⁻¹(0.975)). */
export const Z95 = 1.959963984540054;

/**
 * Wilson score interval of a binomial proportion `successes / trials` (Wilson 1927, "Probable inference, the law of
 * succession, and statistical inference", JASA 22:209–212):
 * centre (p̂ + z²/2n) / (1 + z²/n), half-width z·√(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n), clamped to [0, 1].
 * Returns `null` when `trials` is 0. `z` defaults to `Z95` (95 %).
 * @throws RangeError unless `trials` is an integer ≥ 0, `successes` an integer in 0..trials, and `z` finite > 0.
 */
export function wilsonInterval(successes: number, trials: number, z: number = Z95): Interval | null {
  if (!Number.isInteger(trials) || trials < 0) throw new RangeError(`wilson: trials must be an integer >= 0, got ${trials}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > trials) throw new RangeError(`wilson: successes must be an integer in 0..${trials}, got ${successes}`);
  if (!(Number.isFinite(z) && z > 0)) throw new RangeError(`wilson: z must be finite and > 0, got ${z}`);
  if (trials === 0) return null;
  const n = trials;
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // at p = 0 (p = 1) the lower (upper) bound is exactly 0 (1); clamp the rounding
  const lo = successes === 0 ? 0 : Math.max(0, centre - half);
  const hi = successes === n ? 1 : Math.min(1, centre + half);
  return [lo, hi];
}

function unitKey(u: LadderAttempts): string {
  return `${u.replicate === undefined ? '-' : u.replicate}\u0000${u.sampleId}`;
}

/**
 * Check a `LadderData` (rules on `LadderData`).
 * @throws RangeError on the first rule broken.
 */
export function validateLadderData(data: LadderData): void {
  if (data === null || typeof data !== 'object') throw new RangeError('ladder: data must be an object');
  const m = data.levels;
  if (!Number.isInteger(m) || m < 1) throw new RangeError(`ladder: levels must be an integer >= 1, got ${m}`);
  if (typeof data.hpiDataset !== 'number' || !Number.isFinite(data.hpiDataset)) throw new RangeError(`ladder: hpiDataset must be a finite number, got ${data.hpiDataset}`);
  if (!Array.isArray(data.units) || data.units.length === 0) throw new RangeError('ladder: units must be a non-empty array');
  const seen = new Set<string>();
  data.units.forEach((u, i) => {
    if (u === null || typeof u !== 'object') throw new RangeError(`ladder: unit ${i} is not an object`);
    if (typeof u.sampleId !== 'string') throw new RangeError(`ladder: unit ${i} has no string sampleId`);
    if (u.replicate !== undefined && !(Number.isInteger(u.replicate) && u.replicate >= 0)) throw new RangeError(`ladder: unit ${i} (${u.sampleId}) has an invalid replicate ${u.replicate}`);
    if (!Array.isArray(u.solved) || u.solved.length !== m) throw new RangeError(`ladder: unit ${i} (${u.sampleId}) has ${Array.isArray(u.solved) ? u.solved.length : 'no'} verdicts, expected levels = ${m}`);
    for (let k = 0; k < m; k++) {
      const v = u.solved[k];
      if (v !== true && v !== false && v !== null) throw new RangeError(`ladder: unit ${i} (${u.sampleId}) level ${k + 1} verdict must be true, false or null, got ${String(v)}`);
    }
    const key = unitKey(u);
    if (seen.has(key)) throw new RangeError(`ladder: duplicate unit (sampleId ${u.sampleId}, replicate ${u.replicate ?? 'none'})`);
    seen.add(key);
  });
}

/**
 * The ladder of `options` checked against m levels, as level numbers (default `[1..m]`).
 * @throws RangeError on an empty ladder, a repeated level, or a level that is not an integer in 1..m.
 */
export function ladderPositions(levels: number, ladder?: readonly number[]): number[] {
  if (!Number.isInteger(levels) || levels < 1) throw new RangeError(`ladder: levels must be an integer >= 1, got ${levels}`);
  if (ladder === undefined) return Array.from({ length: levels }, (_, k) => k + 1);
  if (!Array.isArray(ladder) || ladder.length === 0) throw new RangeError('ladder: the ladder must list at least one level');
  const seen = new Set<number>();
  for (const level of ladder) {
    if (!Number.isInteger(level) || level < 1 || level > levels) throw new RangeError(`ladder: level ${level} is not an integer in 1..${levels}`);
    if (seen.has(level)) throw new RangeError(`ladder: level ${level} appears twice`);
    seen.add(level);
  }
  return [...ladder];
}

// ---------------------------------------------------------------------------------------------------------------------
// 1. Per-level accuracy

/**
 * Accuracy of one level over the units that attempted it: `level` (1..m), `solved` and `failed` counts, `attempted`
 * = solved + failed, `missing` = units with a `null` verdict there, `accuracy` = solved / attempted (a share in 0..1;
 * `null` when nothing was attempted) and its Wilson 95 % interval `ci` (`null` likewise).
 */
export interface LevelAccuracy {
  level: number;
  solved: number;
  failed: number;
  attempted: number;
  missing: number;
  accuracy: number | null;
  ci: Interval | null;
}

/**
 * Per-level accuracy of a full-ladder run: for every level k = 1..m (in level order), solved / attempted over the
 * units, with a Wilson 95 % interval (`wilsonInterval`). Missing (`null`) verdicts are left out of that level's
 * denominator and counted in `missing`. Each unit is one trial (replicates included).
 * Source: the per-level "task solved" share of `hpt.md` §3, taken at every level instead of only where the ladder stopped.
 * @returns m entries, entry k − 1 for level k.
 * @throws RangeError on invalid `data` (see `LadderData`).
 */
export function perLevelAccuracy(data: LadderData): LevelAccuracy[] {
  validateLadderData(data);
  const m = data.levels;
  const solved = new Array<number>(m).fill(0);
  const failed = new Array<number>(m).fill(0);
  const missing = new Array<number>(m).fill(0);
  for (const u of data.units) {
    for (let k = 0; k < m; k++) {
      const v = u.solved[k];
      if (v === true) solved[k]!++;
      else if (v === false) failed[k]!++;
      else missing[k]!++;
    }
  }
  return solved.map((s, k) => {
    const attempted = s + failed[k]!;
    return { level: k + 1, solved: s, failed: failed[k]!, attempted, missing: missing[k]!, accuracy: attempted > 0 ? s / attempted : null, ci: wilsonInterval(s, attempted) };
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// 2. Order violations

/**
 * Order violations of a ladder (the ladder's premise: a level never loses what a lower one solved).
 * - `ladder`: the level numbers in the order walked; "lower" / "higher" means earlier / later in this order.
 * - Unit level: a unit violates when there are ladder positions i < j with a `true` verdict at i and a `false`
 *   verdict at j (`null` verdicts are ignored). `violating` counts those units; `evaluable` counts units with at least
 *   two non-null verdicts on the ladder (the only ones that can violate); `share` = violating / evaluable (`null` if
 *   evaluable is 0); `units` = all units.
 * - Pair level: `solvedThenFailed[a][b]` (a, b are 0-based ladder positions) = units solved at position a and failed
 *   at position b; the upper triangle (a < b) are the violations, the lower triangle (a > b) are the ladder's gains
 *   (a higher level solved what a lower one failed); the diagonal is 0. `comparable[a][b]` = units with non-null
 *   verdicts at both positions (symmetric; diagonal: non-null at a). `pairShare[a][b]` = solvedThenFailed / comparable
 *   (`null` when comparable is 0 or a = b).
 */
export interface OrderViolations {
  ladder: number[];
  units: number;
  evaluable: number;
  violating: number;
  share: number | null;
  solvedThenFailed: number[][];
  comparable: number[][];
  pairShare: (number | null)[][];
}

/**
 * Order violations of full-ladder verdicts, at unit level and per pair of levels (definitions on `OrderViolations`).
 * Source: the ladder premise of the HPT paper (a higher, more complex prompting level solves what the lower could not;
 * `hpt.md` §1.2, §2.1); the definitions here are this module's.
 * @param options.ladder the walk order (default 1..m; any subset / order of the levels).
 * @throws RangeError on invalid `data` or ladder.
 */
export function orderViolations(data: LadderData, options: LadderOptions = {}): OrderViolations {
  validateLadderData(data);
  const ladder = ladderPositions(data.levels, options.ladder);
  const L = ladder.length;
  const square = () => Array.from({ length: L }, () => new Array<number>(L).fill(0));
  const solvedThenFailed = square();
  const comparable = square();
  let evaluable = 0;
  let violating = 0;
  for (const u of data.units) {
    const v = ladder.map((level) => u.solved[level - 1]!);
    let attempted = 0;
    let solvedSeen = false;
    let violates = false;
    for (let a = 0; a < L; a++) {
      if (v[a] === null) continue;
      attempted++;
      if (v[a] === false && solvedSeen) violates = true;
      if (v[a] === true) solvedSeen = true;
      for (let b = 0; b < L; b++) {
        if (v[b] === null) continue;
        comparable[a]![b]!++;
        if (v[a] === true && v[b] === false) solvedThenFailed[a]![b]!++;
      }
    }
    if (attempted >= 2) evaluable++;
    if (violates) violating++;
  }
  const pairShare = solvedThenFailed.map((row, a) => row.map((c, b) => (a === b || comparable[a]![b]! === 0 ? null : c / comparable[a]![b]!)));
  return { ladder, units: data.units.length, evaluable, violating, share: evaluable > 0 ? violating / evaluable : null, solvedThenFailed, comparable, pairShare };
}

// ---------------------------------------------------------------------------------------------------------------------
// 3. Kendall's τ-b

/**
 * Kendall's τ-b rank correlation of paired observations (Kendall 1945, "The treatment of ties in ranking problems",
 * Biometrika 33:239–251): τ_b = (n_c − n_d) / √((n₀ − n₁)(n₀ − n₂)), with n₀ = n(n−1)/2, n_c / n_d the concordant /
 * discordant pairs, n₁ = Σ t(t−1)/2 over groups of tied x, n₂ the same over y (a pair tied in x or y is neither
 * concordant nor discordant). Exact O(n²) pair count. Equals scipy.stats.kendalltau's default (variant 'b').
 * @returns τ_b in [−1, 1]; `NaN` when every x or every y is tied (the denominator is 0).
 * @throws RangeError when the lengths differ, n < 2, or a value is not finite.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new RangeError(`kendallTauB: x and y differ in length (${x.length} vs ${y.length})`);
  const n = x.length;
  if (n < 2) throw new RangeError(`kendallTauB: needs at least 2 pairs, got ${n}`);
  for (let i = 0; i < n; i++) if (!Number.isFinite(x[i]) || !Number.isFinite(y[i])) throw new RangeError(`kendallTauB: pair ${i} is not finite (${x[i]}, ${y[i]})`);
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = x[i]! - x[j]!;
      const dy = y[i]! - y[j]!;
      if (dx === 0) tiedX++;
      if (dy === 0) tiedY++;
      if (dx === 0 || dy === 0) continue;
      if (dx > 0 === dy > 0) concordant++;
      else discordant++;
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const denom = Math.sqrt((n0 - tiedX) * (n0 - tiedY));
  return denom === 0 ? Number.NaN : (concordant - discordant) / denom;
}

/**
 * `tauLevelVsAccuracy`'s answer: `ladder` (level numbers walked), `position` (1..L for the levels kept), `levels` and
 * `accuracy` (per-level accuracy of those levels, `perLevelAccuracy`), and `tau` = Kendall's τ-b of position vs
 * accuracy: +1 when accuracy rises strictly with the ladder position (what the HPT ladder assumes), −1 when it falls
 * strictly, `null` when fewer than 2 levels have attempts or every kept accuracy is equal (τ undefined).
 * `dropped` lists the ladder levels left out because no unit attempted them.
 */
export interface LevelAccuracyTau {
  ladder: number[];
  position: number[];
  levels: number[];
  accuracy: number[];
  dropped: number[];
  tau: number | null;
}

/**
 * Kendall's τ-b between a level's position in the ladder and its per-level accuracy (solved / attempted, missing
 * verdicts excluded as in `perLevelAccuracy`). Sign convention: τ = +1 ⇔ per-level accuracy increases strictly with
 * the position (the HPT premise: a more complex prompting level solves more), τ = −1 ⇔ it decreases strictly; tied
 * accuracies are handled by τ-b. Equivalently τ(position, failure rate) = −τ.
 * Source: HPT ladder premise (`hpt.md` §1.2); Kendall's τ-b (see `kendallTauB`).
 * @param options.ladder the walk order (default 1..m).
 * @throws RangeError on invalid `data` or ladder.
 */
export function tauLevelVsAccuracy(data: LadderData, options: LadderOptions = {}): LevelAccuracyTau {
  const acc = perLevelAccuracy(data);
  const ladder = ladderPositions(data.levels, options.ladder);
  const position: number[] = [];
  const levels: number[] = [];
  const accuracy: number[] = [];
  const dropped: number[] = [];
  ladder.forEach((level, p) => {
    const a = acc[level - 1]!.accuracy;
    if (a === null) dropped.push(level);
    else {
      position.push(p + 1);
      levels.push(level);
      accuracy.push(a);
    }
  });
  let tau: number | null = null;
  if (position.length >= 2) {
    const t = kendallTauB(position, accuracy);
    tau = Number.isNaN(t) ? null : t;
  }
  return { ladder, position, levels, accuracy, dropped, tau };
}

// ---------------------------------------------------------------------------------------------------------------------
// 4. Early-exit HPI of a (sub-)ladder

/**
 * One unit's early-exit result: `position` (1-based, in the ladder) of the first solved level and that `level`
 * number (both `null` when unsolved), `hp` = position or L + hpiDataset, and `missing` = null verdicts the walk met
 * (treated as failures).
 */
export interface EarlyExitUnit {
  sampleId: string;
  replicate?: number;
  position: number | null;
  level: number | null;
  hp: number;
  missing: number;
}

/** One sample's early-exit result over its replicates: mean `hp`, `solved` share, and the `replicates` count. */
export interface EarlyExitSample {
  sampleId: string;
  replicates: number;
  hp: number;
  solved: number;
}

/**
 * `earlyExitHpi`'s answer.
 * - `ladder` (level numbers walked), `length` L = ladder length, `penalty` = L + hpiDataset (hp of an unsolved unit).
 * - `hpi`: mean hp over units (the run's HPI); `accuracy`: share of units solved within the ladder.
 * - `hpiBySample`: mean over samples of each sample's mean hp over its replicates (= `hpi` when every sample has the
 *   same number of replicates); `accuracyBySample` likewise.
 * - `solvedAt[p]`: units first solved at position p + 1 (length L); `unsolved`: units solved nowhere on the ladder.
 * - `missingVerdicts`: null verdicts met by the walks (counted as failures); `unitsWithMissing`: units with at least one.
 * - `units` (input order) and `samples` (order of first appearance).
 */
export interface EarlyExitHpi {
  ladder: number[];
  length: number;
  penalty: number;
  hpi: number;
  accuracy: number;
  hpiBySample: number;
  accuracyBySample: number;
  solvedAt: number[];
  unsolved: number;
  missingVerdicts: number;
  unitsWithMissing: number;
  units: EarlyExitUnit[];
  samples: EarlyExitSample[];
}

/**
 * The HPI the ordinary early-exit ladder would have produced from full-ladder verdicts (`hpt.md` §2.1, Algorithm 1):
 * each unit walks the `ladder` in order; hp = the 1-based position of the first level solved, or L + hpiDataset
 * when none is (L = ladder length). For a sub-ladder (e.g. `[1, 3, 5]`, `report --ladder L1,L3,L5`) positions are
 * 1..L and the penalty uses m' = L: the HPI that ladder would have given had it been the run's ladder (so HPIs of
 * ladders of different lengths are on different scales). A `null` verdict the walk reaches is treated as a failure
 * (the walk moves on) and counted in `missingVerdicts` / per unit `missing`; verdicts after the first solve are not
 * looked at. With replicates, `hpi` is the mean over units and `hpiBySample` the mean of per-sample means.
 * @param options.ladder the walk order (default 1..m).
 * @throws RangeError on invalid `data` or ladder.
 */
export function earlyExitHpi(data: LadderData, options: LadderOptions = {}): EarlyExitHpi {
  validateLadderData(data);
  const ladder = ladderPositions(data.levels, options.ladder);
  const L = ladder.length;
  const penalty = L + data.hpiDataset;
  const solvedAt = new Array<number>(L).fill(0);
  let unsolved = 0;
  let missingVerdicts = 0;
  let unitsWithMissing = 0;
  let hpSum = 0;
  const units: EarlyExitUnit[] = [];
  const bySample = new Map<string, { hp: number; solved: number; n: number }>();
  for (const u of data.units) {
    let position: number | null = null;
    let missing = 0;
    for (let p = 0; p < L; p++) {
      const v = u.solved[ladder[p]! - 1];
      if (v === true) {
        position = p + 1;
        break;
      }
      if (v === null) missing++;
    }
    const hp = position === null ? penalty : position;
    if (position === null) unsolved++;
    else solvedAt[position - 1]!++;
    missingVerdicts += missing;
    if (missing > 0) unitsWithMissing++;
    hpSum += hp;
    const unit: EarlyExitUnit = { sampleId: u.sampleId, position, level: position === null ? null : ladder[position - 1]!, hp, missing };
    if (u.replicate !== undefined) unit.replicate = u.replicate;
    units.push(unit);
    const s = bySample.get(u.sampleId) ?? { hp: 0, solved: 0, n: 0 };
    s.hp += hp;
    s.solved += position === null ? 0 : 1;
    s.n++;
    bySample.set(u.sampleId, s);
  }
  const n = data.units.length;
  const samples: EarlyExitSample[] = [...bySample].map(([sampleId, s]) => ({ sampleId, replicates: s.n, hp: s.hp / s.n, solved: s.solved / s.n }));
  const hpiBySample = samples.reduce((acc, s) => acc + s.hp, 0) / samples.length;
  const accuracyBySample = samples.reduce((acc, s) => acc + s.solved, 0) / samples.length;
  return { ladder, length: L, penalty, hpi: hpSum / n, accuracy: (n - unsolved) / n, hpiBySample, accuracyBySample, solvedAt, unsolved, missingVerdicts, unitsWithMissing, units, samples };
}

// ---------------------------------------------------------------------------------------------------------------------
// 5. Hazard curve

/**
 * One ladder step of `hazardCurve`: `position` (1-based) and `level` number; `atRisk` = units not solved at any
 * earlier position; `attempted` = those with a non-null verdict here; `missing` = atRisk − attempted; `solved` =
 * at-risk units solved here; `hazard` = solved / attempted (`null` when 0 attempted) with its Wilson 95 % `ci`;
 * `cumulativeSolved` = share of all units solved at positions ≤ this one (the early-exit accuracy of the ladder cut here).
 */
export interface HazardStep {
  position: number;
  level: number;
  atRisk: number;
  attempted: number;
  missing: number;
  solved: number;
  hazard: number | null;
  ci: Interval | null;
  cumulativeSolved: number;
}

/**
 * The early-exit hazard of a ladder: at each position k, P(solved at level ladder[k] | not solved at any earlier
 * position) = among the units the early-exit walk would still have at step k, the share solved there.
 * Missing verdicts: a `null` at an earlier position counts as not solved (the unit stays at risk, as in `earlyExitHpi`);
 * a `null` at position k is left out of that step's denominator (`missing`). So atRisk[k+1] = atRisk[k] − solved[k],
 * and `solved` per step equals `earlyExitHpi(...).solvedAt`; with no missing verdicts the early-exit accuracy is
 * 1 − Π(1 − hazard).
 * Source: discrete-time hazard (life-table) of the stopping level of `hpt.md` §2.1's walk; Wilson intervals as in
 * `wilsonInterval` (units independent).
 * @param options.ladder the walk order (default 1..m).
 * @throws RangeError on invalid `data` or ladder.
 */
export function hazardCurve(data: LadderData, options: LadderOptions = {}): HazardStep[] {
  validateLadderData(data);
  const ladder = ladderPositions(data.levels, options.ladder);
  const n = data.units.length;
  const stillAtRisk = new Array<boolean>(n).fill(true);
  const steps: HazardStep[] = [];
  let cumulative = 0;
  ladder.forEach((level, p) => {
    let atRisk = 0;
    let attempted = 0;
    let solved = 0;
    data.units.forEach((u, i) => {
      if (!stillAtRisk[i]) return;
      atRisk++;
      const v = u.solved[level - 1];
      if (v === null) return;
      attempted++;
      if (v === true) {
        solved++;
        stillAtRisk[i] = false;
      }
    });
    cumulative += solved;
    steps.push({ position: p + 1, level, atRisk, attempted, missing: atRisk - attempted, solved, hazard: attempted > 0 ? solved / attempted : null, ci: wilsonInterval(solved, attempted), cumulativeSolved: cumulative / n });
  });
  return steps;
}
