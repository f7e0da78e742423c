import { describe, expect, it } from 'vitest';
import {
  analyseInfix,
  drawBaseFormula,
  generateInfixTokens,
  LENGTHS,
  LEVELS,
  perturbFormula,
  pyRepr,
  pyRound2,
  SYMBOL_SETS,
  valueSet,
  wrapNegativeBases,
} from '../../plugins/hibench/src/formula/draw.js';
import { evaluateExpr, isNumberToken, isOperator, parseExpression, tokenize } from '../../plugins/hibench/src/lib/notation.js';
import { rngFor } from '../../plugins/hibench/src/rng.js';

/** Independent reference for Python's round(x, 2): exact binary value via BigInt, ties to even. */
function exactRound2(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e = expBits - 1075;
  if (expBits === 0) e = -1074;
  else mant |= 1n << 52n;
  // |x| = mant * 2^e; |x| * 100 = num / den
  let num = mant * 100n;
  let den = 1n;
  if (e >= 0) num <<= BigInt(e);
  else den <<= BigInt(-e);
  let q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) q += 1n;
  const v = Number(q) / 100;
  return x < 0 ? -v : v;
}

describe('pyRound2 = Python round(x, 2)', () => {
  it('matches vectors computed with CPython 3.11', () => {
    const cases: [number, number][] = [
      [2.675, 2.67],
      [0.125, 0.12],
      [0.375, 0.38],
      [-0.125, -0.12],
      [-0.375, -0.38],
      [1.005, 1.0],
      [2.5, 2.5],
      [0.135, 0.14],
      [-2.675, -2.67],
      [0.625, 0.62],
      [1.125, 1.12],
      [-0.005, -0.01],
      [0.015, 0.01],
      [99999.995, 99999.99],
      [12345.675, 12345.67],
      [-54.305, -54.3],
      [3.14159, 3.14],
      [1 / 3, 0.33],
      [-2 / 3, -0.67],
      [0.0049999, 0.0],
      [1234.5678, 1234.57],
    ];
    for (const [x, want] of cases) expect(pyRound2(x), String(x)).toBe(want);
    expect(Object.is(pyRound2(-1e-7), -0)).toBe(true);
    expect(Object.is(pyRound2(-0.001), -0)).toBe(true);
    expect(Object.is(pyRound2(-0), -0)).toBe(true);
  });
  it('agrees with an exact BigInt rounding on random values and exact ties', () => {
    const rng = rngFor(1, 'round-test');
    for (let i = 0; i < 20000; i++) {
      const x = (rng.next() - 0.5) * 2 * 10 ** rng.int(0, 6);
      expect(pyRound2(x), String(x)).toBe(exactRound2(x));
      const tie = rng.int(-8_000_000, 8_000_000) / 8;
      expect(pyRound2(tie), String(tie)).toBe(exactRound2(tie));
      const cents = rng.int(-100_000_000, 100_000_000) / 1000;
      expect(pyRound2(cents), String(cents)).toBe(exactRound2(cents));
    }
  });
});

describe('pyRepr = Python repr', () => {
  it('renders ints and floats like Python', () => {
    expect(pyRepr(11, false)).toBe('11');
    expect(pyRepr(-3, false)).toBe('-3');
    expect(pyRepr(3, true)).toBe('3.0');
    expect(pyRepr(4360, true)).toBe('4360.0');
    expect(pyRepr(-0, true)).toBe('-0.0');
    expect(pyRepr(0, true)).toBe('0.0');
    expect(pyRepr(-54.31, true)).toBe('-54.31');
    expect(pyRepr(0.1, true)).toBe('0.1');
    expect(pyRepr(0.0001, true)).toBe('0.0001');
    expect(pyRepr(1.5e-5, true)).toBe('1.5e-05');
    expect(pyRepr(1e16, true)).toBe('1e+16');
    expect(pyRepr(123456.78, true)).toBe('123456.78');
    expect(pyRepr(Infinity, true)).toBe('inf');
  });
});

describe('analyseInfix (reference value, §3.4)', () => {
  const a = (s: string) => analyseInfix(tokenize(s, 'infix')!);
  it('keeps Python int results int and makes "/" or float literals float', () => {
    expect(a('3 + 4 * 2')?.result).toBe('11');
    expect(a('6 / 2')?.result).toBe('3.0');
    expect(a('-5.0 * 0.0')?.result).toBe('-0.0');
    expect(a('3 * 4.5')?.result).toBe('13.5');
    expect(a('( -5 ) ^ 2')?.result).toBe('25');
    expect(a('10 / 3')?.result).toBe('3.33');
    expect(a('0.125 + 0')?.result).toBe('0.12');
    expect(a('( 3 + 4 ) * 2')).toMatchObject({ prefix: '* + 3 4 2', postfix: '3 4 + 2 *', result: '14', float: false });
  });
  it('discards division by zero and |v| >= 10^6', () => {
    expect(a('3 / ( 2 - 2 )')).toBeNull();
    expect(a('1000 * 1000')).toBeNull();
    expect(a('-1000 * 1000')).toBeNull();
    expect(a('999 * 1001')?.result).toBe('999999');
  });
  it('discards integer formulas whose double evaluation is inexact', () => {
    // 99^9 ≈ 9.1e17 > 2^53: the doubles lose the difference, Python's ints do not
    const f = '99 * 99 * 99 * 99 * 99 * 99 * 99 * 99 * 99 + 1 - 99 * 99 * 99 * 99 * 99 * 99 * 99 * 99 * 99';
    expect(evaluateExpr(parseExpression(f, 'infix')!)).toBe(0); // Python: 1
    expect(a(f)).toBeNull();
  });
});

describe('wrapNegativeBases (§7 rec. 11)', () => {
  it('wraps negative literals directly before "^" only', () => {
    expect(wrapNegativeBases('3 * -5 ^ 2 + -4'.split(' ')).join(' ')).toBe('3 * ( -5 ) ^ 2 + -4');
    expect(wrapNegativeBases('( -5 ) ^ 2'.split(' ')).join(' ')).toBe('( -5 ) ^ 2');
    expect(wrapNegativeBases('5 ^ 2'.split(' ')).join(' ')).toBe('5 ^ 2');
  });
});

describe('generateInfixTokens: the §3.4 constraints hold for every cell and both modes', () => {
  for (const compat of ['strict', 'reference'] as const) {
    for (const s of LEVELS) {
      for (const v of LEVELS) {
        for (const l of LEVELS) {
          it(`${compat} symbol ${s} value ${v} length ${l}`, () => {
            const symbols = SYMBOL_SETS[s];
            const values = valueSet(v, compat);
            for (let i = 0; i < 150; i++) {
              const t = generateInfixTokens(symbols, values, LENGTHS[l], rngFor(3, compat, s, v, l, i));
              const numbers = t.filter(isNumberToken);
              expect(numbers.length, t.join(' ')).toBe(LENGTHS[l]);
              let depth = 0;
              t.forEach((x, k) => {
                expect(isNumberToken(x) || symbols.includes(x), x).toBe(true);
                if (x === '(') depth++;
                if (x === ')') depth--;
                expect(depth).toBeGreaterThanOrEqual(0);
                if (x === '/') {
                  const next = t.slice(k + 1).find((y) => y !== '(')!;
                  expect(Number(next), t.join(' ')).not.toBe(0);
                }
                if (x === '^') {
                  expect(['1', '2'], t.join(' ')).toContain(t[k + 1]);
                  const after = t[k + 2];
                  expect(after === undefined || after === '+' || after === '-' || after === ')', t.join(' ')).toBe(true);
                  expect(t[k - 1]!.startsWith('-'), `negative base: ${t.join(' ')}`).toBe(false);
                }
                if (isNumberToken(x) && t[k - 1] !== '^') {
                  const n = Number(x);
                  expect(n).toBeGreaterThanOrEqual(values.min);
                  expect(n).toBeLessThanOrEqual(values.max);
                  if (values.kind === 'int') expect(x).toMatch(/^-?\d+$/);
                  else expect(x).toMatch(/^-?\d+\.\d{1,2}$/);
                }
              });
              expect(depth).toBe(0);
            }
          });
        }
      }
    }
  }
  it('draws the value sets of Table 9 (strict) and of the toolkit (compat)', () => {
    const seen = (level: 'easy' | 'medium' | 'hard', compat: 'strict' | 'reference') => {
      const vs = valueSet(level, compat);
      const rng = rngFor(9, level, compat);
      const xs = Array.from({ length: 40000 }, () => Number(vs.draw(rng)));
      return [Math.min(...xs), Math.max(...xs)];
    };
    expect(seen('easy', 'strict')).toEqual([1, 10]);
    expect(seen('medium', 'strict')).toEqual([-50, 50]);
    expect(seen('easy', 'reference')).toEqual([1, 9]);
    expect(seen('medium', 'reference')).toEqual([-50, 49]);
    expect(seen('hard', 'reference')).toEqual([-100, 99]);
    const [lo, hi] = seen('hard', 'strict');
    expect(lo).toBeLessThan(-99);
    expect(hi).toBeGreaterThan(99);
  });
});

describe('perturbFormula (§3.4 equivalence pairs)', () => {
  const base = drawBaseFormula(SYMBOL_SETS.hard, valueSet('medium', 'strict'), 9, rngFor(5, 'p'));
  const nonParen = (s: string) => s.split(' ').filter((x) => x !== '(' && x !== ')');
  it('changes at most one non-parenthesis token and labels by evaluation (strict)', () => {
    let perturbed = 0;
    for (let i = 0; i < 400; i++) {
      for (const f of ['infix', 'prefix', 'postfix'] as const) {
        const p = perturbFormula(base, f, SYMBOL_SETS.hard, valueSet('medium', 'strict'), 'strict', rngFor(5, 'q', i, f));
        const orig = nonParen(f === 'infix' ? base.infix : f === 'prefix' ? base.prefix : base.postfix);
        const got = nonParen(p.text);
        expect(got.length).toBe(orig.length);
        const diff = got.flatMap((x, k) => (x === orig[k] ? [] : [k]));
        expect(diff.length).toBe(p.perturbed ? 1 : 0);
        if (p.perturbed) {
          perturbed++;
          const k = diff[0]!;
          expect(isOperator(orig[k]!)).toBe(isOperator(got[k]!));
          if (!isOperator(got[k]!)) expect(Number(got[k])).not.toBe(Number(orig[k]));
        }
        const v = evaluateExpr(parseExpression(p.text, f)!);
        expect(p.equivalent).toBe(Math.abs(v - evaluateExpr(base.expr)) < 1e-9);
      }
    }
    expect(perturbed).toBeGreaterThan(500);
    expect(perturbed).toBeLessThan(700);
  });
  it('labels every perturbation False in compat mode and may re-draw the same number (toolkit bug)', () => {
    const easy = drawBaseFormula(SYMBOL_SETS.easy, valueSet('easy', 'reference'), 3, rngFor(5, 'c'));
    let same = 0;
    for (let i = 0; i < 2000; i++) {
      const p = perturbFormula(easy, 'postfix', SYMBOL_SETS.easy, valueSet('easy', 'reference'), 'reference', rngFor(5, 'cq', i));
      expect(p.equivalent).toBe(!p.perturbed);
      if (p.perturbed && p.text === easy.postfix) same++;
    }
    expect(same).toBeGreaterThan(0);
  });
});
