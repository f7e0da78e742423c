/**
 * Sample-size planning for `hpt-bench plan --detect D` / `--detect-accuracy D` (issue 28): how many samples a paired
 * comparison of two runs on the planned data needs to detect an HPI difference (paired z-test) or an accuracy
 * difference (McNemar's test) with the given power at the given two-sided α, with the spread taken from the newest
 * comparable runs of the store, else from stated defaults, and whether the plan has that many samples. The formulas
 * are those of `stats/power.ts` (Chow, Shao & Wang 2008 §3.1; Connor 1987); this module only finds their inputs.
 */
import { HptError, type Json, type SampleUnit } from '@hpt-bench/sdk';
import { pairUnits } from '../report/pairing.js';
import { sampleUnits } from '../report/gather.js';
import { defaultDiscordance, samplesForMeanDifference, samplesForPairedProportions, sdOfDifference } from '../stats/power.js';
import { clusteredMean } from '../stats/clustered.js';
import type { RunRecord, RunStore } from '../store/store.js';
import { dataDifferences, dataIdentity, type DataIdentity, parseFingerprint } from './fingerprint.js';

/** The correlation of two runs' per-sample HPI assumed when the store cannot give it (fewer than two comparable runs). */
export const DEFAULT_PAIR_CORRELATION = 0.5;

/**
 * What to plan for: exactly one of `detect` (an HPI difference, in ladder levels, > 0) and `detectAccuracy` (an accuracy
 * difference as a share, in (0, 1): 0.02 = 2 points), with the two-sided significance `alpha` (default 0.05) and the
 * target `power` (default 0.8), both in (0, 1).
 */
export type PowerTarget = ({ detect: number; detectAccuracy?: undefined } | { detectAccuracy: number; detect?: undefined }) & { alpha?: number; power?: number };

/**
 * The HPI scale and data of the planned run, which decide the comparable runs and the default spread: its data identity
 * (`dataIdentity`), the number of ladder levels `m`, `HPI_Dataset` and the mode.
 */
export interface PowerPlanRun {
  data: DataIdentity;
  levels: number;
  hpiDataset: number;
  mode: 'manual' | 'adaptive';
}

/**
 * The sample size a paired comparison on the planned data needs (`hpt-bench plan --detect` / `--detect-accuracy`).
 * - `detect` (HPI difference, levels) or `detectAccuracy` (accuracy difference, share): what was asked; `alpha`, `power`;
 * - `samplesNeeded`: pairs (samples × replicates, as `RunPlanEstimate.samples` counts them) both runs need:
 *   HPI: n = ⌈((z_{1−α/2} + z_{power})·σ_d/δ)²⌉ (`samplesForMeanDifference`); accuracy: Connor's (1987)
 *   n = ⌈(z_{1−α/2}√ψ + z_{power}√(ψ − δ²))²/δ²⌉ (`samplesForPairedProportions`);
 * - `source`: the runs the spread comes from (`[]`: defaults) and a note saying how it was obtained;
 * - HPI: `sdA`, `sdB` (sd of per-sample HPI, levels), `rho` (their correlation over paired samples) and `sdDiff`
 *   (σ_d = √(sdA² + sdB² − 2·rho·sdA·sdB), levels); accuracy: `discordance` ψ (share of samples solved by exactly one run);
 * - `pairs`: the paired samples (two runs) or samples (one run) the estimates come from; absent for defaults;
 * - `designEffect`: with replicates in the two runs, the factor `samplesNeeded` was multiplied by (see the field);
 * - `available`: the plan's samples; `enough`: `available >= samplesNeeded`.
 */
export interface PowerPlan {
  detect?: number;
  detectAccuracy?: number;
  alpha: number;
  power: number;
  samplesNeeded: number;
  source: { runs: string[]; note: string };
  sdA?: number;
  sdB?: number;
  rho?: number;
  sdDiff?: number;
  discordance?: number;
  /**
   * with replicates in the two runs the spread comes from: (clustered / naive SE)² of their paired unit differences
   * (Miller 2024 §2.2), by which `samplesNeeded` (in units) was multiplied; absent when 1
   */
  designEffect?: number;
  pairs?: number;
  available: number;
  enough: boolean;
}

/**
 * Check a `PowerTarget` and fill in the defaults (α 0.05, power 0.8).
 * @throws HptError `E_CONFIG` (exit 2) for none or both of `detect` / `detectAccuracy`, `detect` not a finite number
 *   > 0, `detectAccuracy` outside (0, 1), or `alpha` / `power` outside (0, 1); messages name the `plan` flags.
 */
export function checkPowerTarget(target: PowerTarget): { kind: 'hpi' | 'accuracy'; delta: number; alpha: number; power: number } {
  const hasHpi = target.detect !== undefined;
  const hasAcc = target.detectAccuracy !== undefined;
  if (hasHpi === hasAcc) throw new HptError('E_CONFIG', 'give one of --detect (an HPI difference) and --detect-accuracy (an accuracy difference)');
  const open = (flag: string, v: unknown, max: number, what: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v) || !(v > 0 && v < max)) throw new HptError('E_CONFIG', `${flag} must be a number > 0${max < Infinity ? ` and < ${max}` : ''} (${what}), got ${String(v)}`);
    return v;
  };
  const alpha = open('--alpha', target.alpha ?? 0.05, 1, 'the two-sided significance level');
  const power = open('--power', target.power ?? 0.8, 1, 'the probability of detecting the difference');
  return hasHpi
    ? { kind: 'hpi', delta: open('--detect', target.detect, Infinity, 'an HPI difference in levels'), alpha, power }
    : { kind: 'accuracy', delta: open('--detect-accuracy', target.detectAccuracy, 1, 'an accuracy difference as a share: 0.02 is 2 points'), alpha, power };
}

/**
 * The range a per-sample HPI can take on a ladder of `levels` levels with `hpiDataset`: [1, m + HPI_Dataset] in manual
 * mode (solved at level 1 .. unsolved); adaptive mode scores x + i (level x at iteration i ≤ m), so up to max(2m, m + H).
 */
export function hpiRange(run: Pick<PowerPlanRun, 'levels' | 'hpiDataset' | 'mode'>): [number, number] {
  const unsolved = run.levels + run.hpiDataset;
  return [1, run.mode === 'adaptive' ? Math.max(2 * run.levels, unsolved) : unsolved];
}

/**
 * The default per-run sd of per-sample HPI without comparable runs: (hi − lo)/2 over `hpiRange`, the largest sd any
 * variable in [lo, hi] can have (Popoviciu's inequality on variances, 1935: half the samples solved at level 1, half
 * unsolved). With the default correlation 0.5 the sd of the per-sample difference equals it too, so a plan from the
 * defaults is conservative in the spread of each run (real runs spread less: most samples are solved at low levels).
 */
export function defaultHpiSd(run: Pick<PowerPlanRun, 'levels' | 'hpiDataset' | 'mode'>): number {
  const [lo, hi] = hpiRange(run);
  return (hi - lo) / 2;
}

/** The ladder length and HPI_Dataset of a stored run (fingerprint, else stored config and summary); null when unknown. */
function scaleOf(run: RunRecord): { levels: number | null; hpiDataset: number | null } {
  const f = parseFingerprint(run.fingerprint);
  const ladder = (f?.ladderLevels ?? run.config.ladderLevels) as Json | undefined;
  const h = f?.hpiDataset ?? (run.summary?.hpiDataset as Json | undefined);
  return { levels: Array.isArray(ladder) ? ladder.length : null, hpiDataset: typeof h === 'number' ? h : null };
}

/**
 * The completed runs of `store` comparable with the planned run, newest first: the same data (`dataDifferences` of
 * their `dataIdentity` empty, so their samples pair by id) and, for an HPI plan, the same HPI scale (mode, number of
 * levels and HPI_Dataset; a run whose scale is not recorded is left out). Models, ladders and other settings may differ.
 */
export function comparableRuns(store: RunStore, planned: PowerPlanRun, kind: 'hpi' | 'accuracy'): RunRecord[] {
  return store.listRuns().filter((run) => {
    if (run.status !== 'completed' || dataDifferences(dataIdentity(run), planned.data).length > 0) return false;
    if (kind === 'accuracy') return true;
    const scale = scaleOf(run);
    return run.mode === planned.mode && scale.levels === planned.levels && scale.hpiDataset === planned.hpiDataset;
  });
}

/** Mean and sample sd (n − 1) of `xs` (at least 2 values). */
function meanSd(xs: readonly number[]): { mean: number; sd: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const ss = xs.reduce((a, x) => a + (x - mean) ** 2, 0);
  return { mean, sd: Math.sqrt(ss / (xs.length - 1)) };
}

const hpiOf = (u: SampleUnit) => u.hpi / u.scores;
const solvedOf = (u: SampleUnit) => u.solved / u.scores;
const f2 = (x: number) => x.toFixed(2);

/**
 * The design effect of paired unit differences clustered by sample (Miller 2024, "Adding Error Bars to Evals", §2.2):
 * (clustered SE / naive SE)² of the per-unit differences `value(a) − value(b)`, at least 1; 1 when no sample has
 * several units (no replicates) or fewer than 2 samples. With replicates the units of one sample are correlated, so n
 * units carry the information of n / DE independent ones: the sample size is multiplied by it.
 */
function designEffect(pairs: readonly [SampleUnit, SampleUnit][], value: (u: SampleUnit) => number): number {
  const ids = pairs.map(([x]) => x.sampleId);
  const distinct = new Set(ids).size;
  if (distinct === ids.length || distinct < 2) return 1;
  const de = clusteredMean(pairs.map(([x, y]) => value(x) - value(y)), ids).designEffect;
  return de === null ? 1 : Math.max(1, de);
}

/** The spread of two runs' paired per-sample HPI: sds, Pearson correlation (0 when a run is constant) and σ_d. */
function pairedSpread(pairs: readonly [SampleUnit, SampleUnit][]): { sdA: number; sdB: number; rho: number; sdDiff: number } | undefined {
  const a = pairs.map(([x]) => hpiOf(x));
  const b = pairs.map(([, y]) => hpiOf(y));
  const ma = meanSd(a);
  const mb = meanSd(b);
  let cov = 0;
  for (let i = 0; i < a.length; i++) cov += (a[i]! - ma.mean) * (b[i]! - mb.mean);
  cov /= a.length - 1;
  const rho = ma.sd > 0 && mb.sd > 0 ? Math.max(-1, Math.min(1, cov / (ma.sd * mb.sd))) : 0;
  try {
    return { sdA: ma.sd, sdB: mb.sd, rho, sdDiff: sdOfDifference(ma.sd, mb.sd, rho) };
  } catch {
    return undefined; // the per-sample HPI agree everywhere: the pair says nothing about the spread
  }
}

/**
 * Plan the sample size of a paired comparison on the planned data (see `PowerPlan`). The spread comes from, in order:
 * 1. two runs: the newest pair of comparable runs (`comparableRuns`, newest first) with different configurations
 *    (`configHash`) and at least 2 paired samples (`pairUnits`: by sample id and replicate, scored in both); HPI:
 *    sdA, sdB and the Pearson correlation rho of per-sample HPI (hpi / scores) over the pairs (a pair whose per-sample
 *    HPI agree everywhere is skipped); accuracy: ψ = mean |solvedA − solvedB| over the pairs (solved / scores per
 *    sample; with one score per sample, the share of samples exactly one run solved), raised to |δ| when smaller (no
 *    two runs differing by δ can disagree on fewer samples);
 * 2. one run (HPI only): the newest comparable run with at least 2 scored samples and a positive sd of per-sample HPI:
 *    that sd for both runs and rho = `DEFAULT_PAIR_CORRELATION` (0.5; runs of models on the same items correlate
 *    positively, so σ_d ≤ sd);
 * 3. defaults: HPI: sd = `defaultHpiSd` for both runs and rho 0.5, so σ_d = (m + HPI_Dataset − 1)/2 in manual mode;
 *    accuracy: ψ = `defaultDiscordance(δ)` = 0.5 + δ²/2, the largest discordance of two independent runs.
 * `store` is undefined when the store does not exist (defaults). Reads the store only.
 * @throws HptError `E_CONFIG` from `checkPowerTarget`.
 */
export function planPower(store: RunStore | undefined, planned: PowerPlanRun, target: PowerTarget, available: number): PowerPlan {
  const { kind, delta, alpha, power } = checkPowerTarget(target);
  const runs = store ? comparableRuns(store, planned, kind) : [];
  const units = new Map<string, SampleUnit[]>();
  const unitsOf = (id: string) => {
    let u = units.get(id);
    if (!u) units.set(id, (u = sampleUnits(store!, id)));
    return u;
  };
  const head = kind === 'hpi' ? { detect: delta } : { detectAccuracy: delta };
  const done = (samplesNeeded: number, rest: Omit<PowerPlan, 'alpha' | 'power' | 'samplesNeeded' | 'available' | 'enough' | 'detect' | 'detectAccuracy'>): PowerPlan => ({
    ...head,
    alpha,
    power,
    samplesNeeded,
    ...rest,
    available,
    enough: available >= samplesNeeded,
  });
  // 1. the newest pair of comparable runs of different configurations
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) {
      const [ra, rb] = [runs[i]!, runs[j]!];
      if (ra.configHash !== null && ra.configHash === rb.configHash) continue;
      const { pairs } = pairUnits(unitsOf(ra.id), unitsOf(rb.id));
      if (pairs.length < 2) continue;
      const ids = [ra.id, rb.id];
      if (kind === 'hpi') {
        const s = pairedSpread(pairs);
        if (!s) continue;
        const de = designEffect(pairs, hpiOf);
        const note = `from runs ${ra.id} and ${rb.id} (${pairs.length} paired samples): sd ${f2(s.sdA)} and ${f2(s.sdB)}, correlation ${f2(s.rho)}${s.sdA > 0 && s.sdB > 0 ? '' : ' (a run is constant: correlation undefined, 0 used)'}${deNote(de)}`;
        return done(Math.ceil(samplesForMeanDifference({ delta, sdDiff: s.sdDiff, alpha, power }) * de), { source: { runs: ids, note }, ...s, pairs: pairs.length, ...(de > 1 ? { designEffect: de } : {}) });
      }
      const observed = pairs.reduce((n, [x, y]) => n + Math.abs(solvedOf(x) - solvedOf(y)), 0) / pairs.length;
      const psi = Math.min(1, Math.max(observed, delta));
      const de = designEffect(pairs, solvedOf);
      const note = `from runs ${ra.id} and ${rb.id} (${pairs.length} paired samples: the share exactly one of them solved${psi > observed ? `, ${pct(observed)}, below the difference to detect, so |δ| = ${pct(psi)} used, the least discordance a difference of δ allows` : ''})${deNote(de)}`;
      return done(Math.ceil(samplesForPairedProportions({ delta, discordance: psi, alpha, power }) * de), { source: { runs: ids, note }, discordance: psi, pairs: pairs.length, ...(de > 1 ? { designEffect: de } : {}) });
    }
  }
  if (kind === 'accuracy') {
    const psi = defaultDiscordance(delta);
    const why = runs.length === 0 ? 'no comparable completed run in the store' : `no two comparable runs of different configurations with paired samples (${runs.length === 1 ? `only run ${runs[0]!.id}` : `${runs.length} runs`})`;
    const note = `default: ${why}; 0.5 + δ²/2 = ${pct(psi)}, the largest share two independent runs differing by δ disagree on (conservative: runs on the same items agree more)`;
    return done(samplesForPairedProportions({ delta, discordance: psi, alpha, power }), { source: { runs: [], note }, discordance: psi });
  }
  // 2. one comparable run: its sd for both, the default correlation
  for (const run of runs) {
    const values = unitsOf(run.id).filter((u) => u.scores > 0).map(hpiOf);
    if (values.length < 2) continue;
    const { sd } = meanSd(values);
    if (!(sd > 0)) continue;
    const rho = DEFAULT_PAIR_CORRELATION;
    const note = `from run ${run.id} (${values.length} samples): sd ${f2(sd)} for both runs, correlation ${rho} assumed (default: no two comparable runs of different configurations with paired samples)`;
    return done(samplesForMeanDifference({ delta, sdA: sd, sdB: sd, rho, alpha, power }), { source: { runs: [run.id], note }, sdA: sd, sdB: sd, rho, sdDiff: sdOfDifference(sd, sd, rho), pairs: values.length });
  }
  // 3. defaults
  const sd = defaultHpiSd(planned);
  const rho = DEFAULT_PAIR_CORRELATION;
  const [lo, hi] = hpiRange(planned);
  const why = runs.length === 0 ? 'no comparable completed run in the store (same data and HPI scale)' : 'the comparable runs have no spread of per-sample HPI';
  const note = `default: ${why}; sd ${f2(sd)} for both runs, the largest sd of a per-sample HPI in [${lo}, ${+hi.toFixed(4)}] (half the samples at each end; Popoviciu's inequality), correlation ${rho} assumed`;
  return done(samplesForMeanDifference({ delta, sdA: sd, sdB: sd, rho, alpha, power }), { source: { runs: [], note }, sdA: sd, sdB: sd, rho, sdDiff: sdOfDifference(sd, sd, rho) });
}

/** The note's words on a design effect above 1 ('' otherwise). */
function deNote(de: number): string {
  return de > 1 ? `; × design effect ${f2(de)} (the runs' replicates of a sample are correlated; Miller 2024 §2.2)` : '';
}

/** A share as a percentage with one decimal (0.185 → "18.5%"). */
function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}
