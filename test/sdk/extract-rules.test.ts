/**
 * The extraction cascade rule by rule (issue #23): each marker form, each number form, the sentence and noise
 * handling, and the rule names — precise expectations on small replies, so that a change to any rule of
 * packages/sdk/src/extract/ shows here (the mutation target of `npm run mutate` for these files).
 */
import { describe, expect, it } from 'vitest';
import { EXTRACTION_RULES, extractChoice, extractCode, extractFirstLine, extractNumber, extractYesNo } from '@hpt-bench/sdk';

const n = (text: string, cue?: string) => extractNumber(text, cue === undefined ? {} : { cue });
const value = (text: string) => extractNumber(text)?.value ?? null;
const c = (text: string, letters = 5, options?: string[]) => extractChoice(text, { letters, ...(options ? { options } : {}) });
const letter = (text: string, letters = 5, options?: string[]) => c(text, letters, options)?.value ?? null;

describe('markers', () => {
  it('each marker form is named by its rule', () => {
    expect(n('So 9 * 2 = 18.\n#### 18')).toMatchObject({ value: 18, rule: 'hash' });
    expect(n('The total is \\boxed{18}.')).toMatchObject({ value: 18, rule: 'boxed' });
    expect(n('The total is \\fbox{18}.')).toMatchObject({ value: 18, rule: 'boxed' });
    expect(n('{"reasoning": "x", "answer": "18"}')).toMatchObject({ value: 18, rule: 'json-answer' });
    expect(n('{"reasoning": "x", "answer": 18}')).toMatchObject({ value: 18, rule: 'json-answer' });
    expect(n("{'reasoning': 'x', 'answer': 18}")).toMatchObject({ value: 18, rule: 'json-answer' });
    expect(n('Final answer: 18')).toMatchObject({ value: 18, rule: 'final-answer' });
    expect(n('The final answer is 18.')).toMatchObject({ value: 18, rule: 'final-answer' });
    expect(n('My final answer would be 18')).toMatchObject({ value: 18, rule: 'final-answer' });
    expect(n('**Final Answer**\n18')).toMatchObject({ value: 18, rule: 'final-answer' });
    expect(n('The final answer = 18')).toMatchObject({ value: 18, rule: 'final-answer' });
    expect(n('So the answer is 18.')).toMatchObject({ value: 18, rule: 'answer-is' });
    expect(n('The answer would be 18 eggs.')).toMatchObject({ value: 18, rule: 'answer-is' });
    expect(n('The answer should be: 18')).toMatchObject({ value: 18, rule: 'answer-is' });
    expect(n('Answer: 18')).toMatchObject({ value: 18, rule: 'answer-label' });
    expect(n('**Answer**: 18')).toMatchObject({ value: 18, rule: 'answer-label' });
    expect(n('Answer (in dollars): 18')).toMatchObject({ value: 18, rule: 'answer-label' });
    expect(n('She sells 9 eggs at $2.\n**$18**')).toMatchObject({ value: 18, rule: 'bold' });
  });

  it('a marker whose line is empty reads the next non-blank line', () => {
    expect(n('Answer:\n\n  18 dollars')).toMatchObject({ value: 18, rule: 'answer-label' });
    expect(n('Answer:   \n')).toBeNull();
  });

  it('words that only look like markers are not', () => {
    // "final answer" without a connector, "answers" and "answered" are prose
    expect(n('Before my final answer I check 3 things. She makes $18.')).toMatchObject({ value: 18, rule: 'final-sentence' });
    expect(n('He answered 5 questions and got 4 right.')).toMatchObject({ value: 4, rule: 'final-sentence' });
  });

  it('the last marker that holds an answer wins; an empty non-decisive one is passed over', () => {
    expect(n('The answer is 16.\nLet me recheck the muffins.\nThe answer is 18.')).toMatchObject({ value: 18 });
    expect(n('The answer is 18.\nThe answer is below.')).toMatchObject({ value: 18, rule: 'answer-is' });
    expect(n('The answer is 18.\nFinal answer: see above')).toBeNull();
    expect(n('Result: \\boxed{18}\n\\boxed{x}')).toBeNull();
  });

  it('braces and quotes: nested \\boxed{}, escaped quotes, unterminated strings', () => {
    expect(value('\\boxed{\\frac{36}{2} = 18}')).toBe(18);
    expect(value('\\boxed{18')).toBe(18);
    expect(value('{"answer": "the \\"best\\" is 18"}')).toBe(18);
    expect(n('{"answer": "18')).toMatchObject({ value: 18, rule: 'final-sentence' });
    expect(value('"answer":     ')).toBeNull();
  });

  it('a repeated answer line is one answer; different ones stacked are none', () => {
    expect(value('Answer: 18\nAnswer: 18')).toBe(18);
    expect(value('Answer: 18\nAnswer: 19')).toBeNull();
    expect(value('Answer: 18.\n\nThe answer is 19.')).toBeNull();
    // text between two answers makes the second a correction, not a list
    expect(value('Answer: 18.\nOops, I forgot one egg.\nAnswer: 19.')).toBe(19);
    // a long lead-in before the second answer is text between them
    expect(value('Answer: 18.\nAfter checking every step once more, the answer is 19.')).toBe(19);
  });
});

describe('numbers', () => {
  it('signs, currency, separators, decimals, percent, time, fractions', () => {
    expect(value('The answer is −7.')).toBe(-7);
    expect(value('The answer is -$5.')).toBe(-5);
    expect(value('The answer is $-5.')).toBe(-5);
    expect(value('The answer is €1,234,567.')).toBe(1234567);
    expect(value('The answer is £3.50.')).toBe(3.5);
    expect(value('The answer is ¥12.')).toBe(12);
    expect(value('The answer is 12.5%.')).toBe(12.5);
    expect(value('The answer is 45 %.')).toBe(45);
    expect(value('The answer is 3:45 pm.')).toBe(3.75);
    expect(value('The answer is 3/4.')).toBe(0.75);
    expect(value('The answer is 3/0 or 2.')).toBe(2);
    expect(value('The answer is 1,23 units.')).toBe(1);
    expect(value('The answer is 12,345.')).toBe(12345);
    expect(value('The answer is x5 or 7.')).toBe(7);
  });

  it('number words only where an answer is stated', () => {
    for (const [w, v] of [['zero', 0], ['seven', 7], ['thirteen', 13], ['twenty', 20], ['forty', 40], ['ninety', 90]] as const) expect(value(`The answer is ${w}.`)).toBe(v);
    expect(value('The answer is Twelve.')).toBe(12);
    expect(value('The answer is twentyish.')).toBeNull();
    expect(value('She has seven.')).toBeNull();
  });

  it('the stated number: parentheticals aside unless nothing else, equation results, ≈', () => {
    expect(value('Answer: (18)')).toBe(18);
    expect(value('Answer: [about 18]')).toBe(18);
    expect(value('Answer: 5 (not 6)')).toBe(5);
    expect(value('Answer: x ≈ 18.5')).toBe(18.5);
    expect(value('Answer: 2 + 2 = four')).toBe(2);
  });

  it('the final sentence: enumerators, clauses, afterwords', () => {
    expect(n('Step 3: multiply 9 by 2 to get 18')).toMatchObject({ value: 18, rule: 'final-sentence' });
    expect(n('  - 2. She gets 18 dollars')).toMatchObject({ value: 18 });
    expect(value('She sells 9 eggs; that makes 18.')).toBe(18);
    expect(value('9 eggs at $2, which means 18 dollars')).toBe(18);
    expect(value('She makes 18 dollars. Note: prices are 2 each.')).toBe(18);
    expect(value('She makes 18 dollars.\nCheck: 9 * 2 = 18, 3 tries')).toBe(18);
    expect(value('She makes 18 dollars.\nVerification: 9 + 9 = 18 in 2 steps')).toBe(18);
    expect(value('She makes 18 dollars.\nExplanation: 2 per egg')).toBe(18);
    expect(value('She makes 18 dollars.\nThe key steps are 1 and 2')).toBe(18);
    expect(value('First 12.5 then 7. So 9! Done?')).toBe(9);
    expect(value('It is 7 (or 8)')).toBe(7);
    expect(value('e.g. 5 apples')).toBe(5);
  });

  it('the answer first: a bare first line, a repeated cue, a number of at most four words', () => {
    expect(n('Answer: 18 dollars\nbecause 9 * 2 = 18 and 3 more', 'Answer:')).toMatchObject({ value: 18, rule: 'answer-label' });
    expect(n('18 dollars per day\nShe sells 9 eggs at $2 and keeps 3', '')).toMatchObject({ value: 18, rule: 'answer-first' });
    expect(n('18 dollars per day for her\nShe sells 9 eggs at $2 and keeps 3')).toMatchObject({ value: 3, rule: 'final-sentence' });
    expect(n('18 + 2\nShe keeps 3')).toMatchObject({ value: 3, rule: 'final-sentence' });
    expect(n('**18**: she sells 9 eggs at $2 each and keeps 3')).toMatchObject({ value: 18, rule: 'answer-first' });
    expect(n('18; she sells 9 eggs at $2 each and keeps 3')).toMatchObject({ value: 3, rule: 'final-sentence' });
  });

  it('a new turn ends the reply: headings, labels and template tokens after the first line', () => {
    expect(value('The answer is 13.\n\nQuestion: how old is the son?\nThe answer is 42.')).toBe(13);
    expect(value('The answer is 13.\n### Instruction\nThe answer is 42.')).toBe(13);
    expect(value('The answer is 13.\n**User:** more?\nThe answer is 42.')).toBe(13);
    expect(value('The answer is 13.\nQ: next\nThe answer is 42.')).toBe(13);
    expect(value('The answer is 13.\nProblem 2: next\nThe answer is 42.')).toBe(13);
    expect(value('The answer is 13.<|im_start|>user The answer is 42.')).toBe(42);
    expect(value('The answer is 13.\n<|im_start|>user The answer is 42.')).toBe(13);
    expect(value('The answer is 13.\nok</s>The answer is 42.')).toBe(13);
    expect(value('The answer is 13.\nok<|eot_id|>The answer is 42.')).toBe(13);
    // the first line itself may be a label
    expect(value('Question: what is 6 + 7?\nThe answer is 13.')).toBe(13);
    // a word that only starts like a label is not one
    expect(value('She has 13.\nUsers: 42')).toBe(42);
    expect(value('She has 13.\nUser: 42')).toBe(13);
  });
});

describe('choices', () => {
  it('markers: option words, brackets, emphasis, lower case', () => {
    expect(c('The correct option is C.')).toMatchObject({ value: 'C', rule: 'answer-is' });
    expect(c('The best choice is (d).')).toMatchObject({ value: 'D', rule: 'answer-is' });
    expect(c('Answer: option B')).toMatchObject({ value: 'B', rule: 'answer-label' });
    expect(c('Answer: letter E')).toMatchObject({ value: 'E', rule: 'answer-label' });
    expect(c('Answer: **[c]**')).toMatchObject({ value: 'C', rule: 'answer-label' });
    expect(c('Answer: __B__')).toMatchObject({ value: 'B', rule: 'answer-label' });
    expect(c('Answer: b.')).toMatchObject({ value: 'B' });
    expect(c('Answer: b')).toMatchObject({ value: 'B' });
    expect(c('Answer: b is right')).toBeNull();
    expect(c('Answer: Because it is cold, B.')).toMatchObject({ value: 'B', rule: 'final-sentence' });
    expect(c('Answer: F', 5)).toBeNull();
    expect(c('**B**\n')).toMatchObject({ value: 'B', rule: 'bold' });
  });

  it('spans point at the letter', () => {
    for (const text of ['The answer is (B).', 'Answer: **B**', '(B) library', 'most likely B, homes.']) {
      const e = c(text)!;
      expect(text.slice(e.span[0], e.span[1])).toBe('B');
    }
  });

  it('option texts: whole words, the first found, the longer on a tie, at least two characters', () => {
    const opts = ['home', 'homes', 'school', 'a', 'park'];
    expect(c('The answer is homes.', 5, opts)).toMatchObject({ value: 'B', rule: 'answer-is+option-text' });
    expect(c('The answer is the school, not the park.', 5, opts)).toMatchObject({ value: 'C' });
    expect(c('The answer is a.', 5, opts)).toMatchObject({ value: 'A' });
    expect(c('The answer is a thing.', 5, opts)).toBeNull();
    expect(c('The answer is schoolyard.', 5, opts)).toBeNull();
    expect(c('The answer is park.', 4, opts)).toBeNull();
    expect(c('The answer is park.', 5, [])).toBeNull();
  });

  it('the answer first: the article and the pronoun, option text of a whole first sentence', () => {
    const opts = ['bank', 'library', 'store', 'mall', 'new york'];
    expect(letter('A, because banks keep money.')).toBe('A');
    expect(letter('A) bank')).toBe('A');
    expect(letter('(A) bank')).toBe('A');
    expect(letter('I.')).toBeNull(); // I is past the 5 letters
    expect(letter('I.', 10)).toBe('I');
    expect(letter('I am sure it is C', 10)).toBe('C');
    expect(letter('A bank is safe', 5, opts)).toBe('A');
    // not the article before option A's text: read in the last sentence by the option text it names
    expect(c('A library is quiet', 5, opts)).toMatchObject({ value: 'B', rule: 'final-sentence+option-text' });
    expect(c('Library.', 5, opts)).toMatchObject({ value: 'B', rule: 'answer-first+option-text' });
    expect(c('New York!', 5, opts)).toMatchObject({ value: 'E', rule: 'answer-first+option-text' });
    expect(c('The library, probably', 5, opts)).toMatchObject({ value: 'B', rule: 'final-sentence+option-text' });
  });

  it('the last sentence: candidates, ranges, the article, negations, math', () => {
    expect(letter('Looking at them all: option d')).toBe('D');
    expect(letter('Looking at them all: choice (c)')).toBe('C');
    expect(letter('So it must be A.')).toBe('A');
    expect(letter('So it must be A')).toBe('A');
    expect(letter('A fox would not go there')).toBeNull();
    expect(letter('So it is B, not C')).toBe('B');
    expect(letter('So it is B rather than option C')).toBe('B');
    expect(letter("So it is B, it isn't (C)")).toBe('B');
    expect(letter('So it is B instead of C')).toBe('B');
    expect(letter('Every option except C works, so B')).toBe('B');
    expect(letter('So it is $x^B$ and C')).toBe('C');
    expect(letter('So it is \\(B\\) and D')).toBe('D');
    expect(letter('So it is \\[B\\] and E')).toBe('E');
    expect(letter('So it is $$B$$ and A.')).toBe('A');
    expect(letter("It's B's turn")).toBeNull();
    expect(letter('The B-side')).toBeNull();
    expect(letter('no letter here')).toBeNull();
    expect(letter('')).toBeNull();
    expect(letter('   \n  ')).toBeNull();
  });
});

describe('yes/no', () => {
  const y = (text: string) => extractYesNo(text);
  it('standing alone: punctuation after it, or the end', () => {
    for (const t of ['Yes', 'yes.', 'Yes,', 'YES!', 'Yes:', 'Yes;', 'Yes (see above)', 'Yes - surely', 'Yes—surely', '"Yes"', 'Yes\nbecause']) expect(y(t)?.value, t).toBe(true);
    for (const t of ['No', 'False.', 'no, never', '**False**']) expect(y(t)?.value, t).toBe(false);
    for (const t of ['Yesterday it rained.', 'Not sure.', 'No-one knows', 'Nope', '']) expect(y(t), t).toBeNull();
  });

  it('the last sentence: a statement that something is (not) true or false', () => {
    expect(y('I read the passage. The claim is true.')).toMatchObject({ value: true, rule: 'final-sentence' });
    expect(y('I read the passage. These claims are false.')).toMatchObject({ value: false });
    expect(y('I read the passage. It was not true')).toMatchObject({ value: false });
    expect(y('I read the passage. Were they false? They were not false')).toMatchObject({ value: true });
    expect(y('I read the passage. To be true to the text, it must be false.')).toMatchObject({ value: false });
    expect(y('I read the passage. No, it does not say so.')).toMatchObject({ value: false, rule: 'final-sentence' });
    expect(y('I read the passage. The claim is untrue.')).toBeNull();
  });

  it('markers and the decisive JSON field', () => {
    expect(y('Answer: not true')).toMatchObject({ value: false, rule: 'answer-label' });
    expect(y('{"answer": "yes"}')).toMatchObject({ value: true, rule: 'json-answer' });
    expect(y('{"answer": true}')).toMatchObject({ value: true, rule: 'json-answer' });
    expect(y('Answer: Yes\nAnswer: No')).toBeNull();
  });
});

describe('free text and code', () => {
  it('first line: cues, line ends, spans', () => {
    expect(extractFirstLine('Translation: Bonjour\r\nX', { cue: 'Translation:' })).toMatchObject({ value: 'Bonjour', rule: 'first-line' });
    expect(extractFirstLine('\r\n\rSalut\rX')?.value).toBe('Salut');
    expect(extractFirstLine('__French:__ Oui', { cues: ['French:'] })?.value).toBe('Oui');
    expect(extractFirstLine('French: Oui', { cue: '  ' })?.value).toBe('French: Oui');
    expect(extractFirstLine('')).toBeNull();
  });

  it('code: fences with and without a language, the cue, module detection', () => {
    expect(extractCode('```\nx = 1\n```')).toMatchObject({ value: 'x = 1', rule: 'code-fence' });
    expect(extractCode('```c++\nint x;\n```')?.value).toBe('int x;');
    expect(extractCode('``` python \nx = 1\n```')?.value).toBe('x = 1');
    expect(extractCode('```python')).toBeNull();
    expect(extractCode('**Code:**\n    return 1', { cue: 'Code:' })).toMatchObject({ value: '    return 1', rule: 'code-body' });
    expect(extractCode('Solution:\n    return 1', { cue: 'Solution:' })?.value).toBe('    return 1');
    expect(extractCode('    class A:\n        pass')?.value).toBe('class A:\n    pass');
    expect(extractCode('    from a import b\n    import c\n    @d\n    def f():\n        pass\n    # done\n    if __name__ == "__main__":\n        f()')?.value).toBe('from a import b\nimport c\n@d\ndef f():\n    pass\n# done\nif __name__ == "__main__":\n    f()');
    expect(extractCode('    x = [\n      1,\n    ]\n    return x')?.value).toBe('    x = [\n      1,\n    ]\n    return x');
    expect(extractCode('    async def g():\n        pass', { entryPoint: 'g' })?.value).toBe('async def g():\n    pass');
    expect(extractCode('    def g():\n        pass', { entryPoint: 'h' })?.value).toBe('    def g():\n        pass');
    expect(extractCode('  def f():\n\treturn 1')?.value).toBe('  def f():\n\treturn 1');
  });
});

describe('rule names', () => {
  it('every rule an extractor reports is listed in EXTRACTION_RULES, and every listed rule is reported by some reply', () => {
    const seen = new Set<string>();
    const add = (rule: string | undefined) => {
      if (rule === undefined) return;
      for (const part of rule.split('+')) {
        if (part === 'option-text') continue;
        expect(EXTRACTION_RULES, rule).toContain(part);
        seen.add(part);
      }
    };
    for (const t of ['#### 1', '\\boxed{1}', '{"answer": "1"}', 'Final answer: 1', 'The answer is 1', 'Answer: 1', '**1**', '1', 'She has 1 left']) add(extractNumber(t)?.rule);
    add(extractChoice('B', { letters: 5 })?.rule);
    add(extractChoice('most likely B.', { letters: 5 })?.rule);
    add(extractFirstLine('Bonjour')?.rule);
    add(extractCode('```\nx\n```')?.rule);
    add(extractCode('x = 1')?.rule);
    seen.add('none');
    expect([...seen].sort()).toEqual([...EXTRACTION_RULES].sort());
  });
});

describe('choice and code details', () => {
  it('option texts are compared case- and punctuation-blind; a tie at one position goes to the longer text', () => {
    expect(c('The answer is NEW-YORK.', 5, ['bank', 'library', 'store', 'mall', 'New York'])).toMatchObject({ value: 'E' });
    expect(c('The answer is home office.', 3, ['home', 'home office', 'park'])).toMatchObject({ value: 'B' });
    expect(c('The answer is home, then office.', 3, ['home', 'home office', 'park'])).toMatchObject({ value: 'A' });
    expect(c('The answer is the mall or the store.', 5, ['bank', 'library', 'store', 'mall', 'zoo'])).toMatchObject({ value: 'D' });
    expect(c('The answer is ok.', 3, ['no', 'ok', 'maybe'])).toMatchObject({ value: 'B', rule: 'answer-is+option-text' });
    expect(c('The answer is x.', 3, ['y', 'x', 'z'])).toBeNull();
    expect(c('The answer is the park.', 3, ['', 'park', 'zoo'])).toMatchObject({ value: 'B' });
  });

  it('the letter in the answer position: spaces in brackets, lower case with a colon, the article after a marker', () => {
    expect(c('Answer: ( B )')).toMatchObject({ value: 'B' });
    expect(c('Answer: [ d]')).toMatchObject({ value: 'D' });
    expect(c('Answer: c: the mall')).toMatchObject({ value: 'C' });
    expect(c('Answer: c) the mall')).toMatchObject({ value: 'C' });
    expect(c('Answer: A toy car')).toMatchObject({ value: 'A', rule: 'answer-label' });
    expect(c('Answer: optionB')).toBeNull();
    expect(c('Answer: option   B')).toMatchObject({ value: 'B' });
    const e = c('Answer: ** ( B )**')!;
    expect('Answer: ** ( B )**'.slice(e.span[0], e.span[1])).toBe('B');
  });

  it('the last sentence: spacing around candidates and negations', () => {
    expect(letter('It is A .')).toBe('A');
    expect(letter('It is I ,', 10)).toBe('I');
    expect(letter('Best is option   C')).toBe('C');
    expect(letter('So B, not   C')).toBe('B');
    expect(letter('So B rather than option   C')).toBe('B');
    expect(letter('So B rather than answer (C)')).toBe('B');
    expect(letter('Not C but B')).toBe('B');
    expect(letter('So B. Really, not C')).toBeNull();
  });

  it('code: language tags, dedenting, blank lines, the default cue', () => {
    expect(extractCode('``` not a tag\nx = 1\n```')?.value).toBe(' not a tag\nx = 1');
    expect(extractCode('```py3.11\nx = 1\n```')?.value).toBe('x = 1');
    expect(extractCode('```\tpython\t\nx = 1\n```')?.value).toBe('x = 1');
    expect(extractCode('\n\n  \n    def f():\n\n        return 1\n')?.value).toBe('def f():\n\n    return 1');
    expect(extractCode('    def f():\n   \n        return 1')?.value).toBe('def f():\n\n    return 1');
    expect(extractCode('\tdef f():\n\t\treturn 1')?.value).toBe('def f():\n\treturn 1');
    // dedented, `x = 1` would stand at the top level beside an indented def: not a module, kept as it is
    expect(extractCode('    def f():\n  x = 1')?.value).toBe('    def f():\n  x = 1');
    expect(extractCode('    def f(\n        a,\n    ):\n        return a')?.value).toBe('def f(\n    a,\n):\n    return a');
    expect(extractCode('Code: x = 1')).toMatchObject({ value: 'x = 1', rule: 'code-body' });
    expect(extractCode('code:\nx = 1', { cue: '' })?.value).toBe('x = 1');
    expect(extractCode('```\n\n```')).toBeNull();
    // a fence that opens at the very end holds no code
    expect(extractCode('x = 1\n```')).toBeNull();
  });
});

describe('number rules in detail', () => {
  it('stated numbers: parentheticals set aside, words after them, ≈ and = together', () => {
    expect(value('Answer: (about 6) 5')).toBe(5);
    const t = 'Answer: (roughly) twelve';
    const e = extractNumber(t)!;
    expect([e.value, t.slice(e.span[0], e.span[1])]).toEqual([12, 'twelve']);
    expect(value('a ≈ 4 = 4.1')).toBe(4.1);
  });

  it('final sentences: enumerators at a line start only, clauses by comma, semicolon or a conclusion word', () => {
    expect(value('She has 7 apples.\n12.  Done with all of them')).toBe(7);
    expect(value('She has 7 apples.\n   1. Done with all of them')).toBe(7);
    expect(value('She has 7 apples.\nStep  2: Done with all of them')).toBe(7);
    expect(value('She has 7.\nDone in 2: easy')).toBe(2);
    expect(value('So y = 5 and 9 extra')).toBe(5);
    expect(value('y = 5, then 9')).toBe(9);
    expect(value('y = 5 so 9')).toBe(9);
    expect(value('y = 5; 9 is left')).toBe(9);
    expect(value('She made 18 notes in total')).toBe(18);
    expect(value('She makes 18.\n- Note: 2 each')).toBe(18);
  });

  it('the answer first: its words, its punctuation, a numbered list', () => {
    expect(n('18!\nShe has 3 left')).toMatchObject({ value: 18, rule: 'answer-first' });
    expect(n('18 dollars, total\nShe keeps 3')).toMatchObject({ value: 3, rule: 'final-sentence' });
    expect(n('18 dollars per day today\nShe keeps 3')).toMatchObject({ value: 18, rule: 'answer-first' });
    expect(n('18 dollars  per  day\nShe keeps 3')).toMatchObject({ value: 18, rule: 'answer-first' });
    expect(n('1. Janet has 16 eggs.\n  2. She uses 7.')).toMatchObject({ value: 7, rule: 'final-sentence' });
    expect(n('18:  she sells 9 eggs at $2 and keeps 3')).toMatchObject({ value: 18, rule: 'answer-first' });
    expect(n('18 eggs then: she keeps 3')).toMatchObject({ value: 3, rule: 'final-sentence' });
  });

  it('a bold line is an answer only when it starts with the number and is not a list item', () => {
    expect(n('She keeps 3 eggs.\n**1. Step one**')).toMatchObject({ value: 3 });
    expect(n('She keeps 3 eggs.\n**12. Step one**')).toMatchObject({ value: 3 });
    expect(n('She keeps 3 eggs.\n**12) Step one**')).toMatchObject({ value: 3 });
    expect(n('She keeps 3 eggs.\n**Step 1: cut the eggs**')).toMatchObject({ value: 3 });
    expect(n('She keeps 3 eggs.\n**18 eggs**')).toMatchObject({ value: 18, rule: 'bold' });
  });
});

describe('yes/no in detail', () => {
  const y = (text: string) => extractYesNo(text);
  it('spacing, spans, words that only start like an answer, the last sentence alone', () => {
    expect(y('not  true')).toMatchObject({ value: false });
    const t = '**True**';
    const e = y(t)!;
    expect(t.slice(e.span[0], e.span[1])).toBe('True');
    const f = 'I read it. So it is not true.';
    const ef = y(f)!;
    expect([ef.value, f.slice(ef.span[0], ef.span[1])]).toEqual([false, 'true']);
    expect(y('I read it. It is  not  false')).toMatchObject({ value: true });
    expect(y('I read it. It is true-ish')).toBeNull();
    expect(y('I read it. It is trues')).toBeNull();
    expect(y('I read it. It is true1')).toBeNull();
    expect(y("I read it. It is true's")).toBeNull();
    expect(y('The claim is true. But it was cold')).toBeNull();
  });

  it('a new turn ends the reply, and a marker wins over what follows', () => {
    expect(y('Answer: yes\nUser: Answer: no')).toMatchObject({ value: true, rule: 'answer-label' });
    expect(y('Well.\nAnswer: no')).toMatchObject({ value: false, rule: 'answer-label' });
  });
});

describe('choice details, continued', () => {
  it('option texts: punctuation runs are one space, ties keep the first or the longer, no options means none', () => {
    expect(c('The answer is New -- York.', 5, ['bank', 'library', 'store', 'mall', 'New York'])).toMatchObject({ value: 'E' });
    expect(c('The answer is home office.', 2, ['home office', 'home'])).toMatchObject({ value: 'A' });
    expect(c('The answer is the park.', 2, ['park', 'park'])).toMatchObject({ value: 'A' });
    expect(c('The answer is Stryker was here.', 5)).toBeNull();
    expect(c('The answer is x.', 3, ['yy', 'zz', 'ww'])).toBeNull();
  });

  it('a letter in the answer position may be followed by a hyphen and a digit, not by a word', () => {
    expect(c('Answer: B-2')).toMatchObject({ value: 'B' });
    expect(c('Answer: B-side')).toBeNull();
    expect(c('Answer: B, not option C')).toMatchObject({ value: 'B', rule: 'answer-label' });
  });
});
