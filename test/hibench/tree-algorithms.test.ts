import { describe, it, expect } from 'vitest';
import { rngFor } from '../../plugins/hibench/src/rng.js';
import { NO_EDGES, renderEdges, renderHierarchy, renderTree } from '../../plugins/hibench/src/lib/tree/render.js';
import {
  addNode,
  admissibleNodeCounts,
  ancestorsOf,
  canonicalForm,
  depthOf,
  descendantsOf,
  generateTree,
  generatorStats,
  heightOf,
  inorder,
  isHeightBalanced,
  isIsomorphic,
  isLeaf,
  levelCount,
  lowestCommonAncestor,
  makeTree,
  maxNodes,
  maxOutDegree,
  mirrorTree,
  nodeCount,
  postorder,
  preorder,
  relabelTree,
  removeNode,
  treeFromStructure,
  treeToStructure,
  tryMakeTree,
  type Side,
  type Tree,
} from '../../plugins/hibench/src/lib/tree/tree.js';
import { nonIsomorphicTree } from '../../plugins/hibench/src/lib/tree/tasks.js';

/** §3.7 multiple tree: 4: [1, 3], 1: [0, 2]. */
const multi = (): Tree =>
  makeTree(
    4,
    new Map([
      [4, [1, 3]],
      [1, [0, 2]],
    ]),
  );

/** §3.7 binary tree: 3 -(L)-> 2, 2 -(R)-> 0, 3 -(R)-> 1. */
const binary = (): Tree =>
  makeTree(
    3,
    new Map([
      [3, [2, 1]],
      [2, [0]],
    ]),
    new Map<number, Side>([
      [2, 'L'],
      [0, 'R'],
      [1, 'R'],
    ]),
  );

describe('§3.7 multiple tree vectors', () => {
  const t = multi();

  it('renders both representations exactly', () => {
    expect(renderEdges(t)).toBe('4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3');
    expect(renderHierarchy(t)).toBe('   4\n    |-- 1\n    |   |-- 0\n    |   `-- 2\n    `-- 3');
    expect(renderTree(t, 'edge')).toBe(renderEdges(t));
    expect(renderTree(t, 'hierarchy')).toBe(renderHierarchy(t));
  });

  it('renders the §3.0.1 example', () => {
    const u = makeTree(
      3,
      new Map([
        [3, [2, 1]],
        [1, [0]],
      ]),
    );
    expect(renderEdges(u)).toBe('3 -> 2, 3 -> 1, 1 -> 0');
    expect(renderHierarchy(u)).toBe('   3\n    |-- 2\n    `-- 1\n        `-- 0');
  });

  it('answers root, leaf, ancestors, descendants, LCA', () => {
    expect(t.root).toBe(4);
    expect(isLeaf(t, 1)).toBe(false);
    expect(isLeaf(t, 3)).toBe(true);
    expect(ancestorsOf(t, 2)).toEqual([1, 4]);
    expect(ancestorsOf(t, 4)).toEqual([]);
    expect(descendantsOf(t, 1)).toEqual([0, 2]);
    expect(descendantsOf(t, 4)).toEqual([0, 1, 2, 3]);
    expect(descendantsOf(t, 3)).toEqual([]);
    expect(lowestCommonAncestor(t, 0, 3)).toBe(4);
    expect(lowestCommonAncestor(t, 1, 2)).toBe(1);
    expect(lowestCommonAncestor(t, 2, 1)).toBe(1);
    expect(lowestCommonAncestor(t, 0, 2)).toBe(1);
  });

  it('node depth: compat = subtree height, strict = depth with root 1', () => {
    expect([4, 1, 0, 2, 3].map((x) => heightOf(t, x))).toEqual([3, 2, 1, 1, 1]);
    expect([4, 1, 0, 2, 3].map((x) => depthOf(t, x))).toEqual([1, 2, 3, 3, 2]);
    expect(levelCount(t)).toBe(3);
  });

  it('adds node 5 under 3 as the last child', () => {
    const a = addNode(t, 5, 3);
    expect(renderEdges(a)).toBe('4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3, 3 -> 5');
    expect(renderHierarchy(a)).toBe('   4\n    |-- 1\n    |   |-- 0\n    |   `-- 2\n    `-- 3\n        `-- 5');
    expect(renderEdges(addNode(t, 5, 1))).toBe('4 -> 1, 1 -> 0, 1 -> 2, 1 -> 5, 4 -> 3');
    expect(() => addNode(t, 4, 1)).toThrow(RangeError);
  });

  it('removes a non-root node (children re-attached after the remaining ones) and the root', () => {
    const r1 = removeNode(t, 1);
    expect(renderEdges(r1)).toBe('4 -> 3, 4 -> 0, 4 -> 2');
    expect(renderHierarchy(r1)).toBe('   4\n    |-- 3\n    |-- 0\n    `-- 2');
    const r4 = removeNode(t, 4);
    expect(renderEdges(r4)).toBe('1 -> 0, 1 -> 2, 1 -> 3');
    expect(renderHierarchy(r4)).toBe('   1\n    |-- 0\n    |-- 2\n    `-- 3');
    expect(renderEdges(removeNode(t, 3))).toBe('4 -> 1, 1 -> 0, 1 -> 2');
  });

  it('renders "No edges" when no edge remains', () => {
    const two = makeTree(7, new Map([[7, [2]]]));
    expect(renderEdges(removeNode(two, 7))).toBe(NO_EDGES);
    expect(renderHierarchy(removeNode(two, 2))).toBe(NO_EDGES);
    expect(nodeCount(removeNode(two, 7))).toBe(1);
  });
});

describe('§3.7 binary tree vectors', () => {
  const t = binary();

  it('renders both representations exactly', () => {
    expect(renderEdges(t)).toBe('3 -(L)-> 2, 2 -(R)-> 0, 3 -(R)-> 1');
    expect(renderHierarchy(t)).toBe('   3\n    |-(L)-2\n    |   `-(R)-0\n    `-(R)-1');
  });

  it('traverses L before R and checks AVL balance', () => {
    expect(preorder(t)).toEqual([3, 2, 0, 1]);
    expect(inorder(t)).toEqual([2, 0, 3, 1]);
    expect(postorder(t)).toEqual([0, 2, 1, 3]);
    expect(isHeightBalanced(t)).toBe(true);
  });

  it('L before R regardless of listing order', () => {
    const u = makeTree(
      5,
      new Map([[5, [1, 2]]]),
      new Map<number, Side>([
        [1, 'R'],
        [2, 'L'],
      ]),
    );
    expect(preorder(u)).toEqual([5, 2, 1]);
    expect(inorder(u)).toEqual([2, 5, 1]);
    expect(postorder(u)).toEqual([2, 1, 5]);
    expect(renderEdges(u)).toBe('5 -(R)-> 1, 5 -(L)-> 2');
  });

  it('detects an unbalanced tree (h(missing) = 0)', () => {
    const u = makeTree(
      0,
      new Map([
        [0, [1]],
        [1, [2]],
      ]),
      new Map<number, Side>([
        [1, 'L'],
        [2, 'R'],
      ]),
    );
    expect(isHeightBalanced(u)).toBe(false);
  });

  it('mirrors by swapping tags and keeping the listing order', () => {
    const m = mirrorTree(t);
    expect(renderEdges(m)).toBe('3 -(R)-> 2, 2 -(L)-> 0, 3 -(L)-> 1');
    expect(renderHierarchy(m)).toBe('   3\n    |-(R)-2\n    |   `-(L)-0\n    `-(L)-1');
    expect(inorder(m)).toEqual(inorder(t).reverse());
    expect(treeToStructure(mirrorTree(m))).toEqual(treeToStructure(t));
  });

  it('converts to and from the record shape', () => {
    const s = treeToStructure(t);
    expect(s).toEqual({ root: 3, children: { '3': [2, 1], '2': [0] }, side: { '2': 'L', '0': 'R', '1': 'R' } });
    expect(renderEdges(treeFromStructure(s))).toBe(renderEdges(t));
    expect(treeToStructure(multi())).toEqual({ root: 4, children: { '4': [1, 3], '1': [0, 2] } });
  });
});

describe('validation', () => {
  it('rejects invalid trees', () => {
    expect(typeof tryMakeTree(0, new Map([[0, [1]], [1, [0]]]))).toBe('string'); // cycle through the root
    expect(typeof tryMakeTree(0, new Map([[0, [1, 2]], [3, [2]]]))).toBe('string'); // two parents
    expect(typeof tryMakeTree(0, new Map([[0, [1]], [3, [4]]]))).toBe('string'); // second root
    expect(typeof tryMakeTree(0, new Map([[0, [1]], [5, [6]], [6, [5]]]))).toBe('string'); // detached cycle
    expect(typeof tryMakeTree(0, new Map([[0, [1, 2, 3]]]), new Map<number, Side>([[1, 'L'], [2, 'R'], [3, 'L']]))).toBe('string');
    expect(typeof tryMakeTree(0, new Map([[0, [1, 2]]]), new Map<number, Side>([[1, 'L'], [2, 'L']]))).toBe('string');
    expect(() => makeTree(0, new Map([[0, [1]], [1, [0]]]))).toThrow(RangeError);
    expect(() => depthOf(multi(), 99)).toThrow(RangeError);
  });
});

describe('AHU canonical form', () => {
  it('ignores labels and child order but not shape', () => {
    const a = multi();
    const b = makeTree(
      0,
      new Map([
        [0, [9, 5]],
        [5, [7, 8]],
      ]),
    );
    const c = makeTree(
      0,
      new Map([
        [0, [1, 2]],
        [2, [3]],
        [3, [4]],
      ]),
    );
    expect(isIsomorphic(a, b)).toBe(true);
    expect(canonicalForm(a)).toBe('((()())())');
    expect(canonicalForm(b)).toBe(canonicalForm(a));
    expect(isIsomorphic(a, c)).toBe(false);
    const r = relabelTree(a, new Map([[4, 10], [1, 11], [3, 12], [0, 13], [2, 14]]), rngFor(1, 'x'));
    expect(isIsomorphic(a, r)).toBe(true);
    expect(r.root).toBe(10);
  });

  it('nonIsomorphicTree finds a different tree with the same N (and M unless the tree is a path)', () => {
    for (const [n, m, d] of [
      [5, 3, 2],
      [7, 3, 2],
      [13, 3, 3],
      [6, 6, 2],
      [3, 2, 2],
    ] as const) {
      const t = generateTree({ nodes: n, levels: m, degree: d, balanced: false, binary: false }, rngFor(3, n, m, d));
      const other = nonIsomorphicTree(t, d, rngFor(4, n, m, d))!;
      expect(other).not.toBeNull();
      expect(nodeCount(other)).toBe(n);
      expect(isIsomorphic(t, other)).toBe(false);
      if (n !== m && n !== 3) expect(levelCount(other)).toBe(m);
    }
    const two = makeTree(0, new Map([[0, [1]]]));
    expect(nonIsomorphicTree(two, 2, rngFor(1))).toBeNull();
  });
});

describe('§3.0 generator', () => {
  it('always yields exactly N nodes, M levels, degree <= D, for every admissible (N, M, D)', () => {
    generatorStats.parents = 0;
    generatorStats.tightened = 0;
    let checked = 0;
    const shapes: [number, number][] = [[2, 2], [3, 2], [4, 2], [5, 2], [7, 2], [9, 2], [2, 3], [3, 3], [4, 3], [5, 3], [2, 4], [3, 4], [2, 6], [3, 6], [6, 3]];
    for (const [m, d] of shapes) {
      const ns = admissibleNodeCounts(m, d);
      expect(ns[0]).toBe(m);
      expect(ns[ns.length - 1]).toBe(maxNodes(m, d));
      for (const n of ns.filter((_, i) => i % Math.max(1, Math.floor(ns.length / 12)) === 0 || i === ns.length - 1)) {
        for (let s = 0; s < 4; s++) {
          for (const binary of d === 2 ? [false, true] : [false]) {
            const t = generateTree({ nodes: n, levels: m, degree: d, balanced: false, binary }, rngFor(s, m, d, n, String(binary)));
            expect(nodeCount(t)).toBe(n);
            expect(levelCount(t)).toBe(m);
            expect(maxOutDegree(t)).toBeLessThanOrEqual(d);
            expect(new Set(t.order)).toEqual(new Set(Array.from({ length: n }, (_, i) => i)));
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
    // The toolkit's bounds were never infeasible (the exact-interval safety net did not change a draw).
    expect(generatorStats.parents).toBeGreaterThan(1000);
    expect(generatorStats.tightened).toBe(0);
  });

  it('binary balanced resamples N into [2^(M-1), 2^M - 1] and is AVL-balanced', () => {
    for (let m = 2; m <= 9; m++) {
      for (const n of [m, 2 ** (m - 1), 2 ** m - 1]) {
        const t = generateTree({ nodes: n, levels: m, degree: 2, balanced: true, binary: true }, rngFor(9, m, n));
        expect(nodeCount(t)).toBeGreaterThanOrEqual(2 ** (m - 1));
        expect(nodeCount(t)).toBeLessThanOrEqual(2 ** m - 1);
        if (n >= 2 ** (m - 1)) expect(nodeCount(t)).toBe(n);
        expect(levelCount(t)).toBe(m);
        expect(isHeightBalanced(t)).toBe(true);
      }
    }
  });

  it('rejects impossible shapes', () => {
    expect(() => generateTree({ nodes: 2, levels: 3, degree: 2, balanced: false, binary: false }, rngFor(1))).toThrow(RangeError);
    expect(() => generateTree({ nodes: 8, levels: 3, degree: 2, balanced: false, binary: false }, rngFor(1))).toThrow(RangeError);
    expect(() => generateTree({ nodes: 4, levels: 2, degree: 3, balanced: false, binary: true }, rngFor(1))).toThrow(RangeError);
  });

  it('is deterministic per rng and varies across seeds', () => {
    const shape = { nodes: 20, levels: 5, degree: 2, balanced: false, binary: true };
    expect(renderEdges(generateTree(shape, rngFor(1, 'a')))).toBe(renderEdges(generateTree(shape, rngFor(1, 'a'))));
    expect(renderEdges(generateTree(shape, rngFor(1, 'a')))).not.toBe(renderEdges(generateTree(shape, rngFor(2, 'a'))));
  });
});
