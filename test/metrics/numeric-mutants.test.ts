/**
 * Mutation-testing companions of numeric.test.ts: cases that kill the surviving mutants of
 * plugins/metrics/src/numeric.ts. Expected values come from specs/hpt.md §4 "GSM8K" (reference parser), §9 #15 (strict
 * parser) and the scorer's documented contract (`#### <target>` oracle, random integer in [0, floor(2|t| + 10)]),
 * computed by hand.
 *
 * The module is imported inside each test (not at the top of the file): a mutant that breaks one of its module-level
 * regular expressions then fails these tests instead of failing the file's import, which a mutation run would not count.
 */
import { describe, expect, it } from 'vitest';
import { HptError, type GradedOutput, type Json, type Sample, type ScoreContext } from '@hpt-bench/core';

const load = () => import('../../plugins/metrics/src/numeric.js');

const STRICT: ScoreContext = { compat: 'strict', options: {} };
const REF: ScoreContext = { compat: 'reference', options: {} };

function sample(target: Json): Sample {
  return { id: 'g7', index: 0, input: { question: 'How many?' }, target };
}
function out(completion: string): GradedOutput {
  return { promptText: 'Q: How many?\nAnswer:', completion, cue: 'Answer:' };
}

describe('the numeric module loads (its reference regular expressions compile)', () => {
  it('reads Unicode decimal digits as Python\'s \\d does (hpt.md §4 GSM8K, float() of the digits)', async () => {
    const { referenceGsm8k, referenceGsm8kValue } = await load();
    // U+0664 U+0662 are Arabic-Indic 4 and 2
    expect(referenceGsm8k('the answer is \u0664\u0662')).toBe('\u0664\u0662');
    expect(referenceGsm8kValue('\u0664\u0662')).toBe(42);
    expect(referenceGsm8k('#### 17')).toBe('17');
  });
});

describe('referenceGsm8k step 4: only lines with ####, answer: or "the answer is" qualify (hpt.md §4 GSM8K)', () => {
  it('a "##" heading without "####" does not qualify', async () => {
    const { referenceGsm8k } = await load();
    expect(referenceGsm8k('## Step 5')).toBeNull();
    expect(referenceGsm8k('### total 12')).toBeNull();
  });

  it('"answer" without a colon, or "an answer of", does not qualify', async () => {
    const { referenceGsm8k } = await load();
    expect(referenceGsm8k('my answer 12')).toBeNull();
    expect(referenceGsm8k('so the answer: 12\nmy answer 13')).toBe('12');
  });

  it('each qualifier alone is enough: ####, answer:, the answer is', async () => {
    const { referenceGsm8k } = await load();
    expect(referenceGsm8k('x\n#### 31\ny')).toBe('31');
    expect(referenceGsm8k('x\nanswer: 32\ny')).toBe('32');
    expect(referenceGsm8k('x\nthe answer is 33\ny')).toBe('33');
    expect(referenceGsm8k('x\nafter: #### 34\ny')).toBeNull();
  });
});

describe('NumericScorer gold (a finite number, or a numeric string with thousands commas)', () => {
  it('an empty or blank string target is not a number: E_DATA naming scorer "numeric"', async () => {
    const { NumericScorer } = await load();
    const scorer = new NumericScorer();
    for (const t of ['', '   ', '\t\n']) {
      let err: unknown;
      try {
        scorer.score(sample(t), out(' 0'), STRICT);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(HptError);
      expect((err as HptError).code).toBe('E_DATA');
      expect((err as HptError).message).toMatch(/scorer "numeric"/);
    }
  });

  it('a padded string gold with commas is its number', async () => {
    const { NumericScorer } = await load();
    const scorer = new NumericScorer();
    expect(scorer.score(sample(' 1,234 '), out(' #### 1234'), STRICT)).toEqual({ solved: true, score: 1, extracted: 1234, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(sample('-7'), out(' #### -7'), STRICT).solved).toBe(true);
  });

  it('non-finite and non-numeric targets throw E_DATA', async () => {
    const { NumericScorer } = await load();
    const scorer = new NumericScorer();
    for (const t of [Number.NaN, Number.POSITIVE_INFINITY, 'twelve', 'Infinity', null, true] as Json[]) {
      expect(() => scorer.renderTarget(sample(t))).toThrow(expect.objectContaining({ code: 'E_DATA' }));
    }
  });
});

describe('NumericScorer.renderTarget: "#### <target>" in plain decimal notation, read back exactly', () => {
  it('ordinary numbers are written as they are', async () => {
    const { NumericScorer } = await load();
    const scorer = new NumericScorer();
    expect(scorer.renderTarget(sample(109))).toBe('#### 109');
    expect(scorer.renderTarget(sample(-2.5))).toBe('#### -2.5');
    expect(scorer.renderTarget(sample(0.1))).toBe('#### 0.1');
    expect(scorer.renderTarget(sample('1,234'))).toBe('#### 1234');
  });

  it('numbers JavaScript prints with an exponent are written out in full', async () => {
    const { NumericScorer } = await load();
    const scorer = new NumericScorer();
    // 1e21 = 10^21 exactly
    expect(scorer.renderTarget(sample(1e21))).toBe('#### 1000000000000000000000');
    // 2^-20 = 95367431640625 / 10^20 exactly
    expect(scorer.renderTarget(sample(2 ** -20))).toBe('#### 0.00000095367431640625');
    expect(scorer.renderTarget(sample(-(2 ** -20)))).toBe('#### -0.00000095367431640625');
  });

  it('the oracle answer solves its sample in strict mode', async () => {
    const { NumericScorer } = await load();
    const scorer = new NumericScorer();
    for (const t of [109, 0, 2.5, 1e21, 2 ** -20, 1e-7]) {
      const s = sample(t);
      expect(scorer.score(s, out(' ' + scorer.renderTarget(s)), STRICT).solved).toBe(true);
    }
    // the reference parser drops the sign but solves non-negative golds
    expect(scorer.score(sample(109), out(' ' + scorer.renderTarget(sample(109))), REF).solved).toBe(true);
  });
});

describe('NumericScorer.randomAnswer: "#### k", k uniform in [0, floor(2|target| + 10)]', () => {
  it('target 5: k in [0, 20], floor(r * 21)', async () => {
    const { NumericScorer } = await load();
    const scorer = new NumericScorer();
    const s = sample(5);
    expect([0, 0.5, 0.999].map((r) => scorer.randomAnswer(s, () => r))).toEqual(['#### 0', '#### 10', '#### 20']);
  });

  it('a negative or fractional target uses |target|: -3 gives [0, 16], 2.6 gives [0, 15]', async () => {
    const { NumericScorer } = await load();
    const scorer = new NumericScorer();
    expect(scorer.randomAnswer(sample(-3), () => 0.999)).toBe('#### 16');
    expect(scorer.randomAnswer(sample(-3), () => 0.5)).toBe('#### 8');
    expect(scorer.randomAnswer(sample(2.6), () => 0.999)).toBe('#### 15');
    expect(scorer.randomAnswer(sample(0), () => 0.999)).toBe('#### 10');
  });

  it('stays in range for a draw of exactly 1 or below 0', async () => {
    const { NumericScorer } = await load();
    const scorer = new NumericScorer();
    expect(scorer.randomAnswer(sample(5), () => 1)).toBe('#### 20');
    expect(scorer.randomAnswer(sample(5), () => -0.5)).toBe('#### 0');
  });
});
