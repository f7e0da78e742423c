/**
 * The expected HPI of the random baseline (`baseline:random`) on a set of samples, for e2e checks of the ladder and
 * HPI accounting (hpt.md §2.1) against what the CLI reports.
 *
 * Each graded call of the random baseline answers with `scorer.randomAnswer(sample, rng)` from its own seeded stream, so
 * the five levels are independent draws with the same acceptance probability p (the probability that a random answer
 * is solved). p is estimated per sample from `draws` answers of the real `randomAnswer`, each scored by the real
 * scorer (memoised by answer text). Then, per sample, P(level k) = p (1-p)^(k-1) for k = 1..m and P(unsolved) =
 * (1-p)^m with HPI m + HPI_Dataset; the mean and variance of the per-sample HPI give the run's expected HPI and its
 * standard error.
 */
import seedrandom from 'seedrandom';
import type { GradedOutput, Sample, ScoreContext, Verdict } from '@hpt-bench/core';

/** A scorer that scores synchronously and draws random answers (the HiBench scorers). */
export interface RandomScorer {
  score(sample: Sample, output: GradedOutput, ctx: ScoreContext): Verdict;
  randomAnswer(sample: Sample, random: () => number, ctx?: ScoreContext): string;
}

/** The expectation of a random-baseline run's HPI, and the standard error of the run's mean HPI around it. */
export interface RandomExpectation {
  /** expected mean HPI over the samples */
  hpi: number;
  /** standard error of the observed mean HPI (sampling of the run's draws, plus the estimation of each p) */
  se: number;
  /** mean acceptance probability of one random answer */
  p: number;
  n: number;
}

/**
 * @param levels m, the ladder's levels (5 for the HPF ladder)
 * @param hpiDataset the dataset's penalty (the HPI of an unsolved sample is m + hpiDataset)
 * @param draws random answers per sample used to estimate p
 */
export function randomExpectation(samples: readonly Sample[], scorer: RandomScorer, ctx: ScoreContext, options: { levels: number; hpiDataset: number; draws?: number; seed?: string }): RandomExpectation {
  const m = options.levels;
  const draws = options.draws ?? 400;
  let sum = 0;
  let variance = 0;
  let pSum = 0;
  for (const sample of samples) {
    const rng = seedrandom(`${options.seed ?? 'expectation'}:${sample.id}`);
    const verdicts = new Map<string, boolean>();
    let accepted = 0;
    for (let d = 0; d < draws; d++) {
      const answer = scorer.randomAnswer(sample, rng, ctx);
      let solved = verdicts.get(answer);
      if (solved === undefined) {
        solved = scorer.score(sample, { promptText: '', completion: answer, cue: '' }, ctx).solved;
        verdicts.set(answer, solved);
      }
      if (solved) accepted++;
    }
    const p = accepted / draws;
    pSum += p;
    let e = 0;
    let e2 = 0;
    for (let k = 1; k <= m; k++) {
      const pk = p * (1 - p) ** (k - 1);
      e += k * pk;
      e2 += k * k * pk;
    }
    const unsolved = m + options.hpiDataset;
    e += unsolved * (1 - p) ** m;
    e2 += unsolved * unsolved * (1 - p) ** m;
    sum += e;
    // the run's draw, plus the error of estimating p (dE/dp at most ~m + hpiDataset, times the binomial error of p)
    variance += e2 - e * e + (unsolved * unsolved * p * (1 - p)) / draws;
  }
  const n = samples.length;
  return { hpi: sum / n, se: Math.sqrt(variance) / n, p: pSum / n, n };
}
