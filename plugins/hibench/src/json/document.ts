/**
 * The procedural university-document generator of the JSON scenario (specs/hibench.md §3.3; §7 recs 13, 17, 27).
 *
 * A document is generated in two steps:
 * 1. a *skeleton* (shape, lecturer titles, student ids) from one seeded stream — each node gets a uniform random
 *    number of children in [1, width] per child list;
 * 2. *names* for every node, once with realistic names (normal semantics, unique within the document) and once with
 *    unique nonsense codes `[A-Z][a-z][0-9][A-Z][a-z][0-9]` (nonsense semantics), each from its own stream.
 * So the normal and nonsense documents of a (seed, preset) share the same skeleton (paired, §5.3 "JSON semantics").
 */
import type { Json } from '@hpt-bench/sdk';
import { rngFor, type Rng } from '../rng.js';
import { COURSE_TEMPLATES, FACULTY_POOLS, FIRST_NAMES, LAST_NAMES, TITLES, UNIVERSITY_NAMES, type FacultyPool } from './pools.js';

/** The five presets of paper Table 7 (§3.3). */
export type JsonPreset = 'small' | 'medium-1' | 'medium-2' | 'large-1' | 'large-2';

/** Depth and width of each preset (§3.3 / paper Table 7), in canonical order. */
export const JSON_PRESET_PARAMS: Readonly<Record<JsonPreset, { readonly depth: number; readonly width: number }>> = {
  small: { depth: 4, width: 2 },
  'medium-1': { depth: 5, width: 2 },
  'medium-2': { depth: 4, width: 4 },
  'large-1': { depth: 6, width: 2 },
  'large-2': { depth: 4, width: 6 },
};

/** The kinds of objects in a university document (§3.3). */
export type NodeKind = 'university' | 'faculty' | 'department' | 'program' | 'course' | 'lecturer' | 'student';

/** The keys of the child lists (§3.3 schema), which are also the level names ("Courses", "Students", ...). */
export type ListKey = 'Faculties' | 'Departments' | 'Programs' | 'Courses' | 'Lecturers' | 'Students';

/**
 * Per kind: its list key (the key of the list it lives in; null for the University), singular level name, name key,
 * depth (University = 0, §3.3 "Levels"), the word used for it in path_between_nodes questions, and the child lists it
 * has at a given document depth (levels counted from 1 = University).
 */
export const KIND_INFO: Readonly<
  Record<NodeKind, { key: ListKey | null; singular: string; nameKey: string; depth: number; typeWord: string; lists: (docDepth: number) => ListKey[] }>
> = {
  university: { key: null, singular: 'University', nameKey: 'University', depth: 0, typeWord: 'university', lists: (d) => (d >= 2 ? ['Faculties'] : []) },
  faculty: { key: 'Faculties', singular: 'Faculty', nameKey: 'Faculty Name', depth: 1, typeWord: 'faculty', lists: (d) => (d >= 3 ? ['Departments'] : []) },
  department: { key: 'Departments', singular: 'Department', nameKey: 'Department Name', depth: 2, typeWord: 'department', lists: (d) => (d >= 4 ? ['Programs'] : []) },
  program: { key: 'Programs', singular: 'Program', nameKey: 'Program Name', depth: 3, typeWord: 'program', lists: (d) => (d >= 5 ? ['Courses', 'Students'] : []) },
  course: { key: 'Courses', singular: 'Course', nameKey: 'Course Name', depth: 4, typeWord: 'course', lists: (d) => (d >= 6 ? ['Lecturers'] : []) },
  lecturer: { key: 'Lecturers', singular: 'Lecturer', nameKey: 'Name', depth: 5, typeWord: 'name', lists: () => [] },
  student: { key: 'Students', singular: 'Student', nameKey: 'Name', depth: 4, typeWord: 'name', lists: () => [] },
};

/** The kind of the objects in each list. */
export const LIST_KIND: Readonly<Record<ListKey, NodeKind>> = {
  Faculties: 'faculty',
  Departments: 'department',
  Programs: 'program',
  Courses: 'course',
  Lecturers: 'lecturer',
  Students: 'student',
};

/**
 * One object of the document. `id` = position in document (pre-)order; `lists` = its child lists in key order;
 * `title` (lecturers) and `studentId` (students, 8 digits) are part of the skeleton and shared by both semantics.
 */
export interface DocNode {
  id: number;
  kind: NodeKind;
  depth: number;
  parent: number | null;
  lists: { key: ListKey; children: number[] }[];
  title?: string;
  studentId?: string;
}

/** The shape of a document: nodes in document order (node 0 = the University). */
export interface DocSkeleton {
  depth: number;
  width: number;
  nodes: DocNode[];
}

/** A skeleton with both namings; `normal[id]` / `nonsense[id]` is the name of node `id` (lecturers: the full "Name"). */
export interface DocumentPair {
  skeleton: DocSkeleton;
  normal: string[];
  nonsense: string[];
}

/**
 * Draw a skeleton (§7 rec. 13): the chain University → Faculty → Department → Program → Course → Lecturer cut at
 * `depth` levels, Students beside Courses when depth ≥ 5, Lecturers under Courses when depth ≥ 6; every child list
 * has a uniform random length in [1, width]. Lecturers get a uniform title, students a unique 8-digit id.
 * Draw order: depth-first in document order (count of a list, then each child's subtree).
 * @throws RangeError when depth is not an integer in [2, 6] or width is not an integer ≥ 1.
 */
export function generateSkeleton(rng: Rng, depth: number, width: number): DocSkeleton {
  if (!Number.isInteger(depth) || depth < 2 || depth > 6) throw new RangeError(`json document depth must be an integer in [2, 6], got ${depth}`);
  if (!Number.isInteger(width) || width < 1) throw new RangeError(`json document width must be an integer >= 1, got ${width}`);
  const nodes: DocNode[] = [];
  const ids = new Set<string>();
  const make = (kind: NodeKind, parent: number | null): DocNode => {
    const node: DocNode = { id: nodes.length, kind, depth: KIND_INFO[kind].depth, parent, lists: [] };
    if (kind === 'lecturer') node.title = rng.pick(TITLES);
    if (kind === 'student') {
      let sid: string;
      do sid = String(rng.int(10_000_000, 99_999_999));
      while (ids.has(sid));
      ids.add(sid);
      node.studentId = sid;
    }
    nodes.push(node);
    return node;
  };
  const grow = (node: DocNode): void => {
    for (const key of KIND_INFO[node.kind].lists(depth)) {
      const list = { key, children: [] as number[] };
      node.lists.push(list);
      const n = rng.int(1, width);
      for (let i = 0; i < n; i++) {
        const child = make(LIST_KIND[key], node.id);
        list.children.push(child.id);
        grow(child);
      }
    }
  };
  grow(make('university', null));
  return { depth, width, nodes };
}

/** First unused candidate; when all are used, `<first> (2)`, `<first> (3)`, ... (deterministic disambiguation). */
function allocate(candidates: readonly string[], used: Set<string>): string {
  let name = candidates.find((c) => !used.has(c));
  if (name === undefined) {
    const base = candidates[0] ?? 'Unnamed';
    for (let k = 2; ; k++) {
      if (!used.has(`${base} (${k})`)) {
        name = `${base} (${k})`;
        break;
      }
    }
  }
  used.add(name);
  return name;
}

/**
 * Realistic names (normal semantics), unique within the document (§7 rec. 17): a university name; faculties from
 * distinct faculty pools; departments "Department of <subject>" from their faculty's subjects; programs
 * "<degree> in <topic>" and courses "<template with topic>" from their department's topics; lecturers
 * "<Title> <First> <Last>", students "<First> <Last>" with distinct persons. A pool that runs out falls back to
 * the other faculties' entries, then to a " (k)" suffix.
 */
function normalNames(sk: DocSkeleton, rng: Rng): string[] {
  const used = new Set<string>();
  const persons = new Set<string>();
  const names: string[] = new Array(sk.nodes.length);
  const facultyOf = new Map<number, FacultyPool>();
  const topicsOf = new Map<number, string[]>();
  let facultyOrder: FacultyPool[] = [];
  let facultyIndex = 0;
  const person = (): string => {
    for (let tries = 0; tries < 200; tries++) {
      const p = `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
      if (!persons.has(p)) return p;
    }
    for (const f of FIRST_NAMES) for (const l of LAST_NAMES) if (!persons.has(`${f} ${l}`)) return `${f} ${l}`;
    return allocate([`${FIRST_NAMES[0]} ${LAST_NAMES[0]}`], persons);
  };
  for (const node of sk.nodes) {
    const parent = node.parent === null ? undefined : sk.nodes[node.parent]!;
    switch (node.kind) {
      case 'university':
        names[node.id] = allocate(rng.shuffle(UNIVERSITY_NAMES), used);
        facultyOrder = rng.shuffle(FACULTY_POOLS);
        break;
      case 'faculty': {
        const pool = facultyOrder[facultyIndex++ % facultyOrder.length]!;
        facultyOf.set(node.id, pool);
        names[node.id] = allocate([pool.faculty], used);
        break;
      }
      case 'department': {
        const pool = facultyOf.get(parent!.id)!;
        const others = FACULTY_POOLS.filter((f) => f !== pool).flatMap((f) => f.subjects);
        const subjects = [...rng.shuffle(pool.subjects), ...rng.shuffle(others)];
        const name = allocate(subjects.map((x) => `Department of ${x.subject}`), used);
        const subject = subjects.find((x) => `Department of ${x.subject}` === name) ?? subjects[0]!;
        facultyOf.set(node.id, pool);
        topicsOf.set(node.id, [subject.subject, ...subject.specializations]);
        names[node.id] = name;
        break;
      }
      case 'program': {
        const pool = facultyOf.get(parent!.id)!;
        const topics = topicsOf.get(parent!.id)!;
        facultyOf.set(node.id, pool);
        topicsOf.set(node.id, topics);
        names[node.id] = allocate(rng.shuffle(pool.degrees.flatMap((d) => topics.map((t) => `${d} in ${t}`))), used);
        break;
      }
      case 'course': {
        const topics = topicsOf.get(parent!.id)!;
        names[node.id] = allocate(rng.shuffle(COURSE_TEMPLATES.flatMap((c) => topics.map((t) => c.replace('{t}', t)))), used);
        break;
      }
      case 'lecturer':
      case 'student': {
        const p = person();
        persons.add(p);
        names[node.id] = allocate([node.kind === 'lecturer' ? `${node.title} ${p}` : p], used);
        break;
      }
    }
  }
  return names;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';

/** The nonsense-code pattern (§3.3): capital, lower-case, digit, capital, lower-case, digit. */
export const NONSENSE_CODE = /^[A-Z][a-z][0-9][A-Z][a-z][0-9]$/;

/** Nonsense names (§3.3, §7 rec. 13): one unique random code per node, in document order. */
function nonsenseNames(sk: DocSkeleton, rng: Rng): string[] {
  const used = new Set<string>();
  const draw = (): string => {
    const c = (set: string): string => set[rng.int(0, set.length - 1)]!;
    return c(UPPER) + c(LOWER) + c(DIGITS) + c(UPPER) + c(LOWER) + c(DIGITS);
  };
  return sk.nodes.map(() => {
    let code: string;
    do code = draw();
    while (used.has(code));
    used.add(code);
    return code;
  });
}

/**
 * The paired documents of one coordinate (§3.3, §7 rec. 13/27): skeleton from `rngFor(seed, ...keys, 'shape')`,
 * normal names from `rngFor(seed, ...keys, 'names')`, nonsense codes from `rngFor(seed, ...keys, 'codes')`.
 * The suite uses keys `['json', preset]`; the strict ICL exemplars use their own keys.
 * @throws RangeError as {@link generateSkeleton}.
 */
export function generateDocumentPair(seed: number, keys: readonly (string | number)[], depth: number, width: number): DocumentPair {
  const skeleton = generateSkeleton(rngFor(seed, ...keys, 'shape'), depth, width);
  return { skeleton, normal: normalNames(skeleton, rngFor(seed, ...keys, 'names')), nonsense: nonsenseNames(skeleton, rngFor(seed, ...keys, 'codes')) };
}

/**
 * The JSON object of a skeleton under one naming, with the exact key schema and key order of §3.3:
 * `{"University", "Faculties": [{"Faculty Name", "Departments": [{"Department Name", "Programs": [{"Program Name",
 * "Courses": [{"Course Name", "Lecturers": [{"Name", "Title"}]}], "Students": [{"Name", "Student ID"}]}]}]}]}`
 * (lists absent below the document's depth).
 */
export function buildDocument(sk: DocSkeleton, names: readonly string[]): Json {
  const build = (node: DocNode): { [key: string]: Json } => {
    const obj: { [key: string]: Json } = { [KIND_INFO[node.kind].nameKey]: names[node.id]! };
    if (node.kind === 'lecturer') obj['Title'] = node.title!;
    if (node.kind === 'student') obj['Student ID'] = node.studentId!;
    for (const list of node.lists) obj[list.key] = list.children.map((c) => build(sk.nodes[c]!));
    return obj;
  };
  return build(sk.nodes[0]!);
}

/** The ancestors of a node, nearest first (parent, grandparent, ..., University) (§3.3 paths and node_attribute context). */
export function ancestorsOf(sk: DocSkeleton, id: number): number[] {
  const out: number[] = [];
  for (let p = sk.nodes[id]!.parent; p !== null; p = sk.nodes[p]!.parent) out.push(p);
  return out;
}

/**
 * The deepest common ancestor of two nodes (§3.3 shared_ancestor_*; a node counts as its own ancestor, so
 * LCA(a, descendant of a) = a — the compat diff-level answer, §7 rec. 16).
 */
export function lowestCommonAncestor(sk: DocSkeleton, a: number, b: number): number {
  const up = new Set([a, ...ancestorsOf(sk, a)]);
  for (const x of [b, ...ancestorsOf(sk, b)]) if (up.has(x)) return x;
  return 0;
}

/** True when `a` is a proper ancestor of `b` (§7 rec. 16: strict diff-level pairs are never ancestor-related). */
export function isAncestor(sk: DocSkeleton, a: number, b: number): boolean {
  return a !== b && ancestorsOf(sk, b).includes(a);
}
