/**
 * Matcher cases that the mutation run of plugins/hibench/src/match/matchers.ts showed untested:
 * the compat `number` matcher against containment (123 vs 12), hit-rate outline and custom separators, Python repr of
 * escapes and non-printables, number literals (exponents, leading point, hex), integer-string targets, the none/empty
 * literals, TreeStructure targets, answers without extraction, and the error codes and messages.
 *
 * Expected values follow specs/hibench.md §4.1-4.3 (toolkit semantics: refine_string, number_match exact, string_match
 * containment, list_match zip, hit_rate) and §7 recs 5-9, 15, 21 (strict), Python's `repr` / `str.isprintable`, and the
 * contracts documented on `matchAnswer`, computed by hand.
 */
import { describe, expect, it } from 'vitest';
import { HptError, type CompatMode, type Json } from '@hpt-bench/core';
import { firstNumber, hitRateOfExtracted, hitRateTargetPieces, matchAnswer, pyReprString } from '../../plugins/hibench/src/match/matchers.js';
import type { MatcherSpec } from '../../plugins/hibench/src/types.js';

const ok = (output: string, target: Json, spec: MatcherSpec, compat: CompatMode): boolean => matchAnswer(output, target, spec, compat).correct;
const answer = (v: Json) => JSON.stringify({ answer: v });

const NUMBER: MatcherSpec = { type: 'number' };
const STRING: MatcherSpec = { type: 'string' };
const LIST: MatcherSpec = { type: 'list', sep: ',' };
const EDGE: MatcherSpec = { type: 'structure', representation: 'edge' };
const HIER: MatcherSpec = { type: 'structure', representation: 'hierarchy' };
const HIT: MatcherSpec = { type: 'hit-rate', sep: ',' };
const OUTLINE: MatcherSpec = { type: 'hit-rate', sep: '\n' };

/** `fn()` throws an HptError with this code and message; returns it. */
function throwsHpt(fn: () => unknown, code: string, message: string): HptError {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err, 'expected an HptError').toBeInstanceOf(HptError);
  expect((err as HptError).code).toBe(code);
  expect((err as HptError).message).toBe(message);
  return err as HptError;
}

describe('compat (toolkit) matchers, §4.3', () => {
  it('number_match is string equality, never containment: 123 vs 12 is wrong (string_match would accept it)', () => {
    expect(ok(answer(123), 12, NUMBER, 'reference')).toBe(false);
    expect(ok(answer(123), '12', NUMBER, 'reference')).toBe(false);
    expect(ok(answer(123), 12, STRING, 'reference')).toBe(true);
    expect(matchAnswer(answer(12), 12, NUMBER, 'reference')).toEqual({ correct: true, score: 1, extracted: '12' });
  });

  it('no {answer: …} in the output: wrong, score 0, nothing extracted, for every match type', () => {
    const none = { correct: false, score: 0, extracted: null };
    expect(matchAnswer('the answer is 3', '3', STRING, 'reference')).toEqual(none);
    expect(matchAnswer('the answer is 3', '1, 3', LIST, 'reference')).toEqual(none);
    expect(matchAnswer('the answer is None', 'None', LIST, 'reference')).toEqual(none);
    expect(matchAnswer('the answer is 3', '   3\n    `-- 1', HIER, 'reference')).toEqual(none);
    expect(matchAnswer('the answer is 3', '3 -> 1', EDGE, 'reference')).toEqual(none);
    expect(matchAnswer('the answer is 3', 'No edges', EDGE, 'reference')).toEqual(none);
  });

  it('skip is a regex applied to every occurrence; one that is only valid without the u flag still works', () => {
    // "\ " (an escaped space) is a syntax error with the u flag; it deletes every space from both
    expect(ok(answer('a b c'), 'abc', { type: 'string', skip: '\\ ' }, 'reference')).toBe(true);
    expect(ok(answer('abc'), 'a b c', { type: 'string', skip: '\\ ' }, 'reference')).toBe(true);
    expect(ok(answer('a b c'), 'abc', STRING, 'reference')).toBe(false);
  });

  it('an empty-structure target ("No edges") is a string match: an answer containing it is right', () => {
    expect(ok(answer('there are no edges here'), 'No edges', EDGE, 'reference')).toBe(true);
    expect(ok(answer('there are no edges here'), 'No edges', HIER, 'reference')).toBe(true);
  });

  it('edge lists are compared item by item (split on ","), not character by character', () => {
    // items "13" vs "31" differ although the characters are the same
    expect(ok(answer('1 -> 3'), '3 -> 1', EDGE, 'reference')).toBe(false);
    expect(ok(answer('3 -> 1, 2 -> 0'), '2 -> 0, 3 -> 1', EDGE, 'reference')).toBe(true);
  });

  it('a multi-line target without a representation is read as a hierarchy (digits compared)', () => {
    const tree = '   1\n    |-- 0\n    `-- 2';
    // hierarchy: digits 102 = 102 although the answer uses other connectors
    expect(ok(answer('1 (0) (2)'), tree, { type: 'structure' }, 'reference')).toBe(true);
    expect(ok(answer('1 (2) (0)'), tree, { type: 'structure' }, 'reference')).toBe(false);
  });

  it('an empty list target (null or []) is the none literal: string match of its str()', () => {
    // str([]) = "[]" refines to "", which every answer contains (toolkit containment)
    expect(ok(answer('1, 2'), [], LIST, 'reference')).toBe(true);
    expect(ok(answer('None'), null, LIST, 'reference')).toBe(true);
  });
});

describe('strict matchers, §7', () => {
  it('none targets: [] and " None " are none; the answer "None" or an empty list is right', () => {
    expect(ok(answer('None'), [], LIST, 'strict')).toBe(true);
    expect(ok(answer('[]'), [], LIST, 'strict')).toBe(true);
    expect(ok(answer('[]'), ' None ', LIST, 'strict')).toBe(true);
    expect(ok(answer('0'), [], LIST, 'strict')).toBe(false);
  });

  it('a custom none literal: the answer may be that literal or "none"', () => {
    const spec: MatcherSpec = { ...LIST, none: 'Nothing' };
    expect(ok(answer('Nothing'), 'Nothing', spec, 'strict')).toBe(true);
    expect(ok(answer('nothing.'), 'nothing', spec, 'strict')).toBe(true);
    expect(ok(answer('None'), 'Nothing', spec, 'strict')).toBe(true);
    expect(ok(answer('1'), 'Nothing', spec, 'strict')).toBe(false);
  });

  it('list targets: items that normalise to nothing are dropped', () => {
    expect(ok(answer('a, b'), ['a', '', 'b'], LIST, 'strict')).toBe(true);
    expect(ok(answer('a, b'), ['a', '!', 'b'], LIST, 'strict')).toBe(true);
  });

  it('empty-structure targets: trimmed, and a custom literal is accepted as the answer', () => {
    expect(ok(answer('No edges'), ' No edges ', HIER, 'strict')).toBe(true);
    expect(ok(answer('   5'), ' No edges ', { ...HIER, emptyNode: 5 }, 'strict')).toBe(true);
    expect(ok(answer('   5'), ' No edges ', HIER, 'strict')).toBe(false); // issue 25: only the node left, when known
    const spec: MatcherSpec = { ...EDGE, empty: 'Empty' };
    expect(ok(answer('empty'), 'Empty', spec, 'strict')).toBe(true);
    expect(ok(answer('No edges'), 'Empty', spec, 'strict')).toBe(true);
    expect(ok(answer('5 -> 1'), 'Empty', spec, 'strict')).toBe(false);
  });

  it('a multi-line target without a representation is parsed as a hierarchy', () => {
    const tree = '   4\n    |-- 1\n    `-- 3';
    expect(ok(answer(tree), tree, { type: 'structure' }, 'strict')).toBe(true);
    expect(ok(answer('   4\n    `-- 1'), tree, { type: 'structure' }, 'strict')).toBe(false);
  });

  it('a TreeStructure object target is used as it is; an object that is not one is an unreadable target', () => {
    const tree: Json = { root: 1, children: { '1': [0, 2] } };
    expect(ok(answer('1 -> 0, 1 -> 2'), tree, EDGE, 'strict')).toBe(true);
    expect(ok(answer('1 -> 2, 1 -> 0'), tree, EDGE, 'strict')).toBe(true);
    expect(ok(answer('1 -> 0'), tree, EDGE, 'strict')).toBe(false);
    for (const bad of [{ root: '1', children: { '1': [0] } }, { root: 1, children: 'x' }] as Json[]) {
      throwsHpt(() => matchAnswer(answer('1 -> 0'), bad, EDGE, 'strict'), 'E_DATA', `hibench matcher: target ${JSON.stringify(bad)} is not a valid edge structure`);
    }
  });

  it('boolean targets are labels: skip is not applied to them (unlike other strings)', () => {
    // skip deletes every word, so any answer would equal the target as a plain string
    const skip: MatcherSpec = { type: 'string', skip: '[a-z]+' };
    expect(ok(answer('false'), true, skip, 'strict')).toBe(false);
    expect(ok(answer('false'), 'True', skip, 'strict')).toBe(false);
    expect(ok(answer('false'), ' True ', skip, 'strict')).toBe(false);
    expect(ok(answer('true'), ' True ', skip, 'strict')).toBe(true);
    // a plain string target does get the skip
    expect(ok(answer('false'), 'maybe', skip, 'strict')).toBe(true);
  });

  it('only a whole "true"/"false" target is a label: "not true" and "true story" are plain strings', () => {
    expect(ok(answer('not true'), 'not true', STRING, 'strict')).toBe(true);
    expect(ok(answer('true story'), 'true story', STRING, 'strict')).toBe(true);
  });

  it('integer-string targets are numbers (any canonical integer, trimmed); other strings are not', () => {
    expect(ok(answer('4.0'), '4', STRING, 'strict')).toBe(true);
    expect(ok(answer('12.0'), '12', STRING, 'strict')).toBe(true);
    expect(ok(answer('123.0'), '123', STRING, 'strict')).toBe(true);
    expect(ok(answer('-5.0'), '-5', STRING, 'strict')).toBe(true);
    expect(ok(answer('4.0'), ' 4 ', STRING, 'strict')).toBe(true);
    expect(ok(answer('node 1'), 'node 1', STRING, 'strict')).toBe(true);
    expect(ok(answer('1 node'), '1 node', STRING, 'strict')).toBe(true);
    // "04" is not canonical: a plain string, compared as normalised text
    expect(ok(answer('4'), '04', STRING, 'strict')).toBe(false);
  });

  it('a number target needs the whole answer to be a decimal number literal of that value', () => {
    expect(ok(answer('12'), 12, STRING, 'strict')).toBe(true);
    expect(ok(answer('-5'), -5, STRING, 'strict')).toBe(true);
    expect(ok(answer('1.25'), 1.25, STRING, 'strict')).toBe(true);
    expect(ok(answer('.25'), 0.25, STRING, 'strict')).toBe(true);
    expect(ok(answer('1e3'), 1000, STRING, 'strict')).toBe(true);
    expect(ok(answer('1e-3'), 0.001, STRING, 'strict')).toBe(true);
    expect(ok(answer('1e12'), 1e12, STRING, 'strict')).toBe(true);
    // hexadecimal and binary literals are not decimal numbers
    expect(ok(answer('0x10'), 16, STRING, 'strict')).toBe(false);
    expect(ok(answer('0b11'), 3, STRING, 'strict')).toBe(false);
  });

  it('list targets in a string matcher are compared as their items joined by ", " (None for null)', () => {
    expect(ok(answer('A, B'), ['a', 'b'], STRING, 'strict')).toBe(true);
    expect(ok(answer('None, x'), [null, 'x'], STRING, 'strict')).toBe(true);
    expect(ok(answer('1, x'), [1, 'x'], STRING, 'strict')).toBe(true);
    expect(ok(answer('ab'), ['a', 'b'], STRING, 'strict')).toBe(false);
  });

  it('skip is deleted from both sides of a plain string comparison', () => {
    expect(ok(answer('a b c'), 'abc', { type: 'string', skip: '\\s' }, 'strict')).toBe(true);
    expect(ok(answer('abc'), 'a b c', { type: 'string', skip: '\\s' }, 'strict')).toBe(true);
    expect(ok(answer('a b c'), 'abc', STRING, 'strict')).toBe(false);
  });

  it('strict numbers: tolerance 0.01 for answers rounded to 2 decimals, also for large values', () => {
    expect(ok(answer(1000000.01), 1000000, NUMBER, 'strict')).toBe(true);
    expect(ok(answer(1000000.02), 1000000, NUMBER, 'strict')).toBe(false);
    expect(ok(answer(-0.01), 0, NUMBER, 'strict')).toBe(true);
    // 100000000.01 - 100000000 = 0.0100000054 in binary floating point: still the same 2-decimal answer
    expect(100000000.01 - 100000000).toBeGreaterThan(0.01 + 1e-9);
    expect(ok(answer(100000000.01), 100000000, NUMBER, 'strict')).toBe(true);
  });

  it('first number token: leading point, signed and unsigned exponents', () => {
    expect(firstNumber('about .25 of it')).toBe(0.25);
    expect(firstNumber('x 1e-3 y')).toBe(0.001);
    expect(firstNumber('2e10')).toBe(2e10);
    expect(firstNumber('+7.')).toBe(7);
    expect(firstNumber('none')).toBeNull();
  });
});

describe('hit rate, §4.3', () => {
  it('outline mode on an extracted answer: newlines (real or literal \\n) become separators', () => {
    const target = ['Title\nAbstract\nIntroduction'];
    expect(hitRateOfExtracted('Title\nAbstract', target, OUTLINE)).toBeCloseTo(2 / 3, 12);
    expect(hitRateOfExtracted('Title\\nAbstract\\nIntroduction', target, OUTLINE)).toBe(1);
  });

  it('outside outline mode, a newline is not a separator (neither in the answer nor in the target)', () => {
    expect(hitRateOfExtracted('a\\nb', ['a', 'b'], HIT)).toBe(0);
    expect(hitRateOfExtracted('a\nb', ['a', 'b'], HIT)).toBe(0);
    expect(hitRateTargetPieces(['a\nb'], HIT)).toEqual(['anb']);
    expect(matchAnswer('{"answer": "a\\nb"}', ['a', 'b'], HIT, 'reference')).toMatchObject({ score: 0, correct: false });
  });

  it('a custom separator splits both sides', () => {
    const spec: MatcherSpec = { type: 'hit-rate', sep: ';' };
    expect(hitRateTargetPieces(['a;b'], spec)).toEqual(['a', 'b']);
    expect(matchAnswer(answer('a'), ['a;b'], spec, 'reference').score).toBe(0.5);
    expect(matchAnswer(answer('b; a'), ['a;b'], spec, 'strict')).toMatchObject({ score: 1, correct: true });
  });

  it('a single (non-list) target is one reference', () => {
    expect(hitRateTargetPieces('Intro, Method', HIT)).toEqual(['intro', 'method']);
    expect(matchAnswer(answer('Intro'), 'Intro', HIT, 'strict')).toMatchObject({ score: 1, correct: true });
  });

  it('the answer is lower-cased before it is refined (Python str.lower: "ß" stays and is then deleted)', () => {
    // "Straße".lower() = "straße" -> refine_string deletes ß -> "strae"
    expect(hitRateOfExtracted('Straße', ['strae'], HIT)).toBe(1);
    expect(hitRateOfExtracted('Straße', ['strasse'], HIT)).toBe(0);
  });
});

describe('pyReprString = Python repr() of a str', () => {
  it('escapes the backslash, tab and carriage return', () => {
    expect(pyReprString('a\\b')).toBe("'a\\\\b'");
    expect(pyReprString('a\tb')).toBe("'a\\tb'");
    expect(pyReprString('a\rb')).toBe("'a\\rb'");
  });

  it('non-printable characters as \\x, \\u and \\U escapes; printable ones and the space as they are', () => {
    expect(pyReprString('\x00')).toBe("'\\x00'");
    expect(pyReprString('a\x7fb')).toBe("'a\\x7fb'");
    expect(pyReprString('\xa0')).toBe("'\\xa0'");
    expect(pyReprString('\xad')).toBe("'\\xad'");
    expect(pyReprString('\u200b')).toBe("'\\u200b'");
    expect(pyReprString('\u0600')).toBe("'\\u0600'");
    expect(pyReprString('\u2028')).toBe("'\\u2028'");
    expect(pyReprString('\uffff')).toBe("'\\uffff'");
    expect(pyReprString('\u{e0001}')).toBe("'\\U000e0001'");
    expect(pyReprString('é ÿ 😀')).toBe("'é ÿ 😀'");
  });
});

describe('errors name the problem', () => {
  it('configuration errors (E_CONFIG)', () => {
    throwsHpt(() => matchAnswer(answer(1), [1], { type: 'list', sep: '' }, 'reference'), 'E_CONFIG', 'hibench matcher: `sep` must not be empty');
    throwsHpt(
      () => matchAnswer(answer(1), 1, { type: 'nope' } as unknown as MatcherSpec, 'strict'),
      'E_CONFIG',
      'hibench matcher: unknown type "nope" (valid: number, string, list, structure, hit-rate)',
    );
    const err = throwsHpt(() => matchAnswer(answer(1), '1', { type: 'string', skip: '(' }, 'reference'), 'E_CONFIG', 'hibench matcher: `skip` is not a valid regular expression: "("');
    expect(err.cause).toBeInstanceOf(SyntaxError);
  });

  it('targets the strict matchers cannot read (E_DATA)', () => {
    throwsHpt(() => matchAnswer(answer(1), 'abc', NUMBER, 'strict'), 'E_DATA', 'hibench matcher: target "abc" is not a valid number');
    throwsHpt(() => matchAnswer(answer('1 +'), '( 1 +', { type: 'string', notation: 'infix' }, 'strict'), 'E_DATA', 'hibench matcher: target "( 1 +" is not a valid infix expression');
  });
});
