/**
 * Level-3 (three-shot) artefacts of the reference parsers (hpt.md §4, last part), reproduced with the real templates
 * of /work/shared/specs/hpt-templates.json and the API wrapper (hpt.md §6): in reference mode the exemplars' answer
 * lines hijack the parse; strict mode reads the completion only and gets the answers right.
 */
import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import type { GradedOutput, Sample, ScoreContext } from '@hpt-bench/core';
import { BooleanScorer, ChoiceScorer, NumericScorer } from '../../plugins/metrics/src/index.js';

const TEMPLATES_PATH = '/work/shared/specs/hpt-templates.json';
const templates = JSON.parse(readFileSync(TEMPLATES_PATH, 'utf8')) as Record<string, Record<string, string | string[]>>;

const PREFIX = '<|startoftext|>### Instruction: ';
const SUFFIX = '<|endoftext|>\n';
const CUE = 'Answer:';
const STRICT: ScoreContext = { compat: 'strict', options: {} };
const REF: ScoreContext = { compat: 'reference', options: {} };

/** One-pass `{name}` substitution, like Python's str.format on these templates (hpt.md §0). */
function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{([a-z0-9_]+)\}/g, (m: string, k: string) => vars[k] ?? m);
}

function level3(dataset: string, input: Record<string, string>): string {
  const t = templates[dataset]?.['3'];
  if (typeof t !== 'string') throw new Error(`no level-3 template for ${dataset}`);
  return PREFIX + fill(t, input) + SUFFIX + CUE;
}

function graded(dataset: string, input: Record<string, string>, completion: string): GradedOutput {
  return { promptText: level3(dataset, input), completion, cue: CUE };
}

describe('level-3 templates are the real ones', () => {
  it('contain the exemplar answer lines the artefacts come from', () => {
    expect(level3('boolq', { passage: 'p', question: 'q' })).toContain('\nAnswer: true.\n');
    expect(level3('csqa', { question: 'q', text1: '1', text2: '2', text3: '3', text4: '4', text5: '5' })).toContain('\nAnswer: A\n');
    expect(level3('mmlu', { question: 'q', text1: '1', text2: '2', text3: '3', text4: '4' })).toContain('\nAnswer: C\n');
    expect(level3('gsm8k', { question: 'q' })).toContain('\n####348\n');
    expect(level3('gsm8k', { question: 'q' }).endsWith('####answer.<|endoftext|>\nAnswer:')).toBe(true);
  });
});

describe('BoolQ level 3: reference always predicts True', () => {
  const scorer = new BooleanScorer();
  const input = { passage: 'Ethanol fuel is produced from corn and sugarcane in large quantities.', question: 'is ethanol made from corn' };
  const s = (target: boolean): Sample => ({ id: 'b', index: 0, input, target });

  it.each([' False', ' True', ' No, it is not.', '\nFalse', ' I cannot tell.'])('completion %j parses as True in reference mode', (completion) => {
    expect(scorer.score(s(true), graded('boolq', input, completion), REF)).toEqual({ solved: true, score: 1, extracted: true });
    expect(scorer.score(s(false), graded('boolq', input, completion), REF)).toEqual({ solved: false, score: 0, extracted: true });
  });

  it('strict reads the completion', () => {
    expect(scorer.score(s(false), graded('boolq', input, ' False'), STRICT)).toEqual({ solved: true, score: 1, extracted: false, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s(false), graded('boolq', input, ' Answer: **No**'), STRICT)).toEqual({ solved: true, score: 1, extracted: false, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s(true), graded('boolq', input, ' False'), STRICT)).toEqual({ solved: false, score: 0, extracted: false, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s(true), graded('boolq', input, ' I cannot tell.'), STRICT)).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
  });
});

describe('CSQA level 3: reference always predicts A', () => {
  const scorer = new ChoiceScorer();
  const input = { question: 'Where would you put a plate after washing it?', text1: 'table', text2: 'cupboard', text3: 'sink', text4: 'oven', text5: 'floor' };
  const s = (target: string): Sample => ({ id: 'c', index: 0, input, target });

  it.each([' B', ' D) oven', ' (E)', ' C'])('completion %j parses as A in reference mode', (completion) => {
    expect(scorer.score(s('B'), graded('csqa', input, completion), REF)).toEqual({ solved: false, score: 0, extracted: 'A' });
    expect(scorer.score(s('A'), graded('csqa', input, completion), REF)).toEqual({ solved: true, score: 1, extracted: 'A' });
  });

  it('strict reads the completion', () => {
    expect(scorer.score(s('B'), graded('csqa', input, ' B'), STRICT)).toEqual({ solved: true, score: 1, extracted: 'B', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s('E'), graded('csqa', input, ' (E)'), STRICT)).toEqual({ solved: true, score: 1, extracted: 'E', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s('A'), graded('csqa', input, ' D) oven'), STRICT)).toEqual({ solved: false, score: 0, extracted: 'D', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });
});

describe('MMLU level 3: reference always predicts C', () => {
  const scorer = new ChoiceScorer();
  const input = { question: 'What is 2 + 2?', text1: '3', text2: '4', text3: '5', text4: '22' };
  const s = (target: string): Sample => ({ id: 'm', index: 0, input, target });
  const MMLU_REF: ScoreContext = { compat: 'reference', options: { reference: 'mmlu', letters: 4 } };

  it.each([' B', ' The correct answer is B', ' A', ' D'])('completion %j parses as C in reference mode', (completion) => {
    expect(scorer.score(s('B'), graded('mmlu', input, completion), MMLU_REF)).toEqual({ solved: false, score: 0, extracted: 'C' });
    expect(scorer.score(s('C'), graded('mmlu', input, completion), MMLU_REF)).toEqual({ solved: true, score: 1, extracted: 'C' });
  });

  it('strict reads the completion', () => {
    expect(scorer.score(s('B'), graded('mmlu', input, ' B'), STRICT)).toEqual({ solved: true, score: 1, extracted: 'B', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s('B'), graded('mmlu', input, ' **B**. 4'), STRICT)).toEqual({ solved: true, score: 1, extracted: 'B', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s('C'), graded('mmlu', input, ' The correct answer is B'), STRICT)).toEqual({ solved: false, score: 0, extracted: 'B', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
    expect(scorer.score(s('B'), graded('mmlu', input, ' The correct answer is B'), STRICT)).toEqual({ solved: true, score: 1, extracted: 'B', extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });
});

describe('GSM8K level 3: reference falls back to the third exemplar (348)', () => {
  const scorer = new NumericScorer();
  const input = { question: 'Janet has 3 apples and buys 5 more. How many apples does she have?' };
  const s = (target: number): Sample => ({ id: 'g', index: 0, input, target });

  it('an unparseable completion gives 348', () => {
    expect(scorer.score(s(8), graded('gsm8k', input, ' I cannot solve this.'), REF)).toEqual({ solved: false, score: 0, extracted: 348 });
    expect(scorer.score(s(348), graded('gsm8k', input, ' I cannot solve this.'), REF)).toEqual({ solved: true, score: 1, extracted: 348 });
    expect(scorer.score(s(8), graded('gsm8k', input, ' I cannot solve this.'), STRICT)).toEqual({ solved: false, score: 0, extracted: null, extraction: { rule: 'none', span: null } });
  });

  it('"The answer is 8." is missed and also falls back to 348; strict reads 8', () => {
    expect(scorer.score(s(8), graded('gsm8k', input, ' The answer is 8.'), REF)).toEqual({ solved: false, score: 0, extracted: 348 });
    expect(scorer.score(s(8), graded('gsm8k', input, ' The answer is 8.'), STRICT)).toEqual({ solved: true, score: 1, extracted: 8, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });

  it('a #### answer in the completion is found by both modes', () => {
    const c = ' She has 3 + 5 = 8 apples.\n#### 8';
    expect(scorer.score(s(8), graded('gsm8k', input, c), REF)).toEqual({ solved: true, score: 1, extracted: 8 });
    expect(scorer.score(s(8), graded('gsm8k', input, c), STRICT)).toEqual({ solved: true, score: 1, extracted: 8, extraction: { rule: expect.any(String), span: [expect.any(Number), expect.any(Number)] } });
  });
});
