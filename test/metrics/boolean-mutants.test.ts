/**
 * Mutation-testing companions of boolean.test.ts: cases that kill the surviving mutants of
 * plugins/metrics/src/boolean.ts. Expected values come from specs/hpt.md §4 "BoolQ" (reference parser) and §9 #1/#14
 * (strict parser), or from the scorer's documented contract, computed by hand.
 */
import { describe, expect, it } from 'vitest';
import { type GradedOutput, type Sample, type ScoreContext } from '@hpt-bench/core';
import { codeOf } from '../helpers/errors.js';
import { BooleanScorer, referenceBoolq } from '../../plugins/metrics/src/index.js';

const scorer = new BooleanScorer();
const STRICT: ScoreContext = { compat: 'strict', options: {} };
const REF: ScoreContext = { compat: 'reference', options: {} };

function sample(target: Sample['target']): Sample {
  return { id: 'b1', index: 0, input: { passage: 'p', question: 'q' }, target };
}

function out(completion: string): GradedOutput {
  return { promptText: 'Question: is it?\nAnswer:', completion, cue: 'Answer:' };
}


describe('referenceBoolq removes every "answer:" before the substring tests (hpt.md §4 BoolQ step 2)', () => {
  it('"answer:" inside a word is removed, so "yeanswer:s" becomes "yes" (1)', () => {
    // lower-cased line "answer: yeanswer:s" -> remove both "answer:" -> " yes" -> strip -> "yes" -> 1
    expect(referenceBoolq('Answer: yeAnswer:s')).toBe(1);
    // "answer:" splitting "tr|ue": "true" only after the removal
    expect(referenceBoolq('ANSWER: trANSWER:ue')).toBe(1);
  });
});

describe('BooleanScorer string targets (tolerated "true"/"false", any case, surrounding whitespace)', () => {
  it('a "TRUE" gold is true: a True completion solves it and a False one does not, in both modes', () => {
    const s = sample('TRUE');
    expect(scorer.score(s, out(' True'), STRICT)).toEqual({ solved: true, score: 1, extracted: true, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s, out(' False'), STRICT)).toEqual({ solved: false, score: 0, extracted: false, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s, out(' yes'), REF)).toEqual({ solved: true, score: 1, extracted: true });
    expect(scorer.score(s, out(' no'), REF)).toEqual({ solved: false, score: 0, extracted: false });
  });

  it('a "false" gold is false: a False completion solves it and a True one does not, in both modes', () => {
    const s = sample('false');
    expect(scorer.score(s, out(' False'), STRICT)).toEqual({ solved: true, score: 1, extracted: false, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s, out(' True'), STRICT)).toEqual({ solved: false, score: 0, extracted: true, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s, out(' false'), REF)).toEqual({ solved: true, score: 1, extracted: false });
    expect(scorer.score(s, out(' true'), REF)).toEqual({ solved: false, score: 0, extracted: true });
  });

  it('padding around a string gold is ignored (" True " is true, "\\tfalse\\n" is false)', () => {
    expect(scorer.score(sample(' True '), out('True'), STRICT).solved).toBe(true);
    expect(scorer.score(sample('\tfalse\n'), out('False'), STRICT).solved).toBe(true);
    expect(scorer.renderTarget(sample(' True '))).toBe('True');
  });

  it('other targets throw E_DATA naming the scorer, the sample, the target and the expected shape', () => {
    for (const t of ['yes', '1', '', 1, 0, null, ['true']] as Sample['target'][]) {
      expect(codeOf(() => scorer.score(sample(t), out('True'), STRICT))).toBe('E_DATA');
      expect(codeOf(() => scorer.renderTarget(sample(t)))).toBe('E_DATA');
    }
    expect(() => scorer.score(sample('maybe'), out('True'), STRICT)).toThrow(/^scorer "boolean": sample b1 has target "maybe", expected a boolean$/);
  });
});

describe('BooleanScorer baselines', () => {
  it('renderTarget gives "True"/"False", which both parsers read as the gold (oracle solves)', () => {
    for (const [target, text] of [[true, 'True'], [false, 'False'], ['true', 'True'], ['FALSE', 'False']] as const) {
      const s = sample(target);
      expect(scorer.renderTarget(s)).toBe(text);
      expect(scorer.score(s, out(scorer.renderTarget(s)), STRICT).solved).toBe(true);
      expect(scorer.score(s, out(scorer.renderTarget(s)), REF).solved).toBe(true);
    }
  });

  it('randomAnswer splits [0, 1) into halves: draws below 1/2 give "True", draws above give "False"', () => {
    const s = sample(true);
    for (const r of [0, 0.1, 0.25, 0.4999]) expect(scorer.randomAnswer(s, () => r)).toBe('True');
    for (const r of [0.5001, 0.75, 0.9999]) expect(scorer.randomAnswer(s, () => r)).toBe('False');
  });

  it('randomAnswer uses exactly one draw of random()', () => {
    let draws = 0;
    scorer.randomAnswer(sample(false), () => {
      draws++;
      return 0.3;
    });
    expect(draws).toBe(1);
  });
});
