/**
 * Paired comparison of two runs (`hpt-bench compare`): per-sample differences of HPI and of accuracy
 * on the samples both runs scored, with seeded bootstrap percentile intervals, plus the level transitions between them.
 */
import { HptError } from '@hpt-bench/sdk';
import { dataDifferences, dataIdentity, describeDataDifferences, type FingerprintDifference, fingerprintDifferences, parseFingerprint } from '../run/fingerprint.js';
import type { RunStore } from '../store/store.js';
import { bootstrapRatios, DEFAULT_RESAMPLES, type Interval } from './bootstrap.js';
import { sampleUnits, selectRuns, type SampleUnit } from './gather.js';
import { pairUnits } from './pairing.js';
import { holmAdjust, pairedTests, type PairedTests } from './paired-tests.js';
import { levelTransitions, type LevelTransitions, type TransitionSample } from './transitions.js';

/** One side of a comparison, restricted to the shared samples: its HPI and accuracy there (means of per-sample values). */
export interface CompareSide {
  runId: string;
  dataset: string;
  model: string;
  mode: string;
  /** mean over the paired samples of the per-sample HPI (stored HPI sum / recorded scores) */
  hpi: number;
  /** mean over the paired samples of the per-sample solved fraction (solved scores / recorded scores), in [0, 1] */
  accuracy: number;
  /** this run's done samples in all */
  samples: number;
}

/**
 * `hpt-bench compare --json`: A - B on the paired samples.
 * - `paired`: samples matched by sample id and replicate index (`meta.replicate`; without one, the k-th occurrence of an
 *   id matches the k-th) that have at least one recorded score in both runs;
 * - `onlyA` / `onlyB`: samples of one run only; `unscored`: matched samples left out because a run recorded no score for
 *   them (adaptive `--compat reference`, hpt.md §2.3 (b));
 * - `hpiDiff` = mean of (HPI_A(i) - HPI_B(i)) over the paired samples (negative: A needed lower levels, i.e. better);
 *   `accuracyDiff` = mean of (solved_A(i) - solved_B(i)), a fraction; each with a bootstrap percentile interval over
 *   the paired samples (B `resamples`, `seed`);
 * - `transitions`: the level-transition matrix on the same paired samples (rows: the level at which A solved each
 *   sample, `L1`..`L{mA}` then `unsolved`; columns: B's; `counts[row][column]`) with its totals (`LevelTransitions`);
 * - `fixed` / `broken`: every paired sample B solves and A does not / A solves and B does not, in A's order, each with
 *   its id (replicate) and both levels (`TransitionSample`).
 * - `tests`: the paired tests on the same samples (`PairedTests`: a sign-flip permutation test and d_z of the per-sample
 *   HPI differences, McNemar's exact test and a permutation test of accuracy, clustered intervals with replicates; with
 *   several comparisons `pHolm` is Holm-adjusted across them, else equal to `p`);
 * - `differences` (set by `compareRuns`): the fields in which the runs' fingerprints differ apart from the model
 *   (`fingerprintDifferences`; `[]`: only the model differs), or null when a run has no fingerprint (an older run).
 * - `dataDifferences` (set by `compareRuns`): the fields in which the runs' data differ (`dataDifferences`; `[]`: the
 *   same data). Non-empty only when the comparison was forced (`force`), since `compareRuns` refuses otherwise.
 */
export interface CompareResult {
  a: CompareSide;
  b: CompareSide;
  paired: number;
  onlyA: number;
  onlyB: number;
  unscored: number;
  hpiDiff: number;
  hpiDiffCi95: Interval | null;
  accuracyDiff: number;
  accuracyDiffCi95: Interval | null;
  bootstrap: { resamples: number; seed: number; level: number };
  transitions: LevelTransitions;
  fixed: TransitionSample[];
  broken: TransitionSample[];
  tests: PairedTests;
  differences?: FingerprintDifference[] | null;
  dataDifferences?: FingerprintDifference[];
}

/** One run of a comparison: its description, its sample units and (optional) its ladder length for the transitions. */
export interface CompareInput {
  runId: string;
  dataset: string;
  model: string;
  mode: string;
  units: readonly SampleUnit[];
  /** ladder length m (the summary's `ladder`); default: the highest solving level among its units */
  levels?: number;
}

/**
 * Options of a comparison: bootstrap `resamples` (default 2000) and `seed` (default 0, also the permutation tests'
 * seed), the permutation tests' Monte Carlo `permutations` (default 10,000), and (`compareRuns`) `force`.
 */
export interface CompareOptions {
  resamples?: number;
  seed?: number;
  permutations?: number;
  force?: boolean;
}

/**
 * Paired differences and level transitions of two runs' sample units (pure): see `CompareResult` for the definitions;
 * `a` and `b` describe each run (id, dataset, model, mode, units, ladder length).
 * @throws HptError `E_DATA` when the runs share no sample with a recorded score in both.
 */
export function pairedCompare(a: CompareInput, b: CompareInput, options: CompareOptions = {}): CompareResult {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? 0;
  const { pairs, onlyA, onlyB, unscored } = pairUnits(a.units, b.units);
  const dh: number[] = [];
  const ds: number[] = [];
  let sumHa = 0;
  let sumHb = 0;
  let sumSa = 0;
  let sumSb = 0;
  for (const [ua, ub] of pairs) {
    const ha = ua.hpi / ua.scores;
    const hb = ub.hpi / ub.scores;
    const sa = ua.solved / ua.scores;
    const sb = ub.solved / ub.scores;
    dh.push(ha - hb);
    ds.push(sa - sb);
    sumHa += ha;
    sumHb += hb;
    sumSa += sa;
    sumSb += sb;
  }
  const paired = dh.length;
  if (paired === 0) {
    throw new HptError(
      'E_DATA',
      `runs ${a.runId} (${a.dataset}, ${a.units.length} samples) and ${b.runId} (${b.dataset}, ${b.units.length} samples) share no scored sample (matched by sample id and replicate); compare runs of the same dataset`,
    );
  }
  const [h, s] = bootstrapRatios([dh, ds], new Float64Array(paired).fill(1), { resamples, seed, stream: `${a.runId}|${b.runId}` });
  const side = (x: typeof a, hpi: number, acc: number): CompareSide => ({ runId: x.runId, dataset: x.dataset, model: x.model, mode: x.mode, hpi: hpi / paired, accuracy: acc / paired, samples: x.units.length });
  return {
    a: side(a, sumHa, sumSa),
    b: side(b, sumHb, sumSb),
    paired,
    onlyA,
    onlyB,
    unscored,
    hpiDiff: h!.estimate,
    hpiDiffCi95: h!.ci,
    accuracyDiff: s!.estimate,
    accuracyDiffCi95: s!.ci,
    bootstrap: { resamples, seed, level: 0.95 },
    ...levelTransitions(a, b),
    tests: pairedTests(pairs, { resamples: options.permutations, seed, stream: `${a.runId}|${b.runId}` }),
  };
}

/**
 * Compare two completed runs of a store (`hpt-bench compare A B`), with the differences of their fingerprints; each
 * run's ladder length (for the transition matrix) is its summary's `ladder`. Samples are paired by id, which means the
 * same question only on the same data: runs whose data differ (`dataDifferences` of their `dataIdentity`: dataset,
 * data content or source, split, a generated dataset's seed and compat) are refused unless `force` is set; forced,
 * the result lists the differing fields in `dataDifferences`. Runs of the same data with other models, reasoning
 * efforts, ladders, limits or filters compare as before.
 * @throws HptError `E_UNKNOWN_ID` / `E_CONFIG` as `selectRuns` (unknown or not completed runs), `E_DATA` when they
 *   share no scored sample, or (without `force`) when their data differ — one line naming the differing fields with
 *   both values.
 */
export function compareRuns(store: RunStore, storePath: string, runA: string, runB: string, options: CompareOptions = {}): CompareResult {
  if (runA === runB) throw new HptError('E_CONFIG', `compare needs two different runs, got ${runA} twice`);
  const [ra, rb] = selectRuns(store, storePath, { runIds: [runA, runB] });
  const side = (r: NonNullable<typeof ra>): CompareInput => {
    const ladder = r.summary?.ladder;
    return { runId: r.id, dataset: r.dataset, model: r.model, mode: r.mode, units: sampleUnits(store, r.id), ...(Array.isArray(ladder) ? { levels: ladder.length } : {}) };
  };
  const fa = parseFingerprint(ra!.fingerprint);
  const fb = parseFingerprint(rb!.fingerprint);
  // runs without any shared sample get that error (pairedCompare), whatever their data
  const result = pairedCompare(side(ra!), side(rb!), options);
  const dataDiff = dataDifferences(dataIdentity(ra!), dataIdentity(rb!));
  if (dataDiff.length > 0 && !options.force) {
    throw new HptError(
      'E_DATA',
      `runs ${ra!.id} (A) and ${rb!.id} (B) are on different data: ${describeDataDifferences(dataDiff)}; samples paired by id across different data are not the same samples, so the comparison is refused; give --force to compare them anyway`,
    );
  }
  return { ...result, differences: fa && fb ? fingerprintDifferences(fa, fb) : null, dataDifferences: dataDiff };
}

/**
 * `hpt-bench compare A B C …`: every run compared with the first (A − B, A − C, …; each as `compareRuns`, checked
 * the same way), then the paired tests' p-values Holm-adjusted across the comparisons (`holmAdjust`).
 * @throws HptError as `compareRuns` (the first failing comparison), `E_CONFIG` for fewer than two runs or a run given twice.
 */
export function compareMany(store: RunStore, storePath: string, runIds: readonly string[], options: CompareOptions = {}): CompareResult[] {
  if (runIds.length < 2) throw new HptError('E_CONFIG', `compare needs at least two runs, got ${runIds.length}`);
  const twice = runIds.find((id, i) => runIds.indexOf(id) !== i);
  if (twice !== undefined) throw new HptError('E_CONFIG', `compare got run ${twice} twice`);
  const [first, ...others] = runIds;
  return holmAdjust(others.map((id) => compareRuns(store, storePath, first!, id, options)));
}
