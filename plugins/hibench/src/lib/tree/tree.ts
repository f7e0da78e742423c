/**
 * The tree model of the Binary Tree and Multiple Tree scenarios (specs/hibench.md §3.0–§3.2): an immutable rooted tree
 * with ordered children (rendering order = creation order) and, for binary trees, an L/R tag per edge; the §3.0
 * generator; the per-preset (N, M, D) sampling; and every algorithm the questions need (traversals, AVL balance,
 * mirror, ancestors, descendants, LCA, depth, height, add/remove node, AHU canonical form).
 */
import type { Rng } from '../../rng.js';
import { rngFor } from '../../rng.js';
import type { TreeStructure } from '../../types.js';

/** The side of the edge from a binary node's parent (§3.0 step 2). */
export type Side = 'L' | 'R';

/**
 * An immutable rooted tree (§3.0). `children` has an entry for every node (leaves: `[]`), in rendering order; `order`
 * lists the nodes level by level following the child order (for generated trees this is the creation order);
 * `parent` maps every non-root node to its parent; `side` is set for binary trees only (every non-root node tagged).
 */
export interface Tree {
  readonly root: number;
  readonly order: readonly number[];
  readonly children: ReadonlyMap<number, readonly number[]>;
  readonly parent: ReadonlyMap<number, number>;
  readonly side: ReadonlyMap<number, Side> | null;
}

/**
 * Build and validate a tree (§3.0 invariants): every listed child has exactly one parent, the root has none, every
 * node is reachable from the root (no cycles, no second root); binary (`side` given): at most 2 children per node,
 * every child tagged, siblings on different sides.
 * @param children parent → ordered children; nodes absent from the map are leaves.
 * @returns the tree, or an error message when the input is not a valid tree.
 */
export function tryMakeTree(root: number, children: ReadonlyMap<number, readonly number[]>, side: ReadonlyMap<number, Side> | null = null): Tree | string {
  const parent = new Map<number, number>();
  const all = new Set<number>([root]);
  for (const [p, cs] of children) {
    all.add(p);
    if (side && cs.length > 2) return `node ${p} has ${cs.length} children in a binary tree`;
    const sides = new Set<Side>();
    for (const c of cs) {
      if (c === root) return `the root ${root} has a parent (${p})`;
      if (parent.has(c)) return `node ${c} has two parents (${parent.get(c)} and ${p})`;
      parent.set(c, p);
      all.add(c);
      if (side) {
        const s = side.get(c);
        if (s !== 'L' && s !== 'R') return `edge ${p} -> ${c} has no side`;
        if (sides.has(s)) return `node ${p} has two ${s} children`;
        sides.add(s);
      }
    }
  }
  const full = new Map<number, readonly number[]>();
  const order: number[] = [root];
  for (let i = 0; i < order.length; i++) {
    const cs = children.get(order[i]!) ?? [];
    full.set(order[i]!, cs.slice());
    for (const c of cs) order.push(c);
  }
  if (order.length !== all.size) return `the nodes do not form one tree rooted at ${root} (cycle or second root)`;
  let sideMap: Map<number, Side> | null = null;
  if (side) {
    sideMap = new Map();
    for (const n of order) if (n !== root) sideMap.set(n, side.get(n)!);
  }
  return { root, order, children: full, parent, side: sideMap };
}

/**
 * Like {@link tryMakeTree} but throwing.
 * @throws RangeError when the input is not a valid tree.
 */
export function makeTree(root: number, children: ReadonlyMap<number, readonly number[]>, side: ReadonlyMap<number, Side> | null = null): Tree {
  const t = tryMakeTree(root, children, side);
  if (typeof t === 'string') throw new RangeError(`invalid tree: ${t}`);
  return t;
}

/**
 * The record shape of a tree (`TreeStructure`, types.ts): `children` keyed by node id, leaves omitted, child lists in
 * rendering order; `side` for binary trees only.
 */
export function treeToStructure(t: Tree): TreeStructure {
  const children: Record<string, number[]> = {};
  for (const n of t.order) {
    const cs = t.children.get(n)!;
    if (cs.length) children[String(n)] = cs.slice();
  }
  if (!t.side) return { root: t.root, children };
  const side: Record<string, Side> = {};
  for (const n of t.order) if (n !== t.root) side[String(n)] = t.side.get(n)!;
  return { root: t.root, children, side };
}

/**
 * A tree from its record shape (binary iff `side` is present).
 * @throws RangeError when the structure is not a valid tree (see {@link tryMakeTree}).
 */
export function treeFromStructure(s: TreeStructure): Tree {
  const children = new Map<number, number[]>();
  for (const [k, v] of Object.entries(s.children)) children.set(Number(k), v);
  const side = s.side ? new Map<number, Side>(Object.entries(s.side).map(([k, v]) => [Number(k), v])) : null;
  return makeTree(s.root, children, side);
}

/** Whether `t` carries L/R tags (a binary-tree scenario tree). */
export function isBinary(t: Tree): boolean {
  return t.side !== null;
}

/** Number of nodes N. */
export function nodeCount(t: Tree): number {
  return t.order.length;
}

/** Number of levels M including the root (§3.0), i.e. the height of the root's subtree in nodes. */
export function levelCount(t: Tree): number {
  return heightOf(t, t.root);
}

/** Number of edges (N − 1). */
export function edgeCount(t: Tree): number {
  return t.order.length - 1;
}

/** Largest out-degree over all nodes. */
export function maxOutDegree(t: Tree): number {
  let d = 0;
  for (const cs of t.children.values()) d = Math.max(d, cs.length);
  return d;
}

/** @throws RangeError when `x` is not a node of `t`. */
function need(t: Tree, x: number): void {
  if (!t.children.has(x)) throw new RangeError(`node ${x} is not in the tree`);
}

/** Whether node `x` has no children (Leaf task, §3.2). @throws RangeError for an unknown node. */
export function isLeaf(t: Tree, x: number): boolean {
  need(t, x);
  return t.children.get(x)!.length === 0;
}

/** The proper ancestors of `x`, ascending (All Ancestor, §3.2; empty for the root). @throws RangeError for an unknown node. */
export function ancestorsOf(t: Tree, x: number): number[] {
  need(t, x);
  const out: number[] = [];
  for (let p = t.parent.get(x); p !== undefined; p = t.parent.get(p)) out.push(p);
  return out.sort((a, b) => a - b);
}

/** The proper descendants of `x`, ascending (All Children, §3.2 / §7 rec. 2; empty for a leaf). @throws RangeError for an unknown node. */
export function descendantsOf(t: Tree, x: number): number[] {
  need(t, x);
  const out: number[] = [];
  const stack = [...t.children.get(x)!];
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n);
    stack.push(...t.children.get(n)!);
  }
  return out.sort((a, b) => a - b);
}

/** The path root → x (inclusive). */
function pathFromRoot(t: Tree, x: number): number[] {
  const path = [x];
  for (let p = t.parent.get(x); p !== undefined; p = t.parent.get(p)) path.push(p);
  return path.reverse();
}

/**
 * The lowest common ancestor of `x` and `y` (Common Ancestor, §3.2): the deepest node on both root paths; may be `x`
 * or `y` itself. @throws RangeError for an unknown node.
 */
export function lowestCommonAncestor(t: Tree, x: number, y: number): number {
  need(t, x);
  need(t, y);
  const a = pathFromRoot(t, x);
  const b = pathFromRoot(t, y);
  let i = 0;
  while (i + 1 < a.length && i + 1 < b.length && a[i + 1] === b[i + 1]) i++;
  return a[i]!;
}

/** Depth of `x` with the root at depth 1 (Node Depth, strict, §7 rec. 1). @throws RangeError for an unknown node. */
export function depthOf(t: Tree, x: number): number {
  need(t, x);
  let d = 1;
  for (let p = t.parent.get(x); p !== undefined; p = t.parent.get(p)) d++;
  return d;
}

/** Height of the subtree rooted at `x` counted in nodes, leaf = 1 (Node Depth, compat = toolkit gold, §3.2). @throws RangeError for an unknown node. */
export function heightOf(t: Tree, x: number): number {
  need(t, x);
  // Iterative post-order so deep trees do not overflow the stack.
  const h = new Map<number, number>();
  const stack: [number, boolean][] = [[x, false]];
  while (stack.length) {
    const [n, done] = stack.pop()!;
    const cs = t.children.get(n)!;
    if (done) {
      let m = 0;
      for (const c of cs) m = Math.max(m, h.get(c)!);
      h.set(n, m + 1);
    } else {
      stack.push([n, true]);
      for (const c of cs) stack.push([c, false]);
    }
  }
  return h.get(x)!;
}

/** The L and R children of a binary node (undefined when missing). */
export function sidesOf(t: Tree, x: number): { L: number | undefined; R: number | undefined } {
  const out: { L: number | undefined; R: number | undefined } = { L: undefined, R: undefined };
  if (!t.side) return out;
  for (const c of t.children.get(x) ?? []) out[t.side.get(c)!] = c;
  return out;
}

/** @throws RangeError when `t` is not binary. */
function needBinary(t: Tree, what: string): void {
  if (!t.side) throw new RangeError(`${what} needs a binary tree (L/R tags)`);
}

/** Binary traversal in one of the three orders, L before R regardless of listing order (§3.1). */
function traverse(t: Tree, order: 'pre' | 'in' | 'post'): number[] {
  needBinary(t, `${order}order traversal`);
  const out: number[] = [];
  // Explicit stack of (node, visited) to stay iterative.
  const stack: [number, boolean][] = [[t.root, false]];
  while (stack.length) {
    const [n, expanded] = stack.pop()!;
    if (expanded) {
      out.push(n);
      continue;
    }
    const { L, R } = sidesOf(t, n);
    // Push in reverse of the visiting order.
    if (order === 'pre') {
      if (R !== undefined) stack.push([R, false]);
      if (L !== undefined) stack.push([L, false]);
      out.push(n);
    } else if (order === 'in') {
      if (R !== undefined) stack.push([R, false]);
      stack.push([n, true]);
      if (L !== undefined) stack.push([L, false]);
    } else {
      stack.push([n, true]);
      if (R !== undefined) stack.push([R, false]);
      if (L !== undefined) stack.push([L, false]);
    }
  }
  return out;
}

/** Pre-order (root, L, R) of a binary tree (Prefix Traversal, §3.1). @throws RangeError when not binary. */
export function preorder(t: Tree): number[] {
  return traverse(t, 'pre');
}

/** In-order (L, root, R) of a binary tree (Infix Traversal, §3.1). @throws RangeError when not binary. */
export function inorder(t: Tree): number[] {
  return traverse(t, 'in');
}

/** Post-order (L, R, root) of a binary tree (Postfix Traversal, §3.1). @throws RangeError when not binary. */
export function postorder(t: Tree): number[] {
  return traverse(t, 'post');
}

/**
 * AVL height balance (Balance, §3.1): at every node |h(L) − h(R)| ≤ 1 with h(missing) = 0, h(leaf) = 1, using the
 * L/R tags. @throws RangeError when not binary.
 */
export function isHeightBalanced(t: Tree): boolean {
  needBinary(t, 'balance');
  const h = new Map<number, number>();
  for (let i = t.order.length - 1; i >= 0; i--) {
    const n = t.order[i]!;
    const { L, R } = sidesOf(t, n);
    const hl = L === undefined ? 0 : h.get(L)!;
    const hr = R === undefined ? 0 : h.get(R)!;
    if (Math.abs(hl - hr) > 1) return false;
    h.set(n, Math.max(hl, hr) + 1);
  }
  return true;
}

/** The mirror (Mirror Tree, §3.1): every L tag becomes R and vice versa; the child listing order is kept. @throws RangeError when not binary. */
export function mirrorTree(t: Tree): Tree {
  needBinary(t, 'mirror');
  const side = new Map<number, Side>();
  for (const [n, s] of t.side!) side.set(n, s === 'L' ? 'R' : 'L');
  return makeTree(t.root, t.children, side);
}

/**
 * Add node `k` as the last child of `parent` (Add Node, §3.2; the new node is appended after the existing children).
 * @throws RangeError when `parent` is unknown or `k` already exists; for a binary tree (not used by the benchmark).
 */
export function addNode(t: Tree, k: number, parent: number): Tree {
  need(t, parent);
  if (t.children.has(k)) throw new RangeError(`node ${k} already exists`);
  if (t.side) throw new RangeError('addNode is defined for multiple trees only');
  const children = new Map(t.children);
  children.set(parent, [...t.children.get(parent)!, k]);
  return makeTree(t.root, children);
}

/**
 * Remove node `x` (Remove Node, §3.2). Non-root: `x`'s children are appended, in their order, after its parent's
 * remaining children. Root: the first child becomes the new root and the root's other children are appended after the
 * new root's own children. A one-node result renders as "No edges".
 * @throws RangeError when `x` is unknown, or when removing the only node; for a binary tree (not used by the benchmark).
 */
export function removeNode(t: Tree, x: number): Tree {
  need(t, x);
  if (t.side) throw new RangeError('removeNode is defined for multiple trees only');
  const kids = t.children.get(x)!;
  const children = new Map(t.children);
  children.delete(x);
  const p = t.parent.get(x);
  if (p !== undefined) {
    children.set(p, [...t.children.get(p)!.filter((c) => c !== x), ...kids]);
    return makeTree(t.root, children);
  }
  if (kids.length === 0) throw new RangeError('cannot remove the only node of a tree');
  const [newRoot, ...rest] = kids as [number, ...number[]];
  children.set(newRoot, [...t.children.get(newRoot)!, ...rest]);
  return makeTree(newRoot, children);
}

/**
 * AHU canonical encoding of the unlabelled rooted (directed) tree, child order ignored (Isomorphic, §3.2, §7 rec. 4):
 * two trees are isomorphic iff their encodings are equal. Code of a node = "(" + sorted child codes + ")".
 */
export function canonicalForm(t: Tree): string {
  const code = new Map<number, string>();
  for (let i = t.order.length - 1; i >= 0; i--) {
    const n = t.order[i]!;
    const cs = t.children.get(n)!.map((c) => code.get(c)!);
    cs.sort();
    code.set(n, `(${cs.join('')})`);
  }
  return code.get(t.root)!;
}

/** Directed, unlabelled isomorphism of two trees via {@link canonicalForm}. */
export function isIsomorphic(a: Tree, b: Tree): boolean {
  return a.order.length === b.order.length && canonicalForm(a) === canonicalForm(b);
}

/**
 * Relabel the nodes (`mapping` old → new, a bijection onto new ids) and optionally shuffle every child list with
 * `rng` (strict isomorphic positives, §7 rec. 4). Sides are carried along.
 * @throws RangeError when the mapping is not injective on the tree's nodes.
 */
export function relabelTree(t: Tree, mapping: ReadonlyMap<number, number>, rng?: Rng): Tree {
  const m = (n: number): number => {
    const v = mapping.get(n);
    if (v === undefined) throw new RangeError(`relabel: node ${n} has no image`);
    return v;
  };
  const children = new Map<number, number[]>();
  for (const [n, cs] of t.children) {
    const mapped = cs.map(m);
    children.set(m(n), rng ? rng.shuffle(mapped) : mapped);
  }
  const side = t.side ? new Map<number, Side>([...t.side].map(([n, s]) => [m(n), s])) : null;
  return makeTree(m(t.root), children, side);
}

// ---------------------------------------------------------------------------------------------------------------
// Generator (§3.0)

/** The maximum node count (D^M − 1)/(D − 1) of a tree with M levels and max out-degree D (M for D = 1). */
export function maxNodes(levels: number, degree: number): number {
  if (degree <= 1) return levels;
  return (degree ** levels - 1) / (degree - 1);
}

/** The admissible node counts N ∈ [M, (D^M − 1)/(D − 1)] for (M, D) (§3.0). */
export function admissibleNodeCounts(levels: number, degree: number): number[] {
  const out: number[] = [];
  for (let n = levels; n <= maxNodes(levels, degree); n++) out.push(n);
  return out;
}

/** The parameters of one generated tree: N nodes, M levels, max out-degree D, balanced and binary flags (§3.0). */
export interface TreeShape {
  nodes: number;
  levels: number;
  degree: number;
  balanced: boolean;
  binary: boolean;
}

/**
 * The toolkit's lower bound on a parent's out-degree (§3.0 step 2, `get_min_degree`), before clipping.
 * t = 1-based level of the parent, p = parents left on the level after this one, q = children already on the next level.
 */
function toolkitLowerBound(n: number, k: number, m: number, t: number, p: number, q: number, d: number): number {
  if (m - t === 1) return Math.max(0, n - k - p * d);
  const num = (n - k) * (1 - d) - p * d * (1 - d ** (m - t));
  const den = (1 - d ** (m - t - 1)) * d;
  return Math.max(0, Math.ceil(num / den - q));
}

/**
 * The exact feasible out-degree interval for a parent: the degrees from which a tree with exactly N nodes and exactly
 * M levels can still be completed (later parents on the level may take 0..D children each; each of the L levels below
 * the next one must be non-empty and at most D times the previous one).
 */
function exactBounds(n: number, k: number, m: number, t: number, p: number, q: number, d: number): [number, number] {
  const r = n - k;
  const below = m - t - 1; // levels strictly below the next level
  if (below < 0) return [0, 0];
  let aLo: number;
  let aHi: number;
  if (below === 0) {
    aLo = Math.max(r, 1 - q);
    aHi = r;
  } else {
    const g = d <= 1 ? below : (d * (d ** below - 1)) / (d - 1); // capacity below one next-level node
    aLo = Math.max(0, 1 - q, Math.ceil((r - q * g) / (1 + g)));
    aHi = r - below;
  }
  return [Math.max(0, aLo - p * d), Math.min(d, aHi, r)];
}

/** Diagnostics of {@link generateTree}: how often the toolkit bounds had to be tightened to stay feasible. */
export const generatorStats = { parents: 0, tightened: 0 };

/**
 * Generate one tree (§3.0): a random permutation P of 0..N−1 gives the ids in creation order (root = P[0]); levels are
 * filled parent by parent with an out-degree drawn uniformly from [lo, hi] (the toolkit's bounds intersected with the
 * exact feasibility interval, so the result always has exactly N nodes and M levels); children are the next ids of P
 * in random order, appended to the parent's child list; binary trees tag the first child L or R at random and the
 * second with the other side. Binary balanced: N < 2^(M−1) is first resampled from [2^(M−1), 2^M − 1], then every
 * parent gets 2 children while nodes remain (complete binary tree). Multi-tree balanced (unused by the presets, §7
 * rec. 25): the toolkit's greedy fill min(N − ⌊K/|level|⌋, D), which may give fewer than M levels.
 * @throws RangeError when N < M, N > (D^M − 1)/(D − 1), D < 1, or binary with D ≠ 2.
 */
export function generateTree(shape: TreeShape, rng: Rng): Tree {
  const { levels: m, degree: d, balanced, binary } = shape;
  let n = shape.nodes;
  if (binary && d !== 2) throw new RangeError('a binary tree needs degree 2');
  if (d < 1 || m < 1) throw new RangeError(`invalid tree shape M=${m} D=${d}`);
  if (binary && balanced && n < 2 ** (m - 1)) n = rng.int(2 ** (m - 1), 2 ** m - 1);
  if (n < m || n > maxNodes(m, d)) throw new RangeError(`no tree with N=${n} nodes, M=${m} levels and max degree ${d}`);
  const perm = rng.shuffle(Array.from({ length: n }, (_, i) => i));
  const root = perm[0]!;
  const children = new Map<number, number[]>();
  const side = binary ? new Map<number, Side>() : null;
  let level = [root];
  let k = 1;
  for (let t = 1; t <= m && k < n; t++) {
    const next: number[] = [];
    let p = level.length - 1;
    let q = 0;
    for (const parent of level) {
      let degree: number;
      if (balanced && binary) {
        degree = Math.min(2, n - k);
      } else if (balanced) {
        degree = Math.min(Math.min(n - Math.floor(k / level.length), d), n - k);
      } else {
        const r = n - k;
        const tkLo = Math.min(toolkitLowerBound(n, k, m, t, p, q, d), r, d);
        const tkHi = Math.max(0, Math.min(d, r + t - m + 1));
        const [exLo, exHi] = exactBounds(n, k, m, t, p, q, d);
        let lo = Math.max(tkLo, exLo);
        let hi = Math.min(tkHi, exHi);
        generatorStats.parents++;
        if (lo > hi) {
          generatorStats.tightened++;
          lo = exLo;
          hi = exHi;
        } else if (lo !== tkLo || hi !== tkHi) {
          generatorStats.tightened++;
        }
        degree = rng.int(lo, hi);
      }
      const kids = rng.shuffle(perm.slice(k, k + degree));
      if (kids.length) children.set(parent, kids);
      if (side && kids.length) {
        const first: Side = rng.bool() ? 'L' : 'R';
        side.set(kids[0]!, first);
        if (kids.length > 1) side.set(kids[1]!, first === 'L' ? 'R' : 'L');
      }
      next.push(...kids);
      k += kids.length;
      q += kids.length;
      p--;
    }
    level = next;
  }
  const tree = makeTree(root, children, side);
  if (nodeCount(tree) !== n) throw new Error(`generator bug: ${nodeCount(tree)} nodes instead of ${n}`);
  if (!(balanced && !binary) && levelCount(tree) !== m) throw new Error(`generator bug: ${levelCount(tree)} levels instead of ${m}`);
  return tree;
}

// ---------------------------------------------------------------------------------------------------------------
// Presets (§3.1, §3.2)

/** A difficulty preset: level range, degree range, balance flag (§3.1 binary_scale, §3.2 norm_scales). */
export interface TreePreset {
  id: string;
  levels: readonly number[];
  degrees: readonly number[];
  balanced: boolean;
}

/** Binary presets (§3.1): easy M 2–4, medium 5–7, hard 8–9, D = 2, each unbalanced and balanced (138 structures). */
export const BINARY_PRESET_DEFS: readonly TreePreset[] = [
  { id: 'easy', levels: [2, 3, 4], degrees: [2], balanced: false },
  { id: 'easy-balanced', levels: [2, 3, 4], degrees: [2], balanced: true },
  { id: 'medium', levels: [5, 6, 7], degrees: [2], balanced: false },
  { id: 'medium-balanced', levels: [5, 6, 7], degrees: [2], balanced: true },
  { id: 'hard', levels: [8, 9], degrees: [2], balanced: false },
  { id: 'hard-balanced', levels: [8, 9], degrees: [2], balanced: true },
];

/** Multiple-tree presets (§3.2, unbalanced only; 177 structures). */
export const MULTIPLE_PRESET_DEFS: readonly TreePreset[] = [
  { id: 'easy', levels: [2, 3], degrees: [2, 3], balanced: false },
  { id: 'medium-1', levels: [2, 3], degrees: [3, 4], balanced: false },
  { id: 'medium-2', levels: [3, 4], degrees: [2, 3], balanced: false },
  { id: 'hard-1', levels: [2, 3], degrees: [5, 6], balanced: false },
  { id: 'hard-2', levels: [5, 6], degrees: [2, 3], balanced: false },
];

/** Trees built per sampled (N, M, D) (§3.0, NUM_PER_CATEGORY). */
export const TREES_PER_SIZE = 3;

/** One sampled structure of a preset: its index within the preset, its shape (N after any resampling) and the tree. */
export interface SampledStructure {
  index: number;
  nodes: number;
  levels: number;
  degree: number;
  balanced: boolean;
  tree: Tree;
}

/**
 * The structures of one preset (§3.0): for each M in the preset's levels and D in its degrees, min(3, #admissible)
 * distinct N drawn without replacement (sorted ascending), 3 trees per N, indexed in that order. Randomness:
 * `rngFor(seed, scenario, preset.id, 'sizes', M, D)` for the N draw and `rngFor(seed, scenario, preset.id, 'tree',
 * index)` per tree, so each structure depends only on its own coordinates.
 */
export function sampleStructures(seed: number, scenario: string, preset: TreePreset, binary: boolean): SampledStructure[] {
  const out: SampledStructure[] = [];
  for (const m of preset.levels) {
    for (const d of preset.degrees) {
      const sizes = rngFor(seed, scenario, preset.id, 'sizes', m, d).sample(admissibleNodeCounts(m, d), TREES_PER_SIZE).sort((a, b) => a - b);
      for (const n of sizes) {
        for (let j = 0; j < TREES_PER_SIZE; j++) {
          const index = out.length;
          const tree = generateTree({ nodes: n, levels: m, degree: d, balanced: preset.balanced, binary }, rngFor(seed, scenario, preset.id, 'tree', index));
          out.push({ index, nodes: nodeCount(tree), levels: m, degree: d, balanced: preset.balanced, tree });
        }
      }
    }
  }
  return out;
}
