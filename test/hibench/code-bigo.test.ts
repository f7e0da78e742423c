import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bigOEqual, bigOGroups, canonicalBigO, canonicalExpression } from '../../plugins/hibench/src/lib/program/bigo.js';

const SHARED = new URL('../../../shared/data/hibench-code/code.jsonl', import.meta.url);

const same = (a: string, b: string) => expect(canonicalBigO(a), `${a} vs ${b}`).toEqual(canonicalBigO(b));
const differ = (a: string, b: string) => expect(canonicalBigO(a), `${a} vs ${b}`).not.toEqual(canonicalBigO(b));

describe('canonicalBigO (specs/hibench.md §3.5, §7 rec. 19)', () => {
  it('ignores spacing and reads log n = logn = log(n) = ln n = log_2 n', () => {
    for (const x of ['O(nlogn)', 'O(n log n)', 'O(n*log(n))', 'O(log(n) * n)', 'O( n  ln n )', 'O(n log_2 n)', 'O(n log2(n))', 'o(n lg n)']) same(x, 'O(n log n)');
    expect(canonicalBigO('O(n log n)')).toEqual(['log(n)*n']);
  });
  it('reads powers: n^2 = n*n = n² = n**2, n^2*n = n^3', () => {
    for (const x of ['O(n*n)', 'O(n²)', 'O(n ** 2)', 'O(n · n)']) same(x, 'O(n^2)');
    same('O(n^2 * n)', 'O(n^3)');
    same('O(n * (logn)^2)', 'O(n log^2 n)');
    differ('O(n^2)', 'O(n^3)');
  });
  it('is commutative for * and +', () => {
    same('O(m * n)', 'O(n * m)');
    same('O(n + k)', 'O(k + n)');
    same('O(25 * l * (n + q))', 'O((q + n) * l * 25)');
    same('O(nlogn + qlogn)', 'O(q log n + n log n)');
  });
  it('reads set sizes, square roots, factorials, binomials, differences', () => {
    same('O(|V| + |E|)', 'O(|E| + |V|)');
    same('O(|V| + |E|)', 'O(V + E)');
    same('O(sqrt(n))', 'O(√n)');
    same('O(sqrt n)', 'O(n^(1/2))');
    expect(canonicalBigO('O(n^2 * n!)')).toEqual(['(n!)*(n^2)']);
    expect(canonicalBigO('O(n * C(n - 1, c - 1))')).toEqual(['f_C(-1+n,-1+c)*n']);
    same('O(r - l)', 'O(-l + r)');
    differ('O(r - l)', 'O(r + l)');
  });
  it('keeps constants as written and variable names as given (case ignored)', () => {
    differ('O(9^2)', 'O(81)');
    differ('O(4n)', 'O(n)');
    differ('O(m)', 'O(n)');
    same('O(N)', 'O(n)');
    expect(canonicalBigO('O(9^2)')).toEqual(['9^2']);
  });
  it('reads a label chain (ranges, equalities) and stops at comments', () => {
    expect(bigOGroups('O(m + n) ~ O(m * n)')).toEqual(['m + n', 'm * n']);
    expect(canonicalBigO('O(m * n * 4 * 3^(h - 1)) ~= O(m * n * 3^h)')).toHaveLength(2);
    expect(canonicalBigO('O(|V|+|E|) = O(26 + 26^2) = O(1)')).toEqual(['e+v', '26+26^2', '1']);
    expect(canonicalBigO('O(nlogr), r = max(nums)')).toEqual(['log(r)*n']);
    expect(canonicalBigO('O(n) ~ O(n^2), O(n) on average')).toEqual(['n', 'n^2']);
    expect(canonicalBigO('O(n * 4^n / n^(3/2)) ~= sum of Catalan numbers from 1 .. N')).toHaveLength(1);
  });
  it('returns null (never throws) on what is not big-O', () => {
    for (const x of ['', 'n', 'foo', 'O(', 'O()', 'O(n', 'O(n ? 2)', 'O(|n)', 'linear', 'O(n +)']) {
      expect(canonicalBigO(x), x).toBeNull();
    }
    expect(canonicalExpression(')(')).toBeNull();
  });
  it('canonicalises every label of the shared code.jsonl without error', () => {
    const labels = new Set<string>();
    for (const line of readFileSync(SHARED, 'utf8').trim().split('\n')) {
      const r = JSON.parse(line) as { space: string; time: string };
      labels.add(r.space);
      labels.add(r.time);
    }
    expect(labels.size).toBeGreaterThan(60);
    const bad = [...labels].filter((l) => canonicalBigO(l) === null);
    expect(bad).toEqual([]);
    for (const l of labels) expect(bigOEqual(l, l), l).toBe(true);
  });
});

describe('bigOEqual (strict match)', () => {
  it('accepts equal forms and rejects the toolkit leniencies of §4.3', () => {
    expect(bigOEqual('O(n log n)', 'O(nlogn)')).toBe(true);
    expect(bigOEqual('O(n log n)', 'O(n)')).toBe(false); // compat: "onlogn" contains "on"
    expect(bigOEqual('O(n^2)', 'O(n)')).toBe(false); // compat: "on2" contains "on"
    expect(bigOEqual('O(1)', 'O(n)')).toBe(false);
  });
  it('a range label accepts either end, and the whole label', () => {
    const label = 'O(m + n) ~ O(m * n)';
    expect(bigOEqual('O(m + n)', label)).toBe(true);
    expect(bigOEqual('O(n*m)', label)).toBe(true);
    expect(bigOEqual(label, label)).toBe(true);
    expect(bigOEqual('O(m)', label)).toBe(false);
    expect(bigOEqual('O(m + n) ~ O(n^2)', label)).toBe(false);
  });
  it('an answer that does not parse is wrong; a label that does not parse throws', () => {
    expect(bigOEqual('linear', 'O(n)')).toBe(false);
    expect(bigOEqual('O(n', 'O(n)')).toBe(false);
    expect(() => bigOEqual('O(n)', 'linear')).toThrow(/not a big-O label/);
  });
});
