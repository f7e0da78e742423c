/**
 * The paired tests of two runs on the same samples (`hpt-bench compare`, and the report's paired-tests table for runs
 * of one dataset; issue 28): is the difference in HPI or accuracy real?
 *
 * - HPI: a paired sign-flip permutation test of the mean per-sample HPI difference, with its effect size (Cohen's d_z);
 * - accuracy: McNemar's exact test on solved / unsolved (runs without replicates, one 0/1 verdict per unit), and the
 *   same sign-flip test on per-sample solved-share differences (valid with replicates too);
 * - with replicates (`--replicates N`, several units per sample), the units of one sample are correlated: the tests
 *   run on per-sample means (a sample is the unit of randomisation), and clustered standard errors (Miller 2024,
 *   "Adding Error Bars to Evals", §2.2) give normal intervals of both differences;
 * - with several comparisons, `holmAdjust` adds Holm–Bonferroni adjusted p-values across the family, per test.
 *
 * Sources: McNemar (1947); Fisher (1935) §21 for the sign-flip test; Cohen (1988) §2.3.5 for d_z; Holm (1979);
 * Miller (2024) §2.2. The statistics themselves are in `stats/paired.ts` and `stats/clustered.ts`.
 */
import type { Interval, SampleUnit } from '@hpt-bench/sdk';
import { clusteredMean } from '../stats/clustered.js';
import { holm, mcnemarExact, type McNemarResult, type PairedEffect, pairedEffectSize, signFlipTest, type SignFlipResult } from '../stats/paired.js';

/** Default Monte Carlo sign assignments of the permutation tests (exact enumeration below 21 nonzero differences). */
export const DEFAULT_PERMUTATIONS = 10_000;

/** A p-value with its Holm-adjusted value across the comparisons it was reported with (`pHolm` = `p` for one). */
export interface AdjustedP {
  p: number;
  pHolm: number;
}

/** A clustered-by-sample interval of a mean difference (Miller 2024 §2.2, CR1 factor C/(C − 1), normal 95%). */
export interface ClusteredInterval {
  se: number;
  ci95: Interval;
  /** number of clusters (samples) */
  clusters: number;
  /** (clustered SE / naive SE)²: how much the replicates' correlation widens the interval; null when the naive SE is 0 */
  designEffect: number | null;
}

/**
 * The paired tests of A − B (see the module comment). Shapes:
 * - `samples`: the samples (clusters) the tests ran on; `units`: the paired units (sample × replicate);
 * - `replicates`: some sample has several paired units (then the tests use per-sample means);
 * - `hpi`: `effect` (mean, sd and d_z of the per-sample HPI differences, in levels; negative favours A),
 *   `permutation` (two-sided sign-flip test, `p` and `pHolm`), `clustered` (only with replicates);
 * - `accuracy`: `mcnemar` (exact two-sided p and `pHolm`, discordant counts `b` = solved by A only, `c` = by B only,
 *   odds ratio b/c, accuracy difference as a share) or null with `mcnemarNote` saying why, `permutation` on per-sample
 *   solved shares, `clustered` (only with replicates).
 */
export interface PairedTests {
  samples: number;
  units: number;
  replicates: boolean;
  permutations: { resamples: number; seed: number };
  hpi: { effect: PairedEffect; permutation: SignFlipResult & AdjustedP; clustered: ClusteredInterval | null };
  accuracy: { mcnemar: (McNemarResult & AdjustedP) | null; mcnemarNote?: string; permutation: SignFlipResult & AdjustedP; clustered: ClusteredInterval | null };
}

/** Options: Monte Carlo `resamples` (default 10,000), `seed` (default 0) and the random `stream` name (e.g. both run ids). */
export interface PairedTestOptions {
  resamples?: number;
  seed?: number;
  stream?: string;
}

function clustered(values: number[], clusters: string[]): ClusteredInterval | null {
  if (new Set(clusters).size < 2) return null;
  const m = clusteredMean(values, clusters);
  return { se: m.se.clustered, ci95: m.ci.clustered, clusters: m.clusters, designEffect: m.designEffect };
}

/**
 * The paired tests of matched units `pairs` (`pairUnits`: `[a, b]` with a recorded score in both). Per unit the HPI is
 * `hpi / scores` and the solved share `solved / scores` (as `compare`); units are grouped by sample id into samples.
 * @throws RangeError when `pairs` is empty.
 */
export function pairedTests(pairs: readonly (readonly [SampleUnit, SampleUnit])[], options: PairedTestOptions = {}): PairedTests {
  if (pairs.length === 0) throw new RangeError('pairedTests: no paired units');
  const resamples = options.resamples ?? DEFAULT_PERMUTATIONS;
  const seed = options.seed ?? 0;
  const stream = options.stream ?? '';
  const unitHpi: number[] = [];
  const unitAcc: number[] = [];
  const ids: string[] = [];
  // per sample: sums of differences and unit counts, in first-seen order
  const bySample = new Map<string, { dh: number; ds: number; k: number }>();
  let b = 0;
  let c = 0;
  let binary = true;
  for (const [ua, ub] of pairs) {
    const dh = ua.hpi / ua.scores - ub.hpi / ub.scores;
    const sa = ua.solved / ua.scores;
    const sb = ub.solved / ub.scores;
    unitHpi.push(dh);
    unitAcc.push(sa - sb);
    ids.push(ua.sampleId);
    const s = bySample.get(ua.sampleId) ?? { dh: 0, ds: 0, k: 0 };
    s.dh += dh;
    s.ds += sa - sb;
    s.k++;
    bySample.set(ua.sampleId, s);
    if ((sa !== 0 && sa !== 1) || (sb !== 0 && sb !== 1)) binary = false;
    else if (sa > sb) b++;
    else if (sb > sa) c++;
  }
  const perSampleHpi = [...bySample.values()].map((s) => s.dh / s.k);
  const perSampleAcc = [...bySample.values()].map((s) => s.ds / s.k);
  const replicates = bySample.size < pairs.length;
  const flip = (d: number[], name: string) => {
    const r = signFlipTest(d, { resamples, seed, stream: `${stream}|${name}` });
    return { ...r, pHolm: r.p };
  };
  let mcnemar: PairedTests['accuracy']['mcnemar'] = null;
  let mcnemarNote: string | undefined;
  if (replicates) mcnemarNote = 'not computed with replicates (units of one sample are not independent pairs): see the permutation test on per-sample solved shares';
  else if (!binary) mcnemarNote = 'not computed: some unit has a solved share other than 0 or 1 (adaptive --compat reference runs)';
  else {
    const m = mcnemarExact(b, c, pairs.length);
    mcnemar = { ...m, p: m.pExact, pHolm: m.pExact };
  }
  return {
    samples: bySample.size,
    units: pairs.length,
    replicates,
    permutations: { resamples, seed },
    hpi: { effect: pairedEffectSize(perSampleHpi), permutation: flip(perSampleHpi, 'hpi'), clustered: replicates ? clustered(unitHpi, ids) : null },
    accuracy: { mcnemar, ...(mcnemarNote ? { mcnemarNote } : {}), permutation: flip(perSampleAcc, 'accuracy'), clustered: replicates ? clustered(unitAcc, ids) : null },
  };
}

/**
 * Holm–Bonferroni adjustment across a family of comparisons (a matrix of models, datasets or efforts; Holm 1979):
 * each test's p-values (HPI permutation, McNemar, accuracy permutation) are adjusted across the comparisons that have
 * it, and written to `pHolm` (in place; returns the same objects). One comparison keeps `pHolm` = `p`.
 */
export function holmAdjust<T extends { tests: PairedTests }>(family: T[]): T[] {
  const adjust = (pick: (t: PairedTests) => AdjustedP | null) => {
    const members = family.map((f) => pick(f.tests)).filter((x): x is AdjustedP => x !== null);
    holm(members.map((m) => m.p)).forEach((p, i) => (members[i]!.pHolm = p));
  };
  adjust((t) => t.hpi.permutation);
  adjust((t) => t.accuracy.mcnemar);
  adjust((t) => t.accuracy.permutation);
  return family;
}
