import { createHash } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import { isHptError } from '@hpt-bench/core';
import { rngFor } from '../../plugins/hibench/src/rng.js';
import { BINARY_PRESETS, BINARY_TASKS, BINARY_TREE, generateBinaryTree } from '../../plugins/hibench/src/binary-tree/index.js';
import { COMPAT_EXAMPLES } from '../../plugins/hibench/src/lib/tree/compat-examples.js';
import { generateMultipleTree, MULTIPLE_PRESETS, MULTIPLE_TASKS, MULTIPLE_TREE } from '../../plugins/hibench/src/multiple-tree/index.js';
import { parseStructure, structuresEqual } from '../../plugins/hibench/src/lib/tree/parse.js';
import { NO_EDGES, renderTree } from '../../plugins/hibench/src/lib/tree/render.js';
import { buildRecord, compatExemplars, drawTask, instantiateTask, OUTPUT_TEMPLATES } from '../../plugins/hibench/src/lib/tree/tasks.js';
import {
  addNode,
  ancestorsOf,
  BINARY_PRESET_DEFS,
  canonicalForm,
  depthOf,
  descendantsOf,
  heightOf,
  inorder,
  isHeightBalanced,
  levelCount,
  lowestCommonAncestor,
  makeTree,
  maxOutDegree,
  mirrorTree,
  MULTIPLE_PRESET_DEFS,
  nodeCount,
  postorder,
  preorder,
  removeNode,
  sampleStructures,
  sidesOf,
  treeFromStructure,
  treeToStructure,
  type Tree,
} from '../../plugins/hibench/src/lib/tree/tree.js';
import type { GenerateOptions, HibenchRecord } from '../../plugins/hibench/src/types.js';

const opts = (over: Partial<GenerateOptions> = {}): GenerateOptions => ({ seed: 6703, compat: 'strict', filter: {}, ...over });
const hash = (records: Iterable<HibenchRecord>): string => {
  const h = createHash('sha256');
  for (const r of records) h.update(JSON.stringify(r) + '\n');
  return h.digest('hex');
};

const cache = new Map<string, HibenchRecord[]>();
function suite(scenario: 'binary' | 'multiple', compat: 'strict' | 'reference' = 'strict', seed = 6703): HibenchRecord[] {
  const key = `${scenario}|${compat}|${seed}`;
  let r = cache.get(key);
  if (!r) {
    const gen = scenario === 'binary' ? generateBinaryTree : generateMultipleTree;
    r = [...gen(opts({ compat, seed }))];
    cache.set(key, r);
  }
  return r;
}

const trees = new WeakMap<object, Tree>();
/** The record's input tree (memoised per shared structure object, so renderings are memoised too). */
const tree = (r: HibenchRecord): Tree => {
  let t = trees.get(r.structure!);
  if (!t) {
    t = treeFromStructure(r.structure!);
    trees.set(r.structure!, t);
  }
  return t;
};

/** Independent recursive reference traversals (L before R by tag). */
function refTraversal(t: Tree, kind: 'pre' | 'in' | 'post'): number[] {
  const go = (n: number | undefined): number[] => {
    if (n === undefined) return [];
    const { L, R } = sidesOf(t, n);
    if (kind === 'pre') return [n, ...go(L), ...go(R)];
    if (kind === 'in') return [...go(L), n, ...go(R)];
    return [...go(L), ...go(R), n];
  };
  return go(t.root);
}

describe('§3.7 fully assembled queries', () => {
  const t = makeTree(
    4,
    new Map([
      [4, [1, 3]],
      [1, [0, 2]],
    ]),
  );
  const structure = treeToStructure(t);
  const base = {
    kind: MULTIPLE_TREE,
    task: 'leaf' as const,
    preset: 'easy',
    index: 0,
    representation: 'edge' as const,
    seed: 1,
    params: {},
    args: { node: 1 },
    structure,
  };
  const zero =
    'Given the hierarchical structure 4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3, is node 1 a leaf node?' +
    '\n' +
    'Please return the answer in JSON format directly like {"answer": true} if it is leaf node, or {"answer": false} if it is not, and do not feedback the detailed process.';

  it('zero-shot Leaf query (edge mode)', () => {
    for (const compat of ['strict', 'reference'] as const) {
      const instance = instantiateTask(MULTIPLE_TREE, 'leaf', t, { args: { node: 1 } }, 'edge', compat);
      const r = buildRecord({ ...base, icl: 'zero', compat, instance, exemplars: compatExemplars('leaf') });
      expect(r.system).toBe(
        'As an AI agent, you are tasked with performing hierarchical structure reasoning to assist in understanding and analyzing complex organizational frameworks.',
      );
      expect(r.prompt).toBe(zero);
      expect(r.target).toBe(false);
      expect(r.matcher).toEqual({ type: 'string' });
      expect(r.id).toBe('multiple-tree/leaf/easy/0/edge/zero');
    }
  });

  it('one-shot prefix with the toolkit example (compat)', () => {
    const instance = instantiateTask(MULTIPLE_TREE, 'leaf', t, { args: { node: 1 } }, 'edge', 'reference');
    const r = buildRecord({ ...base, icl: 'one', compat: 'reference', instance, exemplars: compatExemplars('leaf') });
    expect(r.prompt).toBe(
      'Here is one example.The input is Given the hierarchical structure 3 -> 2, 3 -> 1, 1 -> 0, please determine if the node 2 is a leaf node., the answer is true.' +
        '\n' +
        zero,
    );
  });

  it('question texts, targets and matchers of the §3.7 multiple tree', () => {
    const inst = (task: Parameters<typeof instantiateTask>[1], args: Record<string, unknown>, rep: 'edge' | 'hierarchy' = 'edge', compat: 'strict' | 'reference' = 'strict') =>
      instantiateTask(MULTIPLE_TREE, task, t, { args: args as never }, rep, compat);
    expect(inst('root', {}).target).toBe(4);
    expect(inst('root', {}).question).toBe('Given the hierarchical structure 4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3, which node is the root?');
    expect(inst('all_ancestor', { node: 2 }).target).toEqual([1, 4]);
    expect(inst('all_ancestor', { node: 4 }).target).toBe('None');
    expect(inst('all_ancestor', { node: 4 }).matcher).toEqual({ type: 'list', sep: ',', none: 'None' });
    expect(inst('all_children', { node: 4 }).target).toEqual([0, 1, 2, 3]);
    expect(inst('all_children', { node: 3 }).target).toBe('None');
    expect(inst('all_children', { node: 1 }, 'edge', 'reference').question).toMatch(/, please find out all the children of node 1\.$/);
    expect(inst('all_children', { node: 1 }, 'edge', 'strict').question).toMatch(/descendants \(children, grandchildren, and so on\) of node 1\.$/);
    expect(inst('common_ancestor', { nodes: [0, 3] }).target).toBe(4);
    expect(inst('common_ancestor', { nodes: [1, 2] }).question).toMatch(/determine the lowest common ancestor of the nodes 1 and 2 within the structure\.$/);
    expect(inst('node_depth', { node: 4 }, 'edge', 'reference').target).toBe(3);
    expect(inst('node_depth', { node: 4 }, 'edge', 'strict').target).toBe(1);
    expect(inst('node_depth', { node: 0 }, 'edge', 'strict').target).toBe(3);
    const add = inst('add_node', { new: 5, parent: 3 }, 'hierarchy');
    expect(add.target).toBe('   4\n    |-- 1\n    |   |-- 0\n    |   `-- 2\n    `-- 3\n        `-- 5');
    expect(add.question).toBe(
      'Given the hierarchical structure    4\n    |-- 1\n    |   |-- 0\n    |   `-- 2\n    `-- 3, add a new node 5 as a child to the node 3 in the given structure.',
    );
    expect(add.matcher).toEqual({ type: 'structure', representation: 'hierarchy', binary: false });
    const rem = inst('remove_node', { node: 4 }, 'edge');
    expect(rem.target).toBe('1 -> 0, 1 -> 2, 1 -> 3');
    expect(rem.matcher).toEqual({ type: 'structure', representation: 'edge', binary: false, empty: 'No edges' });
    expect(inst('remove_node', { node: 1 }, 'hierarchy').target).toBe('   4\n    |-- 3\n    |-- 0\n    `-- 2');
    const two = makeTree(7, new Map([[7, [2]]]));
    expect(instantiateTask(MULTIPLE_TREE, 'remove_node', two, { args: { node: 2 } }, 'edge', 'strict').target).toBe(NO_EDGES);
    // issue 25: the node left is recorded, the only bare node strict scoring accepts
    expect(instantiateTask(MULTIPLE_TREE, 'remove_node', two, { args: { node: 2 } }, 'edge', 'strict').matcher).toEqual({ type: 'structure', representation: 'edge', binary: false, empty: 'No edges', emptyNode: 7 });
    expect(instantiateTask(MULTIPLE_TREE, 'remove_node', two, { args: { node: 7 } }, 'hierarchy', 'strict').matcher.emptyNode).toBe(2);
  });

  it('binary questions on the §3.7 binary tree', () => {
    const b = makeTree(
      3,
      new Map([
        [3, [2, 1]],
        [2, [0]],
      ]),
      new Map([
        [2, 'L'],
        [0, 'R'],
        [1, 'R'],
      ] as const),
    );
    const inst = (task: Parameters<typeof instantiateTask>[1], rep: 'edge' | 'hierarchy', args: Record<string, unknown> = {}) =>
      instantiateTask(BINARY_TREE, task, b, { args: args as never }, rep, 'strict');
    expect(inst('prefix_traversal', 'edge').target).toEqual([3, 2, 0, 1]);
    expect(inst('prefix_traversal', 'edge').matcher).toEqual({ type: 'list', sep: ',', ordered: true });
    expect(inst('infix_traversal', 'edge').target).toEqual([2, 0, 3, 1]);
    expect(inst('postfix_traversal', 'edge').target).toEqual([0, 2, 1, 3]);
    expect(inst('balance', 'edge').target).toBe(true);
    expect(inst('balance', 'edge').question).toBe(
      'Given the binary tree-liked hierarchical structure 3 -(L)-> 2, 2 -(R)-> 0, 3 -(R)-> 1, determine whether it is a balanced tree?',
    );
    expect(inst('mirror_tree', 'edge').target).toBe('3 -(R)-> 2, 2 -(L)-> 0, 3 -(L)-> 1');
    expect(inst('mirror_tree', 'hierarchy').target).toBe('   3\n    |-(R)-2\n    |   `-(L)-0\n    `-(L)-1');
    expect(inst('mirror_tree', 'hierarchy').matcher).toEqual({ type: 'structure', representation: 'hierarchy', binary: true });
    const tov = inst('traversal_order_verification', 'edge', { sequence: [2, 0, 3, 1], order: 'inorder' });
    expect(tov.question).toMatch(/, and a traversal sequence \[2, 0, 3, 1\], verify if it is the preorder, inorder, and postorder consistent with the tree\.$/);
    expect(tov.target).toBe('inorder');
    expect(tov.outputTemplate).toBe(OUTPUT_TEMPLATES.traversal_order_verification);
  });
});

describe('suite sizes (§1.1, Tables 5-6)', () => {
  it('default suites have 4,968 and 9,558 records with unique ids', () => {
    const b = suite('binary');
    const m = suite('multiple');
    expect(b.length).toBe(4968);
    expect(m.length).toBe(9558);
    expect(new Set(b.map((r) => r.id)).size).toBe(4968);
    expect(new Set(m.map((r) => r.id)).size).toBe(9558);
    expect(suite('binary', 'reference').length).toBe(4968);
    expect(suite('multiple', 'reference').length).toBe(9558);
  });

  it('structure counts per preset: binary 48/54/36, multiple 33/36/36/36/36', () => {
    const count = (defs: typeof BINARY_PRESET_DEFS, scenario: string, binary: boolean) =>
      Object.fromEntries(defs.map((p) => [p.id, sampleStructures(1, scenario, p, binary).length]));
    const b = count(BINARY_PRESET_DEFS, 'binary-tree', true);
    expect(b['easy']! + b['easy-balanced']!).toBe(48);
    expect(b['medium']! + b['medium-balanced']!).toBe(54);
    expect(b['hard']! + b['hard-balanced']!).toBe(36);
    expect(count(MULTIPLE_PRESET_DEFS, 'multiple-tree', false)).toEqual({ easy: 33, 'medium-1': 36, 'medium-2': 36, 'hard-1': 36, 'hard-2': 36 });
    // Same from the records: distinct structures per preset.
    const per = (records: HibenchRecord[]) => {
      const m = new Map<string, Set<number>>();
      for (const r of records) (m.get(r.preset) ?? m.set(r.preset, new Set()).get(r.preset)!).add(r.params['index'] as number);
      return Object.fromEntries([...m].map(([k, v]) => [k, v.size]));
    };
    expect(per(suite('binary'))).toEqual({ easy: 24, 'easy-balanced': 24, medium: 27, 'medium-balanced': 27, hard: 18, 'hard-balanced': 18 });
    expect(per(suite('multiple'))).toEqual({ easy: 33, 'medium-1': 36, 'medium-2': 36, 'hard-1': 36, 'hard-2': 36 });
  });

  it('presets and tasks are the documented lists; stream order is preset → structure → task → representation → icl', () => {
    expect(BINARY_PRESETS).toEqual(['easy', 'easy-balanced', 'medium', 'medium-balanced', 'hard', 'hard-balanced']);
    expect(MULTIPLE_PRESETS).toEqual(['easy', 'medium-1', 'medium-2', 'hard-1', 'hard-2']);
    expect(BINARY_TASKS.length).toBe(6);
    expect(MULTIPLE_TASKS.length).toBe(9);
    const b = suite('binary');
    expect(b.slice(0, 7).map((r) => r.id)).toEqual([
      'binary-tree/balance/easy/0/edge/zero',
      'binary-tree/balance/easy/0/edge/one',
      'binary-tree/balance/easy/0/edge/few',
      'binary-tree/balance/easy/0/hierarchy/zero',
      'binary-tree/balance/easy/0/hierarchy/one',
      'binary-tree/balance/easy/0/hierarchy/few',
      'binary-tree/prefix_traversal/easy/0/edge/zero',
    ]);
    const presetOrder = [...new Set(b.map((r) => r.preset))];
    expect(presetOrder).toEqual([...BINARY_PRESETS]);
    expect(b[b.length - 1]!.id).toBe('binary-tree/mirror_tree/hard-balanced/17/hierarchy/few');
  });
});

describe('determinism', () => {
  it('same seed → byte-identical suites; other seed → different', () => {
    const b1 = hash(suite('binary'));
    const m1 = hash(suite('multiple'));
    expect(hash(generateBinaryTree(opts()))).toBe(b1);
    expect(hash(generateMultipleTree(opts()))).toBe(m1);
    expect(hash(generateBinaryTree(opts({ seed: 6704 })))).not.toBe(b1);
    expect(hash(generateMultipleTree(opts({ seed: 6704 })))).not.toBe(m1);
    expect(hash(suite('multiple', 'reference'))).not.toBe(m1);
  });

  it('every record carries the seed and compat mode', () => {
    expect(suite('binary').every((r) => r.seed === 6703 && r.compat === 'strict')).toBe(true);
    expect(suite('multiple', 'reference').every((r) => r.compat === 'reference')).toBe(true);
  });
});

describe('filters', () => {
  it('--task yields exactly the full suite restricted to that task', () => {
    for (const task of ['isomorphic', 'add_node', 'node_depth']) {
      const filtered = [...generateMultipleTree(opts({ filter: { tasks: [task] } }))];
      expect(filtered.length).toBe(177 * 6);
      expect(JSON.stringify(filtered)).toBe(JSON.stringify(suite('multiple').filter((r) => r.task === task)));
    }
    const tov = [...generateBinaryTree(opts({ filter: { tasks: ['traversal_order_verification'] } }))];
    expect(JSON.stringify(tov)).toBe(JSON.stringify(suite('binary').filter((r) => r.task === 'traversal_order_verification')));
  });

  it('--preset / --representation / --icl combine as a restriction', () => {
    const f = [...generateBinaryTree(opts({ filter: { presets: ['hard-balanced', 'easy'], representations: ['hierarchy'], icl: ['few'] } }))];
    const expected = suite('binary').filter((r) => ['hard-balanced', 'easy'].includes(r.preset) && r.representation === 'hierarchy' && r.icl === 'few');
    expect(f.length).toBe((18 + 24) * 6);
    expect(JSON.stringify(f)).toBe(JSON.stringify(expected));
  });

  it('unknown values are E_CONFIG errors with a suggestion, raised at the call', () => {
    const err = (fn: () => unknown): { code: string; message: string } => {
      try {
        fn();
      } catch (e) {
        if (isHptError(e)) return { code: e.code, message: e.message };
        throw e;
      }
      throw new Error('no error');
    };
    const e1 = err(() => generateMultipleTree(opts({ filter: { tasks: ['leafs'] } })));
    expect(e1.code).toBe('E_CONFIG');
    expect(e1.message).toContain("did you mean 'leaf'");
    const e2 = err(() => generateBinaryTree(opts({ filter: { presets: ['medum'] } })));
    expect(e2.code).toBe('E_CONFIG');
    expect(e2.message).toContain("did you mean 'medium'");
    expect(err(() => generateBinaryTree(opts({ filter: { tasks: ['leaf'] } }))).code).toBe('E_CONFIG');
    expect(err(() => generateBinaryTree(opts({ filter: { semantics: ['normal'] } }))).code).toBe('E_CONFIG');
    expect(err(() => generateMultipleTree(opts({ filter: { icl: ['two' as never] } }))).code).toBe('E_CONFIG');
  });
});

describe('records are consistent with their structure (properties over every generated item)', () => {
  for (const compat of ['strict', 'reference'] as const) {
    it(`binary tree (${compat})`, () => {
      const records = suite('binary', compat);
      const orders = new Map<string, number>();
      for (const r of records) {
        const t = tree(r);
        const p = r.params;
        expect(nodeCount(t)).toBe(p['nodes']);
        expect(levelCount(t)).toBe(p['levels']);
        expect(maxOutDegree(t)).toBeLessThanOrEqual(2);
        expect(r.prompt.endsWith(r.format)).toBe(true);
        expect(r.question.startsWith(`Given the binary tree-liked hierarchical structure ${renderTree(t, r.representation!)}, `)).toBe(true);
        expect(r.exemplars.length).toBe(3);
        if (r.icl === 'zero') expect(r.prompt).toBe(`${r.question}\n${r.format}`);
        else expect(r.prompt.endsWith(`\n${r.question}\n${r.format}`)).toBe(true);
        if (p['balanced']) expect(isHeightBalanced(t)).toBe(true);
        if (r.icl !== 'zero' || r.representation !== 'edge') continue; // one check per (structure, task)
        const pre = preorder(t);
        const ino = inorder(t);
        const post = postorder(t);
        expect(pre).toEqual(refTraversal(t, 'pre'));
        expect(ino).toEqual(refTraversal(t, 'in'));
        expect(post).toEqual(refTraversal(t, 'post'));
        expect([...pre].sort((a, b) => a - b)).toEqual([...t.order].sort((a, b) => a - b));
        expect(pre[0]).toBe(t.root);
        expect(post[post.length - 1]).toBe(t.root);
        switch (r.task) {
          case 'balance':
            expect(r.target).toBe(isHeightBalanced(t));
            break;
          case 'prefix_traversal':
            expect(r.target).toEqual(pre);
            break;
          case 'infix_traversal':
            expect(r.target).toEqual(ino);
            break;
          case 'postfix_traversal':
            expect(r.target).toEqual(post);
            break;
          case 'traversal_order_verification': {
            const seqs = { preorder: pre, inorder: ino, postorder: post } as Record<string, number[]>;
            const label = r.target as string;
            orders.set(label, (orders.get(label) ?? 0) + 1);
            expect(r.args['order']).toBe(label);
            expect(r.args['sequence']).toEqual(seqs[label]);
            if (compat === 'strict') {
              for (const other of Object.keys(seqs)) if (other !== label) expect(seqs[other]).not.toEqual(seqs[label]);
            }
            break;
          }
          case 'mirror_tree': {
            const m = mirrorTree(t);
            expect(r.target).toBe(renderTree(m, 'edge'));
            expect(treeToStructure(mirrorTree(m))).toEqual(r.structure);
            expect(inorder(m)).toEqual([...ino].reverse());
            const parsed = parseStructure(r.target as string, 'edge', true)!;
            expect(structuresEqual(parsed, treeToStructure(m), { binary: true, ordered: true })).toBe(true);
            expect(structuresEqual(parsed, r.structure!, { binary: true })).toBe(false);
            break;
          }
        }
      }
      expect(orders.size).toBe(3);
    });

    it(`multiple tree (${compat})`, () => {
      const records = suite('multiple', compat);
      let iso = 0;
      let isoTrue = 0;
      for (const r of records) {
        const t = tree(r);
        expect(nodeCount(t)).toBe(r.params['nodes']);
        expect(levelCount(t)).toBe(r.params['levels']);
        expect(maxOutDegree(t)).toBeLessThanOrEqual(r.params['degree'] as number);
        expect(r.structure!.side).toBeUndefined();
        if (r.icl !== 'zero') continue;
        const a = r.args;
        const rep = r.representation!;
        switch (r.task) {
          case 'root':
            expect(r.target).toBe(t.root);
            break;
          case 'leaf':
            expect(r.target).toBe(t.children.get(a['node'] as number)!.length === 0);
            break;
          case 'all_ancestor': {
            const xs = ancestorsOf(t, a['node'] as number);
            expect(r.target).toEqual(xs.length ? xs : 'None');
            expect(xs.includes(a['node'] as number)).toBe(false);
            break;
          }
          case 'all_children': {
            const xs = descendantsOf(t, a['node'] as number);
            expect(r.target).toEqual(xs.length ? xs : 'None');
            expect(r.question.includes('descendants')).toBe(compat === 'strict');
            break;
          }
          case 'common_ancestor': {
            const [x, y] = a['nodes'] as [number, number];
            expect(x).not.toBe(y);
            const l = lowestCommonAncestor(t, x, y);
            expect(r.target).toBe(l);
            expect([l, ...ancestorsOf(t, l)].every((z) => z === x || ancestorsOf(t, x).includes(z))).toBe(true);
            break;
          }
          case 'node_depth':
            expect(r.target).toBe(compat === 'strict' ? depthOf(t, a['node'] as number) : heightOf(t, a['node'] as number));
            break;
          case 'add_node': {
            expect(a['new']).toBe(nodeCount(t));
            const added = addNode(t, a['new'] as number, a['parent'] as number);
            expect(r.target).toBe(renderTree(added, rep));
            const parsed = parseStructure(r.target as string, rep, false)!;
            expect(nodeCount(treeFromStructure(parsed))).toBe(nodeCount(t) + 1);
            expect(parsed.children[String(a['parent'])]!.at(-1)).toBe(a['new']);
            break;
          }
          case 'remove_node': {
            const x = a['node'] as number;
            const removed = removeNode(t, x);
            if (nodeCount(t) === 2) {
              expect(r.target).toBe('No edges');
              break;
            }
            const parsed = treeFromStructure(parseStructure(r.target as string, rep, false)!);
            expect(new Set(parsed.order)).toEqual(new Set(t.order.filter((n) => n !== x)));
            expect(treeToStructure(parsed)).toEqual(treeToStructure(removed));
            const p = t.parent.get(x);
            const kids = t.children.get(x)!;
            // Non-root: children move to the parent; root: the first child becomes the root and adopts the others.
            for (const c of kids) expect(parsed.parent.get(c)).toBe(p !== undefined ? p : c === kids[0] ? undefined : kids[0]);
            if (p === undefined) expect(parsed.root).toBe(kids[0]);
            break;
          }
          case 'isomorphic': {
            iso++;
            const second = treeFromStructure(r.structure2!);
            if (r.target === true) isoTrue++;
            if (compat === 'strict') {
              expect(r.target).toBe(canonicalForm(second) === canonicalForm(t));
              expect(nodeCount(second)).toBe(nodeCount(t));
              expect(r.question).toBe(
                `Given the hierarchical structure ${renderTree(t, rep)}, and another hierarchical structure: ${renderTree(second, rep)}, please decide whether the given two structure are isomorphic or not.`,
              );
            } else {
              const removedEdges = a['removed'] as number[][];
              expect(r.target).toBe(removedEdges.length === 0);
              expect(removedEdges.length).toBeLessThanOrEqual(3);
              if (removedEdges.length === 0) expect(r.structure2).toEqual(r.structure);
              else expect(nodeCount(second)).toBeLessThan(nodeCount(t));
              expect(r.question.startsWith('Given the hierarchical structure <STRUCTURE_#0>, and another hierarchical structure: ')).toBe(true);
            }
            break;
          }
        }
      }
      expect(iso).toBe(177 * 2);
      expect(isoTrue / iso).toBeGreaterThan(0.35);
      expect(isoTrue / iso).toBeLessThan(0.65);
    });
  }

  it('paired design: both representations and all ICL modes share the structure and the arguments', () => {
    const groups = new Map<string, HibenchRecord[]>();
    for (const r of suite('multiple')) {
      const k = `${r.task}/${r.preset}/${r.params['index']}`;
      (groups.get(k) ?? groups.set(k, []).get(k)!).push(r);
    }
    expect(groups.size).toBe(177 * 9);
    for (const rs of groups.values()) {
      expect(rs.length).toBe(6);
      for (const r of rs) {
        expect(r.args).toEqual(rs[0]!.args);
        expect(r.structure).toEqual(rs[0]!.structure);
        expect(r.target === rs[0]!.target || r.representation !== rs[0]!.representation || JSON.stringify(r.target) === JSON.stringify(rs[0]!.target)).toBe(true);
      }
    }
  });
});

describe('ICL exemplars', () => {
  it('strict: three generated easy exemplars per (task, representation), JSON answers, fixed by the seed', () => {
    const recs = suite('multiple').filter((r) => r.task === 'node_depth');
    const edge = recs.find((r) => r.representation === 'edge')!.exemplars;
    const hier = recs.find((r) => r.representation === 'hierarchy')!.exemplars;
    expect(edge.length).toBe(3);
    for (const e of edge) {
      expect(e.input).toMatch(/^Given the hierarchical structure .*, determine the depth of the node \d+ within the structure, where the root node is assigned a depth of 1\.$/);
      expect(e.answer).toMatch(/^\{"answer": \d+\}$/);
    }
    expect(hier[0]!.input).toContain('\n');
    expect(recs.every((r) => r.exemplars === (r.representation === 'edge' ? edge : hier) || JSON.stringify(r.exemplars) === JSON.stringify(r.representation === 'edge' ? edge : hier))).toBe(true);
    const few = recs.find((r) => r.icl === 'few')!;
    expect(few.prompt.startsWith(`Here are a few examples. The input is ${few.exemplars[0]!.input}, the answer is ${few.exemplars[0]!.answer}. The input is`)).toBe(true);
    // No exemplar repeats a suite item's question verbatim is not guaranteed, but they come from a distinct rng key.
    const other = [...generateMultipleTree(opts({ seed: 1, filter: { tasks: ['node_depth'], presets: ['easy'], icl: ['few'] } }))][0]!;
    expect(other.exemplars).not.toEqual(few.exemplars);
  });

  it('compat: the toolkit examples for every task', () => {
    for (const task of [...BINARY_TASKS, ...MULTIPLE_TASKS]) expect(COMPAT_EXAMPLES[task]!.length).toBe(3);
    const r = suite('binary', 'reference').find((x) => x.task === 'prefix_traversal' && x.icl === 'one')!;
    expect(r.prompt.startsWith(
      'Here is one example.The input is Given the binary tree-liked hierarchical structure 1 -> 2, 1 -> 3, 2 -> 4, 2 -> 5, 3 -> 6, 3 -> 7, please find the prefix traversal order., the answer is 1, 2, 4, 5, 3, 6, 7.\n',
    )).toBe(true);
  });
});

describe('drawTask', () => {
  it('isomorphic strict positives are relabelled and shuffled copies', () => {
    const t = sampleStructures(5, 'multiple-tree', MULTIPLE_PRESET_DEFS[4]!, false)[10]!.tree;
    let sawRelabel = false;
    for (let i = 0; i < 20; i++) {
      const d = drawTask({ scenario: 'multiple-tree', task: 'isomorphic', tree: t, degree: 3, compat: 'strict' }, rngFor(i, 'iso'));
      if (d.args['isomorphic'] === true) {
        expect(canonicalForm(d.second!)).toBe(canonicalForm(t));
        expect(new Set(d.second!.order)).toEqual(new Set(t.order));
        if (d.second!.root !== t.root || renderTree(d.second!, 'edge') !== renderTree(t, 'edge')) sawRelabel = true;
      } else {
        expect(canonicalForm(d.second!)).not.toBe(canonicalForm(t));
        expect(levelCount(d.second!)).toBe(levelCount(t));
      }
    }
    expect(sawRelabel).toBe(true);
  });
});
