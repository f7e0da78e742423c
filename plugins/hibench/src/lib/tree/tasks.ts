/**
 * The tree tasks of HiBench (specs/hibench.md §3.1 Binary Tree, §3.2 Multiple Tree): question texts and output-format
 * templates (toolkit strings), the random question arguments, reference answers (strict and compat, §7 recs 1-5, 10,
 * 20), matchers (§4.3), exemplars (§5.1) and the assembled record (§2). Shared machinery: the tree scenarios (each a
 * folder declaring its `TreeKind`) pick their tasks and presets from here; nothing here names a scenario.
 */
import type { CompatMode, Json } from '@hpt-bench/sdk';
import { answerJson, assembleQuery, type PromptStyle } from '../../prompt.js';
import { rngFor, type Rng } from '../../rng.js';
import type { Exemplar, HibenchRecord, IclMode, MatcherSpec, Representation, TreeStructure } from '../../types.js';
import { COMPAT_EXAMPLES } from './compat-examples.js';
import { NO_EDGES, renderEdges, renderHierarchyLines, renderTree } from './render.js';
import {
  addNode,
  ancestorsOf,
  canonicalForm,
  depthOf,
  descendantsOf,
  generateTree,
  heightOf,
  inorder,
  isHeightBalanced,
  isLeaf,
  lowestCommonAncestor,
  makeTree,
  maxNodes,
  mirrorTree,
  postorder,
  preorder,
  relabelTree,
  removeNode,
  treeToStructure,
  type Tree,
  type TreePreset,
} from './tree.js';

/**
 * A tree scenario as the tree machinery sees it, declared by its folder:
 * - `name`: the scenario's name (record ids and `scenario`, the first key of its random streams);
 * - `binary`: binary trees (children have sides L/R; §3.1) or multi-trees (§3.2);
 * - `tasks`: its task ids in stream order; `presets`: its presets in stream order (the first is the easy one the strict
 *   exemplars are drawn from, §7 rec. 20);
 * - `templatePrefix`: how its questions start, e.g. `Given the hierarchical structure` (toolkit string);
 * - `prompt`: its system prompt and separators (§2).
 */
export interface TreeKind {
  readonly name: string;
  readonly binary: boolean;
  readonly tasks: readonly TreeTask[];
  readonly presets: readonly TreePreset[];
  readonly templatePrefix: string;
  readonly prompt: PromptStyle;
}

/** Binary Tree task ids (§1.1, toolkit sub-task ids), in stream order. */
export const BINARY_TASKS = ['balance', 'prefix_traversal', 'infix_traversal', 'postfix_traversal', 'traversal_order_verification', 'mirror_tree'] as const;
/** A Binary Tree task id. */
export type BinaryTask = (typeof BINARY_TASKS)[number];

/** Multiple Tree task ids (§1.1, toolkit sub-task ids), in stream order. */
export const MULTIPLE_TASKS = ['add_node', 'all_ancestor', 'all_children', 'common_ancestor', 'isomorphic', 'remove_node', 'node_depth', 'leaf', 'root'] as const;
/** A Multiple Tree task id. */
export type MultipleTask = (typeof MULTIPLE_TASKS)[number];

/** Any tree task id. */
export type TreeTask = BinaryTask | MultipleTask;

/** The three binary traversal orders, as labelled in Traversal Order Verification (§3.1). */
export const TRAVERSAL_ORDERS = ['preorder', 'inorder', 'postorder'] as const;
type TraversalOrder = (typeof TRAVERSAL_ORDERS)[number];

/** The output-format templates (§3.1, §3.2 tables; toolkit strings, trailing commas included). */
export const OUTPUT_TEMPLATES: Record<TreeTask, string> = {
  balance: '{"answer": true} if it is a balance binary tree, or {"answer": false} if it is not,',
  prefix_traversal: '{"answer": 1, 2, 3}, where 1, 2, and 3 are the node ID in prefix traversal order and split by comma,',
  infix_traversal: '{"answer": 1, 2, 3}, where 1, 2, and 3 are the node ID in infix traversal order and split by comma,',
  postfix_traversal: '{"answer": 1, 2, 3}, where 1, 2, and 3 are the node ID in postfix traversal order and split by comma,',
  traversal_order_verification:
    '{"answer": preorder} if it is the preorder, {"answer": inorder} if it is the inorder, and {"answer": postorder} if it is the postorder.',
  mirror_tree: '{"answer": <new structure>} following the input structure format,',
  add_node: '{"answer": <new structure>} following the input structure format,',
  all_ancestor:
    '{"answer": 1, 2, 3}, where 1, 2, and 3 are the node ID of ancestors and split by comma, if there is no ancestors, please return {"answer": None}',
  all_children:
    '{"answer": 1, 2, 3}, where 1, 2, and 3 are the node ID of children nodes and split by comma, if there is no children nodes, please return {"answer": None}',
  common_ancestor: '{"answer": 1}, where 1 is the node ID,',
  isomorphic: '{"answer": true} if it is isomorphic, or {"answer": false} if it is not,',
  remove_node: '{"answer": <new structure>} following the input structure format, if there are no edges, please return {"answer": No edges}',
  node_depth: '{"answer": 1}, where 1 is the node\'s depth,',
  leaf: '{"answer": true} if it is leaf node, or {"answer": false} if it is not,',
  root: '{"answer": 1}, where 1 is the node ID,',
};

/** The literal answer of an empty ancestor/descendant list (§3.2). */
export const NONE = 'None';

/** The placeholder the toolkit leaves in the compat isomorphic prompt (§3.2 bug note). */
export const COMPAT_ISOMORPHIC_PLACEHOLDER = '<STRUCTURE_#0>';

/** The task list of a tree scenario (`kind.tasks`). */
export function tasksOf(kind: TreeKind): readonly TreeTask[] {
  return kind.tasks;
}

/**
 * The random part of one question, drawn once per (structure, task) and shared by both representations and all ICL
 * modes (paired design). `args` go into the record; `second` is the isomorphic second tree (strict: relabelled copy or
 * non-isomorphic tree; compat: the component the toolkit renders); `secondText` the compat renderings of it.
 */
export interface TaskDraw {
  args: Record<string, Json>;
  second?: Tree;
  secondText?: Record<Representation, string>;
}

/** What {@link drawTask} needs to know about the structure. */
export interface DrawContext {
  /** the scenario's name (the draw itself does not depend on it) */
  scenario: string;
  task: TreeTask;
  tree: Tree;
  /** the preset's max out-degree D (isomorphic negatives are drawn with the same N, M, D) */
  degree: number;
  compat: CompatMode;
}

/** The three traversals of a binary tree, by label. */
function traversals(t: Tree): Record<TraversalOrder, number[]> {
  return { preorder: preorder(t), inorder: inorder(t), postorder: postorder(t) };
}

const sameSeq = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * A tree with the same N and M as `t` that is not isomorphic to it (strict isomorphic negatives, §7 rec. 4), drawn
 * from the §3.0 generator with the same (N, M, D); when no such tree turns up (e.g. N = M paths, or the full D-ary
 * tree), D is relaxed (up to D + 3), then M (M − 1, else M + 1) as a last resort. null when no non-isomorphic tree
 * with N nodes exists (N ≤ 2).
 */
export function nonIsomorphicTree(t: Tree, degree: number, rng: Rng): Tree | null {
  const n = t.order.length;
  const m = heightOf(t, t.root);
  const code = canonicalForm(t);
  const plans: [number, number, number][] = [[m, degree, 30]];
  for (let d = degree + 1; d <= Math.min(n - 1, degree + 3); d++) plans.push([m, d, 10]);
  for (const m2 of [m - 1, m + 1]) {
    if (m2 < 2 || m2 > n) continue;
    let d = Math.max(degree, 2);
    while (maxNodes(m2, d) < n) d++;
    plans.push([m2, d, 10]);
  }
  for (const [levels, d, attempts] of plans) {
    if (n > maxNodes(levels, d)) continue;
    for (let a = 0; a < attempts; a++) {
      const cand = generateTree({ nodes: n, levels, degree: d, balanced: false, binary: false }, rng);
      if (canonicalForm(cand) !== code) return cand;
    }
  }
  return null;
}

/**
 * The toolkit's second isomorphic structure (compat, §3.2): with probability 0.5 delete 1–3 distinct random edges;
 * render from the first in-degree-0 node in the toolkit's node insertion order (node 0, the root's first child, the
 * root, then the creation order), so only that component is shown; edge mode prints "No edges" for an isolated
 * component, hierarchy mode only when no edge is left at all (else the single root line).
 */
function compatSecond(t: Tree, rng: Rng): TaskDraw {
  const edges: [number, number][] = [];
  for (const n of t.order) for (const c of t.children.get(n)!) edges.push([n, c]);
  const deleteSome = rng.bool();
  const removed = deleteSome ? rng.sample(edges, rng.int(1, Math.min(3, edges.length))) : [];
  const gone = new Set(removed.map(([u, v]) => `${u}>${v}`));
  const children = new Map<number, number[]>();
  const hasParent = new Set<number>();
  for (const [u, v] of edges) {
    if (gone.has(`${u}>${v}`)) continue;
    hasParent.add(v);
    children.set(u, [...(children.get(u) ?? []), v]);
  }
  const insertion = [...new Set([...(t.children.has(0) ? [0] : []), ...(t.order.length > 1 ? [t.order[1]!] : []), ...t.order])];
  const start = insertion.find((x) => !hasParent.has(x))!;
  const comp = new Map<number, number[]>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const cs = children.get(queue[i]!) ?? [];
    comp.set(queue[i]!, cs);
    queue.push(...cs);
  }
  const second = makeTree(start, comp);
  const anyEdge = edges.length > removed.length;
  return {
    args: { isomorphic: !deleteSome, removed: removed.map(([u, v]) => [u, v]) },
    second,
    secondText: { edge: renderEdges(second), hierarchy: anyEdge ? renderHierarchyLines(second).join('\n').trimEnd() : NO_EDGES },
  };
}

/**
 * Draw the random arguments of one question (§3.1, §3.2; node choices uniform over all nodes): `{node}` (leaf,
 * all_ancestor, all_children, node_depth, remove_node), `{nodes: [X, Y]}` with X ≠ Y (common_ancestor),
 * `{new: N, parent}` (add_node; N, or max id + 1 if N is taken), `{sequence, order}` (traversal_order_verification:
 * strict picks among orders whose sequence differs from the other two, §7 rec. 10; compat any of the three),
 * `{isomorphic}` (strict: 50/50 relabelled shuffled copy / non-isomorphic tree, §7 rec. 4; compat: `{isomorphic,
 * removed}` per the toolkit), `{}` otherwise.
 */
export function drawTask(ctx: DrawContext, rng: Rng): TaskDraw {
  const { task, tree, compat } = ctx;
  const nodes = tree.order;
  switch (task) {
    case 'leaf':
    case 'all_ancestor':
    case 'all_children':
    case 'node_depth':
    case 'remove_node':
      return { args: { node: rng.pick(nodes) } };
    case 'common_ancestor':
      return { args: { nodes: rng.sample(nodes, 2) } };
    case 'add_node': {
      const k = tree.children.has(nodes.length) ? Math.max(...nodes) + 1 : nodes.length;
      return { args: { new: k, parent: rng.pick(nodes) } };
    }
    case 'traversal_order_verification': {
      const seqs = traversals(tree);
      const unique = TRAVERSAL_ORDERS.filter((o) => TRAVERSAL_ORDERS.every((p) => p === o || !sameSeq(seqs[o], seqs[p])));
      const order = rng.pick(compat === 'reference' || unique.length === 0 ? TRAVERSAL_ORDERS : unique);
      return { args: { sequence: seqs[order], order } };
    }
    case 'isomorphic': {
      if (compat === 'reference') return compatSecond(tree, rng);
      let positive = rng.bool();
      let second: Tree | null = null;
      if (!positive) {
        second = nonIsomorphicTree(tree, ctx.degree, rng);
        if (!second) positive = true;
      }
      if (positive) {
        const ids = tree.order.slice().sort((a, b) => a - b);
        const perm = rng.shuffle(ids);
        second = relabelTree(tree, new Map(ids.map((id, i) => [id, perm[i]!])), rng);
      }
      return { args: { isomorphic: positive }, second: second! };
    }
    default:
      return { args: {} };
  }
}

/** The render-dependent part of a question: texts, reference answer, matcher, second structure. */
export interface TaskInstance {
  /** the filled task template, e.g. "Given the hierarchical structure 4 -> 1, ..., is node 1 a leaf node?" */
  question: string;
  /** the task's output-format template (§3.1/§3.2 tables) */
  outputTemplate: string;
  target: Json;
  matcher: MatcherSpec;
  structure2?: TreeStructure;
}

const num = (args: Record<string, Json>, key: string): number => args[key] as number;

/**
 * Fill one task for one representation (§3.1, §3.2). Targets: booleans (balance, leaf, isomorphic), node ids (root,
 * common_ancestor, node_depth: strict depth with root = 1, compat subtree height, §7 rec. 1), number arrays
 * (traversals; ancestors / descendants ascending, or "None" when empty), the order label (traversal verification), the
 * rendered structure in the input representation (mirror, add, remove; "No edges" when no edge is left).
 * @throws RangeError when the arguments do not fit the tree (unknown node) or a binary task gets a multi-tree.
 */
export function instantiateTask(kind: TreeKind, task: TreeTask, tree: Tree, draw: TaskDraw, representation: Representation, compat: CompatMode): TaskInstance {
  const { args } = draw;
  const structure = renderTree(tree, representation);
  const binary = kind.binary;
  const listOrNone = (xs: number[]): Json => (xs.length ? xs : NONE);
  let question: string;
  let target: Json;
  let matcher: MatcherSpec = { type: 'string' };
  let structure2: TreeStructure | undefined;
  let head = `${kind.templatePrefix} ${structure}`;
  switch (task) {
    case 'balance':
      question = 'determine whether it is a balanced tree?';
      target = isHeightBalanced(tree);
      break;
    case 'prefix_traversal':
      question = 'generate the traversal sequence in prefix order (preorder), where the nodes are visited in the order: root, left subtree, and right subtree.';
      target = preorder(tree);
      matcher = { type: 'list', sep: ',', ordered: true };
      break;
    case 'infix_traversal':
      question = 'generate the traversal sequence in infix order (inorder), where the nodes are visited in the order: left subtree, root, and right subtree.';
      target = inorder(tree);
      matcher = { type: 'list', sep: ',', ordered: true };
      break;
    case 'postfix_traversal':
      question = 'generate the traversal sequence in postfix order (postorder), where the nodes are visited in the order: left subtree, right subtree, and root.';
      target = postorder(tree);
      matcher = { type: 'list', sep: ',', ordered: true };
      break;
    case 'traversal_order_verification': {
      const seq = args['sequence'] as number[];
      question = `and a traversal sequence [${seq.join(', ')}], verify if it is the preorder, inorder, and postorder consistent with the tree.`;
      target = args['order'] as string;
      break;
    }
    case 'mirror_tree':
      question = 'generate the mirror image of the tree, where the left and right children of all nodes are swapped.';
      target = renderTree(mirrorTree(tree), representation);
      matcher = { type: 'structure', representation, binary: true };
      break;
    case 'add_node':
      question = `add a new node ${num(args, 'new')} as a child to the node ${num(args, 'parent')} in the given structure.`;
      target = renderTree(addNode(tree, num(args, 'new'), num(args, 'parent')), representation);
      matcher = { type: 'structure', representation, binary };
      break;
    case 'all_ancestor':
      question = `please find out all the ancestor of node ${num(args, 'node')}.`;
      target = listOrNone(ancestorsOf(tree, num(args, 'node')));
      matcher = { type: 'list', sep: ',', none: NONE };
      break;
    case 'all_children':
      question =
        compat === 'reference'
          ? `please find out all the children of node ${num(args, 'node')}.`
          : `please find out all the descendants (children, grandchildren, and so on) of node ${num(args, 'node')}.`;
      target = listOrNone(descendantsOf(tree, num(args, 'node')));
      matcher = { type: 'list', sep: ',', none: NONE };
      break;
    case 'common_ancestor': {
      const [x, y] = args['nodes'] as [number, number];
      question = `determine the lowest common ancestor of the nodes ${x} and ${y} within the structure.`;
      target = lowestCommonAncestor(tree, x, y);
      break;
    }
    case 'isomorphic': {
      const second = draw.second!;
      const text = draw.secondText ? draw.secondText[representation] : renderTree(second, representation);
      question = `and another hierarchical structure: ${text}, please decide whether the given two structure are isomorphic or not.`;
      target = args['isomorphic'] as boolean;
      structure2 = treeToStructure(second);
      if (compat === 'reference') head = `${kind.templatePrefix} ${COMPAT_ISOMORPHIC_PLACEHOLDER}`;
      break;
    }
    case 'remove_node': {
      question = `please remove the node ${num(args, 'node')} from the given structure. Output the updated structure following the input structure format.`;
      const after = removeNode(tree, num(args, 'node'));
      target = renderTree(after, representation);
      // a two-node tree leaves one node: besides "No edges", strict mode accepts that node (and no other) as the answer
      matcher = { type: 'structure', representation, binary, empty: NO_EDGES, ...(target === NO_EDGES ? { emptyNode: after.root } : {}) };
      break;
    }
    case 'node_depth':
      question = `determine the depth of the node ${num(args, 'node')} within the structure, where the root node is assigned a depth of 1.`;
      target = compat === 'reference' ? heightOf(tree, num(args, 'node')) : depthOf(tree, num(args, 'node'));
      break;
    case 'leaf':
      question = `is node ${num(args, 'node')} a leaf node?`;
      target = isLeaf(tree, num(args, 'node'));
      break;
    case 'root':
      question = 'which node is the root?';
      target = tree.root;
      break;
  }
  const out: TaskInstance = { question: `${head}, ${question}`, outputTemplate: OUTPUT_TEMPLATES[task], target, matcher };
  if (structure2) out.structure2 = structure2;
  return out;
}

/** The easy preset of a scenario, its first (strict exemplars are drawn there, §7 rec. 20). */
function easyPreset(kind: TreeKind): { levels: readonly number[]; degrees: readonly number[] } {
  return kind.presets[0]!;
}

/**
 * Strict ICL exemplars (§7 rec. 20): three questions of the same task and representation on random easy-preset trees
 * (binary: balanced or not at random), fixed per (seed, task, representation) via `rngFor(seed, kind.name, 'exemplar',
 * task, i)` (keys distinct from the suite's). `input` = the filled task text (no format sentence), `answer` =
 * `{"answer": ...}` JSON of the strict target.
 */
export function strictExemplars(seed: number, kind: TreeKind, task: TreeTask, representation: Representation): Exemplar[] {
  const easy = easyPreset(kind);
  const binary = kind.binary;
  const scenario = kind.name;
  const out: Exemplar[] = [];
  for (let i = 0; i < 3; i++) {
    const rng = rngFor(seed, scenario, 'exemplar', task, i);
    const levels = rng.pick(easy.levels);
    const degree = rng.pick(easy.degrees);
    const nodes = rng.int(levels, maxNodes(levels, degree));
    const tree = generateTree({ nodes, levels, degree, balanced: binary && rng.bool(), binary }, rng);
    const draw = drawTask({ scenario, task, tree, degree, compat: 'strict' }, rngFor(seed, scenario, 'exemplar', task, i, 'question'));
    const inst = instantiateTask(kind, task, tree, draw, representation, 'strict');
    out.push({ input: inst.question, answer: answerJson(inst.target) });
  }
  return out;
}

/** The compat ICL exemplars of a task: the toolkit's fixed examples (§5.1; `compat-examples.ts`). */
export function compatExemplars(task: TreeTask): Exemplar[] {
  return COMPAT_EXAMPLES[task]!.map((e) => ({ ...e }));
}

/** Everything {@link buildRecord} needs for one query. */
export interface RecordInput {
  kind: TreeKind;
  task: TreeTask;
  /** preset id, e.g. "easy" or "easy-balanced" */
  preset: string;
  /** structure index within the preset */
  index: number;
  representation: Representation;
  icl: IclMode;
  compat: CompatMode;
  seed: number;
  /** `{nodes, levels, degree, balanced, index}` */
  params: Record<string, Json>;
  args: Record<string, Json>;
  /** the input structure in record shape (shared between the records of one structure) */
  structure: TreeStructure;
  instance: TaskInstance;
  exemplars: Exemplar[];
}

/**
 * Assemble one record (§2, §5.1): id `<scenario>/<task>/<preset>/<index>/<representation>/<icl>`, system prompt,
 * user prompt = [ICL prefix + "\n"] + question + "\n" + format sentence, plus target, matcher and parameters.
 */
export function buildRecord(input: RecordInput): HibenchRecord {
  const { kind, task, preset, index, representation, icl, compat, instance } = input;
  const q = assembleQuery(kind.prompt, instance.question, instance.outputTemplate, icl, input.exemplars);
  const record: HibenchRecord = {
    id: `${kind.name}/${task}/${preset}/${index}/${representation}/${icl}`,
    scenario: kind.name,
    task,
    preset,
    representation,
    icl,
    compat,
    system: kind.prompt.system,
    prompt: q.prompt,
    question: instance.question,
    format: q.format,
    formatCot: q.formatCot,
    exemplars: input.exemplars,
    target: instance.target,
    matcher: instance.matcher,
    seed: input.seed,
    params: input.params,
    args: input.args,
    structure: input.structure,
  };
  if (instance.structure2) record.structure2 = instance.structure2;
  return record;
}
