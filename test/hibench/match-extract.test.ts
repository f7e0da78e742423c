/** HiBench answer extraction (specs/hibench.md §4.1, §7 rec. 9) and normalisation (§4.2). */
import { describe, it, expect } from 'vitest';
import { pyStrip } from '@hpt-bench/sdk';
import { extractAnswer, extractReference } from '../../plugins/hibench/src/match/extract.js';
import { refineString, strictNorm } from '../../plugins/hibench/src/match/normalize.js';

describe('extractReference / compat extraction (§4.1)', () => {
  it('lower-cases, keeps the quotes, strips', () => {
    expect(extractReference("{ answer : 'Hello World' }")).toBe("'hello world'");
    expect(extractReference('{"answer": "X"}')).toBe('"x"');
    expect(extractReference('{"answer": 12345}')).toBe('12345');
    expect(extractAnswer('{ answer : 12345 }', 'reference')).toBe('12345');
  });
  it('accepts unquoted / single-quoted keys, "=" and any key case', () => {
    expect(extractReference('{answer: x}')).toBe('x');
    expect(extractReference("{'answer': 'x'}")).toBe("'x'");
    expect(extractReference('{"ANSWER" = x}')).toBe('x');
    expect(extractReference('{ Answer: \'Hello World\' }')).toBe("'hello world'");
  });
  it('no fallback for bare answers; empty values are null', () => {
    expect(extractReference('The answer is 3')).toBeNull();
    expect(extractReference('answer: 3')).toBeNull();
    expect(extractReference('{"answer": }')).toBeNull();
    expect(extractReference('{"answer": ""}')).toBe('""');
    expect(extractReference('')).toBeNull();
  });
  it('takes the FIRST match', () => {
    expect(extractReference('Format: {"answer": 1}. Final: {"answer": 2}')).toBe('1');
  });
  it('double-quoted values span newlines; unquoted values stop at the newline or brace', () => {
    expect(extractReference('{"answer": "   1\n    |-- 0"}')).toBe('"   1\n    |-- 0"');
    expect(extractReference('{ answer :   1\n    |-- 0\n    `-- 2}')).toBe('1');
    expect(extractReference('{answer: a, b} tail')).toBe('a, b');
  });
  it('a list of quoted strings without brackets is truncated; a bracketed list is whole', () => {
    expect(extractReference('{"answer": "a", "b"}')).toBe('"a"');
    expect(extractReference('{"answer": ["a", "b"]}')).toBe('["a", "b"]');
  });
  it('a missing closing brace still extracts; an unterminated quote falls to the unquoted branch', () => {
    expect(extractReference("{ answer : 'unquoted content without brace")).toBe("'unquoted content without brace");
    expect(extractReference('{ answer : \'response with "quotes" inside\' }')).toBe('\'response with "quotes" inside\'');
  });
  it('strips Python whitespace (incl. U+001C, U+0085) like str.strip()', () => {
    expect(pyStrip('\u001c x \u0085')).toBe('x');
  });
});

describe('extractAnswer strict (§7 rec. 9)', () => {
  it('takes the LAST answer (first-vs-last difference)', () => {
    const out = 'Like {"answer": 1}... thinking... final: {"answer": 2}';
    expect(extractAnswer(out, 'reference')).toBe('1');
    expect(extractAnswer(out, 'strict')).toBe('2');
  });
  it('parses JSON, keeping case, numbers as written, booleans, null, arrays joined', () => {
    expect(extractAnswer('{"answer": "Faculty of Science"}', 'strict')).toBe('Faculty of Science');
    expect(extractAnswer('{"answer": 3.0}', 'strict')).toBe('3.0');
    expect(extractAnswer('{"answer": -54.31}', 'strict')).toBe('-54.31');
    expect(extractAnswer('{"answer": true}', 'strict')).toBe('true');
    expect(extractAnswer('{"answer": null}', 'strict')).toBe('None');
    expect(extractAnswer('{"answer": [3, 2, 0, 1]}', 'strict')).toBe('3, 2, 0, 1');
    expect(extractAnswer('{"answer": ["a b", "c"]}', 'strict')).toBe('a b, c');
    expect(extractAnswer('{"answer": []}', 'strict')).toBe('[]');
    expect(extractAnswer('{"Answer": "x"}', 'strict')).toBe('x');
  });
  it('decodes JSON escapes (multi-line trees)', () => {
    expect(extractAnswer('{"answer": "   3\\n    |-- 2"}', 'strict')).toBe('3\n    |-- 2');
  });
  it('finds objects inside ```json fences and nested objects', () => {
    const out = 'Reasoning...\n```json\n{\n  "answer": "postorder"\n}\n```\n';
    expect(extractAnswer(out, 'strict')).toBe('postorder');
    expect(extractAnswer('{"result": {"answer": 7}, "note": "x"}', 'strict')).toBe('7');
  });
  it('falls back to the regex (last match), removing quotes, when there is no JSON', () => {
    expect(extractAnswer("{'answer': 'Yes'} then {answer: No}", 'strict')).toBe('No');
    expect(extractAnswer("{'answer': 'Hello World'}", 'strict')).toBe('Hello World');
    expect(extractAnswer('{answer = 5}', 'strict')).toBe('5');
  });
  it('a later non-JSON answer beats an earlier JSON one', () => {
    expect(extractAnswer('{"answer": 1} wait, correction: {answer: 2}', 'strict')).toBe('2');
  });
  it('an unquoted multi-line value closed by a brace is read whole (strict only)', () => {
    const out = '{"answer":\n   3\n    |-- 2\n    `-- 1\n}';
    expect(extractAnswer(out, 'strict')).toBe('3\n    |-- 2\n    `-- 1');
    expect(extractAnswer(out, 'reference')).toBe('3');
  });
  it('stays fast on pathological outputs', () => {
    const t0 = Date.now();
    expect(extractAnswer('{"a'.repeat(20000) + ' {"answer": 5}', 'strict')).toBe('5');
    expect(typeof extractAnswer('{"answer": "'.repeat(5000), 'strict')).toBe('string');
    expect(Date.now() - t0).toBeLessThan(3000);
  });
  it('no answer or an empty one → null', () => {
    expect(extractAnswer('3', 'strict')).toBeNull();
    expect(extractAnswer('{"answer": ""}', 'strict')).toBeNull();
    expect(extractAnswer('{"answer": "  "}', 'strict')).toBeNull();
    expect(extractAnswer('{"x": 1}', 'strict')).toBeNull();
  });
});

describe('refineString (§4.2)', () => {
  it('deletes everything but ASCII letters, digits, space and comma, after collapsing whitespace', () => {
    expect(refineString("'Hello World'")).toBe('hello world');
    expect(refineString('-3.5')).toBe('35');
    expect(refineString('[3, 2, 0, 1]')).toBe('3, 2, 0, 1');
    expect(refineString('a → b')).toBe('a  b');
    expect(refineString('a->b')).toBe('ab');
    expect(refineString('A   ->\n B')).toBe('a  b');
    expect(refineString('O(n log n)')).toBe('on log n');
    expect(refineString('café')).toBe('caf');
  });
  it('strips before collapsing/deleting, so inner padding survives', () => {
    expect(refineString("'  Hello World  '")).toBe(' hello world ');
  });
  it('strictNorm collapses and trims on top', () => {
    expect(strictNorm("'  Hello   World.  '")).toBe('hello world');
    expect(strictNorm('a → b')).toBe('a b');
  });
});
