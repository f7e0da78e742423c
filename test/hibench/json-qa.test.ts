/**
 * JSON question sub-types (specs/hibench.md §3.3; §7 recs 14-17): every reference answer of the generated suites is
 * recomputed here by an independent walk of the record's own document (not the generator's skeleton).
 */
import { describe, it, expect } from 'vitest';
import type { Json } from '@hpt-bench/core';
import { generateJson } from '../../plugins/hibench/src/json/suite.js';
import type { HibenchRecord } from '../../plugins/hibench/src/types.js';

type Obj = { [key: string]: Json };
interface WNode {
  name: string;
  kind: string;
  depth: number;
  parent: WNode | null;
  obj: Obj;
  lists: Record<string, WNode[]>;
}
const NAME_KEYS: [string, string][] = [
  ['University', 'university'],
  ['Faculty Name', 'faculty'],
  ['Department Name', 'department'],
  ['Program Name', 'program'],
  ['Course Name', 'course'],
];

/** A simple recursive walk of the JSON document: named objects in document order with parent links. */
function walk(doc: Json): { all: WNode[]; byName: Map<string, WNode>; byKey: Map<string, WNode[]> } {
  const all: WNode[] = [];
  const byKey = new Map<string, WNode[]>();
  const visit = (o: Obj, parent: WNode | null, depth: number): WNode => {
    const nk = NAME_KEYS.find(([k]) => k in o);
    const kind = nk ? nk[1] : 'Title' in o ? 'lecturer' : 'student';
    const node: WNode = { name: o[nk ? nk[0] : 'Name'] as string, kind, depth, parent, obj: o, lists: {} };
    all.push(node);
    for (const [k, v] of Object.entries(o)) {
      if (!Array.isArray(v)) continue;
      node.lists[k] = [];
      for (const c of v) {
        const child = visit(c as Obj, node, depth + 1);
        node.lists[k]!.push(child);
        if (!byKey.has(k)) byKey.set(k, []);
        byKey.get(k)!.push(child);
      }
    }
    return node;
  };
  visit(doc as Obj, null, 0);
  // document order of byKey lists = pre-order; rebuild from `all` to be explicit
  for (const [k, list] of byKey) byKey.set(k, all.filter((n) => list.includes(n)));
  return { all, byName: new Map(all.map((n) => [n.name, n])), byKey };
}

const chainUp = (n: WNode): WNode[] => {
  const out: WNode[] = [];
  for (let p: WNode | null = n; p; p = p.parent) out.push(p);
  return out;
};

/** The question part of a record's task text (after the document), without the compat "." after "?". */
function questionOf(r: HibenchRecord): string {
  const q = r.question.slice(r.question.lastIndexOf('}, ') + 3);
  // the template's final "." (compat: always; strict: only after a question not ending in "?" or ".")
  expect(q.endsWith('.') || q.endsWith('?')).toBe(true);
  return r.compat === 'reference' || q.endsWith(').') ? q.slice(0, -1) : q;
}

function must<T>(v: T | undefined | null, what: string): T {
  if (v === undefined || v === null) throw new Error(`not found: ${what}`);
  return v;
}

const SUITES = [1, 77, 2024].flatMap((seed) =>
  (['strict', 'reference'] as const).map((compat) => ({ seed, compat, records: [...generateJson({ seed, compat, filter: { icl: ['zero'] } })] })),
);

/** Check one record against the independent walk; returns nothing, throws via expect. */
function check(r: HibenchRecord): void {
  const doc = r.document!;
  const w = walk(doc);
  const q = questionOf(r);
  const strict = r.compat === 'strict';
  const U = w.all[0]!.name;
  const node = (name: string) => must(w.byName.get(name), name);
  let m: RegExpMatchArray | null;
  switch (r.task) {
    case 'child_count': {
      m = must(q.match(/^How many (\w+)s are there in (.+)\?$/), q);
      const parent = node(m[2]!);
      const key = `${m[1]}s`;
      if (strict) {
        expect(Object.keys(parent.lists)).toContain(key);
        expect(r.target).toBe(parent.lists[key]!.length);
      } else {
        const conventional: Record<string, string[]> = { faculty: ['Departments'], department: ['Programs'], program: ['Courses'], course: ['Lecturers', 'Students'], lecturer: [], student: [] };
        const count = conventional[parent.kind]!.reduce((a, k) => a + (parent.lists[k]?.length ?? 0), 0);
        expect(r.target).toBe(count);
      }
      expect(parent.kind).not.toBe('university');
      break;
    }
    case 'node_depth': {
      m = must(q.match(/^What is the depth of (.+) in the (.+)\? \(starting from 0\)$/), q);
      expect(m[2]).toBe(U);
      expect(r.target).toBe(node(m[1]!).depth);
      expect(r.target).toBeGreaterThan(0);
      break;
    }
    case 'level_count': {
      m = must(q.match(/^How many (\w+) are there in total in the (.+)\?$/), q);
      expect(m[2]).toBe(U);
      expect(r.target).toBe(must(w.byKey.get(m[1]!), m[1]!).length);
      break;
    }
    case 'level_nodes': {
      m = must(q.match(/^List all (\w+) in the (.+)\.$/), q);
      expect(m[2]).toBe(U);
      expect(r.target).toEqual(must(w.byKey.get(m[1]!), m[1]!).map((n) => n.name));
      break;
    }
    case 'node_attribute': {
      m = q.match(/^What is the name of the program in (.+)\?$/);
      if (m) {
        const programs = node(m[1]!).lists['Programs']!.map((n) => n.name);
        expect(programs).toContain(r.target);
        if (strict) expect(programs).toEqual([r.target]);
        expect(w.all.some((n) => n.kind === 'student' || n.kind === 'lecturer')).toBe(false);
        break;
      }
      m = must(q.match(/^What is the (Name|Title|Student ID) of the (student|lecturer) (.+) who is in (.+)\?$/), q);
      const [, asked, who, given, context] = m as unknown as [string, string, string, string, string];
      const matches = w.all.filter(
        (n) =>
          n.kind === who &&
          Object.values(n.obj).includes(given) &&
          chainUp(n)
            .slice(1)
            .map((a) => a.name)
            .join(' in ') === context,
      );
      expect(matches.length).toBeGreaterThan(0);
      expect(matches.map((n) => n.obj[asked])).toContain(r.target);
      expect(asked).not.toBe(Object.entries(matches[0]!.obj).find(([, v]) => v === given)![0]);
      if (strict) expect(matches).toHaveLength(1);
      break;
    }
    case 'path_down_to_up':
    case 'path_up_to_down':
    case 'path_between_nodes': {
      const names = (r.target as string).split(' -> ');
      const path = names.map(node);
      for (let i = 1; i < path.length; i++) {
        const [a, b] = [path[i - 1]!, path[i]!];
        expect(a.parent === b || b.parent === a).toBe(true);
      }
      expect(new Set(names).size).toBe(names.length);
      if (r.task === 'path_down_to_up') {
        m = must(q.match(/^What is the path from (.+) up to the (.+)\?$/), q);
        expect(m[2]).toBe(U);
        const leaf = node(m[1]!);
        expect(Object.keys(leaf.lists)).toHaveLength(0);
        const up = chainUp(leaf).map((n) => n.name);
        expect(names).toEqual(strict ? up : up.slice(0, -1));
      } else if (r.task === 'path_up_to_down') {
        m = must(q.match(/^What is the path from (.+) down to (.+)\?$/), q);
        expect(names[0]).toBe(m[1]);
        expect(names.at(-1)).toBe(m[2]);
        for (let i = 1; i < path.length; i++) expect(path[i]!.parent).toBe(path[i - 1]);
      } else {
        m = must(q.match(/^If someone wants to go from the (\w+) '(.+)' to the (\w+) '(.+)', what path should they take\?$/), q);
        const typeWord = (n: WNode) => (n.kind === 'student' || n.kind === 'lecturer' ? 'name' : n.kind);
        expect(m[1]).toBe(typeWord(node(m[2]!)));
        expect(m[3]).toBe(typeWord(node(m[4]!)));
        expect(names[0]).toBe(m[2]);
        expect(names.at(-1)).toBe(m[4]);
        expect(names).not.toContain(U);
        expect(names.length).toBeGreaterThanOrEqual(3);
        // up then down: depth decreases to a single minimum then increases
        const depths = path.map((n) => n.depth);
        const min = depths.indexOf(Math.min(...depths));
        for (let i = 1; i <= min; i++) expect(depths[i]).toBe(depths[i - 1]! - 1);
        for (let i = min + 1; i < depths.length; i++) expect(depths[i]).toBe(depths[i - 1]! + 1);
      }
      break;
    }
    case 'shared_ancestor_same_level':
    case 'shared_ancestor_diff_level': {
      const [na, nb] = r.args['names'] as [string, string];
      expect(q).toBe(`What is the common ancestor of ${na} and ${nb}?`);
      const [a, b] = [node(na), node(nb)];
      expect(a).not.toBe(b);
      const ca = chainUp(a);
      const cb = chainUp(b);
      const common = ca.filter((n) => cb.includes(n));
      const deepest = common.reduce((x, y) => (y.depth > x.depth ? y : x));
      expect(r.target).toBe(deepest.name);
      if (r.task === 'shared_ancestor_same_level') {
        expect(a.depth).toBe(b.depth);
      } else {
        expect(a.depth).not.toBe(b.depth);
        if (strict) {
          expect(ca.includes(b) || cb.includes(a)).toBe(false);
          expect(r.target).not.toBe(a.name);
          expect(r.target).not.toBe(b.name);
        }
      }
      break;
    }
    default:
      throw new Error(`unexpected task ${r.task}`);
  }
}

/** True when a document admits no question of the sub-type (used to justify an empty group). */
function admitsNone(task: string, all: WNode[], strict: boolean): boolean {
  switch (task) {
    case 'node_attribute':
      return strict && !all.some((n) => n.kind === 'student' || n.kind === 'lecturer') && !all.some((n) => n.kind === 'department' && n.lists['Programs']!.length === 1);
    case 'shared_ancestor_same_level':
      return !all.some((a) => all.some((b) => a !== b && a.depth === b.depth && a.depth > 0));
    case 'shared_ancestor_diff_level':
      return strict && !all.some((a) => all.some((b) => a.depth > 0 && b.depth > 0 && a.depth !== b.depth && !chainUp(a).includes(b) && !chainUp(b).includes(a)));
    default:
      return false;
  }
}

describe('JSON reference answers agree with an independent walk of the document', () => {
  for (const { seed, compat, records } of SUITES) {
    it(`seed ${seed}, ${compat}: all ${records.length} records`, () => {
      expect(records.length).toBeGreaterThan(300);
      for (const r of records) {
        try {
          check(r);
        } catch (e) {
          throw new Error(`${r.id}: ${(e as Error).message}\nquestion: ${questionOf(r)}\ntarget: ${JSON.stringify(r.target)}`);
        }
      }
    });
  }

  it('the check itself fails on a wrong answer (mutation)', () => {
    const records = SUITES[0]!.records;
    for (const task of ['child_count', 'level_count', 'node_depth', 'level_nodes', 'path_up_to_down', 'shared_ancestor_same_level', 'node_attribute']) {
      const r = records.find((x) => x.task === task)!;
      const t = r.target;
      const wrong = typeof t === 'number' ? t + 1 : Array.isArray(t) ? t.slice(1) : task === 'path_up_to_down' ? (t as string).split(' -> ').reverse().join(' -> ') : 'Nobody';
      expect(() => check({ ...r, target: wrong })).toThrow();
    }
  });

  it('strict diff-level pairs are never ancestor-related, compat ones sometimes are', () => {
    let compatRelated = 0;
    for (const { compat, records } of SUITES) {
      for (const r of records.filter((x) => x.task === 'shared_ancestor_diff_level')) {
        const [a, b] = r.args['names'] as string[];
        const related = r.target === a || r.target === b;
        if (compat === 'strict') expect(related).toBe(false);
        else if (related) compatRelated++;
      }
    }
    expect(compatRelated).toBeGreaterThan(0);
  });

  it('compat child_count asks "Students in <course or lecturer>" with answer 0; strict never counts a missing list', () => {
    const compat = SUITES.filter((s) => s.compat === 'reference').flatMap((s) => s.records);
    const zero = compat.filter((r) => r.task === 'child_count' && r.target === 0);
    expect(zero.length).toBeGreaterThan(0);
    for (const r of zero) expect(questionOf(r)).toMatch(/^How many Students are there in /);
    const strict = SUITES.filter((s) => s.compat === 'strict').flatMap((s) => s.records);
    for (const r of strict.filter((x) => x.task === 'child_count')) expect(r.target).toBeGreaterThan(0);
    // strict asks about Program students too
    expect(strict.some((r) => r.task === 'child_count' && /How many Students are there in /.test(questionOf(r)))).toBe(true);
  });

  it('nonsense questions are the normal questions with names mapped to codes', () => {
    for (const { records } of SUITES) {
      const byId = new Map(records.map((r) => [r.id, r]));
      for (const n of records.filter((r) => r.semantics === 'normal')) {
        const x = must(byId.get(n.id.replace('/normal/', '/nonsense/')), n.id);
        const wn = walk(n.document!).all;
        const wx = walk(x.document!).all;
        expect(wx).toHaveLength(wn.length);
        const map = new Map(wn.map((node, i) => [node.name, wx[i]!.name]));
        const mapStr = (s: string): string => {
          if (map.has(s)) return map.get(s)!;
          if (s.includes(' -> ')) return s.split(' -> ').map((p) => map.get(p) ?? p).join(' -> ');
          return s;
        };
        const mapJson = (v: Json): Json => (typeof v === 'string' ? mapStr(v) : Array.isArray(v) ? v.map(mapJson) : v);
        expect(x.target).toEqual(mapJson(n.target));
        expect(x.args).toEqual(Object.fromEntries(Object.entries(n.args).map(([k, v]) => [k, mapJson(v)])));
        let text = questionOf(n);
        for (const name of [...map.keys()].sort((a, b) => b.length - a.length)) text = text.split(name).join(map.get(name)!);
        expect(questionOf(x)).toBe(text);
      }
    }
  });

  it('questions are unique per (preset, semantics, sub-type) and at most 13', () => {
    for (const { records } of SUITES) {
      const groups = new Map<string, string[]>();
      for (const r of records) {
        const k = `${r.preset}/${r.semantics}/${r.task}`;
        if (!groups.has(k)) groups.set(k, []);
        groups.get(k)!.push(questionOf(r));
      }
      // a (preset, semantics, sub-type) without questions must be one whose document admits none
      for (const preset of ['small', 'medium-1', 'medium-2', 'large-1', 'large-2'])
        for (const sem of ['normal', 'nonsense'])
          for (const task of new Set(records.map((r) => r.task))) {
            if (groups.has(`${preset}/${sem}/${task}`)) continue;
            const doc = records.find((r) => r.preset === preset && r.semantics === sem)!.document!;
            expect(admitsNone(task, walk(doc).all, records[0]!.compat === 'strict'), `${preset}/${sem}/${task}`).toBe(true);
          }
      const missing = 100 - groups.size;
      expect(missing).toBeLessThanOrEqual(6);
      for (const [k, qs] of groups) {
        expect(qs.length, k).toBeLessThanOrEqual(13);
        expect(new Set(qs).size, k).toBe(qs.length);
      }
      // where the question space is easy to count, the draws reach min(13, space): the attempt bound is adequate
      for (const [k, qs] of groups) {
        const [preset, sem, task] = k.split('/') as [string, string, string];
        const all = walk(records.find((r) => r.preset === preset && r.semantics === sem)!.document!).all;
        const strict = records[0]!.compat === 'strict';
        const space: Record<string, number> = {
          node_depth: all.length - 1,
          path_down_to_up: all.filter((n) => Object.keys(n.lists).length === 0).length,
          level_count: new Set(all.slice(1).map((n) => n.kind)).size,
          level_nodes: new Set(all.slice(1).map((n) => n.kind)).size,
          path_up_to_down: all.reduce((a, n) => a + n.depth, 0),
        };
        if (strict) space['child_count'] = all.filter((n) => n.kind !== 'university').reduce((a, n) => a + Object.keys(n.lists).length, 0);
        if (task in space) expect(qs.length, k).toBe(Math.min(13, space[task]!));
      }
    }
  });
});
