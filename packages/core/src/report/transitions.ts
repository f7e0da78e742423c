/**
 * Level transitions between two runs on the same samples (`hpt-bench compare`, the HTML report's transition
 * heatmaps): at which ladder level run A solved each paired sample against the level at which run B solved it, and
 * the samples B fixes (A left them unsolved, B solves them) or breaks (A solved them, B does not).
 */
import type { SampleUnit } from '@hpt-bench/sdk';
import { pairUnits } from './pairing.js';

/** Row / column label of a sample nobody solved at any level. */
export const UNSOLVED_LABEL = 'unsolved';

/**
 * The transition matrix of two runs on their paired samples (matched as `pairUnits` matches them).
 * - `rows`: `L1`..`L{mA}` then `unsolved` — the level at which run A solved the sample; `columns`: the same for run B
 *   (`mA`, `mB`: each run's ladder length, so ladders of different lengths give a non-square matrix);
 * - `counts[i][j]`: paired samples A solved at `rows[i]` and B at `columns[j]`; all counts sum to `paired`;
 * - `totals`: `fixed` (A unsolved, B solved), `broken` (A solved, B unsolved), `improved` / `worse` (both solved, B at
 *   a lower / higher level number than A), `sameLevel` (both solved at the same level), `bothUnsolved`.
 */
export interface LevelTransitions {
  rows: string[];
  columns: string[];
  counts: number[][];
  paired: number;
  totals: { fixed: number; broken: number; improved: number; worse: number; sameLevel: number; bothUnsolved: number };
}

/**
 * A paired sample whose solved state differs between the runs: its id, its replicate index when the runs have
 * replicates, and each run's solving level (null: unsolved). In `fixed` lists `levelA` is null; in `broken` `levelB` is.
 */
export interface TransitionSample {
  sampleId: string;
  replicate?: number;
  levelA: number | null;
  levelB: number | null;
}

/** `levelTransitions`' answer: the matrix and the full lists of fixed and broken samples, in run A's sample order. */
export interface TransitionResult {
  transitions: LevelTransitions;
  fixed: TransitionSample[];
  broken: TransitionSample[];
}

/**
 * The level at which a sample counts as solved: the stored `level` (the ladder level whose attempt solved it; for
 * adaptive runs the level the selector chose at the solving iteration, whatever the iteration) when the sample has
 * at least one solved score, else null (unsolved). A `--compat reference` sample with two records (solved at the
 * last iteration plus the penalty record) counts as solved at its level.
 */
export function solvedLevel(u: SampleUnit): number | null {
  return u.level !== null && u.level >= 1 && u.solved > 0 ? u.level : null;
}

/**
 * Count the level transitions from run A to run B on their paired samples (pure). `levels` is each run's ladder length
 * (the summary's `ladder`); a stored level above it widens that run's side (so no sample is ever dropped), and 0 or
 * missing means "the highest level seen" (at least 1).
 * With no paired sample the matrix is all zeros (`paired` 0); callers that need pairs raise their own error.
 */
export function levelTransitions(a: { units: readonly SampleUnit[]; levels?: number }, b: { units: readonly SampleUnit[]; levels?: number }): TransitionResult {
  const { pairs } = pairUnits(a.units, b.units);
  const width = (units: readonly SampleUnit[], levels: number | undefined) => units.reduce((m, u) => Math.max(m, solvedLevel(u) ?? 0), Math.max(1, levels ?? 0));
  const mA = width(a.units, a.levels);
  const mB = width(b.units, b.levels);
  const labels = (m: number) => [...Array.from({ length: m }, (_, i) => `L${i + 1}`), UNSOLVED_LABEL];
  const counts = Array.from({ length: mA + 1 }, () => new Array<number>(mB + 1).fill(0));
  const totals = { fixed: 0, broken: 0, improved: 0, worse: 0, sameLevel: 0, bothUnsolved: 0 };
  const fixed: TransitionSample[] = [];
  const broken: TransitionSample[] = [];
  for (const [ua, ub] of pairs) {
    const la = solvedLevel(ua);
    const lb = solvedLevel(ub);
    counts[la === null ? mA : la - 1]![lb === null ? mB : lb - 1]!++;
    const entry = (): TransitionSample => ({ sampleId: ua.sampleId, ...(ua.replicate !== undefined ? { replicate: ua.replicate } : {}), levelA: la, levelB: lb });
    if (la === null && lb === null) totals.bothUnsolved++;
    else if (la === null) {
      totals.fixed++;
      fixed.push(entry());
    } else if (lb === null) {
      totals.broken++;
      broken.push(entry());
    } else if (lb < la) totals.improved++;
    else if (lb > la) totals.worse++;
    else totals.sameLevel++;
  }
  return { transitions: { rows: labels(mA), columns: labels(mB), counts, paired: pairs.length, totals }, fixed, broken };
}
