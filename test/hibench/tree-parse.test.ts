import { describe, it, expect } from 'vitest';
import { rngFor } from '../../plugins/hibench/src/rng.js';
import { isNoEdges, parseStructure, structuresEqual } from '../../plugins/hibench/src/lib/tree/parse.js';
import { renderEdges, renderHierarchy } from '../../plugins/hibench/src/lib/tree/render.js';
import {
  addNode,
  BINARY_PRESET_DEFS,
  mirrorTree,
  MULTIPLE_PRESET_DEFS,
  removeNode,
  sampleStructures,
  treeToStructure,
  type Tree,
} from '../../plugins/hibench/src/lib/tree/tree.js';
import type { Representation, TreeStructure } from '../../plugins/hibench/src/types.js';

const MULTI = '   4\n    |-- 1\n    |   |-- 0\n    |   `-- 2\n    `-- 3';
const MULTI_S: TreeStructure = { root: 4, children: { '4': [1, 3], '1': [0, 2] } };
const BIN = '   3\n    |-(L)-2\n    |   `-(R)-0\n    `-(R)-1';
const BIN_S: TreeStructure = { root: 3, children: { '3': [2, 1], '2': [0] }, side: { '2': 'L', '0': 'R', '1': 'R' } };

const binaryTrees = (seed: number): Tree[] => BINARY_PRESET_DEFS.flatMap((p) => sampleStructures(seed, 'binary-tree', p, true).map((s) => s.tree));
const multiTrees = (seed: number): Tree[] => MULTIPLE_PRESET_DEFS.flatMap((p) => sampleStructures(seed, 'multiple-tree', p, false).map((s) => s.tree));

function roundTrip(t: Tree, binary: boolean): void {
  const s = treeToStructure(t);
  for (const [rep, text] of [
    ['edge', renderEdges(t)],
    ['hierarchy', renderHierarchy(t)],
  ] as [Representation, string][]) {
    const back = parseStructure(text, rep, binary);
    expect(back, `${rep}: ${text}`).not.toBeNull();
    expect(structuresEqual(back!, s, { binary, ordered: true })).toBe(true);
    expect(back).toEqual(s);
  }
}

describe('parse round trip (render → parse → equal)', () => {
  it('every generated binary tree, its mirror, in both representations', () => {
    const trees = binaryTrees(7);
    expect(trees.length).toBe(138);
    for (const t of trees) {
      roundTrip(t, true);
      roundTrip(mirrorTree(t), true);
    }
  });

  it('every generated multiple tree and its add/remove results, in both representations', () => {
    const trees = multiTrees(7);
    expect(trees.length).toBe(177);
    const rng = rngFor(7, 'parse-test');
    for (const t of trees) {
      roundTrip(t, false);
      roundTrip(addNode(t, t.order.length, rng.pick(t.order)), false);
      const r = removeNode(t, rng.pick(t.order));
      if (r.order.length > 1) roundTrip(r, false);
    }
  });
});

describe('parseStructure tolerance', () => {
  it('parses the §3.7 renderings', () => {
    expect(parseStructure(MULTI, 'hierarchy', false)).toEqual(MULTI_S);
    expect(parseStructure('4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3', 'edge', false)).toEqual(MULTI_S);
    expect(parseStructure(BIN, 'hierarchy', true)).toEqual(BIN_S);
    expect(parseStructure('3 -(L)-> 2, 2 -(R)-> 0, 3 -(R)-> 1', 'edge', true)).toEqual(BIN_S);
  });

  it('edge lists: whitespace-insensitive, newline or comma separated, any order, quotes and brackets', () => {
    const s = parseStructure('4->3,\n 4->1 ;1 ->0,1-> 2,', 'edge', false)!;
    expect(structuresEqual(s, MULTI_S, { binary: false })).toBe(true);
    expect(structuresEqual(s, MULTI_S, { binary: false, ordered: true })).toBe(false);
    expect(parseStructure('"4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3"', 'edge', false)).toEqual(MULTI_S);
    expect(parseStructure('[4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3]', 'edge', false)).toEqual(MULTI_S);
    expect(parseStructure('4 → 1, 1 → 0, 1 → 2, 4 → 3', 'edge', false)).toEqual(MULTI_S);
    expect(parseStructure('3-(l)->2\n2 -( R )-> 0\n3 -(R)->1', 'edge', true)).toEqual(BIN_S);
  });

  it('text trees: trimmed, re-indented, JSON-escaped, unicode connectors', () => {
    expect(parseStructure(MULTI.trim(), 'hierarchy', false)).toEqual(MULTI_S);
    const dedented = MULTI.split('\n')
      .map((l) => l.replace(/^ {1,4}/, ''))
      .join('\n');
    expect(dedented.startsWith('4\n|-- 1')).toBe(true);
    expect(parseStructure(dedented, 'hierarchy', false)).toEqual(MULTI_S);
    const reindented = MULTI.split('\n')
      .map((l) => '  ' + l)
      .join('\n');
    expect(parseStructure(reindented, 'hierarchy', false)).toEqual(MULTI_S);
    expect(parseStructure(JSON.stringify(MULTI).slice(1, -1), 'hierarchy', false)).toEqual(MULTI_S);
    expect(parseStructure('4\n├── 1\n│   ├── 0\n│   └── 2\n└── 3', 'hierarchy', false)).toEqual(MULTI_S);
    expect(parseStructure('```\n' + BIN + '\n```', 'hierarchy', true)).toEqual(BIN_S);
    expect(parseStructure(MULTI + '\n\n', 'hierarchy', false)).toEqual(MULTI_S);
  });

  it('"No edges" and single nodes', () => {
    expect(parseStructure('No edges', 'edge', false)).toBeNull();
    expect(parseStructure('no edges.', 'hierarchy', false)).toBeNull();
    expect(isNoEdges(' "No edges" ')).toBe(true);
    expect(isNoEdges('4 -> 1')).toBe(false);
    expect(parseStructure('   5', 'hierarchy', false)).toEqual({ root: 5, children: {} });
  });

  it('returns null for invalid trees and garbage', () => {
    expect(parseStructure('1 -> 2, 2 -> 1', 'edge', false)).toBeNull(); // cycle, no root
    expect(parseStructure('0 -> 1, 1 -> 2, 2 -> 1', 'edge', false)).toBeNull(); // two parents
    expect(parseStructure('0 -> 1, 2 -> 3', 'edge', false)).toBeNull(); // two roots
    expect(parseStructure('0 -> 1, 0 -> 1', 'edge', false)).toBeNull(); // duplicate edge
    expect(parseStructure('0 -> 1, 0 -> 2', 'edge', true)).toBeNull(); // binary without sides
    expect(parseStructure('0 -(L)-> 1, 0 -(L)-> 2', 'edge', true)).toBeNull(); // same side twice
    expect(parseStructure('0 -(L)-> 1, 0 -(R)-> 2, 0 -(R)-> 3', 'edge', true)).toBeNull(); // three children
    expect(parseStructure('the answer is 4', 'edge', false)).toBeNull();
    expect(parseStructure('', 'edge', false)).toBeNull();
    expect(parseStructure('   4\n    |-- 1\n    oops', 'hierarchy', false)).toBeNull();
    expect(parseStructure('   4\n    |-- 1\n    `-- 4', 'hierarchy', false)).toBeNull(); // root repeated
    expect(parseStructure('|-- 1\n`-- 2', 'hierarchy', false)).toBeNull();
    expect(parseStructure('   3\n    |-- 2\n    `-- 1', 'hierarchy', true)).toBeNull(); // binary needs tags
  });
});

describe('structuresEqual', () => {
  it('compares root, parents, sides and optionally order', () => {
    const swapped: TreeStructure = { root: 4, children: { '4': [3, 1], '1': [2, 0] } };
    expect(structuresEqual(MULTI_S, swapped, { binary: false })).toBe(true);
    expect(structuresEqual(MULTI_S, swapped, { binary: false, ordered: true })).toBe(false);
    expect(structuresEqual(MULTI_S, { root: 4, children: { '4': [1, 3], '1': [0], '3': [2] } }, { binary: false })).toBe(false);
    expect(structuresEqual(MULTI_S, { root: 1, children: { '1': [4, 0, 2], '4': [3] } }, { binary: false })).toBe(false);
    expect(structuresEqual(MULTI_S, { root: 4, children: { '4': [1, 3], '1': [0, 2], '3': [] } }, { binary: false, ordered: true })).toBe(true);
    expect(structuresEqual(MULTI_S, { root: 4, children: { '4': [1, 3], '1': [0, 2, 5] } }, { binary: false })).toBe(false);
    const mirrored: TreeStructure = { ...BIN_S, side: { '2': 'R', '0': 'L', '1': 'L' } };
    expect(structuresEqual(BIN_S, mirrored, { binary: true })).toBe(false);
    expect(structuresEqual(BIN_S, mirrored, { binary: false })).toBe(true);
    expect(structuresEqual(BIN_S, { ...BIN_S, children: { '3': [1, 2], '2': [0] } }, { binary: true })).toBe(true);
  });
});
