/**
 * hibench/code-gen's complexity algebra (issue 15, plugins/hibench/src/code-gen/construct.ts): sums keep the dominant
 * terms (incomparable ones both), products distribute, loop factors and recurrences give the textbook bounds, and the
 * labels read under the strict big-O canonicaliser (../code/bigo.ts).
 */
import { describe, expect, it } from 'vitest';
import { canonicalBigO } from '../../plugins/hibench/src/lib/program/bigo.js';
import { add, analyse, bigOLabel, linear, logOf, mul, ONE, power, sqrtOf, type Construction, type Stmt } from '../../plugins/hibench/src/code-gen/construct.js';

const L = bigOLabel;
const loop = (loop: Extract<Stmt, { kind: 'loop' }>['loop'], bound: Extract<Stmt, { kind: 'loop' }>['bound'], ...body: Stmt[]): Stmt => ({ kind: 'loop', loop, bound, shape: 0, body });
const work: Stmt = { kind: 'work', shape: 0 };
const program = (...body: Stmt[]): Construction => ({ body });

describe('code-gen algebra', () => {
  it('adds: dominated terms dropped, incomparable terms kept, constants absorbed', () => {
    expect(L(add(linear('n'), linear('m')))).toBe('O(m + n)');
    expect(L(add(linear('n'), mul(linear('n'), linear('m'))))).toBe('O(m * n)');
    expect(L(add(ONE, logOf('n')))).toBe('O(logn)');
    expect(L(add(power('n', 2), linear('m')))).toBe('O(m + n^2)');
    expect(L(add(power('n', 2), power('n', 1, 1)))).toBe('O(n^2)');
    expect(L(add(power('n', 1, 1), linear('n')))).toBe('O(nlogn)');
    expect(L(add(linear('n'), mul(linear('n'), logOf('m'))))).toBe('O(logm * n)');
    expect(L(add(sqrtOf('n'), logOf('n')))).toBe('O(sqrt(n))');
    expect(L(add(power('n', 0, 0, 1), power('n', 5)))).toBe('O(2^n)');
    expect(L(add(ONE, ONE))).toBe('O(1)');
  });

  it('multiplies (nesting), distributing over sums', () => {
    expect(L(mul(linear('n'), logOf('n')))).toBe('O(nlogn)');
    expect(L(mul(logOf('n'), logOf('n')))).toBe('O((logn)^2)');
    expect(L(mul(add(linear('n'), linear('m')), linear('n')))).toBe('O(m * n + n^2)');
    expect(L(mul(linear('n'), power('n', 0, 0, 1)))).toBe('O(n * 2^n)');
    expect(L(mul(sqrtOf('m'), linear('n')))).toBe('O(sqrt(m) * n)');
    expect(() => mul(power('n', 0, 0, 1), power('n', 0, 0, 1))).toThrow(/4\^n/);
  });

  it('loop nests: linear × halving = n log n, step loops are linear, sqrt loops √n, dependent loops square', () => {
    expect(L(analyse(program(loop('linear', 'n', loop('halving', 'n', work)))).time)).toBe('O(nlogn)');
    expect(L(analyse(program(loop('step', 'n', loop('doubling', 'm', work)))).time)).toBe('O(logm * n)');
    expect(L(analyse(program(loop('sqrt', 'n', work))).time)).toBe('O(sqrt(n))');
    expect(L(analyse(program(loop('linear', 'n', loop('dependent', 'n', work)))).time)).toBe('O(n^2)');
    expect(L(analyse(program(loop('linear', 'n', loop('dependent-halving', 'n', work)))).time)).toBe('O(nlogn)');
    expect(L(analyse(program(loop('linear', 'nm', work))).time)).toBe('O(m * n)');
    expect(L(analyse(program(loop('linear', 'n', work), loop('linear', 'm', work))).time)).toBe('O(m + n)');
    expect(L(analyse(program(loop('halving', 'n', work), loop('linear', 'n', work))).time)).toBe('O(n)');
    expect(L(analyse(program(loop('linear', 'n', work))).space)).toBe('O(1)');
  });

  it('recursions: the recurrences of construct.ts, stack depth as space, never multiplied by a loop', () => {
    const call = (rec: Extract<Stmt, { kind: 'call' }>['rec'], over: 'n' | 'm' = 'n'): Stmt => ({ kind: 'call', rec, over });
    const cases: [Extract<Stmt, { kind: 'call' }>['rec'], string, string][] = [
      ['linear', 'O(n)', 'O(n)'],
      ['linear-loop', 'O(n^2)', 'O(n)'],
      ['halving', 'O(logn)', 'O(logn)'],
      ['halving-loop', 'O(n)', 'O(logn)'],
      ['binary', 'O(n)', 'O(logn)'],
      ['binary-loop', 'O(nlogn)', 'O(logn)'],
      ['binary-alloc', 'O(nlogn)', 'O(n)'],
      ['exponential', 'O(2^n)', 'O(n)'],
    ];
    for (const [rec, time, space] of cases) expect([rec, L(analyse(program(call(rec))).time), L(analyse(program(call(rec))).space)]).toEqual([rec, time, space]);
    const inLoop = analyse(program(loop('linear', 'm', work, call('linear'))));
    expect([L(inLoop.time), L(inLoop.space)]).toEqual(['O(m * n)', 'O(n)']);
  });

  it('space: allocations plus appended elements (the product of the enclosing loops) plus stack depth', () => {
    expect(L(analyse(program({ kind: 'alloc', size: 'nm' }, loop('linear', 'n', work))).space)).toBe('O(m * n)');
    expect(L(analyse(program({ kind: 'alloc', size: 'nn' })).time)).toBe('O(n^2)');
    expect(L(analyse(program({ kind: 'alloc', size: 'n' }, { kind: 'alloc', size: 'm' })).space)).toBe('O(m + n)');
    expect(L(analyse(program(loop('linear', 'n', loop('halving', 'm', work, { kind: 'append' })))).space)).toBe('O(logm * n)');
    expect(L(analyse(program({ kind: 'alloc', size: 'n' }, { kind: 'call', rec: 'halving', over: 'm' })).space)).toBe('O(logm + n)');
    expect(() => analyse(program(loop('linear', 'n', { kind: 'alloc', size: 'n' })))).toThrow(/top-level/);
  });

  it('labels read under the strict canonicaliser, one group each', () => {
    const exprs = [ONE, linear('n'), add(linear('n'), linear('m')), mul(linear('n'), logOf('n')), mul(logOf('n'), logOf('n'), linear('m')), mul(sqrtOf('n'), logOf('m')), mul(linear('m'), power('n', 0, 0, 1))];
    const canon = exprs.map((e) => canonicalBigO(L(e)));
    expect(canon).toEqual([['1'], ['n'], ['m+n'], ['log(n)*n'], ['(log(n)^2)*m'], ['(n^(1/2))*log(m)'], ['(2^n)*m']]);
  });
});
