/** The procedural university-document generator (specs/hibench.md §3.3; §7 recs 13, 17). */
import { describe, it, expect } from 'vitest';
import type { Json } from '@hpt-bench/core';
import { rngFor } from '../../plugins/hibench/src/rng.js';
import { buildDocument, generateDocumentPair, generateSkeleton, JSON_PRESET_PARAMS, NONSENSE_CODE, type JsonPreset } from '../../plugins/hibench/src/json/document.js';
import { COURSE_TEMPLATES, FACULTY_POOLS, FIRST_NAMES, LAST_NAMES, TITLES, UNIVERSITY_NAMES } from '../../plugins/hibench/src/json/pools.js';

type Obj = { [key: string]: Json };
const NAME_KEYS = ['University', 'Faculty Name', 'Department Name', 'Program Name', 'Course Name', 'Name'];
// The §3.3 schema: which list keys each level's object has at document depth d (levels counted from 1).
const EXPECTED_KEYS: Record<string, (d: number) => string[]> = {
  University: (d) => ['University', ...(d >= 2 ? ['Faculties'] : [])],
  'Faculty Name': (d) => ['Faculty Name', ...(d >= 3 ? ['Departments'] : [])],
  'Department Name': (d) => ['Department Name', ...(d >= 4 ? ['Programs'] : [])],
  'Program Name': (d) => ['Program Name', ...(d >= 5 ? ['Courses', 'Students'] : [])],
  'Course Name': (d) => ['Course Name', ...(d >= 6 ? ['Lecturers'] : [])],
};

/** Independent walk: every named object with its level (1 = University) and its list lengths. */
function walk(doc: Json): { name: string; level: number; obj: Obj; lists: number[] }[] {
  const out: { name: string; level: number; obj: Obj; lists: number[] }[] = [];
  const visit = (o: Obj, level: number): void => {
    const key = NAME_KEYS.find((k) => k in o)!;
    const lists = Object.values(o).filter((v): v is Json[] => Array.isArray(v));
    out.push({ name: o[key] as string, level, obj: o, lists: lists.map((l) => l.length) });
    for (const l of lists) for (const c of l) visit(c as Obj, level + 1);
  };
  visit(doc as Obj, 1);
  return out;
}

/** The document with every name replaced by "*" (shape + titles + student ids). */
function shape(doc: Json): Json {
  if (Array.isArray(doc)) return doc.map(shape);
  if (doc && typeof doc === 'object') return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, NAME_KEYS.includes(k) ? '*' : shape(v)]));
  return doc;
}

const PRESETS = Object.keys(JSON_PRESET_PARAMS) as JsonPreset[];
const SEEDS = Array.from({ length: 25 }, (_, i) => i * 7919 + 3);

describe('JSON document generator', () => {
  it('presets follow paper Table 7', () => {
    expect(JSON_PRESET_PARAMS).toEqual({
      small: { depth: 4, width: 2 },
      'medium-1': { depth: 5, width: 2 },
      'medium-2': { depth: 4, width: 4 },
      'large-1': { depth: 6, width: 2 },
      'large-2': { depth: 4, width: 6 },
    });
  });

  it("documents have the preset's exact depth, the §3.3 key schema and child-list lengths in [1, width]", () => {
    for (const preset of PRESETS) {
      const { depth, width } = JSON_PRESET_PARAMS[preset];
      let widest = 0;
      for (const seed of SEEDS) {
        const pair = generateDocumentPair(seed, ['json', preset], depth, width);
        const doc = buildDocument(pair.skeleton, pair.normal);
        const nodes = walk(doc);
        expect(Math.max(...nodes.map((n) => n.level))).toBe(depth);
        for (const n of nodes) {
          for (const len of n.lists) {
            expect(len).toBeGreaterThanOrEqual(1);
            expect(len).toBeLessThanOrEqual(width);
            widest = Math.max(widest, len);
          }
          const key = NAME_KEYS.find((k) => k in n.obj)!;
          if (key === 'Name') {
            // lecturer or student leaf
            const keys = Object.keys(n.obj);
            expect(keys[0]).toBe('Name');
            if ('Title' in n.obj) {
              expect(keys).toEqual(['Name', 'Title']);
              expect(TITLES).toContain(n.obj['Title']);
              expect((n.obj['Name'] as string).startsWith(`${n.obj['Title'] as string} `)).toBe(true);
              expect(n.level).toBe(6);
            } else {
              expect(keys).toEqual(['Name', 'Student ID']);
              expect(n.obj['Student ID']).toMatch(/^[1-9][0-9]{7}$/);
              expect(n.level).toBe(5);
            }
          } else {
            expect(Object.keys(n.obj)).toEqual(EXPECTED_KEYS[key]!(depth));
          }
        }
      }
      // the widest draw reaches the preset's width somewhere across seeds (uniform in [1, width])
      expect(widest).toBe(width);
    }
  });

  it('names are unique within a document, realistic, and never need the fallback suffix at the preset sizes', () => {
    for (const preset of PRESETS) {
      const { depth, width } = JSON_PRESET_PARAMS[preset];
      for (const seed of SEEDS) {
        const pair = generateDocumentPair(seed, ['json', preset], depth, width);
        const names = walk(buildDocument(pair.skeleton, pair.normal)).map((n) => n.name);
        expect(new Set(names).size).toBe(names.length);
        expect(names).toEqual(pair.normal);
        expect(UNIVERSITY_NAMES).toContain(names[0]);
        for (const n of names) expect(n).not.toMatch(/\(\d+\)$|,|'|"|->/);
        const ids = walk(buildDocument(pair.skeleton, pair.normal)).map((n) => n.obj['Student ID']).filter((x) => x !== undefined);
        expect(new Set(ids).size).toBe(ids.length);
      }
    }
  });

  it('nonsense documents: same shape, titles and student ids; every name a unique code of the pattern', () => {
    for (const preset of PRESETS) {
      const { depth, width } = JSON_PRESET_PARAMS[preset];
      for (const seed of SEEDS.slice(0, 10)) {
        const pair = generateDocumentPair(seed, ['json', preset], depth, width);
        const normal = buildDocument(pair.skeleton, pair.normal);
        const nonsense = buildDocument(pair.skeleton, pair.nonsense);
        expect(shape(nonsense)).toEqual(shape(normal));
        const codes = walk(nonsense).map((n) => n.name);
        for (const c of codes) expect(c).toMatch(NONSENSE_CODE);
        expect(new Set(codes).size).toBe(codes.length);
        expect(JSON.stringify(nonsense)).not.toContain(pair.normal[1]!);
      }
    }
  });

  it('is deterministic per (seed, keys) and differs across seeds', () => {
    const a = generateDocumentPair(42, ['json', 'medium-1'], 5, 2);
    const b = generateDocumentPair(42, ['json', 'medium-1'], 5, 2);
    const c = generateDocumentPair(43, ['json', 'medium-1'], 5, 2);
    expect(b).toEqual(a);
    expect(JSON.stringify(buildDocument(c.skeleton, c.normal))).not.toBe(JSON.stringify(buildDocument(a.skeleton, a.normal)));
  });

  it('falls back to a deterministic suffix when a pool runs out, keeping names unique', () => {
    const pair = generateDocumentPair(1, ['json', 'huge'], 4, 14);
    const names = walk(buildDocument(pair.skeleton, pair.normal)).map((n) => n.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.some((n) => /\(\d+\)$/.test(n))).toBe(true);
  });

  it('rejects depths outside [2, 6] and widths < 1', () => {
    expect(() => generateSkeleton(rngFor(1, 'x'), 7, 2)).toThrow(RangeError);
    expect(() => generateSkeleton(rngFor(1, 'x'), 1, 2)).toThrow(RangeError);
    expect(() => generateSkeleton(rngFor(1, 'x'), 4, 0)).toThrow(RangeError);
  });

  it('pools: no commas, quotes or arrows, and no duplicate entries', () => {
    const topics = FACULTY_POOLS.flatMap((f) => f.subjects.flatMap((s) => [s.subject, ...s.specializations]));
    const all = [...FACULTY_POOLS.map((f) => f.faculty), ...topics, ...FACULTY_POOLS.flatMap((f) => f.degrees), ...COURSE_TEMPLATES, ...UNIVERSITY_NAMES, ...FIRST_NAMES, ...LAST_NAMES, ...TITLES];
    for (const s of all) expect(s).not.toMatch(/,|'|"|->|→|>| and /);
    for (const list of [topics, FACULTY_POOLS.map((f) => f.faculty), UNIVERSITY_NAMES, FIRST_NAMES, LAST_NAMES]) expect(new Set(list).size).toBe(list.length);
    for (const f of FACULTY_POOLS) {
      expect(f.subjects.length).toBeGreaterThanOrEqual(6);
      expect(new Set(f.degrees).size).toBe(f.degrees.length);
    }
    expect(FACULTY_POOLS.length).toBeGreaterThanOrEqual(6);
  });
});
