import { describe, it, expect } from 'vitest';
import type { GradedOutput, Sample, ScoreContext } from '@hpt-bench/core';
import { BooleanScorer, referenceBoolq, strictBoolean } from '../../plugins/metrics/src/index.js';

const scorer = new BooleanScorer();
const STRICT: ScoreContext = { compat: 'strict', options: {} };
const REF: ScoreContext = { compat: 'reference', options: {} };
const PROMPT = "Based on the passage:'The sky is blue.'\nAnswer True/False to the question: 'is the sky blue'";

function sample(target: boolean | string | number | null): Sample {
  return { id: 's1', index: 0, input: { passage: 'The sky is blue.', question: 'is the sky blue' }, target };
}

/** A graded output as the ladder builds it: prompt text ends with the cue, completion follows. */
function out(completion: string, cue = 'Answer:', prompt = PROMPT + '\n'): GradedOutput {
  return { promptText: prompt + cue, completion, cue };
}

describe('referenceBoolq (hpt.md §4 BoolQ)', () => {
  it('parses plain answers on the first answer: line', () => {
    expect(referenceBoolq('Q\nAnswer: Yes')).toBe(1);
    expect(referenceBoolq('Q\nAnswer: TRUE.')).toBe(1);
    expect(referenceBoolq('Q\nAnswer: false')).toBe(0);
    expect(referenceBoolq('Q\nAnswer: No')).toBe(0);
  });

  it('uses substring tests: untrue and not true give 1, "know" gives 0', () => {
    expect(referenceBoolq('Answer: untrue')).toBe(1);
    expect(referenceBoolq('Answer: not true')).toBe(1);
    expect(referenceBoolq('Answer: I do not know')).toBe(0);
    expect(referenceBoolq('Answer: the eyes have it')).toBe(1);
  });

  it('gives 0 for an answer line with neither word, including an empty one', () => {
    expect(referenceBoolq('Q\nAnswer:\nTrue')).toBe(0);
    expect(referenceBoolq('Q\nAnswer: maybe')).toBe(0);
  });

  it('gives none when no line contains answer:', () => {
    expect(referenceBoolq('Is it blue?\nTrue')).toBeNull();
    expect(referenceBoolq('')).toBeNull();
  });

  it('takes the first answer: line only and tests yes/true before no/false', () => {
    expect(referenceBoolq('Answer: false\nAnswer: true')).toBe(0);
    expect(referenceBoolq('Answer: no, it is true')).toBe(1);
  });
});

describe('strictBoolean (issue #23 cascade; hpt.md §9 #14)', () => {
  it('reads the first token as a whole word, case-insensitively', () => {
    expect(strictBoolean(' True', 'Answer:')).toBe(true);
    expect(strictBoolean(' yes, because the passage says so', 'Answer:')).toBe(true);
    expect(strictBoolean('FALSE.', 'Answer:')).toBe(false);
    expect(strictBoolean(' No', 'Answer:')).toBe(false);
  });

  it('drops a repeated cue and markdown/quote noise', () => {
    expect(strictBoolean(' Answer: **True**', 'Answer:')).toBe(true);
    expect(strictBoolean(' **Answer:** False', 'Answer:')).toBe(false);
    expect(strictBoolean('answer: "yes"', 'Answer:')).toBe(true);
    expect(strictBoolean('\n\n> **No**.', 'Answer:')).toBe(false);
    expect(strictBoolean('- True', 'Answer:')).toBe(true);
  });

  it('does not count untrue, nope, a yes/no inside a phrase, or nothing; reads not true as false', () => {
    expect(strictBoolean(' untrue', 'Answer:')).toBeNull();
    expect(strictBoolean(' Nope', 'Answer:')).toBeNull();
    expect(strictBoolean(' No evidence in the passage supports it', 'Answer:')).toBeNull();
    expect(strictBoolean('', 'Answer:')).toBeNull();
    expect(strictBoolean(' not true', 'Answer:')).toBe(false);
  });

  it('reads the answer in the last sentence when the reply does not start with it', () => {
    expect(strictBoolean(' Based on the passage, true.', 'Answer:')).toBe(true);
    expect(strictBoolean(' The passage says the ride opened in 2014. So the statement is not true.', 'Answer:')).toBe(false);
    expect(strictBoolean(' Let me check the passage first. The answer is no.', 'Answer:')).toBe(false);
  });

  it('works with an empty cue', () => {
    expect(strictBoolean('True', '')).toBe(true);
  });
});

describe('BooleanScorer', () => {
  it('has id boolean', () => {
    expect(scorer.id).toBe('boolean');
  });

  it('strict is the default for an unknown compat value and scores 1/0', () => {
    expect(scorer.score(sample(true), out(' True'), STRICT)).toEqual({ solved: true, score: 1, extracted: true, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(sample(true), out(' False'), STRICT)).toEqual({ solved: false, score: 0, extracted: false, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(sample(false), out(' untrue'), STRICT)).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
    const odd = { compat: 'other', options: {} } as unknown as ScoreContext;
    expect(scorer.score(sample(true), out('\nTrue'), odd)).toEqual({ solved: true, score: 1, extracted: true, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('strict parses only the completion, never the prompt', () => {
    const o: GradedOutput = { promptText: 'Example\nAnswer: true.\nQ\nAnswer:', completion: ' Hmm, hard to say.', cue: 'Answer:' };
    expect(scorer.score(sample(true), o, STRICT)).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
  });

  it('reference: untrue and not true count as True', () => {
    expect(scorer.score(sample(true), out(' untrue'), REF)).toEqual({ solved: true, score: 1, extracted: true });
    expect(scorer.score(sample(false), out(' not true'), REF)).toEqual({ solved: false, score: 0, extracted: true });
    expect(scorer.score(sample(false), out(' not true'), STRICT)).toEqual({ solved: true, score: 1, extracted: false, extraction: { rule: 'answer-first', span: [5, 9] } });
    expect(scorer.score(sample(true), out(' untrue'), STRICT)).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
  });

  it('reference: a completion starting with a newline leaves an empty answer line, parsed as 0 (False)', () => {
    expect(scorer.score(sample(true), out('\nTrue'), REF)).toEqual({ solved: false, score: 0, extracted: false });
    expect(scorer.score(sample(false), out('\nTrue'), REF)).toEqual({ solved: true, score: 1, extracted: false });
    expect(scorer.score(sample(true), out('\nTrue'), STRICT)).toEqual({ solved: true, score: 1, extracted: true, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('reference: no answer: line gives none, which is never solved', () => {
    const o: GradedOutput = { promptText: 'Is the sky blue?\n', completion: 'Yes', cue: '' };
    expect(scorer.score(sample(true), o, REF)).toEqual({ solved: false, score: 0, extracted: null });
    expect(scorer.score(sample(false), o, REF)).toEqual({ solved: false, score: 0, extracted: null });
    expect(scorer.score(sample(true), o, STRICT)).toEqual({ solved: true, score: 1, extracted: true, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('reference: "I don\'t know" contains "no" and parses as False', () => {
    expect(scorer.score(sample(false), out(" I don't know"), REF)).toEqual({ solved: true, score: 1, extracted: false });
    expect(scorer.score(sample(false), out(" I don't know"), STRICT)).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
  });

  it('accepts "True"/"False" string targets and rejects others with E_DATA', () => {
    expect(scorer.score(sample('False'), out(' false'), STRICT).solved).toBe(true);
    expect(() => scorer.score(sample(1), out(' True'), STRICT)).toThrowError(/expected a boolean/);
    try {
      scorer.score(sample(null), out(' True'), STRICT);
      expect.unreachable();
    } catch (e) {
      expect((e as { name: string; code: string }).name).toBe('HptError');
      expect((e as { code: string }).code).toBe('E_DATA');
    }
  });
});
