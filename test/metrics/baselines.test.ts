/** renderTarget (oracle baseline) and randomAnswer (random baseline) of the three answer scorers. */
import { describe, it, expect } from 'vitest';
import type { GradedOutput, Json, Sample, ScoreContext } from '@hpt-bench/core';
import { BooleanScorer, ChoiceScorer, NumericScorer, strictBoolean, strictLetter, strictNumber } from '../../plugins/metrics/src/index.js';

const STRICT: ScoreContext = { compat: 'strict', options: {} };
const REF: ScoreContext = { compat: 'reference', options: {} };
const CUE = 'Answer:';

function sample(target: Json, input: Record<string, string> = { question: 'Q?' }): Sample {
  return { id: 'x', index: 0, input, target };
}
/** Level-1-like output: the prompt has no exemplar answer lines, the completion follows the cue. */
function out(completion: string): GradedOutput {
  return { promptText: `Q?\n${CUE}`, completion, cue: CUE };
}

/** Deterministic LCG in [0, 1) (tests only). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const CSQA_INPUT = { question: 'Q?', text1: 'a', text2: 'b', text3: 'c', text4: 'd', text5: 'e' };
const MMLU_INPUT = { question: 'Q?', text1: 'a', text2: 'b', text3: 'c', text4: 'd' };

describe('renderTarget round-trips through strict scoring', () => {
  it('boolean', () => {
    const scorer = new BooleanScorer();
    for (const t of [true, false]) {
      const text = scorer.renderTarget(sample(t), STRICT);
      expect(text).toBe(t ? 'True' : 'False');
      expect(scorer.score(sample(t), out(text), STRICT)).toEqual({ solved: true, score: 1, extracted: t, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
      expect(scorer.score(sample(t), out(text), REF)).toEqual({ solved: true, score: 1, extracted: t });
    }
  });

  it('choice', () => {
    const scorer = new ChoiceScorer();
    for (const [input, letters] of [[CSQA_INPUT, 'ABCDE'], [MMLU_INPUT, 'ABCD']] as const) {
      for (const t of letters) {
        const text = scorer.renderTarget(sample(t, input), STRICT);
        expect(text).toBe(t);
        expect(scorer.score(sample(t, input), out(text), STRICT)).toEqual({ solved: true, score: 1, extracted: t, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
        expect(scorer.score(sample(t, input), out(text), REF)).toEqual({ solved: true, score: 1, extracted: t });
      }
    }
  });

  it('numeric', () => {
    const scorer = new NumericScorer();
    expect(scorer.renderTarget(sample(109), STRICT)).toBe('#### 109');
    for (const t of [0, 109, 1234567, 2.5, 0.125, -5, -0.75, 1e-7, 1e21]) {
      const text = scorer.renderTarget(sample(t), STRICT);
      expect(text).toMatch(/^#### -?[0-9.]+$/);
      expect(scorer.score(sample(t), out(text), STRICT)).toEqual({ solved: true, score: 1, extracted: t, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    }
    // Reference mode drops the sign, so the oracle only solves non-negative targets there.
    expect(scorer.score(sample(1234567), out(scorer.renderTarget(sample(1234567), REF)), REF).solved).toBe(true);
    expect(scorer.score(sample(-5), out(scorer.renderTarget(sample(-5), REF)), REF)).toEqual({ solved: false, score: 0, extracted: 5 });
  });
});

describe('randomAnswer always parses', () => {
  it('boolean: True or False, both drawn', () => {
    const scorer = new BooleanScorer();
    const rnd = lcg(1);
    const seen = new Set<boolean>();
    for (let i = 0; i < 200; i++) {
      const a = scorer.randomAnswer(sample(true), rnd, STRICT);
      expect(['True', 'False']).toContain(a);
      const v = strictBoolean(a, CUE);
      expect(v).not.toBeNull();
      seen.add(v as boolean);
    }
    expect([...seen].sort()).toEqual([false, true]);
    expect(scorer.randomAnswer(sample(true), () => 0, STRICT)).toBe('True');
    expect(scorer.randomAnswer(sample(true), () => 0.9999999, STRICT)).toBe('False');
  });

  it('choice: a letter within range, every letter drawn', () => {
    const scorer = new ChoiceScorer();
    for (const [input, ctx, letters] of [
      [CSQA_INPUT, STRICT, 'ABCDE'],
      [MMLU_INPUT, STRICT, 'ABCD'],
      [CSQA_INPUT, { compat: 'strict', options: { letters: 4 } }, 'ABCD'],
    ] as const) {
      const rnd = lcg(7);
      const seen = new Set<string>();
      for (let i = 0; i < 300; i++) {
        const a = scorer.randomAnswer(sample('A', input), rnd, ctx);
        expect(strictLetter(a, CUE, letters.length)).toBe(a);
        seen.add(a);
      }
      expect([...seen].sort().join('')).toBe(letters);
      expect(scorer.randomAnswer(sample('A', input), () => 0.9999999, ctx)).toBe(letters[letters.length - 1]);
    }
  });

  it('numeric: an integer in [0, 2|target| + 10], rendered as "#### k"', () => {
    const scorer = new NumericScorer();
    for (const t of [0, 7, -40, 2.5, 1234567]) {
      const rnd = lcg(3);
      const hi = Math.floor(2 * Math.abs(t) + 10);
      for (let i = 0; i < 200; i++) {
        const a = scorer.randomAnswer(sample(t), rnd, STRICT);
        expect(a).toMatch(/^#### \d+$/);
        const v = strictNumber(a, CUE) as number;
        expect(Number.isInteger(v)).toBe(true);
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(hi);
      }
      expect(scorer.randomAnswer(sample(t), () => 0, STRICT)).toBe('#### 0');
      expect(scorer.randomAnswer(sample(t), () => 0.9999999, STRICT)).toBe(`#### ${hi}`);
    }
  });

  it('is deterministic for the same random stream', () => {
    const scorer = new NumericScorer();
    const draw = (r: () => number) => [1, 2, 3, 4, 5].map(() => scorer.randomAnswer(sample(50), r, STRICT));
    const a = draw(lcg(11));
    expect(draw(lcg(11))).toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(1);
  });
});
