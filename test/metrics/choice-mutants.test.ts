/**
 * Mutation-testing companions of choice.test.ts: cases that kill the surviving mutants of
 * plugins/metrics/src/choice.ts. Expected values come from specs/hpt.md §4 "CSQA"/"MMLU" (reference parsers), §9 #14
 * (strict parser) and the scorer's documented contract, computed by hand.
 */
import { describe, expect, it } from 'vitest';
import { HptError, type GradedOutput, type Json, type Sample, type ScoreContext } from '@hpt-bench/core';
import { ChoiceScorer, referenceChoice } from '../../plugins/metrics/src/index.js';

const scorer = new ChoiceScorer();
const strict = (options: Record<string, Json> = {}): ScoreContext => ({ compat: 'strict', options });
const ref = (options: Record<string, Json> = {}): ScoreContext => ({ compat: 'reference', options });

function withOptions(n: number, target: Json): Sample {
  const input: Record<string, string> = { question: 'Q?' };
  for (let i = 1; i <= n; i++) input[`text${i}`] = `option ${i}`;
  return { id: `s${n}`, index: 0, input, target };
}
function out(completion: string): GradedOutput {
  return { promptText: 'Q?\nAnswer:', completion, cue: 'Answer:' };
}

describe('referenceChoice: only MMLU strips "answer is"/"the correct" (hpt.md §4 CSQA vs MMLU)', () => {
  it('CSQA keeps "the correct", so the line starts with "t" and defaults to 0 (A); MMLU strips it and reads D', () => {
    expect(referenceChoice('Q\nAnswer: the correct d', 'csqa')).toBe(0);
    expect(referenceChoice('Q\nAnswer: the correct d', 'mmlu')).toBe(3);
  });

  it('CSQA keeps "answer is:", so "answer is: e" starts with "a" (0); MMLU strips it and has no e (0), "answer is: c" is 2', () => {
    expect(referenceChoice('Answer: answer is: e', 'csqa')).toBe(0);
    expect(referenceChoice('Answer: answer is: c', 'csqa')).toBe(0);
    expect(referenceChoice('Answer: answer is: c', 'mmlu')).toBe(2);
  });
});

describe('referenceChoice tests exactly the letters a–e (CSQA) / a–d (MMLU)', () => {
  it('a line that matches no letter defaults to 0, whatever word it holds (e.g. "undefined", "null")', () => {
    for (const word of ['undefined', 'null', 'zebra', 'undefinedb']) {
      expect(referenceChoice(`Answer: ${word}`, 'csqa')).toBe(0);
      expect(referenceChoice(`Answer: ${word}`, 'mmlu')).toBe(0);
    }
  });
});

describe('ChoiceScorer: number of options', () => {
  it('exactly 2 text inputs give 2 options: A and B are read, C is out of range (null)', () => {
    const s = withOptions(2, 'B');
    expect(scorer.score(s, out(' B'), strict())).toEqual({ solved: true, score: 1, extracted: 'B', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s, out(' A'), strict())).toEqual({ solved: false, score: 0, extracted: 'A', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s, out(' C'), strict())).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
  });

  it('one text input is not enough to infer: 5 options (E read, F not)', () => {
    const s = withOptions(1, 'E');
    expect(scorer.score(s, out(' E'), strict()).extracted).toBe('E');
    expect(scorer.score(s, out(' F'), strict()).extracted).toBeNull();
  });
});

describe('ChoiceScorer strict verdicts', () => {
  it('a parsed but wrong letter is not solved and is reported as extracted', () => {
    const s = withOptions(5, 'C');
    expect(scorer.score(s, out(' B'), strict())).toEqual({ solved: false, score: 0, extracted: 'B', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s, out(' (A)'), strict())).toEqual({ solved: false, score: 0, extracted: 'A', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s, out(' C'), strict())).toEqual({ solved: true, score: 1, extracted: 'C', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('a bad target throws E_DATA naming the scorer "choice" and the expected shape', () => {
    let err: unknown;
    try {
      scorer.score(withOptions(5, 'AB'), out(' A'), strict());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HptError);
    expect((err as HptError).code).toBe('E_DATA');
    expect((err as HptError).message).toMatch(/scorer "choice"/);
    expect((err as HptError).message).toMatch(/an option letter such as "A"/);
  });
});

describe('ChoiceScorer.randomAnswer (uniform over the first `letters` options)', () => {
  it('maps [0, 1) onto the n letters in equal parts', () => {
    const five = withOptions(5, 'A');
    // floor(r * 5): 0 -> A, 0.2 -> B, 0.39 -> B, 0.4 -> C, 0.79 -> D, 0.8 -> E, 0.999 -> E
    const got = [0, 0.2, 0.39, 0.4, 0.79, 0.8, 0.999].map((r) => scorer.randomAnswer(five, () => r));
    expect(got).toEqual(['A', 'B', 'B', 'C', 'D', 'E', 'E']);
    const four = withOptions(4, 'A');
    expect([0, 0.25, 0.5, 0.75, 0.999].map((r) => scorer.randomAnswer(four, () => r))).toEqual(['A', 'B', 'C', 'D', 'D']);
  });

  it('honours options.letters', () => {
    expect(scorer.randomAnswer(withOptions(5, 'A'), () => 0.999, strict({ letters: 3 }))).toBe('C');
    expect(scorer.randomAnswer(withOptions(0, 'A'), () => 0.999)).toBe('E');
  });

  it('stays among the first n letters even for a draw of exactly 1 or below 0', () => {
    expect(scorer.randomAnswer(withOptions(5, 'A'), () => 1)).toBe('E');
    expect(scorer.randomAnswer(withOptions(4, 'A'), () => 1)).toBe('D');
    expect(scorer.randomAnswer(withOptions(4, 'A'), () => -0.1)).toBe('A');
  });

  it('renderTarget is the upper-case gold letter, solved by both parsers', () => {
    const s = withOptions(5, ' d ');
    expect(scorer.renderTarget(s)).toBe('D');
    expect(scorer.score(s, out(' ' + scorer.renderTarget(s)), strict()).solved).toBe(true);
    expect(scorer.score(s, out(' ' + scorer.renderTarget(s)), ref()).solved).toBe(true);
  });
});
