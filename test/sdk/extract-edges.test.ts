/**
 * Boundaries of the extraction rules (packages/sdk/src/extract/) that the mutation run (`npm run mutate`) found
 * untested: where a list enumerator counts, how far math and new turns reach, spacing inside markers, the article
 * check, option texts, clauses and afterwords of numbers, fences and dedenting of code, cues of first lines, yes/no
 * statements. Each case states what a reader of the reply would take as its answer.
 */
import { describe, expect, it } from 'vitest';
import { extractChoice, extractCode, extractFirstLine, extractNumber, extractYesNo } from '@hpt-bench/sdk';
import { blankMath, blankParentheticals, findMarkers, replyEnd, sentences } from '../../packages/sdk/src/extract/scan.js';

const texts = (text: string) => sentences(text).map((r) => text.slice(r.start, r.end));
const whole = (text: string) => ({ start: 0, end: text.length });
const rules = (text: string, choice?: boolean) => findMarkers(text, choice).map((m) => [m.rule, m.at] as const);
const choice4 = (text: string) => extractChoice(text, { letters: 4 });
const OPTIONS = ['bank', 'library', 'homes', 'store', 'mall'];

describe('sentences and list enumerators', () => {
  it('a dot after a number ends no sentence only when the number is a list enumerator at its line start', () => {
    expect(texts('ab 1. Cd')).toEqual(['ab 1', 'Cd']);
    expect(texts('ab1. Cd')).toEqual(['ab1', 'Cd']);
    expect(texts('1a. Bc')).toEqual(['1a', 'Bc']);
    expect(texts('  2. Foo')).toEqual(['2. Foo']);
    expect(texts('- 2. Foo')).toEqual(['- 2. Foo']);
    expect(texts('12. Foo')).toEqual(['12. Foo']);
    expect(texts('1.\tFoo')).toEqual(['1.\tFoo']);
  });

  it('an enumerator is looked for within 12 characters of its line start', () => {
    expect(texts(`${' '.repeat(11)}1. Foo`)).toEqual(['1. Foo']);
    expect(texts(`${' '.repeat(12)}1. Foo`)).toEqual(['1', 'Foo']);
  });
});

describe('parentheticals and math', () => {
  it('a bracketed aside of several characters is blanked', () => {
    expect(blankParentheticals('x [ab] y', whole('x [ab] y'))).toBe('x      y');
  });

  it('display math, \\(...\\) and \\[...\\] are blanked whole, with spaces and letters inside, closed or cut off', () => {
    for (const math of ['$$x + y$$', '\\(x + y\\)', '\\[x + y\\]']) {
      const text = `${math} B`;
      expect(blankMath(text, whole(text))).toBe(`${' '.repeat(math.length)} B`);
    }
    for (const cut of ['$$x + y', '\\(x + y', '\\[x + y']) expect(blankMath(`B ${cut}`, whole(`B ${cut}`))).toBe(`B ${' '.repeat(cut.length)}`);
  });
});

describe('markers: spacing and the families', () => {
  it('`####` is one marker however many hashes', () => {
    expect(rules('#### 18')).toEqual([['hash', 0]]);
    expect(rules('###### 18')).toEqual([['hash', 0]]);
  });

  it('"final answer" with runs of spaces, "would be"/"will be", and on a line of its own with trailing spaces', () => {
    expect(extractNumber('Final  answer: 5')).toMatchObject({ value: 5, rule: 'final-answer' });
    expect(extractNumber('So the final answer would  be 5.')).toMatchObject({ value: 5, rule: 'final-answer' });
    expect(extractNumber('So the final answer will  be 5.')).toMatchObject({ value: 5, rule: 'final-answer' });
    expect(extractNumber('So the final answer will be 5.')).toMatchObject({ value: 5, rule: 'final-answer' });
    expect(extractNumber('Final answer  \n5')).toMatchObject({ value: 5, rule: 'final-answer', span: [15, 16] });
  });

  it('a bold line may be indented and end in a spaced or bare full stop, but not in more text', () => {
    expect(rules('Total:\n  **42**')).toEqual([['bold', 7]]);
    expect(rules('**42** .')).toEqual([['bold', 0]]);
    expect(rules('**42**.')).toEqual([['bold', 0]]);
    expect(rules('**42**abc')).toEqual([]);
  });

  it('"option"/"choice" markers only for choices, also at the very start', () => {
    expect(rules('The correct option is C')).toEqual([]);
    expect(rules('The correct option is C', true)).toEqual([['answer-is', 12]]);
    expect(rules('Choice is B.', true)).toEqual([['answer-is', 0]]);
  });

  it('a Python-style dict answer is read like a JSON one', () => {
    expect(extractChoice("{'reasoning': 'A fox is ...', 'answer': 'B'}", { letters: 4 })).toMatchObject({ value: 'B', rule: 'json-answer' });
    expect(extractYesNo("{'answer': 'no'}")).toMatchObject({ value: false, rule: 'json-answer' });
  });
});

describe('new turns', () => {
  it('indented, hash-headed without a space, numbered without a space or with two digits, or alone at the end', () => {
    expect(replyEnd('42\n  Question: next')).toBe(3);
    expect(replyEnd('42\n##Question 2')).toBe(3);
    expect(replyEnd('42\nQuestion2: what?')).toBe(3);
    expect(replyEnd('42\nQuestion 12: what?')).toBe(3);
    expect(replyEnd('42\nQuestion')).toBe(3);
    expect(replyEnd('42\nQuestions remain.')).toBe(20);
  });

  it('a chat-template token on the first line ends nothing: the reply is one line', () => {
    expect(replyEnd('42<|endoftext|>')).toBe(15);
    expect(replyEnd('42\n<|endoftext|>')).toBe(3);
  });

  it('a choice reply ends where the model starts a new turn', () => {
    expect(choice4('B\nQuestion: which one? Answer: C')).toMatchObject({ value: 'B', rule: 'answer-first' });
  });
});

describe('stacked answers', () => {
  it('two different answers, the second line opening with a few words, are no answer; more words make it a correction', () => {
    expect(choice4('The answer is (C)\nThe answer is (D)')).toBeNull();
    const lead24 = 'So after all of it, the'; // with its space: 24 characters, no digit
    expect(choice4(`The answer is (C)\n${lead24} answer is (D)`)).toBeNull();
    expect(choice4(`The answer is (C)\nSo, after all of it, then the answer is (D)`)).toMatchObject({ value: 'D', rule: 'answer-is' });
  });

  it('the same yes/no stated twice is that answer', () => {
    expect(extractYesNo('Answer: No\nAnswer: No')).toMatchObject({ value: false, rule: 'answer-label' });
  });
});

describe('choice letters', () => {
  it('"not" and "not option" with runs of spaces still rule a letter out', () => {
    expect(choice4('Well.\nB is right, not  A.')).toMatchObject({ value: 'B', rule: 'final-sentence' });
    expect(choice4('Well.\nC is right, not option  D.')).toMatchObject({ value: 'C', rule: 'final-sentence' });
  });

  it('a digit in brackets names no option; a lower-case letter after "option" and spaces does', () => {
    expect(choice4('So it is B, see note (1).')).toMatchObject({ value: 'B', span: [9, 10] });
    expect(choice4('Hmm.\nI pick option  c.')).toMatchObject({ value: 'C', rule: 'final-sentence' });
  });

  it('option texts: case does not matter, the text named first wins, and only a whole first sentence is answer-first', () => {
    expect(extractChoice('Homes.', { letters: 5, options: OPTIONS })).toMatchObject({ value: 'C', rule: 'answer-first+option-text' });
    expect(extractChoice('homes', { letters: 5, options: ['Bank', 'Library', 'Homes', 'Store', 'Mall'] })).toMatchObject({ value: 'C' });
    expect(extractChoice('Probably the bank, or else homes', { letters: 5, options: OPTIONS })).toMatchObject({ value: 'A', rule: 'final-sentence+option-text' });
    expect(extractChoice('Homes. They are where people live.', { letters: 5, options: OPTIONS })).toMatchObject({ value: 'C', rule: 'answer-first+option-text' });
    expect(extractChoice('   ', { letters: 5, options: OPTIONS })).toBeNull();
  });

  it('a bold line names its option by letter only; the option text of a bold line is read by the last sentence', () => {
    expect(extractChoice('Thinking it over...\n**Homes**', { letters: 5, options: OPTIONS })).toMatchObject({ value: 'C', rule: 'final-sentence+option-text' });
  });

  it('the answer position: brackets make A a letter, a lower-case letter needs punctuation or nothing after it', () => {
    expect(choice4('(A) toy car')).toMatchObject({ value: 'A', rule: 'answer-first' });
    expect(choice4('b is the one.')).toBeNull();
    expect(choice4('b \n')).toMatchObject({ value: 'B', rule: 'answer-first' });
    expect(choice4('B bookstore')).toMatchObject({ value: 'B', rule: 'answer-first' });
    expect(choice4('A  toy car is small.')).toBeNull();
    expect(choice4('I think so.\nB is right')).toMatchObject({ value: 'B', rule: 'final-sentence' });
  });

  it('an article A followed by option A\'s text and more words is option A', () => {
    expect(extractChoice('A toy car, because kids play with it.', { letters: 3, options: ['toy car', 'fox', 'bank'] })).toMatchObject({ value: 'A', rule: 'answer-first' });
  });

  it('a marker reads its letter at its start, after quotes', () => {
    expect(choice4('The answer is "B".')).toMatchObject({ value: 'B', rule: 'answer-is', span: [15, 16] });
    expect(choice4('Answer: (2) C')).toMatchObject({ value: 'C', rule: 'final-sentence' });
  });
});

describe('numbers', () => {
  it('a percentage sign belongs to the number, spaced or escaped; a fraction has a denominator of any length', () => {
    expect(extractNumber('45%')).toMatchObject({ value: 45, rule: 'answer-first', span: [0, 3] });
    expect(extractNumber('45 %')).toMatchObject({ value: 45, rule: 'answer-first', span: [0, 4] });
    expect(extractNumber('The answer is 3/12.')).toMatchObject({ value: 0.25 });
  });

  it('an enumerator (bulleted, "Step", two digits, spaced) at a line start is no answer; elsewhere it is a number', () => {
    expect(extractNumber('She has 18 apples.\n- 3. Done')).toMatchObject({ value: 18 });
    expect(extractNumber('She has 18 apples.\nStep 3: Done')).toMatchObject({ value: 18 });
    expect(extractNumber('She has 18 apples.\nStep  3: Done')).toMatchObject({ value: 18 });
    expect(extractNumber('She has 18 apples.\n12. Done')).toMatchObject({ value: 18 });
    expect(extractNumber('She has 18 apples.\n3.  Done')).toMatchObject({ value: 18 });
    expect(extractNumber('She has 18 apples.\nA 13: go')).toMatchObject({ value: 13 });
    expect(extractNumber('I counted apples; 3) done')).toMatchObject({ value: 3 });
  });

  it('a numbered list whose item 2 is bulleted is a list: its item 1 is not the answer', () => {
    expect(extractNumber('1. Janet has 3 ducks.\n- 2. She sells 18.')).toMatchObject({ value: 18, rule: 'final-sentence' });
  });

  it('clauses: an equation\'s result unless a later clause (", " or " so ") holds a number; a clause after the last number changes nothing', () => {
    expect(extractNumber('Total = 18 for 2 days')).toMatchObject({ value: 18 });
    expect(extractNumber('Total = 5, or 12 in all')).toMatchObject({ value: 12 });
    expect(extractNumber('x = 3 so 18 in all')).toMatchObject({ value: 18 });
    expect(extractNumber('She makes $18 a day, which is nice.')).toMatchObject({ value: 18 });
  });

  it('afterwords: a note after a bullet or emphasis, a summary of steps, the step used; a "check" mid-sentence is no afterword', () => {
    expect(extractNumber('She makes $18 a day.\n**Note:** tickets cost $15 each.')).toMatchObject({ value: 18 });
    expect(extractNumber('She makes $18 a day.\n- Note: tickets cost $15 each.')).toMatchObject({ value: 18 });
    expect(extractNumber('She makes $18 a day.\nSummary of steps: add 4 and 5.')).toMatchObject({ value: 18 });
    expect(extractNumber('She makes $18 a day.\nStep used: add 4 and 5.')).toMatchObject({ value: 18 });
    expect(extractNumber('First 5 apples.\nSo we check and get 18 apples')).toMatchObject({ value: 18 });
  });
});

describe('code', () => {
  it('an info string that is code, not a language tag, is code', () => {
    expect(extractCode('```def add(a, b):\n    return a + b\n```')).toMatchObject({ value: 'def add(a, b):\n    return a + b', rule: 'code-fence' });
  });

  it('an unclosed fence runs to the end of the reply', () => {
    expect(extractCode('```python\ndef f():\n    return 1')).toMatchObject({ value: 'def f():\n    return 1', rule: 'code-fence' });
  });

  it('indented code is dedented when its top-level lines are module lines (async def), not when one is a statement', () => {
    expect(extractCode('    async def f():\n        return 1')?.value).toBe('async def f():\n    return 1');
    expect(extractCode('    async  def f():\n        return 1')?.value).toBe('async  def f():\n    return 1');
    expect(extractCode('    def f():\n        return 1\n    if  __name__ == "__main__":\n        f()')?.value).toBe('def f():\n    return 1\nif  __name__ == "__main__":\n    f()');
    expect(extractCode('    def f():\n        return 1\n    x = f()  # call')?.value).toBe('    def f():\n        return 1\n    x = f()  # call');
  });

  it('with an entry point: dedented when the entry point is defined on any line, after an import', () => {
    expect(extractCode('    import math\n    def add(a, b):\n        return a + b', { entryPoint: 'add' })?.value).toBe('import math\ndef add(a, b):\n    return a + b');
  });

  it('a cue given with spaces around it is dropped', () => {
    expect(extractCode('Code:\ndef f():\n    return 1', { cue: ' Code: ' })).toMatchObject({ value: 'def f():\n    return 1', rule: 'code-body' });
  });
});

describe('first lines and yes/no', () => {
  it('cues given with spaces around them are dropped', () => {
    expect(extractFirstLine('French: Bonjour', { cue: 'French:  ' })?.value).toBe('Bonjour');
    expect(extractFirstLine('French: Bonjour', { cues: ['French:  '] })?.value).toBe('Bonjour');
  });

  it('the span of a first line after blank lines (\\n, \\r\\n, \\r) counts every line ending', () => {
    const text = '\n\r\n \r  Bonjour.\nAu revoir.';
    expect(extractFirstLine(text)).toEqual({ value: 'Bonjour.', rule: 'first-line', span: [7, 15] });
    expect(text.slice(7, 15)).toBe('Bonjour.');
    expect(extractFirstLine('French:\r\n\r\nBonjour', { cue: 'French:' })).toEqual({ value: 'Bonjour', rule: 'first-line', span: [11, 18] });
  });

  it('"not" and "is not" with runs of spaces negate', () => {
    expect(extractYesNo('not  true')).toMatchObject({ value: false, rule: 'answer-first' });
    expect(extractYesNo('Hmm.\nThe claim is  not true')).toMatchObject({ value: false, rule: 'final-sentence' });
    expect(extractYesNo('Hmm.\nThe claim is not  true')).toMatchObject({ value: false, rule: 'final-sentence' });
  });

  it('"true" inside a final sentence: before a comma, a word or a closing quote', () => {
    expect(extractYesNo('Well.\nIt is true, as the passage says')).toMatchObject({ value: true, rule: 'final-sentence' });
    expect(extractYesNo('Well.\nIt is true as stated')).toMatchObject({ value: true, rule: 'final-sentence' });
    expect(extractYesNo("Well.\nThe statement is 'true' here")).toMatchObject({ value: true, rule: 'final-sentence' });
  });

  it('an answer after a label and emphasis has its span on the word', () => {
    expect(extractYesNo('Answer: **No**, because')).toMatchObject({ value: false, rule: 'answer-label', span: [10, 12] });
  });
});
