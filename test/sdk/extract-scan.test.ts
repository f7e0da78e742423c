/**
 * The scanning helpers of the extraction layer (packages/sdk/src/extract/scan.ts) at the level of offsets: noise, cue
 * repetition, sentence ends, parentheticals, math, every marker's region, stacking and the end of the reply — and the
 * spans the number extractor reports for each rule. Exact offsets, so that an off-by-one shows.
 */
import { describe, expect, it } from 'vitest';
import { extractNumber } from '@hpt-bench/sdk';
import { answerRegion, blankMath, blankParentheticals, findMarkers, markerAnswer, replyEnd, replyStart, sentenceEnd, sentences, skipNoise } from '../../packages/sdk/src/extract/scan.js';

const regions = (text: string, choice = false) => findMarkers(text, choice).map((m) => [m.rule, m.at, text.slice(m.region.start, m.region.end), m.clip] as const);

describe('noise and the cue', () => {
  it('skipNoise skips markdown, quotes, bullets, colons; a number keeps its sign and ####', () => {
    expect(skipNoise('  **"B"', 0)).toBe(5);
    expect(skipNoise('x: - B', 1)).toBe(5);
    expect(skipNoise(' -5', 0)).toBe(2);
    expect(skipNoise(' -5', 0, true)).toBe(1);
    expect(skipNoise(' #### 5', 0)).toBe(6);
    expect(skipNoise(' #### 5', 0, true)).toBe(1);
    expect(skipNoise('B', 0)).toBe(0);
    expect(skipNoise(' '.repeat(250) + 'B', 0)).toBe(200);
  });

  it('replyStart drops one repetition of the cue, case-insensitively, with noise around it', () => {
    expect(replyStart(' **Answer:** B', 'Answer:')).toBe(13);
    expect(replyStart('answer: B', ' Answer: ')).toBe(8);
    expect(replyStart('Answer: Answer: B', 'Answer:')).toBe(8);
    expect(replyStart('  B', undefined)).toBe(2);
    expect(replyStart('  B', '')).toBe(2);
    expect(replyStart('Ans B', 'Answer:')).toBe(0);
    expect(replyStart('Answer: -5', 'Answer:', true)).toBe(8);
    expect(replyStart('Answer: -5', 'Answer:')).toBe(9);
  });
});

describe('sentences', () => {
  it('sentenceEnd: line breaks, ! ? ; and a dot that is not a decimal, an abbreviation or an enumerator', () => {
    expect(sentenceEnd('ab\ncd', 0)).toBe(2);
    expect(sentenceEnd('ab! cd', 0)).toBe(2);
    expect(sentenceEnd('ab? cd', 0)).toBe(2);
    expect(sentenceEnd('ab; cd', 0)).toBe(2);
    expect(sentenceEnd('ab. cd', 0)).toBe(2);
    expect(sentenceEnd('ab.', 0)).toBe(2);
    expect(sentenceEnd('ab." cd', 0)).toBe(2);
    expect(sentenceEnd('ab.) cd', 0)).toBe(2);
    expect(sentenceEnd('ab.** cd', 0)).toBe(2);
    expect(sentenceEnd('1.5 cd', 0)).toBe(6);
    expect(sentenceEnd('e.g cd', 0)).toBe(6);
    expect(sentenceEnd('1. Eggs used. Then', 0)).toBe(12);
    expect(sentenceEnd('  - 2. Eggs', 0)).toBe(11);
    expect(sentenceEnd('1.\nx', 0)).toBe(1);
    expect(sentenceEnd('x 12. Eggs', 0)).toBe(4);
    expect(sentenceEnd('12345678901234. Eggs', 0)).toBe(14);
    expect(sentenceEnd('ab cd', 1, 3)).toBe(3);
    expect(sentenceEnd('ab. cd', 3)).toBe(6);
  });

  it('sentences: trimmed regions, empty ones dropped, within [from, to)', () => {
    const t = ' One. Two!\n\n  Three ';
    expect(sentences(t).map((r) => t.slice(r.start, r.end))).toEqual(['One', 'Two', 'Three']);
    expect(sentences(t).map((r) => [r.start, r.end])).toEqual([[1, 4], [6, 9], [14, 19]]);
    expect(sentences(t, 5, 10).map((r) => t.slice(r.start, r.end))).toEqual(['Two']);
    expect(sentences('   ')).toEqual([]);
    expect(sentences('')).toEqual([]);
  });

  it('blankParentheticals and blankMath keep the length and offsets', () => {
    const t = 'a (b) c [d] e';
    expect(blankParentheticals(t, { start: 0, end: t.length })).toBe('a     c     e');
    expect(blankParentheticals(t, { start: 2, end: 7 })).toBe('    c');
    expect(blankParentheticals('(a\nb) c', { start: 0, end: 7 })).toBe('(a\nb) c');
    const m = 'x $a$ y $$b$$ z \\(c\\) w \\[d\\] v';
    expect(blankMath(m, { start: 0, end: m.length })).toBe('x     y       z       w       v');
    expect(blankMath('x $$a\nb', { start: 0, end: 8 })).toBe('x      ');
    expect(blankMath('x \\(a', { start: 0, end: 5 })).toBe('x    ');
    expect(blankMath('x \\[a', { start: 0, end: 5 })).toBe('x    ');
    expect(blankMath('x $\\frac{1}{2} B', { start: 0, end: 16 })).toBe('x               ');
    expect(blankMath('costs $5, so B', { start: 0, end: 14 })).toBe('costs $5, so B');
    expect(blankMath('a $b\nc$ d', { start: 0, end: 9 })).toBe('a $b\nc$ d');
  });
});

describe('markers', () => {
  it('every family with its start, region and clipping', () => {
    expect(regions('x\n#### 18\ny')).toEqual([['hash', 2, ' 18', true]]);
    expect(regions('a \\boxed{1{2}3} b')).toEqual([['boxed', 2, '1{2}3', false]]);
    expect(regions('a \\boxed{\\}1} b')).toEqual([['boxed', 2, '\\}1', false]]);
    expect(regions('a \\boxed{1')).toEqual([]);
    expect(regions('{"answer": "x\\"y", "b": 1}')).toEqual([['json-answer', 1, 'x\\"y', false]]);
    expect(regions('{"answer": 12, "b": 1}')).toEqual([['json-answer', 1, '12', false]]);
    expect(regions('{"answer":12}')).toEqual([['json-answer', 1, '12', false]]);
    expect(regions('{"answer": "12')).toEqual([]);
    expect(regions("{'answer': 'x'}")).toEqual([['json-answer', 1, 'x', false]]);
    expect(regions("{'answer': 'it\\'s B'}")).toEqual([['json-answer', 1, "it\\'s B", false]]);
    expect(regions("{'answer': 'x")).toEqual([]);
    expect(regions('{"answer":"42"}')).toEqual([['json-answer', 1, '42', false]]);
    expect(regions('{"answer" : 42}')).toEqual([['json-answer', 1, '42', false]]);
    expect(regions('"answer":')).toEqual([]);
    expect(regions('"answer": ,')).toEqual([]);
    expect(regions('Final answer: 7')).toEqual([['final-answer', 0, ' 7', true]]);
    expect(regions('final answer is 7')).toEqual([['final-answer', 0, ' 7', true]]);
    expect(regions('the final answer\n7')).toEqual([['final-answer', 4, '7', true]]);
    expect(regions('the answer is 7')).toEqual([['answer-is', 4, ' 7', true]]);
    expect(regions('The answer(s) are 7')).toEqual([]);
    expect(regions('the answer(s) is 7')).toEqual([['answer-is', 4, ' 7', true]]);
    expect(regions('the option is C', true)).toEqual([['answer-is', 4, ' C', true]]);
    expect(regions('the choice is C', true)).toEqual([['answer-is', 4, ' C', true]]);
    expect(regions('the option is C')).toEqual([]);
    expect(regions('Answer: 7\nx')).toEqual([['answer-label', 0, ' 7', true]]);
    expect(regions('**Answer**: 7')).toEqual([['answer-label', 2, ' 7', true]]);
    expect(regions('answers: 7')).toEqual([]);
    expect(regions('x\n> **7 eggs**.\ny')).toEqual([['bold', 2, '7 eggs', false]]);
    expect(regions('x **7** y')).toEqual([]);
  });

  it('markers are ordered by position, one per answer (Final answer: is not also Answer:)', () => {
    expect(regions('Answer: 1\nFinal answer: 2\n#### 3').map((r) => [r[0], r[1]])).toEqual([['answer-label', 0], ['final-answer', 10], ['hash', 26]]);
  });

  it('a prose marker reads the rest of its line, or the next non-blank line when its own is empty', () => {
    expect(regions('Answer:  \n\n  7 eggs\nmore')).toEqual([['answer-label', 0, '  7 eggs', true]]);
    expect(regions('Answer: **\n7')).toEqual([['answer-label', 0, '7', true]]);
    expect(regions('Answer:')).toEqual([['answer-label', 0, '', true]]);
    expect(regions('Answer:\n  \n')).toEqual([['answer-label', 0, '', true]]);
  });

  it('answerRegion: prose markers end with their sentence, the others keep their region (noise skipped)', () => {
    const t = 'The answer is 18. Then 3.';
    const [m] = findMarkers(t);
    const r = answerRegion(t, m!);
    expect(t.slice(r.start, r.end)).toBe('18');
    const j = '{"answer": "** 18. Then 3."}';
    const [mj] = findMarkers(j);
    const rj = answerRegion(j, mj!);
    expect(j.slice(rj.start, rj.end)).toBe('18. Then 3.');
  });

  it('markerAnswer: the last answer, decisive markers, stacked answers and what separates them', () => {
    const read = (t: string) => {
      const m = markerAnswer(t, findMarkers(t), (_m, r) => {
        const x = /\d+/.exec(t.slice(r.start, r.end));
        return x ? { v: x[0], end: r.start + x.index + x[0].length } : null;
      }, (a, b) => a.v === b.v);
      return m === null || m === 'none' ? m : m.hit.v;
    };
    expect(read('Answer: 1\nAnswer: 2')).toBe('none');
    expect(read('Answer: 1.\n**Answer: 2**')).toBe('none');
    expect(read('Answer: 1, and Answer: 2')).toBe('2');
    expect(read('Answer: 1\nSo then: the answer is 2')).toBe('none');
    expect(read('Answer: 1\nSo after long thought, then: the answer is 2')).toBe('2');
    expect(read('Answer: 1\nStep 2: the answer is 2')).toBe('2');
    expect(read('Answer: 1 x\nAnswer: 2')).toBe('2');
    expect(read('Answer: x\nAnswer: 2')).toBe('2');
    expect(read('Answer: 2\nAnswer: x')).toBe('2');
    expect(read('Answer: 2\nFinal answer: x')).toBe('none');
    expect(read('no markers')).toBeNull();
  });
});

describe('the end of the reply', () => {
  it('replyEnd: the first new-turn line after the first line, or a template token; else the length', () => {
    expect(replyEnd('')).toBe(0);
    expect(replyEnd('   ')).toBe(3);
    expect(replyEnd('one line')).toBe(8);
    expect(replyEnd('\n\nQuestion: x\nmore')).toBe(18);
    expect(replyEnd('a\nQuestion: x')).toBe(2);
    expect(replyEnd('a\n  ## Question 2\nx')).toBe(2);
    expect(replyEnd('a\nQuestion\nx')).toBe(2);
    expect(replyEnd('a\nQuestions are hard')).toBe(20);
    expect(replyEnd('a\nb\nHuman: hi')).toBe(4);
    expect(replyEnd('a\nb<|im_start|>user')).toBe(3);
    expect(replyEnd('a\nb</s>c\nUser: x')).toBe(3);
    expect(replyEnd('a\nUser: x\nb</s>')).toBe(2);
    expect(replyEnd('a<|user|>\nb')).toBe(11);
  });
});

describe('number spans per rule', () => {
  const span = (text: string) => {
    const e = extractNumber(text)!;
    return [e.rule, text.slice(e.span[0], e.span[1])];
  };
  it('each rule reports the characters of the number it read', () => {
    expect(span('#### 1,234')).toEqual(['hash', '1,234']);
    expect(span('x = \\boxed{-$5}')).toEqual(['boxed', '-$5']);
    expect(span('{"answer": "It is 3/4 (of 1)"}')).toEqual(['json-answer', '3/4']);
    expect(span('The answer is twelve eggs.')).toEqual(['answer-is', 'twelve']);
    expect(span('The answer is   twelve.')).toEqual(['answer-is', 'twelve']);
    expect(span('Answer: 2 + 3 = 5 (five)')).toEqual(['answer-label', '5']);
    expect(span('Answer: x ≈ 4.5')).toEqual(['answer-label', '4.5']);
    expect(span('Answer: (7)')).toEqual(['answer-label', '7']);
    expect(span('**45%**')).toEqual(['bold', '45%']);
    expect(span('3:30 pm\nwhen the shop opens at 9')).toEqual(['answer-first', '3:30']);
    expect(span('It opens at 9, so it is 10 then')).toEqual(['final-sentence', '10']);
    expect(span('9 + 1 = 10, so that is 10 hours')).toEqual(['final-sentence', '10']);
    expect(span('Total = 9 + 1 = 10 (hours)')).toEqual(['final-sentence', '10']);
    expect(span('a = 4, b = 6; c = 8')).toEqual(['final-sentence', '8']);
  });
});
