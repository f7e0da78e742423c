/**
 * Tree renderings of the tree scenarios (specs/hibench.md §3.0.1): the edge list and the ASCII text tree
 * ("hierarchy"), both following each node's child listing order; edgeless trees render as "No edges".
 */
import type { Representation, TreeStructure } from '../../types.js';
import { treeFromStructure, type Tree } from './tree.js';

/** The literal of an edgeless structure (§3.0.1, §7 rec. 21). */
export const NO_EDGES = 'No edges';

/** The edge label between a node and its parent: ` -> ` or, binary, ` -(L)-> ` / ` -(R)-> `. */
function arrow(t: Tree, child: number): string {
  return t.side ? ` -(${t.side.get(child)!})-> ` : ' -> ';
}

/**
 * Edge representation (§3.0.1): edges "u -> v" (binary "u -(L)-> v") in depth-first pre-order from the root following
 * the child listing order (not L/R order), joined by ", "; "No edges" for a one-node tree.
 * Example: `3 -(L)-> 2, 2 -(R)-> 0, 3 -(R)-> 1`.
 */
export function renderEdges(t: Tree): string {
  const parts: string[] = [];
  const stack = [t.root];
  while (stack.length) {
    const n = stack.pop()!;
    const cs = t.children.get(n)!;
    if (n !== t.root) parts.push(`${t.parent.get(n)!}${arrow(t, n)}${n}`);
    for (let i = cs.length - 1; i >= 0; i--) stack.push(cs[i]!);
  }
  return parts.length ? parts.join(', ') : NO_EDGES;
}

/**
 * Hierarchy (text-tree) representation (§3.0.1): root line = three spaces + id; a child line = prefix + connector +
 * id with connector "|-- " / "`-- " (binary "|-(L)-" / "`-(R)-" etc., no space before the id) for a non-last / last
 * child; the children's prefix = the node's prefix + "    " if the node is a last child (the root counts as last) else
 * "|   "; lines joined by "\n"; "No edges" for a one-node tree.
 * Example: `"   4\n    |-- 1\n    |   |-- 0\n    |   `-- 2\n    `-- 3"`.
 */
export function renderHierarchy(t: Tree): string {
  if (t.order.length < 2) return NO_EDGES;
  return renderHierarchyLines(t).join('\n').trimEnd();
}

/**
 * The hierarchy lines of `t` without the "No edges" rule (a one-node tree gives its single root line "   5"); used
 * for the toolkit's compat isomorphic rendering of an isolated component (§3.2).
 */
export function renderHierarchyLines(t: Tree): string[] {
  const lines: string[] = [`   ${t.root}`];
  // stack of [node, prefix, isLast]
  const stack: [number, string, boolean][] = [];
  const pushChildren = (n: number, prefix: string, isLast: boolean): void => {
    const cs = t.children.get(n)!;
    const childPrefix = prefix + (isLast ? '    ' : '|   ');
    for (let i = cs.length - 1; i >= 0; i--) stack.push([cs[i]!, childPrefix, i === cs.length - 1]);
  };
  pushChildren(t.root, '', true);
  while (stack.length) {
    const [n, prefix, last] = stack.pop()!;
    const mark = last ? '`' : '|';
    const connector = t.side ? `${mark}-(${t.side.get(n)!})-` : `${mark}-- `;
    lines.push(prefix + connector + String(n));
    pushChildren(n, prefix, last);
  }
  return lines;
}

const memo = new WeakMap<Tree, Partial<Record<Representation, string>>>();

/**
 * The rendering of `t` in `representation` (§3.0.1), memoised per (tree object, representation) so a structure shared
 * by many records is rendered once. Binary iff the tree carries L/R tags.
 */
export function renderTree(t: Tree, representation: Representation): string {
  let m = memo.get(t);
  if (!m) {
    m = {};
    memo.set(t, m);
  }
  return (m[representation] ??= representation === 'edge' ? renderEdges(t) : renderHierarchy(t));
}

/**
 * Render a record-shaped structure (binary iff `side` is present).
 * @throws RangeError when the structure is not a valid tree.
 */
export function renderStructure(s: TreeStructure, representation: Representation): string {
  return renderTree(treeFromStructure(s), representation);
}
