/**
 * The ten JSON question sub-types (specs/hibench.md §3.3 table; §7 recs 14-17): question texts, output templates,
 * reference answers computed by walking the document skeleton, matchers.
 *
 * Questions are drawn on the skeleton (node ids), not on names, so the nonsense document gets exactly the questions
 * of the normal one with the names mapped; the text is produced by {@link renderQuestion} for either naming.
 *
 * Sampling choices (the spec says "random node"; these make the draws cover all levels):
 * - a node is drawn level-first: a kind uniformly among the kinds that qualify, then a node of that kind uniformly;
 * - child_count (strict): parent = a faculty, department, program or course that has a child list, then one of its
 *   lists (a Program with Courses and Students: either), answer = that list's length. The University is not asked
 *   ("Facultys" would be the template's plural). Compat (toolkit quirk, §3.3): the levels present in the chain
 *   Faculties, Departments, Programs, Courses, Lecturers, Students; a random non-last level gives the parent, the
 *   next level's singular the ChildType; answer = the parent's direct children under its conventional child key
 *   (Faculty→Departments, Department→Programs, Program→Courses, Course→Lecturers+Students, Lecturer→none). So
 *   Program Students are never counted, and "How many Students are there in <course or lecturer>?" has answer 0.
 * - node_depth: any node but the University; level_count / level_nodes: a level (list key) present;
 * - node_attribute: a student or lecturer and an ordered pair (given attribute, asked attribute) of its two scalar
 *   attributes; strict rejects "the lecturer <Title>" when that title is not unique among the course's lecturers.
 *   Documents without students or lecturers ask "What is the name of the program in {Department}?" about a random
 *   program; strict only when it is its department's only program.
 * - path_down_to_up: a leaf (an object without child lists); path_up_to_down: a non-root node, then one of its proper
 *   ancestors uniformly; path_between_nodes: two distinct non-root nodes whose lowest common ancestor is not the
 *   University and whose path has ≥ 3 nodes; shared_ancestor_same_level: a depth ≥ 1 with ≥ 2 nodes, then two
 *   distinct nodes at it; shared_ancestor_diff_level: two distinct depths ≥ 1, a node at each (strict rejects
 *   ancestor-related pairs; compat keeps them, answer = the ancestor itself).
 * - dedup: by question text under the normal naming (names are unique, so this is dedup by question identity); the
 *   two shared-ancestor sub-types also drop the swapped pair ("X and Y" after "Y and X").
 */
import type { CompatMode, Json } from '@hpt-bench/sdk';
import type { Rng } from '../rng.js';
import type { MatcherSpec } from '../types.js';
import { ancestorsOf, isAncestor, KIND_INFO, LIST_KIND, lowestCommonAncestor, type DocSkeleton, type ListKey, type NodeKind } from './document.js';

/** The ten JSON sub-types (toolkit ids, §1.1 / §3.3), in canonical order. */
export const JSON_TASKS = [
  'child_count',
  'node_depth',
  'level_count',
  'node_attribute',
  'level_nodes',
  'path_down_to_up',
  'path_up_to_down',
  'path_between_nodes',
  'shared_ancestor_same_level',
  'shared_ancestor_diff_level',
] as const;

/** A JSON sub-type id. */
export type JsonTask = (typeof JSON_TASKS)[number];

/** Maximum unique questions per (sub-type, document) (§3.3: released files hold ≤ 13). */
export const MAX_QUESTIONS = 13;

/** Bound on the random draws per (sub-type, document) (some sub-types have fewer than 13 possible questions). */
export const MAX_ATTEMPTS = 400;

/** A piece of question text: literal text or the name of a node. */
export type Segment = string | { node: number };

/**
 * A value that depends on the naming: a number, a fixed string (titles, student ids, attribute names), a node's
 * name, a list of node names, or a path of nodes rendered as names joined by " -> ".
 */
export type NamedValue = { num: number } | { str: string } | { node: number } | { nodes: number[] } | { path: number[] };

/** A question on a skeleton, before naming. */
export interface AbstractQuestion {
  task: JsonTask;
  text: Segment[];
  target: NamedValue;
  args: Record<string, NamedValue>;
}

/** A question under one naming: text (as in the §3.3 table), typed target and args. */
export interface RenderedQuestion {
  text: string;
  target: Json;
  args: Record<string, Json>;
}

/** Resolve a {@link NamedValue} under a naming: numbers, strings, string arrays, or a " -> "-joined path. */
export function resolveValue(v: NamedValue, names: readonly string[]): Json {
  if ('num' in v) return v.num;
  if ('str' in v) return v.str;
  if ('node' in v) return names[v.node]!;
  if ('nodes' in v) return v.nodes.map((n) => names[n]!);
  return v.path.map((n) => names[n]!).join(' -> ');
}

/** Name a question (§3.3): the text with node names filled in, the target and args resolved. */
export function renderQuestion(q: AbstractQuestion, names: readonly string[]): RenderedQuestion {
  const text = q.text.map((s) => (typeof s === 'string' ? s : names[s.node]!)).join('');
  const args: Record<string, Json> = {};
  for (const [k, v] of Object.entries(q.args)) args[k] = resolveValue(v, names);
  return { text, target: resolveValue(q.target, names), args };
}

/**
 * The output-format template of a sub-type (§3.3 table, `test.yaml`; §7 recs 14, 15). Strict differs from the
 * toolkit in two places: node_depth shows `{"answer": 1}` (compat: `{"answer": "Employees"}`), and
 * path_down_to_up's example ends at the University as the strict answer does (compat: ends at "Faculty").
 */
export function outputTemplate(task: JsonTask, compat: CompatMode): string {
  switch (task) {
    case 'child_count':
    case 'level_count':
      return '{"answer": 1}';
    case 'node_depth':
      return compat === 'reference' ? '{"answer": "Employees"}' : '{"answer": 1}';
    case 'node_attribute':
      return '{"answer": "XXX"}';
    case 'level_nodes':
      return '{"answer": ["Faculty of Science", "Faculty of Arts"]}';
    case 'path_down_to_up':
      return compat === 'reference'
        ? '{"answer": "Student -> Program -> Department -> Faculty"}'
        : '{"answer": "Student -> Program -> Department -> Faculty -> University"}';
    case 'path_up_to_down':
      return '{"answer": "Faculty -> Department -> Program -> Student"}';
    case 'path_between_nodes':
      return '{"answer": "Student -> Program -> Department -> Faculty -> Department -> Program -> Student"}';
    case 'shared_ancestor_same_level':
    case 'shared_ancestor_diff_level':
      return '{"answer": "Faculty of Science"}';
  }
}

/** The matcher of a sub-type (§4.3 per-task table): counts `number`, names `string`, paths `string` + `path`, level nodes `list` on ",". */
export function matcherFor(task: JsonTask): MatcherSpec {
  switch (task) {
    case 'child_count':
    case 'node_depth':
    case 'level_count':
      return { type: 'number' };
    case 'node_attribute':
    case 'shared_ancestor_same_level':
    case 'shared_ancestor_diff_level':
      return { type: 'string' };
    case 'path_down_to_up':
    case 'path_up_to_down':
    case 'path_between_nodes':
      return { type: 'string', path: true };
    case 'level_nodes':
      return { type: 'list', sep: ',' };
  }
}

/**
 * The filled task text (§3.3 prompt template, `prompt.yaml` version): `Given a JSON object <JSON>, <QUESTION>.`.
 * Compat keeps the template literally (so "...?." when the question ends with "?"); strict does not add the final
 * "." after a question that already ends with "?" or ".".
 */
export function taskText(documentText: string, question: string, compat: CompatMode): string {
  const end = compat === 'strict' && /[.?!]$/.test(question) ? '' : '.';
  return `Given a JSON object ${documentText}, ${question}${end}`;
}

/** Precomputed views of a skeleton used by the samplers. */
interface DocIndex {
  sk: DocSkeleton;
  byKind: Map<NodeKind, number[]>;
  byDepth: Map<number, number[]>;
  levels: ListKey[];
}

const LEVEL_ORDER: readonly ListKey[] = ['Faculties', 'Departments', 'Programs', 'Courses', 'Lecturers', 'Students'];
const NON_ROOT: readonly NodeKind[] = ['faculty', 'department', 'program', 'course', 'lecturer', 'student'];

function indexOf(sk: DocSkeleton): DocIndex {
  const byKind = new Map<NodeKind, number[]>();
  const byDepth = new Map<number, number[]>();
  for (const n of sk.nodes) {
    if (!byKind.has(n.kind)) byKind.set(n.kind, []);
    byKind.get(n.kind)!.push(n.id);
    if (!byDepth.has(n.depth)) byDepth.set(n.depth, []);
    byDepth.get(n.depth)!.push(n.id);
  }
  const levels = LEVEL_ORDER.filter((k) => byKind.has(LIST_KIND[k]));
  return { sk, byKind, byDepth, levels };
}

/** Level-first draw: a kind uniformly among those whose candidate list is non-empty, then a candidate. */
function drawLevelFirst(rng: Rng, ix: DocIndex, kinds: readonly NodeKind[], keep: (id: number) => boolean = () => true): number | null {
  const pools = kinds.map((k) => (ix.byKind.get(k) ?? []).filter(keep)).filter((p) => p.length > 0);
  if (pools.length === 0) return null;
  return rng.pick(rng.pick(pools));
}

const U = { node: 0 } as const;

/** One random draw of a sub-type; null = rejected draw. */
function drawOne(task: JsonTask, rng: Rng, ix: DocIndex, compat: CompatMode): AbstractQuestion | null {
  const { sk } = ix;
  const node = (id: number) => sk.nodes[id]!;
  switch (task) {
    case 'child_count': {
      if (compat === 'reference') {
        if (ix.levels.length < 2) return null;
        const i = rng.int(0, ix.levels.length - 2);
        const parent = rng.pick(ix.byKind.get(LIST_KIND[ix.levels[i]!])!);
        const childKey = ix.levels[i + 1]!;
        const conventional: Record<NodeKind, ListKey[]> = {
          university: ['Faculties'],
          faculty: ['Departments'],
          department: ['Programs'],
          program: ['Courses'],
          course: ['Lecturers', 'Students'],
          lecturer: [],
          student: [],
        };
        const keys = conventional[node(parent).kind];
        const count = node(parent).lists.filter((l) => keys.includes(l.key)).reduce((a, l) => a + l.children.length, 0);
        const type = KIND_INFO[LIST_KIND[childKey]].singular;
        return { task, text: [`How many ${type}s are there in `, { node: parent }, '?'], target: { num: count }, args: { name: { node: parent }, childType: { str: type } } };
      }
      const parent = drawLevelFirst(rng, ix, ['faculty', 'department', 'program', 'course'], (id) => node(id).lists.length > 0);
      if (parent === null) return null;
      const list = rng.pick(node(parent).lists);
      const type = KIND_INFO[LIST_KIND[list.key]].singular;
      return { task, text: [`How many ${type}s are there in `, { node: parent }, '?'], target: { num: list.children.length }, args: { name: { node: parent }, childType: { str: type } } };
    }
    case 'node_depth': {
      const id = drawLevelFirst(rng, ix, NON_ROOT);
      if (id === null) return null;
      return { task, text: ['What is the depth of ', { node: id }, ' in the ', U, '? (starting from 0)'], target: { num: node(id).depth }, args: { name: { node: id } } };
    }
    case 'level_count': {
      if (ix.levels.length === 0) return null;
      const level = rng.pick(ix.levels);
      const count = ix.byKind.get(LIST_KIND[level])!.length;
      return { task, text: [`How many ${level} are there in total in the `, U, '?'], target: { num: count }, args: { level: { str: level } } };
    }
    case 'level_nodes': {
      if (ix.levels.length === 0) return null;
      const level = rng.pick(ix.levels);
      return { task, text: [`List all ${level} in the `, U, '.'], target: { nodes: ix.byKind.get(LIST_KIND[level])! }, args: { level: { str: level } } };
    }
    case 'node_attribute': {
      const hasPersons = ix.byKind.has('student') || ix.byKind.has('lecturer');
      if (!hasPersons) {
        const program = drawLevelFirst(rng, ix, ['program'], (id) => node(id).lists.length === 0);
        if (program === null) return null;
        const dept = node(program).parent!;
        if (compat === 'strict' && node(dept).lists.reduce((a, l) => a + l.children.length, 0) !== 1) return null;
        return { task, text: ['What is the name of the program in ', { node: dept }, '?'], target: { node: program }, args: { name: { node: dept }, attribute: { str: 'Program Name' } } };
      }
      const leaf = drawLevelFirst(rng, ix, ['student', 'lecturer']);
      if (leaf === null) return null;
      const n = node(leaf);
      const second = n.kind === 'student' ? 'Student ID' : 'Title';
      const [given, asked] = rng.bool() ? ['Name', second] : [second, 'Name'];
      if (compat === 'strict' && given === 'Title') {
        const siblings = node(n.parent!).lists.flatMap((l) => l.children).filter((c) => node(c).kind === 'lecturer');
        if (siblings.filter((c) => node(c).title === n.title).length > 1) return null;
      }
      const attr = (a: string): NamedValue => (a === 'Name' ? { node: leaf } : a === 'Title' ? { str: n.title! } : { str: n.studentId! });
      const context: Segment[] = [];
      ancestorsOf(sk, leaf).forEach((a, i) => context.push(...(i > 0 ? [' in '] : []), { node: a }));
      const who = n.kind === 'student' ? 'student' : 'lecturer';
      const givenValue = attr(given);
      const givenSeg: Segment = 'node' in givenValue ? givenValue : (givenValue as { str: string }).str;
      return {
        task,
        text: [`What is the ${asked} of the ${who} `, givenSeg, ' who is in ', ...context, '?'],
        target: attr(asked),
        args: { name: givenValue, given: { str: given }, attribute: { str: asked } },
      };
    }
    case 'path_down_to_up': {
      const leaf = drawLevelFirst(rng, ix, NON_ROOT, (id) => node(id).lists.length === 0);
      if (leaf === null) return null;
      const up = [leaf, ...ancestorsOf(sk, leaf)];
      const path = compat === 'reference' ? up.slice(0, -1) : up;
      return { task, text: ['What is the path from ', { node: leaf }, ' up to the ', U, '?'], target: { path }, args: { from: { node: leaf }, to: U } };
    }
    case 'path_up_to_down': {
      const desc = drawLevelFirst(rng, ix, NON_ROOT);
      if (desc === null) return null;
      const ups = ancestorsOf(sk, desc);
      const anc = rng.pick(ups);
      const path = [desc, ...ups.slice(0, ups.indexOf(anc) + 1)].reverse();
      return { task, text: ['What is the path from ', { node: anc }, ' down to ', { node: desc }, '?'], target: { path }, args: { from: { node: anc }, to: { node: desc } } };
    }
    case 'path_between_nodes': {
      const a = drawLevelFirst(rng, ix, NON_ROOT);
      const b = drawLevelFirst(rng, ix, NON_ROOT);
      if (a === null || b === null || a === b) return null;
      const lca = lowestCommonAncestor(sk, a, b);
      if (lca === 0) return null;
      const upA = [a, ...ancestorsOf(sk, a)];
      const upB = [b, ...ancestorsOf(sk, b)];
      const path = [...upA.slice(0, upA.indexOf(lca) + 1), ...upB.slice(0, upB.indexOf(lca)).reverse()];
      if (path.length < 3) return null;
      const t = (id: number) => KIND_INFO[node(id).kind].typeWord;
      return {
        task,
        text: [`If someone wants to go from the ${t(a)} '`, { node: a }, `' to the ${t(b)} '`, { node: b }, "', what path should they take?"],
        target: { path },
        args: { from: { node: a }, to: { node: b } },
      };
    }
    case 'shared_ancestor_same_level': {
      const depths = [...ix.byDepth.keys()].filter((d) => d >= 1 && ix.byDepth.get(d)!.length >= 2);
      if (depths.length === 0) return null;
      const [a, b] = rng.sample(ix.byDepth.get(rng.pick(depths))!, 2) as [number, number];
      return { task, text: ['What is the common ancestor of ', { node: a }, ' and ', { node: b }, '?'], target: { node: lowestCommonAncestor(sk, a, b) }, args: { names: { nodes: [a, b] } } };
    }
    case 'shared_ancestor_diff_level': {
      const depths = [...ix.byDepth.keys()].filter((d) => d >= 1);
      if (depths.length < 2) return null;
      const [da, db] = rng.sample(depths, 2) as [number, number];
      const a = rng.pick(ix.byDepth.get(da)!);
      const b = rng.pick(ix.byDepth.get(db)!);
      if (compat === 'strict' && (isAncestor(sk, a, b) || isAncestor(sk, b, a))) return null;
      return { task, text: ['What is the common ancestor of ', { node: a }, ' and ', { node: b }, '?'], target: { node: lowestCommonAncestor(sk, a, b) }, args: { names: { nodes: [a, b] } } };
    }
  }
}

/**
 * Draw up to `max` unique questions of one sub-type on a skeleton (§3.3 "Question generation"; ≤ 13, dedup by
 * question text under `names` — pass the normal naming so both semantics get the same questions), with at most
 * {@link MAX_ATTEMPTS} draws. Deterministic for a given rng state. Returns fewer (possibly none) when the document
 * does not admit more distinct questions.
 */
export function sampleQuestions(sk: DocSkeleton, names: readonly string[], task: JsonTask, rng: Rng, compat: CompatMode, max = MAX_QUESTIONS): AbstractQuestion[] {
  const ix = indexOf(sk);
  const seen = new Set<string>();
  const out: AbstractQuestion[] = [];
  const symmetric = task === 'shared_ancestor_same_level' || task === 'shared_ancestor_diff_level';
  for (let attempt = 0; attempt < MAX_ATTEMPTS && out.length < max; attempt++) {
    const q = drawOne(task, rng, ix, compat);
    if (!q) continue;
    const text = renderQuestion(q, names).text;
    if (seen.has(text)) continue;
    if (symmetric) {
      const [a, b] = (q.args['names'] as { nodes: number[] }).nodes as [number, number];
      const swapped = `What is the common ancestor of ${names[b]} and ${names[a]}?`;
      if (seen.has(swapped)) continue;
    }
    seen.add(text);
    out.push(q);
  }
  return out;
}
