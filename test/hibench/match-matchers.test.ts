/**
 * The five HiBench match types (specs/hibench.md §4.3) in compat and strict form (§7 recs 5–9, 15, 21).
 * The strict `structure` tests use plugins/hibench/src/tree/parse.ts and the strict conversion tests
 * plugins/hibench/src/formula/notation.ts.
 */
import { describe, it, expect } from 'vitest';
import type { CompatMode, Json } from '@hpt-bench/core';
import { firstNumber, hitRateTargetPieces, matchAnswer, pyReprString } from '../../plugins/hibench/src/match/matchers.js';
import type { MatcherSpec } from '../../plugins/hibench/src/types.js';

const ok = (output: string, target: Json, spec: MatcherSpec, compat: CompatMode): boolean => matchAnswer(output, target, spec, compat).correct;
const both = (output: string, target: Json, spec: MatcherSpec): [boolean, boolean] => [ok(output, target, spec, 'reference'), ok(output, target, spec, 'strict')];

const NUMBER: MatcherSpec = { type: 'number' };
const STRING: MatcherSpec = { type: 'string' };
const LIST: MatcherSpec = { type: 'list', sep: ',' };
const HIER: MatcherSpec = { type: 'structure', representation: 'hierarchy' };
const EDGE: MatcherSpec = { type: 'structure', representation: 'edge' };

describe('§4.3 conformance vectors (compat) and the toolkit self-tests', () => {
  it("{ answer : 'Hello World' } vs 'hello world' (string) → correct, with the self-test variants", () => {
    expect(ok("{ answer : 'Hello World' }", 'hello world', STRING, 'reference')).toBe(true);
    expect(ok("{ answer : '  Hello World  ' }", 'hello world', STRING, 'reference')).toBe(true);
    expect(ok("{ Answer: 'Hello World' }", 'hello world', STRING, 'reference')).toBe(true);
    expect(ok("{ answer : 'HELLO world' }", 'hello world', STRING, 'reference')).toBe(true);
    expect(ok("{ answer : 'unquoted content without brace", 'unquoted content without brace', STRING, 'reference')).toBe(true);
    expect(ok('{ answer : \'response with "quotes" inside\' }', 'response with "quotes" inside', STRING, 'reference')).toBe(true);
    expect(ok("{ answer : 'apple' }", 'orange', STRING, 'reference')).toBe(false);
  });
  it('booleans: { answer : true } vs "True" → correct; { answer : false } vs "true" → wrong', () => {
    expect(ok('{ answer : true }', 'True', STRING, 'reference')).toBe(true);
    expect(ok('{ answer : true }', true, STRING, 'reference')).toBe(true);
    expect(ok('{ answer : false }', 'false', STRING, 'reference')).toBe(true);
    expect(ok('{ answer : false }', 'true', STRING, 'reference')).toBe(false);
    expect(ok('{ answer : false }', true, STRING, 'reference')).toBe(false);
  });
  it("list: { answer : 'apple ,   banana, cherry ' } vs ' banana, apple, cherry ' → correct", () => {
    expect(ok("{ answer : 'apple ,   banana, cherry ' }", ' banana, apple, cherry ', LIST, 'reference')).toBe(true);
    expect(ok("{ answer : 'apple, banana, cherry' }", 'banana, apple, cherry', LIST, 'reference')).toBe(true);
    expect(ok("{ answer : 'apple ' }", ' apple ', LIST, 'reference')).toBe(true);
  });
  it('structure (hierarchy): quoted multi-line tree → correct, unquoted → wrong', () => {
    const tree = '   1\n    |-- 0\n    `-- 2';
    expect(ok(`{ answer : '${tree}' }`, tree, HIER, 'reference')).toBe(true);
    expect(ok(`{ answer : ${tree}}`, tree, HIER, 'reference')).toBe(false);
    expect(ok('{ answer :   1\n    |-- 0\n    `-- 2}', '   1\n    |-- 0\n    |   `-- 3\n    `-- 2', HIER, 'reference')).toBe(false);
  });
  it('number: { answer : 12345 } vs "12345" → correct', () => {
    expect(ok('{ answer : 12345 }', '12345', NUMBER, 'reference')).toBe(true);
    expect(ok('{ answer : 12345 }', 12345, NUMBER, 'reference')).toBe(true);
    expect(ok('{ answer : 12346 }', 12345, NUMBER, 'reference')).toBe(false);
  });
  it('traversal {"answer": "0"} vs [3, 2, 0, 1] → correct (zip truncation) in compat, wrong in strict', () => {
    expect(both('{"answer": "0"}', [3, 2, 0, 1], LIST)).toEqual([true, false]);
    expect(both('{"answer": "0"}', [3, 2, 0, 1], { ...LIST, ordered: true })).toEqual([true, false]);
    expect(both('{"answer": "1"}', [3, 2, 0, 1], LIST)).toEqual([false, false]);
  });
  it('edges "3 -> 1, 3 -> 2" vs "3 -> 2, 3 -> 1" → correct', () => {
    expect(both('{"answer": "3 -> 1, 3 -> 2"}', '3 -> 2, 3 -> 1', EDGE)).toEqual([true, true]);
  });
  it('path "A->B->C" vs "A -> B -> C" → wrong in compat, right in strict with path: true', () => {
    expect(ok('{"answer": "A->B->C"}', 'A -> B -> C', STRING, 'reference')).toBe(false);
    expect(ok('{"answer": "A->B->C"}', 'A -> B -> C', { type: 'string', path: true }, 'reference')).toBe(false);
    expect(ok('{"answer": "A->B->C"}', 'A -> B -> C', { type: 'string', path: true }, 'strict')).toBe(true);
  });
  it('contextual QA "BIBREF19, BIBREF20" vs ["BIBREF19,BIBREF20", "multilingual NMT (MNMT) BIBREF19"] → hit rate 2/3', () => {
    const refs = ['BIBREF19,BIBREF20', 'multilingual NMT (MNMT) BIBREF19'];
    for (const compat of ['reference', 'strict'] as const) {
      const r = matchAnswer('{"answer": "BIBREF19, BIBREF20"}', refs, { type: 'hit-rate', sep: ',' }, compat);
      expect(r.score).toBeCloseTo(2 / 3, 12);
      expect(r.correct).toBe(false);
    }
    expect(hitRateTargetPieces(refs, { type: 'hit-rate' })).toEqual(['bibref19', 'bibref20', 'multilingualnmtmnmtbibref19']);
  });
});

describe('compat quirks (§3, §4.3)', () => {
  it('string containment: "1" ⊂ "10", "on" ⊂ "onlogn", "true" ⊂ "not true"', () => {
    expect(both('{"answer": 10}', 1, STRING)).toEqual([true, false]);
    expect(both('{"answer": "O(n log n)"}', 'O(n)', STRING)).toEqual([true, false]);
    expect(both('{"answer": "not true"}', true, STRING)).toEqual([true, false]);
  });
  it('number_match: "-3.5" = "3.5" = "35" but "3" ≠ "3.0"', () => {
    expect(ok('{"answer": -3.5}', '3.5', NUMBER, 'reference')).toBe(true);
    expect(ok('{"answer": 35}', '3.5', NUMBER, 'reference')).toBe(true);
    expect(ok('{"answer": "3.5"}', '-3.5', NUMBER, 'reference')).toBe(true);
    expect(ok('{"answer": 3}', '3.0', NUMBER, 'reference')).toBe(false);
    expect(ok('{"answer": 12}', '12.0', NUMBER, 'reference')).toBe(false);
  });
  it('skip regex deleted from both (formula conversion)', () => {
    const spec: MatcherSpec = { type: 'string', skip: '[\\s\'"]' };
    expect(ok('{"answer": "3 4 2 * +"}', '3 4 2 * +', spec, 'reference')).toBe(true);
    expect(ok('{"answer": "342*+"}', '3 4 2 * +', spec, 'reference')).toBe(true);
    expect(ok('{"answer": "342*+"}', '3 4 2 * +', STRING, 'reference')).toBe(false);
    // operand order only: the echoed infix passes (§3.4 scoring consequences)
    expect(ok('{"answer": "3 + 4 * 2"}', '3 4 2 * +', spec, 'reference')).toBe(true);
  });
  it('list none target → string match; edge-less structure → string match', () => {
    expect(ok('{"answer": None}', 'None', LIST, 'reference')).toBe(true);
    expect(ok('{"answer": []}', 'None', LIST, 'reference')).toBe(false);
    expect(ok('{"answer": "No edges"}', 'No edges', EDGE, 'reference')).toBe(true);
    expect(ok('{"answer": No edges}', 'No edges', HIER, 'reference')).toBe(true);
    expect(ok('{"answer": "0 -> 1"}', 'No edges', EDGE, 'reference')).toBe(false);
  });
  it('mirror echo in hierarchy mode passes in compat (digits only) and fails in strict', () => {
    const input = '   3\n    |-(L)-2\n    |   `-(R)-0\n    `-(R)-1';
    const mirror = '   3\n    |-(R)-2\n    |   `-(L)-0\n    `-(L)-1';
    const echo = JSON.stringify({ answer: input });
    const spec: MatcherSpec = { type: 'structure', representation: 'hierarchy', binary: true };
    expect(both(echo, mirror, spec)).toEqual([true, false]);
    expect(both(JSON.stringify({ answer: mirror }), mirror, spec)).toEqual([true, true]);
  });
  it('edge mirror: L/R letters survive normalisation in compat', () => {
    const spec: MatcherSpec = { type: 'structure', representation: 'edge', binary: true };
    const mirror = '3 -(R)-> 2, 2 -(L)-> 0, 3 -(L)-> 1';
    expect(both('{"answer": "3 -(L)-> 2, 2 -(R)-> 0, 3 -(R)-> 1"}', mirror, spec)).toEqual([false, false]);
    expect(both('{"answer": "3 -(L)-> 1, 3 -(R)-> 2, 2 -(L)-> 0"}', mirror, spec)).toEqual([true, true]);
  });
  it('the target is str(reference): lists "[3, 2, 0, 1]", floats as JS prints them', () => {
    expect(ok('{"answer": "[3, 2, 0, 1]"}', [3, 2, 0, 1], LIST, 'reference')).toBe(true);
    expect(ok('{"answer": "2, 0, 3, 1"}', [3, 2, 0, 1], LIST, 'reference')).toBe(true);
    expect(ok('{"answer": "1, 2, 3, 4"}', [3, 2, 0, 1], LIST, 'reference')).toBe(false);
  });
  it('no extraction → wrong (and extracted null)', () => {
    expect(matchAnswer('3', 3, NUMBER, 'reference')).toEqual({ correct: false, score: 0, extracted: null });
    expect(matchAnswer('3', 3, NUMBER, 'strict')).toEqual({ correct: false, score: 0, extracted: null });
  });
});

describe('strict number (§7 rec. 7)', () => {
  it('parses both as numbers with tolerance 0.01', () => {
    expect(ok('{"answer": 3}', '3.0', NUMBER, 'strict')).toBe(true);
    expect(ok('{"answer": 4360.01}', '4360.0', NUMBER, 'strict')).toBe(true);
    expect(ok('{"answer": 4360.02}', '4360.0', NUMBER, 'strict')).toBe(false);
    expect(ok('{"answer": -3.5}', '3.5', NUMBER, 'strict')).toBe(false);
    expect(ok('{"answer": 35}', '3.5', NUMBER, 'strict')).toBe(false);
    expect(ok('{"answer": "-54.31"}', -54.31, NUMBER, 'strict')).toBe(true);
    expect(ok('{"answer": "−54.31"}', '-54.31', NUMBER, 'strict')).toBe(true);
  });
  it('the whole answer must be one number (issue 25); the target is read as its first number token', () => {
    expect(ok('{"answer": "about 11 (rounded)"}', '11', NUMBER, 'strict')).toBe(false);
    expect(ok('{"answer": " 11 "}', '11', NUMBER, 'strict')).toBe(true);
    expect(ok('{"answer": "Employees"}', 2, NUMBER, 'strict')).toBe(false);
    expect(firstNumber('x = -2.50e1!')).toBe(-25);
  });
  it('honours a custom tolerance', () => {
    expect(ok('{"answer": 10.4}', 10, { type: 'number', tolerance: 0.5 }, 'strict')).toBe(true);
    expect(ok('{"answer": 10.6}', 10, { type: 'number', tolerance: 0.5 }, 'strict')).toBe(false);
  });
  it('an unreadable target is an E_DATA error', () => {
    expect(() => matchAnswer('{"answer": 1}', 'abc', NUMBER, 'strict')).toThrow(/not a valid number/);
  });
});

describe('strict string (§7 recs 6, 15)', () => {
  it('numeric targets: the whole answer must be the number', () => {
    expect(ok('{"answer": 1}', 1, STRING, 'strict')).toBe(true);
    expect(ok('{"answer": "1"}', 1, STRING, 'strict')).toBe(true);
    expect(ok('{"answer": 1.0}', 1, STRING, 'strict')).toBe(true);
    expect(ok('{"answer": 10}', 1, STRING, 'strict')).toBe(false);
    expect(ok('{"answer": "node 1"}', 1, STRING, 'strict')).toBe(false);
    expect(ok('{"answer": 4}', '4', STRING, 'strict')).toBe(true);
  });
  it('boolean labels: only "true"/"false", exactly', () => {
    expect(ok('{"answer": true}', true, STRING, 'strict')).toBe(true);
    expect(ok('{"answer": "True"}', 'True', STRING, 'strict')).toBe(true);
    expect(ok('{"answer": "TRUE."}', true, STRING, 'strict')).toBe(true);
    expect(ok('{"answer": false}', true, STRING, 'strict')).toBe(false);
    expect(ok('{"answer": "yes"}', true, STRING, 'strict')).toBe(false);
    expect(ok('{"answer": "true"}', 'False', STRING, 'strict')).toBe(false);
  });
  it('other strings: normalised equality, no containment', () => {
    expect(ok('{"answer": "Faculty of  Science."}', 'Faculty of Science', STRING, 'strict')).toBe(true);
    expect(ok('{"answer": "preorder"}', 'preorder', STRING, 'strict')).toBe(true);
    expect(ok('{"answer": "not preorder"}', 'preorder', STRING, 'strict')).toBe(false);
    expect(ok('{"answer": "Faculty of Science and Arts"}', 'Faculty of Science', STRING, 'strict')).toBe(false);
  });
  it('paths: split on any arrow variant, names compared in order', () => {
    const spec: MatcherSpec = { type: 'string', path: true };
    const target = 'Student A -> Master of Design -> Faculty of Arts';
    expect(ok('{"answer": "Student A → Master of Design → Faculty of Arts"}', target, spec, 'strict')).toBe(true);
    expect(ok('{"answer": "Student A=>Master of Design => Faculty of Arts"}', target, spec, 'strict')).toBe(true);
    expect(ok('{"answer": "Student A > Master of Design > faculty of arts"}', target, spec, 'strict')).toBe(true);
    expect(ok('{"answer": "Student A -> Faculty of Arts"}', target, spec, 'strict')).toBe(false);
    expect(ok('{"answer": "Faculty of Arts -> Master of Design -> Student A"}', target, spec, 'strict')).toBe(false);
  });
  it('formula conversion (notation set): parsed expressions compared; redundant parentheses accepted', () => {
    const infix: MatcherSpec = { type: 'string', notation: 'infix', skip: '[\\s\'"]' };
    expect(ok('{"answer": "((3 + 4) * 2)"}', '( 3 + 4 ) * 2', infix, 'strict')).toBe(true);
    expect(ok('{"answer": "(3+4)*2"}', '( 3 + 4 ) * 2', infix, 'strict')).toBe(true);
    expect(ok('{"answer": "3 + 4 * 2"}', '( 3 + 4 ) * 2', infix, 'strict')).toBe(false);
    // compat accepts the wrong one (operand digits only)
    expect(ok('{"answer": "3 + 4 * 2"}', '( 3 + 4 ) * 2', infix, 'reference')).toBe(true);
    const prefix: MatcherSpec = { type: 'string', notation: 'prefix' };
    expect(ok('{"answer": "* + 3 4 2"}', '* + 3 4 2', prefix, 'strict')).toBe(true);
    expect(ok('{"answer": "+ 3 * 4 2"}', '* + 3 4 2', prefix, 'strict')).toBe(false);
    expect(ok('{"answer": "3 4 + 2 *"}', '* + 3 4 2', prefix, 'strict')).toBe(false);
  });
});

describe('strict list (§7 rec. 5)', () => {
  it('multiset equality by default, exact sequence when ordered', () => {
    expect(ok('{"answer": "2, 3, 0, 1"}', [3, 2, 0, 1], LIST, 'strict')).toBe(true);
    expect(ok('{"answer": [2, 3, 0, 1]}', [3, 2, 0, 1], LIST, 'strict')).toBe(true);
    expect(ok('{"answer": "2, 3, 0, 1"}', [3, 2, 0, 1], { ...LIST, ordered: true }, 'strict')).toBe(false);
    expect(ok('{"answer": "3, 2, 0, 1"}', [3, 2, 0, 1], { ...LIST, ordered: true }, 'strict')).toBe(true);
    expect(ok('{"answer": "[3, 2, 0, 1]"}', [3, 2, 0, 1], { ...LIST, ordered: true }, 'strict')).toBe(true);
  });
  it('lengths and multiplicities must match', () => {
    expect(ok('{"answer": "3, 2, 0"}', [3, 2, 0, 1], LIST, 'strict')).toBe(false);
    expect(ok('{"answer": "3, 2, 0, 1, 1"}', [3, 2, 0, 1], LIST, 'strict')).toBe(false);
    expect(ok('{"answer": "1, 1, 2"}', '1, 2, 2', LIST, 'strict')).toBe(false);
  });
  it('string items are normalised', () => {
    expect(ok('{"answer": ["faculty of arts", "Faculty of Science"]}', 'Faculty of Science, Faculty of Arts', LIST, 'strict')).toBe(true);
  });
  it('none target ↔ "None" or an empty list', () => {
    expect(ok('{"answer": "None"}', 'None', LIST, 'strict')).toBe(true);
    expect(ok('{"answer": null}', 'None', LIST, 'strict')).toBe(true);
    expect(ok('{"answer": []}', 'None', LIST, 'strict')).toBe(true);
    expect(ok('{"answer": "[]"}', null, LIST, 'strict')).toBe(true);
    expect(ok('{"answer": "0"}', 'None', LIST, 'strict')).toBe(false);
    expect(ok('{"answer": "None"}', '1, 4', LIST, 'strict')).toBe(false);
  });
});

describe('strict structure (§7 recs 8, 21; uses tree/parse.ts)', () => {
  it('reordered edge list accepted for multi-trees', () => {
    expect(ok('{"answer": "4 -> 3, 4 -> 1, 1 -> 2, 1 -> 0"}', '4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3', EDGE, 'strict')).toBe(true);
    expect(ok('{"answer": "4 -> 3, 4 -> 1, 1 -> 2"}', '4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3', EDGE, 'strict')).toBe(false);
    expect(ok('{"answer": "4 -> 3, 3 -> 1, 1 -> 2, 1 -> 0"}', '4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3', EDGE, 'strict')).toBe(false);
  });
  it('binary: same parent but wrong side rejected', () => {
    const spec: MatcherSpec = { type: 'structure', representation: 'edge', binary: true };
    const target = '3 -(L)-> 2, 2 -(R)-> 0, 3 -(R)-> 1';
    expect(ok('{"answer": "3 -(R)-> 1, 3 -(L)-> 2, 2 -(R)-> 0"}', target, spec, 'strict')).toBe(true);
    expect(ok('{"answer": "3 -(L)-> 2, 2 -(L)-> 0, 3 -(R)-> 1"}', target, spec, 'strict')).toBe(false);
    // binary is inferred from the target's tags when the spec does not say
    expect(ok('{"answer": "3 -(L)-> 2, 2 -(L)-> 0, 3 -(R)-> 1"}', target, EDGE, 'strict')).toBe(false);
  });
  it('hierarchy trees: JSON-escaped, raw multi-line and re-indented answers parse', () => {
    const target = '   4\n    |-- 1\n    |   |-- 0\n    |   `-- 2\n    `-- 3';
    expect(ok(JSON.stringify({ answer: target }), target, HIER, 'strict')).toBe(true);
    expect(ok(`{"answer": "${target}"}`, target, HIER, 'strict')).toBe(true);
    expect(ok(`{"answer":\n${target}\n}`, target, HIER, 'strict')).toBe(true);
    expect(ok(`{"answer":\n${target}\n}`, target, HIER, 'reference')).toBe(false);
    const wrong = '   4\n    |-- 1\n    |   `-- 0\n    `-- 3\n        `-- 2';
    expect(ok(JSON.stringify({ answer: wrong }), target, HIER, 'strict')).toBe(false);
  });
  it('empty target ("No edges") ↔ "no edges" or the single node left (issue 25: `emptyNode`)', () => {
    expect(ok('{"answer": "No edges"}', 'No edges', EDGE, 'strict')).toBe(true);
    expect(ok('{"answer": "no edges."}', 'No edges', EDGE, 'strict')).toBe(true);
    expect(ok('{"answer": "   5"}', 'No edges', { ...HIER, emptyNode: 5 }, 'strict')).toBe(true);
    expect(ok('{"answer": "   5"}', 'No edges', { ...HIER, emptyNode: 1 }, 'strict')).toBe(false);
    expect(ok('{"answer": "   5"}', 'No edges', HIER, 'strict')).toBe(false);
    expect(ok('{"answer": "5 -> 1"}', 'No edges', EDGE, 'strict')).toBe(false);
  });
  it('garbage answers are wrong; an unparsable target is an E_DATA error', () => {
    expect(ok('{"answer": "I do not know"}', '3 -> 1', EDGE, 'strict')).toBe(false);
    expect(() => matchAnswer('{"answer": "3 -> 1"}', 'not a tree', EDGE, 'strict')).toThrow(/not a valid edge structure/);
  });
});

describe('hit rate (§4.3; Paper)', () => {
  it('pools all references; full recall → correct', () => {
    const refs = ['Introduction, Conclusion'];
    const spec: MatcherSpec = { type: 'hit-rate', sep: ',' };
    expect(matchAnswer('{"answer": "Conclusion, Introduction"}', refs, spec, 'reference')).toMatchObject({ correct: true, score: 1 });
    expect(matchAnswer('{"answer": "Introduction"}', refs, spec, 'reference')).toMatchObject({ correct: false, score: 0.5 });
    expect(matchAnswer('no answer', refs, spec, 'reference')).toEqual({ correct: false, score: 0, extracted: null });
  });
  it('compat reads the first answer, strict the last', () => {
    const out = '{"answer": "Introduction"} ... {"answer": "Introduction, Conclusion"}';
    const spec: MatcherSpec = { type: 'hit-rate' };
    expect(matchAnswer(out, ['Introduction, Conclusion'], spec, 'reference').score).toBe(0.5);
    expect(matchAnswer(out, ['Introduction, Conclusion'], spec, 'strict').score).toBe(1);
  });
  it('outline mode (sep "\\n"): newlines and literal \\n become commas', () => {
    const spec: MatcherSpec = { type: 'hit-rate', sep: '\n' };
    const target = ['Title\nAbstract\nIntroduction'];
    expect(matchAnswer('{"answer": "Title\\nAbstract"}', target, spec, 'reference').score).toBeCloseTo(2 / 3, 12);
    expect(matchAnswer('{"answer": "Title\\nAbstract"}', target, spec, 'strict').score).toBeCloseTo(2 / 3, 12);
    expect(matchAnswer('{"answer": "Title\nAbstract\nIntroduction"}', target, spec, 'reference').score).toBe(1);
  });
  it('Python repr of references', () => {
    expect(pyReprString("it's")).toBe('"it\'s"');
    expect(pyReprString('a\nb')).toBe("'a\\nb'");
    expect(pyReprString('say "hi" it\'s')).toBe("'say \"hi\" it\\'s'");
  });
});

describe('errors', () => {
  it('unknown type and empty sep are E_CONFIG', () => {
    expect(() => matchAnswer('{"answer": 1}', 1, { type: 'nope' } as unknown as MatcherSpec, 'strict')).toThrow(/unknown type/);
    expect(() => matchAnswer('{"answer": 1}', [1], { type: 'list', sep: '' }, 'reference')).toThrow(/sep/);
    expect(() => matchAnswer('{"answer": 1}', '1', { type: 'string', skip: '(' }, 'reference')).toThrow(/skip/);
  });
});
