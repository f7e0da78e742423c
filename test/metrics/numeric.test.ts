import { describe, it, expect } from 'vitest';
import type { GradedOutput, Json, Sample, ScoreContext } from '@hpt-bench/core';
import { NumericScorer, referenceGsm8k, referenceGsm8kValue, strictNumber } from '../../plugins/metrics/src/index.js';

const scorer = new NumericScorer();
const STRICT: ScoreContext = { compat: 'strict', options: {} };
const REF: ScoreContext = { compat: 'reference', options: {} };
const PROMPT = "Based on the question:'How many apples?'\nCalculate the numerical answer to the question.\nAnswer:";

function sample(target: Json): Sample {
  return { id: 'g1', index: 0, input: { question: 'How many apples?' }, target };
}
function out(completion: string, promptText = PROMPT): GradedOutput {
  return { promptText, completion, cue: 'Answer:' };
}

describe('referenceGsm8k (hpt.md §4 GSM8K)', () => {
  it('drops signs', () => {
    expect(referenceGsm8k('Answer: #### -5')).toBe('5');
    expect(referenceGsm8kValue(referenceGsm8k('Answer: #### -5'))).toBe(5);
  });

  it('truncates 1,234,567 to 1,234', () => {
    expect(referenceGsm8k('Answer: #### 1,234,567')).toBe('1,234');
    expect(referenceGsm8kValue('1,234')).toBe(1234);
    expect(referenceGsm8k('the final answer is 1,234,567')).toBe('234,567');
  });

  it('step 2: answer: ** … takes the first number after the bold marker, anywhere in the text', () => {
    expect(referenceGsm8k('Answer: **The total is 18 + 5 = 23**')).toBe('18');
    expect(referenceGsm8k('Answer:**$1,234** dollars\n#### 7')).toBe('1,234');
    expect(referenceGsm8k('Answer: **12.**')).toBe('12.');
    expect(referenceGsm8kValue('12.')).toBe(12);
  });

  it('step 3: a final answer line wins over later #### lines; its number must end the line', () => {
    expect(referenceGsm8k('Final answer: 9\n#### 7')).toBe('9');
    expect(referenceGsm8k('The final answer is $42 **')).toBe('42');
    expect(referenceGsm8k('final answer: $1,234.50')).toBe('234.50');
    expect(referenceGsm8k('The final answer is 42.\n#### 7')).toBe('7');
  });

  it('step 4: scans lines from the last, first number after ##, else a number ending an answer line', () => {
    expect(referenceGsm8k('#### 5\n#### 7')).toBe('7');
    expect(referenceGsm8k('Answer: ## 3 apples and 4 pears')).toBe('3');
    expect(referenceGsm8k('Answer: she has 8')).toBe('8');
    expect(referenceGsm8k('so the answer is $ 8 **')).toBe('8');
    expect(referenceGsm8k('Answer: #### 12\nafter: #### 99')).toBe('12');
  });

  it('misses a number followed by a period at the end of an "answer is" line', () => {
    expect(referenceGsm8k('Answer: The answer is 42.')).toBeNull();
    expect(referenceGsm8k('Answer: The answer is 42')).toBe('42');
  });

  it('returns none when nothing matches, which becomes 0', () => {
    expect(referenceGsm8k('Answer: I do not know')).toBeNull();
    expect(referenceGsm8k('She has 8 apples.')).toBeNull();
    expect(referenceGsm8kValue(null)).toBe(0);
  });

  it('Phi-3: keeps only the text between the first and second <|assistant|>', () => {
    const phi = '<|user|>\nExample: 2+3?\nAnswer: #### 5\n<|end|>\n<|assistant|>\nAnswer: I am unsure.';
    expect(referenceGsm8k(phi)).toBeNull();
    expect(referenceGsm8k(phi.replace('<|assistant|>', '<|ASSISTANT|>').replace('<|user|>', ''))).toBeNull();
    expect(referenceGsm8k(phi.replace('<|assistant|>', '<assistant>'))).toBe('5');
    expect(referenceGsm8k('<|assistant|>\n#### 12<|end|>\n<|assistant|>\n#### 99')).toBe('12');
  });
});

describe('strictNumber (issue #23 cascade; hpt.md §9 #15)', () => {
  it('takes the number attached to the last #### marker', () => {
    expect(strictNumber(' She has 3 + 5 = 8.\n#### 8', 'Answer:')).toBe(8);
    expect(strictNumber(' #### 72\nThat is 3 * 24 = 72, from 4 boxes', 'Answer:')).toBe(72);
    expect(strictNumber('#### 5\nWait, I misread: 3 + 4 = 7.\n#### 7', 'Answer:')).toBe(7);
    // two different answers stacked with nothing between them: no single answer
    expect(strictNumber('#### 5\n#### 7', 'Answer:')).toBeNull();
    expect(strictNumber('#### 7\n#### 7', 'Answer:')).toBe(7);
    expect(strictNumber('####$1,234.', 'Answer:')).toBe(1234);
    expect(strictNumber('#### **-3**', 'Answer:')).toBe(-3);
    expect(strictNumber('#### 42\nin the format ####answer.', 'Answer:')).toBe(42);
  });

  it('without a marker, reads the last sentence with a number (its result after =, else its last number)', () => {
    expect(strictNumber(' She had 12 apples, then 5 more: 17 apples.', 'Answer:')).toBe(17);
    expect(strictNumber(' 15-9=6', 'Answer:')).toBe(6);
    expect(strictNumber(' 10 - 4', 'Answer:')).toBe(4);
    expect(strictNumber(' The answer is 42.', 'Answer:')).toBe(42);
    expect(strictNumber(' The answer is $1,000.50.', 'Answer:')).toBe(1000.5);
    expect(strictNumber(' Final answer: 9. No: 3 + 4 = 7.\n#### 7', 'Answer:')).toBe(7);
  });

  it('keeps the sign, removes thousands separators, accepts decimals', () => {
    expect(strictNumber(' -5', 'Answer:')).toBe(-5);
    expect(strictNumber(' The change is \u22125 degrees', 'Answer:')).toBe(-5);
    expect(strictNumber(' #### 1,234,567', 'Answer:')).toBe(1234567);
    expect(strictNumber(' 2.50', 'Answer:')).toBe(2.5);
    expect(strictNumber(' 1,2,3', 'Answer:')).toBe(3);
  });

  it('returns null without any number', () => {
    expect(strictNumber(' I do not know.', 'Answer:')).toBeNull();
    expect(strictNumber('', 'Answer:')).toBeNull();
  });
});

describe('NumericScorer', () => {
  it('has id numeric', () => {
    expect(scorer.id).toBe('numeric');
  });

  it('sign: reference drops it, strict keeps it', () => {
    expect(scorer.score(sample(-5), out(' #### -5'), REF)).toEqual({ solved: false, score: 0, extracted: 5 });
    expect(scorer.score(sample(-5), out(' #### -5'), STRICT)).toEqual({ solved: true, score: 1, extracted: -5, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('1,234,567: reference reads 1234, strict 1234567', () => {
    expect(scorer.score(sample(1234567), out(' #### 1,234,567'), REF)).toEqual({ solved: false, score: 0, extracted: 1234 });
    expect(scorer.score(sample(1234567), out(' #### 1,234,567'), STRICT)).toEqual({ solved: true, score: 1, extracted: 1234567, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('"the answer is 42." is missed by the reference (none ⇒ 0) but read by strict', () => {
    expect(scorer.score(sample(42), out(' The answer is 42.'), REF)).toEqual({ solved: false, score: 0, extracted: 0 });
    expect(scorer.score(sample(42), out(' The answer is 42.'), STRICT)).toEqual({ solved: true, score: 1, extracted: 42, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('reference: none becomes 0.0 and so solves a gold of 0; strict does not', () => {
    expect(scorer.score(sample(0), out(' I do not know.'), REF)).toEqual({ solved: true, score: 1, extracted: 0 });
    expect(scorer.score(sample(0), out(' I do not know.'), STRICT)).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
    expect(scorer.score(sample(0), out(' #### 0'), STRICT)).toEqual({ solved: true, score: 1, extracted: 0, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('reference: the backwards scan falls back to a #### line of the prompt', () => {
    const prompt = 'Q: 2+3?\nAnswer: 2+3=5\n####5\nQ: How many apples?\nAnswer:';
    expect(scorer.score(sample(8), out(' Eight apples.', prompt), REF)).toEqual({ solved: false, score: 0, extracted: 5 });
    expect(scorer.score(sample(8), out(' Eight apples.', prompt), STRICT)).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
    expect(scorer.score(sample(8), out(' 3 + 5 = 8', prompt), STRICT)).toEqual({ solved: true, score: 1, extracted: 8, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('compares as floats for exact equality', () => {
    expect(scorer.score(sample(12.5), out(' #### 12.50'), STRICT).solved).toBe(true);
    expect(scorer.score(sample(12.5), out(' #### 12.50'), REF).solved).toBe(true);
    expect(scorer.score(sample(12.5), out(' #### 12.49'), STRICT).solved).toBe(false);
  });

  it('accepts a numeric-string gold and rejects others with E_DATA', () => {
    expect(scorer.score(sample('1,234'), out(' #### 1234'), STRICT).solved).toBe(true);
    expect(() => scorer.score(sample('twelve'), out(' 12'), STRICT)).toThrowError(/finite number/);
    expect(() => scorer.score(sample(Number.NaN), out(' 12'), STRICT)).toThrowError(/finite number/);
    try {
      scorer.score(sample(true), out(' 12'), STRICT);
      expect.unreachable();
    } catch (e) {
      expect((e as { name: string }).name).toBe('HptError');
      expect((e as { code: string }).code).toBe('E_DATA');
    }
  });
});
