/**
 * Tolerant parsing of a model's tree answer back into a structure, and structural comparison (specs/hibench.md §3.0.1
 * renderings; strict structure matching, §7 rec. 8 and 21). Used by the structure matcher.
 */
import type { Representation, TreeStructure } from '../../types.js';
import { tryMakeTree, treeToStructure, type Side } from './tree.js';

/** Whether `text` is the "No edges" literal (case- and whitespace-insensitive, optional quotes / final period). */
export function isNoEdges(text: string): boolean {
  return /^no\s*edges?\.?$/i.test(unwrap(text));
}

/**
 * Strip what commonly surrounds an extracted answer: whitespace, matching quotes or brackets, backticks fences; turn
 * JSON-escaped "\n" into newlines when the text has no real newline (§4.1: escapes survive extraction).
 */
function unwrap(text: string): string {
  let s = text.trim();
  if (!s.includes('\n') && s.includes('\\n')) s = s.replace(/\\n/g, '\n');
  for (;;) {
    const before = s;
    s = s.replace(/^```[a-z]*\s*\n?/i, '').replace(/\n?\s*```$/, '');
    const first = s[0];
    const last = s[s.length - 1];
    if (s.length >= 2 && ((first === '"' && last === '"') || (first === "'" && last === "'") || (first === '[' && last === ']'))) {
      s = s.slice(1, -1);
    }
    s = s.replace(/^\s*\n/, '').trimEnd();
    if (s === before) break;
  }
  return s;
}

/** Build a structure from parsed edges (in order of appearance); null when they do not form one tree. */
function fromEdges(edges: readonly { u: number; v: number; side: Side | undefined }[], binary: boolean, root?: number): TreeStructure | null {
  const children = new Map<number, number[]>();
  const side = binary ? new Map<number, Side>() : null;
  const hasParent = new Set<number>();
  const nodes: number[] = [];
  const seen = new Set<number>();
  const note = (n: number): void => {
    if (!seen.has(n)) {
      seen.add(n);
      nodes.push(n);
    }
  };
  for (const { u, v, side: s } of edges) {
    note(u);
    note(v);
    if (hasParent.has(v)) return null;
    hasParent.add(v);
    const cs = children.get(u);
    if (cs) cs.push(v);
    else children.set(u, [v]);
    if (side) {
      if (!s) return null;
      side.set(v, s);
    }
  }
  if (root === undefined) {
    const roots = nodes.filter((n) => !hasParent.has(n));
    if (roots.length !== 1) return null;
    root = roots[0]!;
  }
  const t = tryMakeTree(root, children, side);
  return typeof t === 'string' ? null : treeToStructure(t);
}

const EDGE_ITEM = /^(\d+)\s*(?:-+\s*(?:\(\s*([LR])\s*\)\s*-*\s*)?>|→)\s*(\d+)$/i;

/** Edge list: items "u -> v" / "u -(L)-> v" (or "u → v") separated by commas, semicolons or newlines. */
function parseEdges(text: string, binary: boolean): TreeStructure | null {
  const items = text
    .split(/[,;\n]/)
    .map((x) => x.trim())
    .filter((x) => x !== '');
  if (items.length === 0) return null;
  const edges: { u: number; v: number; side: Side | undefined }[] = [];
  for (const item of items) {
    const m = EDGE_ITEM.exec(item);
    if (!m) return null;
    edges.push({ u: Number(m[1]), v: Number(m[3]), side: m[2] ? (m[2].toUpperCase() as Side) : undefined });
  }
  return fromEdges(edges, binary);
}

/**
 * A child line: anything (the prefix columns), a connector mark ("|", "`", "+", "\", "├", "└") followed by dashes,
 * an optional "(L)"/"(R)" tag and more dashes, then the node id. The lazy prefix makes the connector the first mark
 * directly followed by a dash (prefix marks are followed by spaces).
 */
const CHILD_LINE = /^(.*?)[|`+\\├└][-─]+\s*(?:\(\s*([LR])\s*\)\s*[-─]*)?\s*(\d+)$/i;
const ROOT_LINE = /^\s*(\d+)$/;

/**
 * Text tree: the first line is the root id; every other line's nesting is given by the column of its connector
 * (deeper = further right), so uniformly trimmed or re-indented trees still parse.
 */
function parseHierarchy(text: string, binary: boolean): TreeStructure | null {
  const lines = text
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .filter((l) => l.trim() !== '');
  if (lines.length === 0) return null;
  const rootMatch = ROOT_LINE.exec(lines[0]!);
  if (!rootMatch) return null;
  const root = Number(rootMatch[1]);
  const edges: { u: number; v: number; side: Side | undefined }[] = [];
  const stack: { col: number; node: number }[] = [{ col: -1, node: root }];
  for (const line of lines.slice(1)) {
    const m = CHILD_LINE.exec(line);
    if (!m) return null;
    const col = m[1]!.length;
    while (stack.length > 1 && stack[stack.length - 1]!.col >= col) stack.pop();
    const parent = stack[stack.length - 1]!.node;
    const node = Number(m[3]);
    edges.push({ u: parent, v: node, side: m[2] ? (m[2].toUpperCase() as Side) : undefined });
    stack.push({ col, node });
  }
  return fromEdges(edges, binary, root);
}

/**
 * Parse a model's answer back into a structure (tolerant; §3.0.1 renderings).
 * - edge: items "u -> v" (binary "u -(L)-> v"; spacing and dash count free, tag case-insensitive) separated by
 *   commas, semicolons or newlines; child order = order of appearance; the root is the unique node without a parent.
 * - hierarchy: the ASCII text tree; the first non-empty line is the root id, each further line's parent is found from
 *   its connector column, so leading spaces may be trimmed or lines uniformly re-indented; also unicode box connectors.
 * Surrounding quotes, brackets, code fences and JSON "\n" escapes are removed first. Binary requires an L/R tag on
 * every edge (tags given to a non-binary parse are ignored).
 * @returns the structure (binary: with `side`), or null when the text is "No edges" (no node id to build a one-node
 *   structure from — use {@link isNoEdges}), garbage, or not one tree (cycle, two parents, several roots, binary node
 *   with > 2 children or two children on one side). A hierarchy of one root line gives a one-node structure.
 */
export function parseStructure(text: string, representation: Representation, binary: boolean): TreeStructure | null {
  if (isNoEdges(text)) return null;
  const s = unwrap(text);
  if (s === '') return null;
  return representation === 'edge' ? parseEdges(s, binary) : parseHierarchy(s, binary);
}

/** Node set and parent map of a structure. */
function parentsOf(s: TreeStructure): Map<number, number> {
  const parent = new Map<number, number>();
  for (const [k, cs] of Object.entries(s.children)) for (const c of cs) parent.set(c, Number(k));
  return parent;
}

/**
 * Structural equality (§7 rec. 8): same root, same node set and the same parent for every node; `binary` also the
 * same side tag per node; `ordered` also the same child order per node (leaves may be absent from `children` or have
 * `[]`). Never throws; malformed inputs simply compare unequal unless identical.
 */
export function structuresEqual(a: TreeStructure, b: TreeStructure, options: { binary: boolean; ordered?: boolean }): boolean {
  if (a.root !== b.root) return false;
  const pa = parentsOf(a);
  const pb = parentsOf(b);
  if (pa.size !== pb.size) return false;
  for (const [n, p] of pa) if (pb.get(n) !== p) return false;
  if (options.binary) {
    for (const n of pa.keys()) if (a.side?.[String(n)] !== b.side?.[String(n)]) return false;
  }
  if (options.ordered) {
    for (const [k, cs] of Object.entries(a.children)) {
      const other = b.children[k] ?? [];
      if (cs.length !== other.length || cs.some((c, i) => c !== other[i])) return false;
    }
  }
  return true;
}
