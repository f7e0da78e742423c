import { describe, expect, it } from 'vitest';
import {
  evaluateExactInt,
  evaluateExpr,
  exprEqual,
  parseExpression,
  render,
  tokenize,
  toInfix,
  toPostfix,
  toPrefix,
  type Expr,
} from '../../plugins/hibench/src/lib/notation.js';

const tok = (s: string) => s.split(' ');
const val = (text: string, n: 'infix' | 'prefix' | 'postfix' = 'infix') => {
  const e = parseExpression(text, n);
  expect(e, text).not.toBeNull();
  return evaluateExpr(e!);
};

describe('tokenize (spec §3.4: negative numbers and decimals are single tokens)', () => {
  it('reads signs as part of a literal where an operand is expected (infix)', () => {
    expect(tokenize('3 * -5', 'infix')).toEqual(['3', '*', '-5']);
    expect(tokenize('-90.02', 'infix')).toEqual(['-90.02']);
    expect(tokenize('3-5', 'infix')).toEqual(['3', '-', '5']);
    expect(tokenize('3--5', 'infix')).toEqual(['3', '-', '-5']);
    expect(tokenize('(-5)^2', 'infix')).toEqual(['(', '-5', ')', '^', '2']);
    expect(tokenize('  3   +4*2 ', 'infix')).toEqual(['3', '+', '4', '*', '2']);
    expect(tokenize('46 + 35.248', 'infix')).toEqual(['46', '+', '35.248']);
  });
  it('reads an attached "-" as a sign in prefix/postfix and a detached one as an operator', () => {
    expect(tokenize('3 -5 +', 'postfix')).toEqual(['3', '-5', '+']);
    expect(tokenize('3 5 - 2 +', 'postfix')).toEqual(['3', '5', '-', '2', '+']);
    expect(tokenize('- -77.15 3', 'prefix')).toEqual(['-', '-77.15', '3']);
  });
  it('rejects unknown characters, "**" and empty input', () => {
    expect(tokenize('3 + x', 'infix')).toBeNull();
    expect(tokenize('3 ** 2', 'infix')).toBeNull();
    expect(tokenize('   ', 'infix')).toBeNull();
    expect(tokenize('3 × 2', 'infix')).toBeNull();
  });
});

describe('parseExpression', () => {
  it('applies the precedence and associativity of §3.4 in infix', () => {
    expect(val('3 + 4 * 2')).toBe(11);
    expect(val('( 3 + 4 ) * 2')).toBe(14);
    expect(val('8 - 3 - 2')).toBe(3);
    expect(val('8 / 4 / 2')).toBe(1);
    expect(val('2 ^ 3 ^ 2')).toBe(512); // right-associative
    expect(val('2 * 3 ^ 2')).toBe(18);
    expect(val('( -2 ) ^ 2')).toBe(4);
    expect(val('3 - -5')).toBe(8);
    expect(val('7 / 2')).toBe(3.5); // true division
    expect(val('((3))')).toBe(3);
  });
  it('parses prefix and postfix', () => {
    expect(val('+ 3 * 4 2', 'prefix')).toBe(11);
    expect(val('3 4 2 * +', 'postfix')).toBe(11);
    expect(val('- - 8 3 2', 'prefix')).toBe(3);
    expect(val('8 3 - 2 -', 'postfix')).toBe(3);
    expect(val('-5 2 ^', 'postfix')).toBe(25);
  });
  it('is tolerant of whitespace variations', () => {
    const a = parseExpression('3 + 4 * 2', 'infix')!;
    for (const s of ['3+4*2', ' 3 +4 *  2 ', '3\t+\n4*2']) expect(exprEqual(a, parseExpression(s, 'infix')!)).toBe(true);
    const p = parseExpression('+ 3 * 4 2', 'prefix')!;
    expect(exprEqual(p, parseExpression('+  3 *4 2', 'prefix')!)).toBe(true);
  });
  it('returns null on anything invalid', () => {
    const bad: [string, 'infix' | 'prefix' | 'postfix'][] = [
      ['3 +', 'infix'],
      ['( 3 + 4', 'infix'],
      ['3 + 4 )', 'infix'],
      ['3 4', 'infix'],
      ['', 'infix'],
      ['- ( 3 + 4 )', 'infix'],
      ['+ 3', 'prefix'],
      ['+ 3 4 5', 'prefix'],
      ['( + 3 4 )', 'prefix'],
      ['3 4 + +', 'postfix'],
      ['3 4', 'postfix'],
      ['3 + 4', 'postfix'],
      ['3 4 +', 'prefix'],
      ['{"answer": 3}', 'infix'],
    ];
    for (const [s, n] of bad) expect(parseExpression(s, n), `${n}: ${s}`).toBeNull();
  });
});

describe('exprEqual', () => {
  it('compares trees, numbers by value', () => {
    const infix = parseExpression('3 + 4 * 2', 'infix')!;
    expect(exprEqual(infix, parseExpression('+ 3 * 4 2', 'prefix')!)).toBe(true);
    expect(exprEqual(infix, parseExpression('3 4 2 * +', 'postfix')!)).toBe(true);
    expect(exprEqual(infix, parseExpression('3.0 + 4 * 2.00', 'infix')!)).toBe(true);
    expect(exprEqual(infix, parseExpression('* + 3 4 2', 'prefix')!)).toBe(false);
    expect(exprEqual(infix, parseExpression('3 + 2 * 4', 'infix')!)).toBe(false); // same value, other tree
    expect(exprEqual(infix, parseExpression('3 - 4 * 2', 'infix')!)).toBe(false);
    const n: Expr = { kind: 'num', value: 11, text: '11' };
    expect(exprEqual(infix, n)).toBe(false);
  });
});

describe('renderers (§3.4 shunting-yard)', () => {
  it('renders the toolkit example with a proper numeric tokenizer', () => {
    const t = tok('3 * 19 * ( 46 + 35.248 ) + 9.8');
    expect(toInfix(t)).toBe('3 * 19 * ( 46 + 35.248 ) + 9.8');
    expect(toPostfix(t)).toBe('3 19 * 46 35.248 + * 9.8 +');
    expect(toPrefix(t)).toBe('+ * * 3 19 + 46 35.248 9.8');
  });
  it('keeps negative and decimal literals as operands (the toolkit mis-read them as operators)', () => {
    const t = tok('( -77.15 / 3.5 ) - -2');
    expect(toPostfix(t)).toBe('-77.15 3.5 / -2 -');
    expect(toPrefix(t)).toBe('- / -77.15 3.5 -2');
  });
  it('gives left-associative trees for equal precedence in both directions', () => {
    const t = tok('8 - 3 - 2 + 1');
    expect(toPostfix(t)).toBe('8 3 - 2 - 1 +');
    expect(toPrefix(t)).toBe('+ - - 8 3 2 1');
    const t2 = tok('2 * ( 3 + 4 ) ^ 2 / 5');
    const e = parseExpression(toInfix(t2), 'infix')!;
    for (const n of ['prefix', 'postfix'] as const) expect(exprEqual(e, parseExpression(render(t2, n), n)!)).toBe(true);
  });
});

describe('evaluation', () => {
  it('follows Python semantics and flags Python errors as non-finite', () => {
    expect(val('1 / 0')).toBe(Infinity);
    expect(Number.isNaN(val('( -8 ) ^ 0.5'))).toBe(true);
    expect(val('10 / 4')).toBe(2.5);
  });
  it('evaluates integer trees exactly with BigInt', () => {
    expect(evaluateExactInt(parseExpression('99 * 99 * 99 * 99 * 99 * 99 * 99 * 99 * 99 - 1', 'infix')!)).toBe(99n ** 9n - 1n);
    expect(evaluateExactInt(parseExpression('3 / 1', 'infix')!)).toBeNull();
    expect(evaluateExactInt(parseExpression('3.0 + 1', 'infix')!)).toBeNull();
    expect(evaluateExactInt(parseExpression('( -3 ) ^ 2', 'infix')!)).toBe(9n);
  });
});
