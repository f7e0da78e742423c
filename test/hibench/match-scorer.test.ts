/**
 * The `hierarchy` scorer family (specs/hibench.md §4): matcher resolution, scoring, renderTarget (oracle) and
 * randomAnswer (random baseline) in both compat modes, and the aggregator. Structure and conversion cases use
 * tree/parse.ts and formula/notation.ts in strict mode.
 */
import { describe, it, expect } from 'vitest';
import { HptError, type GradedOutput, type Json, type Sample, type ScoreContext } from '@hpt-bench/core';
import {
  HierarchyHitRateScorer,
  HierarchyListScorer,
  HierarchyNumberScorer,
  HierarchyScorer,
  HierarchyStringScorer,
  HierarchyStructureScorer,
  resolveMatcher,
} from '../../plugins/hibench/src/match/scorer.js';
import { extractAnswer } from '../../plugins/hibench/src/match/extract.js';
import type { MatcherSpec } from '../../plugins/hibench/src/types.js';

const STRICT: ScoreContext = { compat: 'strict', options: {} };
const REF: ScoreContext = { compat: 'reference', options: {} };
const MODES = [STRICT, REF];

function sample(target: Json, matcher?: MatcherSpec, meta: Record<string, Json> = {}, id = 's1'): Sample {
  return { id, index: 0, input: {}, target, meta: matcher ? { ...meta, matcher: matcher as unknown as Json } : meta };
}
const out = (completion: string): GradedOutput => ({ promptText: 'Q', completion, cue: '' });

/** Deterministic LCG in [0, 1) (tests only). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const MULTI_HIER = '   4\n    |-- 1\n    |   |-- 0\n    |   `-- 2\n    `-- 3';
const BIN_HIER_MIRROR = '   3\n    |-(R)-2\n    |   `-(L)-0\n    `-(L)-1';

/** One case per matcher type / target kind (§3 tasks). */
const CASES: { name: string; target: Json; matcher: MatcherSpec }[] = [
  { name: 'number (int)', target: 11, matcher: { type: 'number' } },
  { name: 'number (python float string)', target: '3.0', matcher: { type: 'number' } },
  { name: 'number (negative float string)', target: '-54.31', matcher: { type: 'number' } },
  { name: 'string boolean', target: true, matcher: { type: 'string' } },
  { name: 'string "False"', target: 'False', matcher: { type: 'string' } },
  { name: 'string node id', target: 4, matcher: { type: 'string' } },
  { name: 'string label', target: 'postorder', matcher: { type: 'string' } },
  { name: 'string name', target: 'Faculty of Science', matcher: { type: 'string' } },
  { name: 'string with double quotes', target: 'the "Big" Lab', matcher: { type: 'string' } },
  { name: 'string path', target: 'Student A -> Master of Design -> Faculty of Arts', matcher: { type: 'string', path: true } },
  { name: 'string conversion (prefix)', target: '* + 3 4 2', matcher: { type: 'string', notation: 'prefix', skip: '[\\s\'"]' } },
  { name: 'string conversion (infix, parens)', target: '( 3 + -4 ) * 2', matcher: { type: 'string', notation: 'infix', skip: '[\\s\'"]' } },
  { name: 'list traversal', target: [3, 2, 0, 1], matcher: { type: 'list', sep: ',', ordered: true } },
  { name: 'list ancestors string', target: '1, 4', matcher: { type: 'list', sep: ',', none: 'None' } },
  { name: 'list none', target: 'None', matcher: { type: 'list', sep: ',', none: 'None' } },
  { name: 'list names', target: ['Faculty of Science', 'Faculty of Arts'], matcher: { type: 'list', sep: ',' } },
  { name: 'structure edge', target: '4 -> 1, 1 -> 0, 1 -> 2, 4 -> 3', matcher: { type: 'structure', representation: 'edge', binary: false, empty: 'No edges' } },
  { name: 'structure hierarchy (multi-line)', target: MULTI_HIER, matcher: { type: 'structure', representation: 'hierarchy', binary: false } },
  { name: 'structure binary hierarchy', target: BIN_HIER_MIRROR, matcher: { type: 'structure', representation: 'hierarchy', binary: true } },
  { name: 'structure binary edge', target: '3 -(R)-> 2, 2 -(L)-> 0, 3 -(L)-> 1', matcher: { type: 'structure', representation: 'edge', binary: true } },
  { name: 'structure no edges', target: 'No edges', matcher: { type: 'structure', representation: 'hierarchy', empty: 'No edges' } },
  { name: 'hit-rate', target: ['BIBREF19,BIBREF20', 'multilingual NMT (MNMT) BIBREF19'], matcher: { type: 'hit-rate', sep: ',' } },
  { name: 'hit-rate outline', target: ['Title\nAbstract\nIntroduction\nRelated Work'], matcher: { type: 'hit-rate', sep: '\n' } },
];

describe('renderTarget is accepted for every matcher type in both modes', () => {
  const scorer = new HierarchyScorer();
  for (const c of CASES) {
    it(c.name, () => {
      const s = sample(c.target, c.matcher);
      for (const ctx of MODES) {
        const text = scorer.renderTarget(s, ctx);
        expect(text.startsWith('{"answer": ')).toBe(true);
        const v = scorer.score(s, out(text), ctx);
        expect({ mode: ctx.compat, solved: v.solved, score: v.score }).toEqual({ mode: ctx.compat, solved: true, score: 1 });
      }
    });
  }
  it('renders JSON: strings quoted (newlines escaped), lists joined into one string, numbers/booleans bare', () => {
    expect(scorer.renderTarget(sample(11, { type: 'number' }), STRICT)).toBe('{"answer": 11}');
    expect(scorer.renderTarget(sample(true, { type: 'string' }), STRICT)).toBe('{"answer": true}');
    expect(scorer.renderTarget(sample([3, 2, 0, 1], { type: 'list' }), STRICT)).toBe('{"answer": "3, 2, 0, 1"}');
    expect(scorer.renderTarget(sample('   3\n    `-- 1', { type: 'structure' }), STRICT)).toBe('{"answer": "   3\\n    `-- 1"}');
    expect(scorer.renderTarget(sample(null, { type: 'list', none: 'None' }), STRICT)).toBe('{"answer": "None"}');
  });
});

describe('scoring and matcher resolution', () => {
  it('uses sample.meta.matcher when present', () => {
    const scorer = new HierarchyScorer();
    const s = sample([3, 2, 0, 1], { type: 'list', sep: ',', ordered: true });
    expect(scorer.score(s, out('{"answer": "0"}'), REF)).toEqual({ solved: true, score: 1, extracted: '"0"' });
    expect(scorer.score(s, out('{"answer": "0"}'), STRICT)).toEqual({ solved: false, score: 0, extracted: '0' });
    expect(scorer.score(s, out('{"answer": "2, 3, 0, 1"}'), STRICT).solved).toBe(false);
  });
  it('meta.matcher wins over the options', () => {
    const s = sample([3, 2, 0, 1], { type: 'list' });
    const ctx: ScoreContext = { compat: 'strict', options: { matcher: 'list', ordered: true } };
    expect(new HierarchyScorer().score(s, out('{"answer": "2, 3, 0, 1"}'), ctx).solved).toBe(true);
  });
  it('falls back to the options: a type name plus fields, or a MatcherSpec object, or a toolkit alias', () => {
    const s = sample([3, 2, 0, 1]);
    const scorer = new HierarchyScorer();
    const byName: ScoreContext = { compat: 'strict', options: { matcher: 'list', ordered: true } };
    expect(scorer.score(s, out('{"answer": "2, 3, 0, 1"}'), byName).solved).toBe(false);
    expect(scorer.score(s, out('{"answer": "3, 2, 0, 1"}'), byName).solved).toBe(true);
    const byObject: ScoreContext = { compat: 'strict', options: { matcher: { type: 'list', sep: ';' } } };
    expect(scorer.score(s, out('{"answer": "2; 3; 0; 1"}'), byObject).solved).toBe(true);
    expect(resolveMatcher(s, { matcher: 'hierarchical_structure_match' })).toEqual({ type: 'structure', representation: 'hierarchy' });
    expect(resolveMatcher(s, { matcher: 'number_match', tolerance: 0.5 })).toEqual({ type: 'number', tolerance: 0.5 });
  });
  it('no matcher anywhere → E_CONFIG naming the sample', () => {
    const s = sample(1, undefined, {}, 'binary-tree/balance/7');
    let err: unknown;
    try {
      new HierarchyScorer().score(s, out('{"answer": 1}'), STRICT);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HptError);
    expect((err as HptError).code).toBe('E_CONFIG');
    expect((err as HptError).message).toContain('"binary-tree/balance/7"');
    expect((err as HptError).message).toMatch(/no matcher/);
  });
  it('bad matcher values → E_CONFIG', () => {
    const s = sample(1);
    expect(() => resolveMatcher(s, { matcher: 'fuzzy' })).toThrow(/unknown matcher type "fuzzy"/);
    expect(() => resolveMatcher(s, { matcher: 'list', ordered: 'yes' })).toThrow(/`ordered` must be a boolean/);
    expect(() => resolveMatcher(s, { matcher: 'structure', representation: 'tree' })).toThrow(/edge, hierarchy/);
    expect(() => resolveMatcher(sample(1, { type: 'bogus' } as unknown as MatcherSpec), {})).toThrow(/meta\.matcher/);
    expect(() => new HierarchyScorer().prepare({ compat: 'strict', options: { matcher: 7 } })).toThrow(HptError);
  });
  it('a target error is rethrown naming the sample', () => {
    const s = sample('abc', { type: 'number' }, {}, 'formula/calculate/3');
    expect(() => new HierarchyScorer().score(s, out('{"answer": 1}'), STRICT)).toThrow(/"formula\/calculate\/3".*not a valid number/);
  });
  it('typed subclasses fix the type and take fields from options and meta', () => {
    expect(new HierarchyNumberScorer().id).toBe('hierarchy-number');
    expect(new HierarchyStringScorer().id).toBe('hierarchy-string');
    expect(new HierarchyListScorer().id).toBe('hierarchy-list');
    expect(new HierarchyStructureScorer().id).toBe('hierarchy-structure');
    expect(new HierarchyHitRateScorer().id).toBe('hierarchy-hit-rate');
    const s = sample('3.0');
    expect(new HierarchyNumberScorer().score(s, out('{"answer": 3}'), STRICT).solved).toBe(true);
    expect(new HierarchyNumberScorer().score(s, out('{"answer": 3}'), REF).solved).toBe(false);
    expect(new HierarchyStringScorer().score(sample(1), out('{"answer": 10}'), REF).solved).toBe(true);
    const list = new HierarchyListScorer();
    expect(list.score(sample([1, 2]), out('{"answer": "2, 1"}'), { compat: 'strict', options: { ordered: true } }).solved).toBe(false);
    expect(list.score(sample([1, 2], { type: 'string', ordered: false } as MatcherSpec), out('{"answer": "2, 1"}'), { compat: 'strict', options: { ordered: true } }).solved).toBe(true);
    const hr = new HierarchyHitRateScorer().score(sample(['a, b, c']), out('{"answer": "a, c"}'), STRICT);
    expect(hr.solved).toBe(false);
    expect(hr.score).toBeCloseTo(2 / 3, 12);
    expect(new HierarchyStructureScorer().score(sample('3 -> 1, 3 -> 2'), out('{"answer": "3 -> 2, 3 -> 1"}'), STRICT).solved).toBe(true);
  });
});

describe('randomAnswer', () => {
  const scorer = new HierarchyScorer();
  it('always gives a parsable {"answer": …} of the target kind, deterministically', () => {
    for (const c of CASES) {
      const s = sample(c.target, c.matcher, { choices: ['preorder', 'inorder', 'postorder'] });
      const a = scorer.randomAnswer(s, lcg(7), STRICT);
      expect(a).toBe(scorer.randomAnswer(s, lcg(7), STRICT));
      for (const compat of ['strict', 'reference'] as const) expect(extractAnswer(a, compat), `${c.name}: ${a}`).not.toBeNull();
      expect(() => scorer.score(s, out(a), STRICT)).not.toThrow();
      expect(() => scorer.score(s, out(a), REF)).not.toThrow();
    }
  });
  it('kinds: boolean, number range, list items, choices', () => {
    const rnd = lcg(3);
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) seen.add(scorer.randomAnswer(sample(true, { type: 'string' }), rnd, STRICT));
    expect([...seen].sort()).toEqual(['{"answer": false}', '{"answer": true}']);
    for (let i = 0; i < 40; i++) {
      const n = Number(extractAnswer(scorer.randomAnswer(sample(30, { type: 'number' }), rnd, STRICT), 'strict'));
      expect(Number.isInteger(n) && n >= 0 && n <= 60).toBe(true);
      const items = extractAnswer(scorer.randomAnswer(sample([3, 2, 0, 1], { type: 'list' }), rnd, STRICT), 'strict')!.split(', ');
      expect(items.length).toBeGreaterThanOrEqual(1);
      for (const x of items) expect(['3', '2', '0', '1']).toContain(x);
      const label = extractAnswer(scorer.randomAnswer(sample('inorder', { type: 'string' }, { choices: ['preorder', 'inorder', 'postorder'] }), rnd, STRICT), 'strict');
      expect(['preorder', 'inorder', 'postorder']).toContain(label);
    }
  });
  it('is sometimes right and sometimes wrong', () => {
    const s = sample([3, 2, 0, 1], { type: 'list', ordered: true });
    const rnd = lcg(11);
    const solved = Array.from({ length: 200 }, () => scorer.score(s, out(scorer.randomAnswer(s, rnd, STRICT)), STRICT).solved);
    expect(solved.some((x) => x)).toBe(true);
    expect(solved.some((x) => !x)).toBe(true);
  });
});

describe('createAggregator', () => {
  it('collects rows from sample meta and reports meanScore, hibench and hibenchAll', () => {
    const scorer = new HierarchyScorer();
    const agg = scorer.createAggregator(STRICT);
    const m = (task: string, config: string, icl = 'zero'): Record<string, Json> => ({ scenario: 'binary-tree', task, config, icl });
    agg.add(sample(true, { type: 'string' }, m('balance', 'c1')), 'true', true);
    agg.add(sample(true, { type: 'string' }, m('balance', 'c1')), 'false', false);
    agg.add(sample([1], { type: 'list' }, m('prefix_traversal', 'c2')), '1', true);
    agg.add(sample([1], { type: 'list' }, m('prefix_traversal', 'c3', 'few')), '2', false);
    const r = agg.result() as { meanScore: number; hibench: Record<string, Json>; hibenchAll: Record<string, Json> };
    expect(r.meanScore).toBe(0.5);
    expect(r.hibench['tasks']).toEqual({ 'binary-tree/balance': 0.5, 'binary-tree/prefix_traversal': 1 });
    expect(r.hibench['overall']).toBe(0.75);
    expect(r.hibench['n']).toBe(3);
    expect(r.hibenchAll['tasks']).toEqual({ 'binary-tree/balance': 0.5, 'binary-tree/prefix_traversal': 0.5 });
    expect(r.hibenchAll['n']).toBe(4);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });
  it('missing meta counts under scenario "unknown"; hit-rate rows keep their fraction', () => {
    const agg = new HierarchyHitRateScorer().createAggregator(STRICT);
    agg.add({ id: 'p1', index: 0, input: {}, target: ['a, b, c'] }, 'a, b', false);
    agg.add({ id: 'p2', index: 1, input: {}, target: ['a, b, c'] }, null, false);
    const r = agg.result() as { meanScore: number; hibench: { scenarios: Record<string, number> } };
    expect(r.meanScore).toBeCloseTo(1 / 3, 12);
    expect(Object.keys(r.hibench.scenarios)).toEqual(['unknown']);
  });
});
