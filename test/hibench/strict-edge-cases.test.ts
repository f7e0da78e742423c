/**
 * Strict HiBench scoring edge cases (issue 25 item 10), each a case where strict mode differed from its own rules:
 * - big-O answers equal up to letter case and equivalent forms (`O(LOGN)` = `O(logn)`, `O(n^0.5)` = `O(sqrt(n))`,
 *   `n * sqrt(n)` = `n^1.5`, `(n*m)^2` = `n^2 * m^2`, `n^2 / n` = `n`), constants and variable names still as written;
 * - Remove Node on a two-node tree (target "No edges"): a bare node answer is right only when it is the node left;
 * - one rule for numbers with extra text: the whole answer must be one number, for the `number` matcher as for the
 *   string matcher's numeric targets ("2, 3", "node 2", "about 11" are wrong).
 * Compat (`--compat reference`) verdicts of the same inputs are checked unchanged.
 */
import { describe, expect, it } from 'vitest';
import type { CompatMode, Json } from '@hpt-bench/core';
import { bigOEqual, canonicalBigO } from '../../plugins/hibench/src/lib/program/bigo.js';
import { recordToSample } from '../../plugins/hibench/src/dataset.js';
import { matchAnswer, wholeNumber } from '../../plugins/hibench/src/match/matchers.js';
import { HierarchyScorer } from '../../plugins/hibench/src/match/scorer.js';
import { generateMultipleTree } from '../../plugins/hibench/src/multiple-tree/index.js';
import { treeFromStructure } from '../../plugins/hibench/src/lib/tree/tree.js';
import type { MatcherSpec } from '../../plugins/hibench/src/types.js';

const ok = (output: string, target: Json, spec: MatcherSpec, compat: CompatMode = 'strict'): boolean => matchAnswer(output, target, spec, compat).correct;
const answer = (v: Json): string => JSON.stringify({ answer: v });
const BIGO: MatcherSpec = { type: 'string', bigo: true };

describe('strict big-O: case and equivalent forms', () => {
  it('letter case is ignored everywhere, function names included (O(LOGN) = O(logn))', () => {
    expect(bigOEqual('O(LOGN)', 'O(logn)')).toBe(true);
    expect(bigOEqual('O(N LOG N)', 'O(nlogn)')).toBe(true);
    expect(bigOEqual('O(NLogN)', 'O(n log n)')).toBe(true);
    expect(bigOEqual('O(Sqrt(N))', 'O(sqrt(n))')).toBe(true);
    expect(bigOEqual('O(LOG(M) * N)', 'O(logm * n)')).toBe(true);
    expect(ok(answer('O(LOGN)'), 'O(logn)', BIGO)).toBe(true);
    // still different bounds
    expect(bigOEqual('O(LOGN)', 'O(n)')).toBe(false);
    expect(bigOEqual('O(N)', 'O(logn)')).toBe(false);
  });

  it('fractional powers: n^0.5 = n^(1/2) = sqrt(n) = √n, n^1.5 = n^(3/2) = n * sqrt(n)', () => {
    for (const x of ['O(n^0.5)', 'O(n^(0.5))', 'O(n^(1/2))', 'O(√n)', 'O(n ** 0.5)']) expect(bigOEqual(x, 'O(sqrt(n))'), x).toBe(true);
    for (const x of ['O(n^1.5)', 'O(n^(3/2))', 'O(n * sqrt(n))', 'O(n√n)', 'O(sqrt(n)^3)']) expect(bigOEqual(x, 'O(n^1.5)'), x).toBe(true);
    expect(bigOEqual('O(n^0.5)', 'O(n)')).toBe(false);
    expect(bigOEqual('O(n^0.33)', 'O(n^(1/3))')).toBe(false); // 0.33 is not 1/3
    expect(bigOEqual('O(n^0.25)', 'O(sqrt(sqrt(n)))')).toBe(true);
  });

  it('powers of products and quotients: (n*m)^2 = n^2 * m^2, sqrt(n*m) = sqrt(n) * sqrt(m), n^2 / n = n', () => {
    expect(bigOEqual('O((n*m)^2)', 'O(n^2 * m^2)')).toBe(true);
    expect(bigOEqual('O(sqrt(n * m))', 'O(sqrt(m) * sqrt(n))')).toBe(true);
    expect(bigOEqual('O(n^2 / n)', 'O(n)')).toBe(true);
    expect(bigOEqual('O(n / log n)', 'O(n * (log n)^(-1))')).toBe(true);
    expect(bigOEqual('O((n + m)^2)', 'O(n^2 + m^2)')).toBe(false); // sums are not expanded
  });

  it('constants and variable names stay as written (the label is compared as annotated)', () => {
    expect(bigOEqual('O(4N)', 'O(n)')).toBe(false);
    expect(bigOEqual('O(9^2)', 'O(81)')).toBe(false);
    expect(bigOEqual('O(M)', 'O(n)')).toBe(false);
    expect(canonicalBigO('O(n * 4^n / n^(3/2))')).toEqual(canonicalBigO('O(4^n * n^(-1/2))'));
  });

  it('compat (the toolkit) is unchanged: whitespace-free containment after lower-casing', () => {
    expect(ok(answer('O(LOGN)'), 'O(logn)', BIGO, 'reference')).toBe(true);
    expect(ok(answer('O(n^0.5)'), 'O(sqrt(n))', BIGO, 'reference')).toBe(false);
    expect(ok(answer('O(n log n)'), 'O(n)', BIGO, 'reference')).toBe(true);
  });
});

describe('strict remove_node on a two-node tree (target "No edges")', () => {
  const EDGE: MatcherSpec = { type: 'structure', representation: 'edge', binary: false, empty: 'No edges', emptyNode: 1 };
  const HIER: MatcherSpec = { ...EDGE, representation: 'hierarchy' };

  it('accepts "No edges" or the node that is left, nothing else', () => {
    for (const spec of [EDGE, HIER]) {
      expect(ok(answer('No edges'), 'No edges', spec)).toBe(true);
      expect(ok(answer(1), 'No edges', spec)).toBe(true);
      expect(ok(answer('   1'), 'No edges', spec)).toBe(true);
      expect(ok(answer(0), 'No edges', spec)).toBe(false); // the removed node
      expect(ok(answer(5), 'No edges', spec)).toBe(false); // not a node of the tree
      expect(ok(answer('   5'), 'No edges', spec)).toBe(false);
      expect(ok(answer('1 -> 0'), 'No edges', spec)).toBe(false);
    }
  });

  it('without the node left (a record written before it was recorded) a bare node is never accepted', () => {
    const old: MatcherSpec = { type: 'structure', representation: 'hierarchy', empty: 'No edges' };
    expect(ok(answer('   5'), 'No edges', old)).toBe(false);
    expect(ok(answer('No edges'), 'No edges', old)).toBe(true);
  });

  it('compat keeps the toolkit string_match ("no edges" contained)', () => {
    expect(ok(answer('No edges'), 'No edges', HIER, 'reference')).toBe(true);
    expect(ok(answer(1), 'No edges', HIER, 'reference')).toBe(false);
  });

  it('the generator records the node left, and the scorer accepts it and only it (every "No edges" record of the suite)', () => {
    const scorer = new HierarchyScorer();
    let n = 0;
    for (const r of generateMultipleTree({ seed: 6703, compat: 'strict', filter: { tasks: ['remove_node'] } })) {
      if (r.target !== 'No edges') {
        expect(r.matcher.emptyNode).toBeUndefined();
        continue;
      }
      n++;
      const tree = treeFromStructure(r.structure!);
      const removed = r.args['node'] as number;
      const left = tree.order.find((x) => x !== removed)!;
      expect(tree.order).toHaveLength(2);
      expect(r.matcher.emptyNode).toBe(left);
      const sample = recordToSample(r, 0);
      const verdict = (text: string) => scorer.score(sample, { completion: text } as never, { compat: 'strict', options: {} } as never).solved;
      expect(verdict(answer(left))).toBe(true);
      expect(verdict(answer('No edges'))).toBe(true);
      expect(verdict(answer(removed))).toBe(false);
      expect(verdict(answer(Math.max(...tree.order) + 1))).toBe(false);
    }
    expect(n).toBeGreaterThan(10);
  });
});

describe('one rule for numbers with extra text: the whole answer is one number', () => {
  const NUMBER: MatcherSpec = { type: 'number' };
  const STRING: MatcherSpec = { type: 'string' };

  it('wholeNumber reads a lone number literal (sign, decimals, exponent, thousands groups), else null', () => {
    expect(wholeNumber(' 2 ')).toBe(2);
    expect(wholeNumber('-54.31')).toBe(-54.31);
    expect(wholeNumber('−3')).toBe(-3);
    expect(wholeNumber('1e3')).toBe(1000);
    expect(wholeNumber('4,360.5')).toBe(4360.5);
    for (const x of ['2, 3', '2,3', 'node 2', '2 nodes', 'about 11', '11 (rounded)', '1,23', '', 'two']) expect(wholeNumber(x), x).toBeNull();
  });

  it('number matcher: "2, 3", "node 2" and "about 11" are wrong for 2 / 11, as the string matcher rejects "1, 2" for 1', () => {
    expect(ok(answer('2, 3'), 2, NUMBER)).toBe(false);
    expect(ok(answer('node 2'), 2, NUMBER)).toBe(false);
    expect(ok(answer('about 11 (rounded)'), '11', NUMBER)).toBe(false);
    expect(ok(answer([2, 3]), 2, NUMBER)).toBe(false);
    expect(ok(answer('1, 2'), 1, STRING)).toBe(false);
    expect(ok(answer('node 1'), 1, STRING)).toBe(false);
  });

  it('both accept the same lone numbers: quoted, 3.0 for 3, thousands groups, tolerance for `number`', () => {
    for (const spec of [NUMBER, STRING]) {
      expect(ok(answer(2), 2, spec)).toBe(true);
      expect(ok(answer('2'), 2, spec)).toBe(true);
      expect(ok(answer(2.0), 2, spec)).toBe(true);
      expect(ok('{"answer": 2.0}', 2, spec)).toBe(true);
      expect(ok(answer('4,360'), 4360, spec)).toBe(true);
    }
    expect(ok(answer(4360.01), '4360.0', NUMBER)).toBe(true);
    expect(ok(answer('-54.31'), '-54.31', NUMBER)).toBe(true);
  });

  it('compat (the toolkit number_match) is unchanged: refined strings equal', () => {
    expect(ok('{"answer": 2, 3}', 2, NUMBER, 'reference')).toBe(false);
    expect(ok('{"answer": "node 2"}', 2, NUMBER, 'reference')).toBe(false);
    expect(ok('{"answer": -3.5}', '3.5', NUMBER, 'reference')).toBe(true);
  });
});
