import { describe, it, expect } from 'vitest';
import type { GradedOutput, Json, Sample, ScoreContext } from '@hpt-bench/core';
import { ChoiceScorer, referenceChoice, strictLetter } from '../../plugins/metrics/src/index.js';

const scorer = new ChoiceScorer();
const strict = (options: Record<string, Json> = {}): ScoreContext => ({ compat: 'strict', options });
const ref = (options: Record<string, Json> = {}): ScoreContext => ({ compat: 'reference', options });

function csqa(target: Json): Sample {
  return { id: 'c1', index: 0, input: { question: 'Q?', text1: 'bank', text2: 'library', text3: 'store', text4: 'mall', text5: 'new york' }, target };
}
function mmlu(target: Json): Sample {
  return { id: 'm1', index: 0, input: { question: 'Q?', text1: 'w', text2: 'x', text3: 'y', text4: 'z' }, target };
}
function out(completion: string): GradedOutput {
  return { promptText: 'Choose the answer.\nQ?\nA bank\nB library\nC store\nD mall\nE new york\nAnswer:', completion, cue: 'Answer:' };
}

describe('referenceChoice, CSQA variant (hpt.md §4 CSQA)', () => {
  const p = (completion: string) => referenceChoice(`Q\nAnswer:${completion}`, 'csqa');

  it('maps the listed letter forms', () => {
    expect(p(' B')).toBe(1);
    expect(p(' c.')).toBe(2);
    expect(p(' D) mall')).toBe(3);
    expect(p(' e: new york')).toBe(4);
    expect(p(' ( b )')).toBe(1);
    expect(p(' **C**')).toBe(2);
    expect(p(' ** d)')).toBe(3);
    expect(p(' **( e')).toBe(4);
  });

  it('"(b)" without a space maps to A', () => {
    expect(p(' (b)')).toBe(0);
  });

  it('any word starting with a–e maps to that letter', () => {
    expect(p(' based on the question, C')).toBe(1);
    expect(p(' definitely B')).toBe(3);
    expect(p(' explanation: the answer is A')).toBe(4);
    expect(p(' correct option is E')).toBe(2);
  });

  it('defaults to 0 (A) when nothing matches, including an empty line', () => {
    expect(p(' the answer is B')).toBe(0);
    expect(p(' none of them')).toBe(0);
    expect(p('\nB')).toBe(0);
  });

  it('returns none without an answer: line and uses only the first answer: line', () => {
    expect(referenceChoice('Q\nB', 'csqa')).toBeNull();
    expect(referenceChoice('Answer: D\nAnswer: B', 'csqa')).toBe(3);
  });
});

describe('referenceChoice, MMLU variant (hpt.md §4 MMLU)', () => {
  const p = (completion: string) => referenceChoice(`Q\nAnswer:${completion}`, 'mmlu');

  it('strips "answer is" and "the correct" before the letter test', () => {
    expect(p(' The correct answer is B')).toBe(1);
    expect(p(' The correct answer is: D.')).toBe(3);
    expect(p(' answer is c')).toBe(2);
  });

  it('"The answer is C" keeps "the" and falls back to A', () => {
    expect(p(' The answer is C')).toBe(0);
    expect(p(' The answer is: C')).toBe(0);
  });

  it('tests only a–d and defaults to 0 (A)', () => {
    expect(p(' E')).toBe(0);
    expect(p(' explanation first')).toBe(0);
    expect(referenceChoice('Q\nAnswer: E', 'csqa')).toBe(4);
    expect(p(' based on this')).toBe(1);
  });
});

describe('strictLetter (issue #23 cascade; hpt.md §9 #14)', () => {
  it('accepts a bare, bracketed or starred letter, optionally followed by punctuation', () => {
    expect(strictLetter(' B', 'Answer:', 5)).toBe('B');
    expect(strictLetter(' (B)', 'Answer:', 5)).toBe('B');
    expect(strictLetter(' [C] store', 'Answer:', 5)).toBe('C');
    expect(strictLetter(' **B**', 'Answer:', 5)).toBe('B');
    expect(strictLetter(' **(D)** mall', 'Answer:', 5)).toBe('D');
    expect(strictLetter(' B.', 'Answer:', 5)).toBe('B');
    expect(strictLetter(' B) library', 'Answer:', 5)).toBe('B');
    expect(strictLetter(' E: new york', 'Answer:', 5)).toBe('E');
    expect(strictLetter(' (b)', 'Answer:', 5)).toBe('B');
    expect(strictLetter(' A.', 'Answer:', 5)).toBe('A');
  });

  it('reads an A that starts a sentence as the article unless option A\'s text follows it', () => {
    expect(strictLetter(' A bank', 'Answer:', 5)).toBeNull();
    expect(strictLetter(' A bank', 'Answer:', 5, ['bank', 'library', 'store', 'mall', 'new york'])).toBe('A');
    expect(strictLetter(' A bank', 'Answer:', 5, ['river', 'library', 'store', 'mall', 'new york'])).toBeNull();
  });

  it('drops a repeated cue', () => {
    expect(strictLetter('Answer: D', 'Answer:', 5)).toBe('D');
    expect(strictLetter(' **Answer:** (A)', 'Answer:', 5)).toBe('A');
  });

  it('reads a letter stated after a marker or in the last sentence', () => {
    expect(strictLetter(' Based on the question, C', 'Answer:', 5)).toBe('C');
    expect(strictLetter(' The answer is B', 'Answer:', 5)).toBe('B');
  });

  it('rejects words and letters out of range', () => {
    expect(strictLetter(" I'm not sure", 'Answer:', 5)).toBeNull();
    expect(strictLetter(' I think so', 'Answer:', 5)).toBeNull();
    expect(strictLetter(' I', 'Answer:', 5)).toBeNull();
    expect(strictLetter(' E', 'Answer:', 4)).toBeNull();
    expect(strictLetter(' D', 'Answer:', 4)).toBe('D');
    expect(strictLetter('', 'Answer:', 5)).toBeNull();
  });
});

describe('ChoiceScorer', () => {
  it('has id choice', () => {
    expect(scorer.id).toBe('choice');
  });

  it('reference csqa (default variant): "(b)" is A, "based…" is B; strict gets them right', () => {
    expect(scorer.score(csqa('B'), out(' (b)'), ref())).toEqual({ solved: false, score: 0, extracted: 'A' });
    expect(scorer.score(csqa('B'), out(' (b)'), strict())).toEqual({ solved: true, score: 1, extracted: 'B', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(csqa('D'), out(' Based on the question, D'), ref())).toEqual({ solved: false, score: 0, extracted: 'B' });
    expect(scorer.score(csqa('D'), out(' Based on the question, D'), strict())).toEqual({ solved: true, score: 1, extracted: 'D', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(csqa('E'), out(' E'), ref({ reference: 'csqa' }))).toEqual({ solved: true, score: 1, extracted: 'E' });
  });

  it('reference: unparseable defaults to A, which solves gold A', () => {
    expect(scorer.score(csqa('A'), out(' I cannot tell'), ref())).toEqual({ solved: true, score: 1, extracted: 'A' });
    expect(scorer.score(csqa('A'), out(' I cannot tell'), strict())).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
  });

  it('reference mmlu: "answer is" stripping and default A', () => {
    const m = (c: string): GradedOutput => ({ promptText: 'Choose the answer.\nQ?\nA w\nB x\nC y\nD z\nAnswer:', completion: c, cue: 'Answer:' });
    expect(scorer.score(mmlu('C'), m(' The correct answer is C'), ref({ reference: 'mmlu' }))).toEqual({ solved: true, score: 1, extracted: 'C' });
    expect(scorer.score(mmlu('C'), m(' The answer is C'), ref({ reference: 'mmlu' }))).toEqual({ solved: false, score: 0, extracted: 'A' });
    expect(scorer.score(mmlu('C'), m(' The answer is C'), ref())).toEqual({ solved: false, score: 0, extracted: 'A' });
    expect(scorer.score(mmlu('D'), m(' explanation: D'), ref({ reference: 'mmlu' }))).toEqual({ solved: false, score: 0, extracted: 'A' });
    expect(scorer.score(mmlu('D'), m(' explanation: D'), ref({ reference: 'csqa' }))).toEqual({ solved: false, score: 0, extracted: 'E' });
  });

  it('reference: no answer: line gives none (not solved)', () => {
    const o: GradedOutput = { promptText: 'Q?\n', completion: 'A', cue: '' };
    expect(scorer.score(csqa('A'), o, ref())).toEqual({ solved: false, score: 0, extracted: null });
    expect(scorer.score(csqa('A'), o, strict())).toEqual({ solved: true, score: 1, extracted: 'A', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('infers the number of options from text1..textN, overridable by options.letters', () => {
    expect(scorer.score(mmlu('D'), out(' E'), strict())).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
    expect(scorer.score(csqa('E'), out(' E'), strict())).toEqual({ solved: true, score: 1, extracted: 'E', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(csqa('E'), out(' E'), strict({ letters: 4 }))).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
    const bare: Sample = { id: 'b', index: 0, input: { question: 'Q?' }, target: 'E' };
    expect(scorer.score(bare, out(' E'), strict()).extracted).toBe('E');
    expect(scorer.score(bare, out(' F'), strict()).extracted).toBeNull();
  });

  it('rejects invalid options (E_CONFIG) and targets (E_DATA)', () => {
    expect(() => scorer.score(csqa('A'), out(' A'), strict({ letters: 1 }))).toThrowError(/letters/);
    expect(() => scorer.score(csqa('A'), out(' A'), strict({ letters: 'many' }))).toThrowError(/letters/);
    expect(() => scorer.score(csqa('A'), out(' A'), ref({ reference: 'arc' }))).toThrowError(/csqa, mmlu/);
    expect(() => scorer.score(csqa('AB'), out(' A'), strict())).toThrowError(/option letter/);
    try {
      scorer.score(csqa(2), out(' C'), strict());
      expect.unreachable();
    } catch (e) {
      expect((e as { name: string }).name).toBe('HptError');
      expect((e as { code: string }).code).toBe('E_DATA');
    }
  });

  it('accepts a lower-case or padded gold letter', () => {
    expect(scorer.score(csqa(' c '), out(' C'), strict())).toEqual({ solved: true, score: 1, extracted: 'C', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });
});
