/**
 * The SDK's answer extraction (issue #23): one test per failure class that real replies showed (each of which the
 * previous first-token / last-number parsers got wrong), the cascade's order and its rule names and spans, and the
 * code extractor's body-only completions (run with python3 against the real HumanEval tests).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractChoice, extractCode, extractFirstLine, extractNumber, extractYesNo } from '@hpt-bench/sdk';
import { buildProgram } from '../../plugins/metrics/src/index.js';
import { SHARED } from '../helpers/cli.js';

const num = (text: string) => extractNumber(text)?.value ?? null;
const rule = (text: string) => extractNumber(text)?.rule ?? 'none';
const letter = (text: string, letters = 5, options?: string[]) => extractChoice(text, { letters, ...(options ? { options } : {}) })?.value ?? null;

describe('extractNumber: failure classes of real replies', () => {
  it('a recap after the answer does not override it', () => {
    const marked = 'She sells 16 - 3 - 4 = 9 eggs at $2 each. The answer is 18.\n\nThe key steps are:\n1. Eggs used: 3 + 4 = 7\n2. Eggs left: 9\n3. Revenue: 9 * 2';
    expect(num(marked)).toBe(18);
    expect(rule(marked)).toBe('answer-is');
    const unmarked = 'She sells 16 - 3 - 4 = 9 eggs at $2 each, so she makes $18 every day.\n\nThe key steps are:\n1. Eggs used\n2. Eggs left\n3. Revenue';
    expect(num(unmarked)).toBe(18);
    expect(rule(unmarked)).toBe('final-sentence');
  });

  it('an answer with a parenthetical is the number before it', () => {
    expect(num('{"reasoning": "3 onions and 1 potato", "answer": "4 (3 onions and 1 potato)"}')).toBe(4);
    expect(num('The answer is 4 (3 onions and 1 potato).')).toBe(4);
  });

  it('a time is read as written (2:00 pm is 2, not 0 or 14)', () => {
    expect(num('{"reasoning": "...", "answer": "2:00 pm"}')).toBe(2);
    expect(num('She arrives at 2:30.')).toBe(2.5);
    expect(num('The answer is 45%.')).toBe(45);
  });

  it('a later intermediate number or a note after the answer does not replace it', () => {
    expect(num('{"answer": "$16. She paid $15 each for the other two tickets."}')).toBe(16);
    expect(num('So the total is $16.\nNote: the tickets cost $15 each.')).toBe(16);
  });

  it('a self-correction is read at the correction; stacked different answers are no answer', () => {
    expect(num('{"reasoning": "...", "answer": "16"}\nWait, I forgot the muffins.\n{"reasoning": "...", "answer": "18"}')).toBe(18);
    expect(num('The answer is 16. Hmm, that misses the muffins: 16 - 3 - 4 = 9, 9 * 2 = 18. The answer is 18.')).toBe(18);
    expect(num('#### 16\n#### 18')).toBeNull();
  });

  it('\\boxed{} and the answer outside a malformed JSON', () => {
    expect(num('Therefore the total is \\boxed{70,000} dollars.')).toBe(70000);
    expect(rule('Therefore the total is \\boxed{70,000} dollars.')).toBe('boxed');
    expect(num('{"reasoning": "9 eggs * $2 = $18", "answer": \n\n**Answer:** 18')).toBe(18);
  });

  it('an equation chain in the answer is its result', () => {
    expect(num('{"answer": "80*8 + 90*6 + 3*10 = 640 + 540 + 30 = 1210"}')).toBe(1210);
    expect(num('{"answer": "$40 (visitation charge) + $105 (labor cost) + $60 (parts cost) = $205"}')).toBe(205);
  });

  it('a JSON answer that states no number is no answer, even with numbers elsewhere', () => {
    expect(extractNumber('{"reasoning": "7 * 2 = 14 ...", "answer": "We cannot determine the exact number."}')).toBeNull();
  });

  it('text after the model starts a new turn (an echoed prompt with its example) is not the reply', () => {
    const echoed = '{"reasoning": "B = 16, so I am 13.", "answer": "13"}\n```\n\n## Question:\n\nHow old is the son?\n\n## Instruction\n\nPut your answer in the `answer` field, e.g., `"answer": "42"`.';
    expect(num(echoed)).toBe(13);
  });

  it('keeps signs, drops thousands separators, currency and units; not a hyphen or an operator', () => {
    expect(num('The answer is -5 degrees.')).toBe(-5);
    expect(num('Final answer: −3')).toBe(-3);
    expect(num('#### $1,234,567.50')).toBe(1234567.5);
    expect(num('He has 16-7 = 9 left.')).toBe(9);
    expect(num('10 - 4')).toBe(4);
    expect(num('The answer is twelve.')).toBe(12);
  });

  it('the answer first: a bare first line', () => {
    expect(extractNumber('$18 per day\n\nJanet has 16 eggs; 16 - 3 - 4 = 9; 9 * 2 = 18, then she adds 2 more')).toMatchObject({ value: 18, rule: 'answer-first' });
    expect(extractNumber('Answer: **18**', { cue: 'Answer:' })).toMatchObject({ value: 18 });
    // the HPT system prompt asks for the answer at the start of the first sentence
    expect(extractNumber("18. Janet's ducks lay 16 eggs per day; she uses 7 and sells 9 at $2 each.")).toMatchObject({ value: 18, rule: 'answer-first' });
    // ... but a numbered list's first item is not an answer
    expect(extractNumber('1. Janet has 16 eggs.\n2. She uses 7.\n3. She sells 9 at $2 each, making $18.')).toMatchObject({ value: 18, rule: 'final-sentence' });
    expect(extractNumber('16, minus 7, is 9 eggs; at $2 each that is $18.')).toMatchObject({ value: 18, rule: 'final-sentence' });
  });

  it('spans point at the number read', () => {
    const text = 'The answer is $1,234.';
    const e = extractNumber(text)!;
    expect(text.slice(e.span[0], e.span[1])).toBe('$1,234');
    const j = '{"answer": "4 (3 onions)"}';
    const ej = extractNumber(j)!;
    expect(j.slice(ej.span[0], ej.span[1])).toBe('4');
  });

  it('no number at all is null', () => {
    expect(extractNumber('I do not know.')).toBeNull();
    expect(extractNumber('')).toBeNull();
  });
});

describe('extractChoice: failure classes of real replies', () => {
  const CSQA = ['bank', 'library', 'department store', 'mall', 'new york'];

  it('a chain of thought that starts with the article "A" is not option A', () => {
    expect(letter('A toy car is a small vehicle, so a child keeps it in the toy box.')).toBeNull();
    expect(letter('A fox is a wild animal that lives in the forest. So the answer is (C).')).toBe('C');
    expect(letter('A')).toBe('A');
    expect(letter('A. bank')).toBe('A');
    expect(letter('A bank', 5, CSQA)).toBe('A');
    expect(letter('I think the answer is D.')).toBe('D');
    expect(letter('I')).toBeNull();
  });

  it('an answer stated mid-sentence in the last sentence', () => {
    expect(letter('People keep their belongings where they live, most likely B, homes.')).toBe('B');
    expect(letter('Looking at the options, the fit is B here, not A.')).toBe('B');
    expect(letter('Looking at the options, the fit is (C) rather than (D).')).toBe('C');
    expect(extractChoice('People keep their belongings where they live, most likely B, homes.', { letters: 5 })?.rule).toBe('final-sentence');
  });

  it('the option text identifies the letter', () => {
    expect(letter('The answer is (C) LIFO memory.', 4, ['FIFO memory', 'RAM', 'LIFO memory', 'cache'])).toBe('C');
    expect(extractChoice('The answer is homes.', { letters: 5, options: ['school', 'homes', 'office', 'park', 'zoo'] })).toMatchObject({ value: 'B', rule: 'answer-is+option-text' });
    expect(extractChoice('Homes.', { letters: 5, options: ['school', 'homes', 'office', 'park', 'zoo'] })).toMatchObject({ value: 'B', rule: 'answer-first+option-text' });
    expect(letter('So people would store it at their homes.', 5, ['school', 'homes', 'office', 'park', 'zoo'])).toBe('B');
  });

  it('ten options (A–J) and the MMLU-Pro form', () => {
    expect(letter('Step by step ... The answer is (J).', 10)).toBe('J');
    expect(letter('Step by step ... The answer is (J).', 5)).toBeNull();
    expect(letter('After a long analysis of each option...\n\n**FINAL ANSWER: D**', 10)).toBe('D');
    expect(extractChoice('After a long analysis...\n\n**FINAL ANSWER: D**', { letters: 10 })?.rule).toBe('final-answer');
    expect(letter('Answer: None of the above.', 10)).toBeNull();
  });

  it('a self-correction is read at the correction; a stacked list of different answers is none', () => {
    expect(letter('The answer is (B). Wait — re-reading the question, the monomer is ethylene, so the answer is (D).', 10)).toBe('D');
    expect(letter('The answer is (C)\nThe answer is (I)\nThe answer is (A)', 10)).toBeNull();
    expect(letter('The answer is (C)\nThe answer is (C)', 10)).toBe('C');
    // a marker inside the JSON reasoning (naming an option by its text) and then the JSON answer field are not a list
    // (Athene-70B on MMLU-Redux, anatomy #56)
    const opts = ['paralysis of the facial muscles.', 'paralysis of the facial muscles and loss of taste.', 'loss of taste and lacrimation.', 'decreased salivation.'];
    expect(extractChoice('{\n  "reasoning": "... so the correct answer is: a lesion causes paralysis of the facial muscles and loss of lacrimation.",\n  "answer": "C"\n}', { letters: 4, options: opts })).toMatchObject({ value: 'C', rule: 'json-answer' });
  });

  it('letters inside math and pronouns in refusals are not answers', () => {
    expect(letter('We get $V = \\frac{(6.6 \\times 10^{-34} \\mathrm{~J \\cdot s})^2}{2m}$', 10)).toBeNull();
    expect(letter('Plugging in, we get $V = \\frac{(6.6 \\times 10^{-34} \\mathrm{~J', 10)).toBeNull();
    expect(letter('It costs $5 more, so B.', 10)).toBe('B');
    expect(letter('The text does not give enough information. Therefore, I cannot answer this question.', 10)).toBeNull();
  });

  it('the answer first, with brackets, emphasis or a repeated cue', () => {
    expect(extractChoice(' **(D)** mall', { letters: 5, cue: 'Answer:' })).toMatchObject({ value: 'D', rule: 'answer-first' });
    expect(letter('B) library')).toBe('B');
    expect(letter('b) library')).toBe('B');
    expect(letter('b library')).toBeNull();
  });
});

describe('extractYesNo', () => {
  it('reads markers, the answer first and the last sentence', () => {
    expect(extractYesNo('Based on the passage, the ride is a roller coaster.\nAnswer: True')).toMatchObject({ value: true, rule: 'answer-label' });
    expect(extractYesNo('No, the passage says otherwise.')).toMatchObject({ value: false, rule: 'answer-first' });
    expect(extractYesNo('The passage says it opened in 2014. So the statement is not true.')).toMatchObject({ value: false, rule: 'final-sentence' });
    expect(extractYesNo('There is no evidence either way.')).toBeNull();
    expect(extractYesNo('{"answer": "unclear"}\nYes.')).toBeNull();
  });
});

describe('extractFirstLine', () => {
  it('drops a repeated cue and reads the first non-empty line with its span', () => {
    const text = '\n**French:** Bonjour.\n(Explanation)';
    const e = extractFirstLine(text, { cues: ['French:'] })!;
    expect(e.value).toBe('Bonjour.');
    expect(text.slice(e.span[0], e.span[1])).toBe('Bonjour.');
    expect(extractFirstLine('  \n \r\n')).toBeNull();
  });
});

describe('extractCode: body-only completions', () => {
  const file = join(SHARED, 'data', 'humaneval', 'HumanEval.jsonl');
  const problems = existsSync(file)
    ? new Map(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => { const p = JSON.parse(l) as { task_id: string; prompt: string; test: string; entry_point: string }; return [p.task_id, p]; }))
    : new Map();

  /** Runs prompt/code + test + check(entry) with python3; true when it exits 0. */
  function passes(taskId: string, completion: string): boolean {
    const p = problems.get(taskId)!;
    const code = extractCode(completion, { entryPoint: p.entry_point })!.value;
    const program = buildProgram({ prompt: p.prompt, test: p.test, entryPoint: p.entry_point }, code, 'strict');
    return spawnSync('python3', ['-c', program], { encoding: 'utf8', timeout: 10_000 }).status === 0;
  }

  it.skipIf(problems.size === 0)('a body that starts with an indented helper def or an import stays a body (and passes)', () => {
    const helper = '    def frac(x):\n        return x - int(x)\n    return frac(number)\n';
    expect(extractCode(helper, { entryPoint: 'truncate_number' })!.value).toBe(helper.trimEnd());
    expect(passes('HumanEval/2', helper)).toBe(true);
    const imported = '    import math\n    return number - math.floor(number)\n';
    expect(passes('HumanEval/2', imported)).toBe(true);
    const fenced = '```python\n    from itertools import combinations\n    return any(abs(a - b) < threshold for a, b in combinations(numbers, 2))\n```';
    expect(passes('HumanEval/0', fenced)).toBe(true);
  });

  it.skipIf(problems.size === 0)('a whole function indented as a block is dedented when it defines the entry point', () => {
    const indented = '    def truncate_number(number: float) -> float:\n        return number % 1.0\n';
    expect(extractCode(indented, { entryPoint: 'truncate_number' })!.value).toBe('def truncate_number(number: float) -> float:\n    return number % 1.0');
    expect(passes('HumanEval/2', indented)).toBe(true);
  });

  it('rules and spans', () => {
    const text = 'Here:\n```python\nx = 1\n```\nDone';
    const e = extractCode(text)!;
    expect(e.rule).toBe('code-fence');
    expect(text.slice(e.span[0], e.span[1])).toBe('x = 1');
    expect(extractCode('Code:\n    return 1', { cue: 'Code:' })).toMatchObject({ rule: 'code-body', value: '    return 1' });
    expect(extractCode('   \n')).toBeNull();
    // without an entry point, a block whose top level is only definitions is dedented; a body with return is not
    expect(extractCode('    def f():\n        return 1')!.value).toBe('def f():\n    return 1');
    expect(extractCode('    def g():\n        return 1\n    return g()')!.value).toBe('    def g():\n        return 1\n    return g()');
  });
});
