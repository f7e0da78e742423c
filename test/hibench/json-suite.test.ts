/** The JSON suite (specs/hibench.md §3.3, §5.1; §7 recs 13-17, 20, 27): determinism, filters, record shape. */
import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { isHptError } from '@hpt-bench/core';
import { generateJson, JSON_PRESETS, JSON_TASK_GROUPS, JSON_TASKS } from '../../plugins/hibench/src/json/suite.js';
import { JSON_COMPAT_EXAMPLES } from '../../plugins/hibench/src/json/compat-examples.js';
import { jsonDumps, pyRepr } from '../../plugins/hibench/src/json/render.js';
import { SYSTEM_PROMPTS } from '../../plugins/hibench/src/scenarios.js';
import type { GenerateOptions, HibenchRecord, SuiteFilter } from '../../plugins/hibench/src/types.js';

const run = (seed: number, compat: GenerateOptions['compat'] = 'strict', filter: SuiteFilter = {}): HibenchRecord[] => [...generateJson({ seed, compat, filter })];
const hash = (records: HibenchRecord[]): string => {
  const h = createHash('sha256');
  for (const r of records) h.update(JSON.stringify(r) + '\n');
  return h.digest('hex');
};
const FULL = run(11);
const FULL_COMPAT = run(11, 'reference');

function expectConfigError(fn: () => unknown, ...parts: string[]): void {
  try {
    fn();
  } catch (e) {
    expect(isHptError(e)).toBe(true);
    expect((e as { code: string }).code).toBe('E_CONFIG');
    for (const p of parts) expect((e as Error).message).toContain(p);
    return;
  }
  throw new Error('expected an E_CONFIG error');
}

describe('JSON suite', () => {
  it('exports the ten sub-types, the paper task groups and the five presets', () => {
    expect(JSON_TASKS).toEqual([
      'child_count', 'node_depth', 'level_count', 'node_attribute', 'level_nodes',
      'path_down_to_up', 'path_up_to_down', 'path_between_nodes', 'shared_ancestor_same_level', 'shared_ancestor_diff_level',
    ]);
    expect(JSON_PRESETS).toEqual(['small', 'medium-1', 'medium-2', 'large-1', 'large-2']);
    expect(Object.keys(JSON_TASK_GROUPS)).toHaveLength(7);
    expect([...JSON_TASK_GROUPS['path_finding']!].sort()).toEqual(['path_between_nodes', 'path_down_to_up', 'path_up_to_down']);
    expect([...JSON_TASK_GROUPS['nearest_ancestor']!].sort()).toEqual(['shared_ancestor_diff_level', 'shared_ancestor_same_level']);
    expect(Object.values(JSON_TASK_GROUPS).flat().sort()).toEqual([...JSON_TASKS].sort());
  });

  it('same seed => byte-identical suite; another seed => a different one', () => {
    expect(hash(run(11))).toBe(hash(FULL));
    expect(hash(run(11, 'reference'))).toBe(hash(FULL_COMPAT));
    expect(hash(run(12))).not.toBe(hash(FULL));
    expect(hash(FULL_COMPAT)).not.toBe(hash(FULL));
  });

  it('default suite: 5 presets x 2 semantics x 10 sub-types x <= 13 questions x 3 ICL modes, ids unique, stream order', () => {
    for (const records of [FULL, FULL_COMPAT]) {
      expect(records.length).toBeLessThanOrEqual(5 * 2 * 10 * 13 * 3);
      expect(records.length).toBeGreaterThan(1500);
      expect(records.length % 3).toBe(0);
      expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
      // order: preset -> semantics -> task -> question -> icl
      const key = (r: HibenchRecord): number[] => {
        const [, task, preset, sem, qi, icl] = r.id.split('/') as [string, string, string, string, string, string];
        return [JSON_PRESETS.indexOf(preset as never), sem === 'normal' ? 0 : 1, JSON_TASKS.indexOf(task as never), Number(qi), ['zero', 'one', 'few'].indexOf(icl)];
      };
      for (let i = 1; i < records.length; i++) {
        const [a, b] = [key(records[i - 1]!), key(records[i]!)];
        const cmp = a.findIndex((x, j) => x !== b[j]);
        expect(cmp).toBeGreaterThanOrEqual(0);
        expect(a[cmp]!).toBeLessThan(b[cmp]!);
      }
      // normal and nonsense hold the same number of questions per (preset, task)
      const count = (sem: string) => records.filter((r) => r.semantics === sem).length;
      expect(count('normal')).toBe(count('nonsense'));
    }
  });

  it('records follow the HibenchRecord layout', () => {
    const rendered = new Map<unknown, string>();
    for (const r of [...FULL, ...FULL_COMPAT]) {
      const [, task, preset, sem, qi, icl] = r.id.split('/');
      expect(r.id).toBe(`json/${r.task}/${r.preset}/${r.semantics}/${qi}/${r.icl}`);
      expect([task, preset, sem, icl]).toEqual([r.task, r.preset, r.semantics, r.icl]);
      expect(r.scenario).toBe('json');
      expect(r.representation).toBeNull();
      expect(r.system).toBe(SYSTEM_PROMPTS.json);
      expect(r.seed).toBe(11);
      expect(r.params).toEqual({ preset: r.preset, depth: r.params['depth'], width: r.params['width'], semantics: r.semantics });
      expect(r.exemplars).toHaveLength(3);
      expect(r.prompt.endsWith(`\n${r.format}`)).toBe(true);
      expect(r.format).toMatch(/^Please return the answer in JSON format directly like \{"answer": .*\}  and do not feedback the detailed process\.$/);
      expect(r.formatCot).toContain("Let's think step by step");
      const cacheKey = `${r.compat}/${r.preset}/${r.semantics}`;
      if (!rendered.has(cacheKey)) rendered.set(cacheKey, r.compat === 'strict' ? jsonDumps(r.document!) : pyRepr(r.document!));
      const docText = rendered.get(cacheKey)!;
      expect(r.question.startsWith(`Given a JSON object ${docText}, `)).toBe(true);
      if (r.compat === 'reference') expect(r.question.endsWith('.')).toBe(true);
      else expect(r.question).not.toMatch(/[?.]\.$/);
      if (r.icl === 'zero') expect(r.prompt).toBe(`${r.question}\n${r.format}`);
      if (r.icl === 'one') expect(r.prompt).toBe(`Here is one example.The input is ${r.exemplars[0]!.input}, the answer is ${r.exemplars[0]!.answer}.\n${r.question}\n${r.format}`);
      if (r.icl === 'few') expect(r.prompt.startsWith('Here are a few examples. The input is ')).toBe(true);
      switch (r.task) {
        case 'child_count':
        case 'node_depth':
        case 'level_count':
          expect(r.matcher).toEqual({ type: 'number' });
          expect(typeof r.target).toBe('number');
          break;
        case 'level_nodes':
          expect(r.matcher).toEqual({ type: 'list', sep: ',' });
          expect(Array.isArray(r.target)).toBe(true);
          break;
        case 'path_down_to_up':
        case 'path_up_to_down':
        case 'path_between_nodes':
          expect(r.matcher).toEqual({ type: 'string', path: true });
          expect(r.target).toMatch(/ -> /);
          break;
        default:
          expect(r.matcher).toEqual({ type: 'string' });
          expect(typeof r.target).toBe('string');
      }
    }
  });

  it('output templates: strict node_depth {"answer": 1}, compat "Employees"; path_down_to_up strict ends at the University', () => {
    const fmt = (records: HibenchRecord[], task: string) => records.find((r) => r.task === task)!.format;
    expect(fmt(FULL, 'node_depth')).toContain('like {"answer": 1}  and');
    expect(fmt(FULL_COMPAT, 'node_depth')).toContain('like {"answer": "Employees"}  and');
    expect(fmt(FULL_COMPAT, 'path_down_to_up')).toContain('{"answer": "Student -> Program -> Department -> Faculty"}');
    expect(fmt(FULL, 'path_down_to_up')).toContain('{"answer": "Student -> Program -> Department -> Faculty -> University"}');
    expect(fmt(FULL, 'level_nodes')).toContain('{"answer": ["Faculty of Science", "Faculty of Arts"]}');
    expect(fmt(FULL, 'path_between_nodes')).toContain('{"answer": "Student -> Program -> Department -> Faculty -> Department -> Program -> Student"}');
    for (const r of FULL.filter((x) => x.task === 'path_down_to_up')) expect((r.target as string).endsWith(` -> ${r.args['to'] as string}`)).toBe(true);
    for (const r of FULL_COMPAT.filter((x) => x.task === 'path_down_to_up')) expect(r.target as string).not.toContain(r.args['to'] as string);
  });

  it('ICL: strict exemplars are same-sub-type questions on a small document with JSON answers; compat uses the toy examples', () => {
    for (const task of JSON_TASKS) {
      for (const sem of ['normal', 'nonsense'] as const) {
        const recs = FULL.filter((r) => r.task === task && r.semantics === sem);
        const ex = recs[0]!.exemplars;
        for (const r of recs) expect(r.exemplars).toEqual(ex); // fixed per (seed, task)
        for (const e of ex) {
          expect(e.input).toMatch(/^Given a JSON object \{"University": /);
          expect(e.answer).toMatch(/^\{"answer": .*\}$/);
          JSON.parse(e.answer);
          expect(JSON.parse(e.input.slice('Given a JSON object '.length, e.input.lastIndexOf('}, ') + 1)).Faculties).toBeDefined();
        }
        expect(new Set(ex.map((e) => e.input)).size).toBe(3);
        if (sem === 'nonsense') expect(ex[0]!.input).toMatch(/"University": "[A-Z][a-z][0-9][A-Z][a-z][0-9]"/);
      }
      for (const r of FULL_COMPAT.filter((x) => x.task === task)) expect(r.exemplars).toEqual(JSON_COMPAT_EXAMPLES[task]);
    }
    // strict exemplars do not depend on the preset or filter
    const one = run(11, 'strict', { tasks: ['level_nodes'], presets: ['large-2'], icl: ['few'] });
    expect(one[0]!.exemplars).toEqual(FULL.find((r) => r.task === 'level_nodes')!.exemplars);
    // and vary with the seed
    expect(run(12, 'strict', { tasks: ['level_nodes'], presets: ['small'], icl: ['one'] })[0]!.exemplars).not.toEqual(one[0]!.exemplars);
  });

  it('filters keep exactly the corresponding subset of the full suite', () => {
    const cases: [SuiteFilter, (r: HibenchRecord) => boolean][] = [
      [{ tasks: ['path_finding'] }, (r) => r.task.startsWith('path_')],
      [{ tasks: ['nearest_ancestor', 'child_count'] }, (r) => r.task.startsWith('shared_ancestor_') || r.task === 'child_count'],
      [{ presets: ['large-2', 'small'] }, (r) => r.preset === 'large-2' || r.preset === 'small'],
      [{ icl: ['few'] }, (r) => r.icl === 'few'],
      [{ semantics: ['nonsense'] }, (r) => r.semantics === 'nonsense'],
      [
        { tasks: ['path_down_to_up', 'level_count'], presets: ['medium-1'], icl: ['zero', 'one'], semantics: ['normal'] },
        (r) => ['path_down_to_up', 'level_count'].includes(r.task) && r.preset === 'medium-1' && r.icl !== 'few' && r.semantics === 'normal',
      ],
      [{ tasks: [], presets: [] }, () => true],
    ];
    for (const [filter, pred] of cases) {
      const got = run(11, 'strict', filter).map((r) => JSON.stringify(r));
      const want = FULL.filter(pred).map((r) => JSON.stringify(r));
      expect(want.length).toBeGreaterThan(0);
      expect(got).toEqual(want);
    }
    const gotCompat = run(11, 'reference', { tasks: ['shared_ancestor_diff_level'], semantics: ['nonsense'] }).map((r) => JSON.stringify(r));
    expect(gotCompat).toEqual(FULL_COMPAT.filter((r) => r.task === 'shared_ancestor_diff_level' && r.semantics === 'nonsense').map((r) => JSON.stringify(r)));
  });

  it('unknown filter values and representation filters are E_CONFIG errors', () => {
    expectConfigError(() => run(1, 'strict', { tasks: ['child_cout'] }), "unknown --task 'child_cout'", "did you mean 'child_count'");
    expectConfigError(() => run(1, 'strict', { tasks: ['path_findng'] }), "did you mean 'path_finding'");
    expectConfigError(() => run(1, 'strict', { presets: ['medium'] }), '--preset', 'did you mean');
    expectConfigError(() => run(1, 'strict', { icl: ['two' as never] }), '--icl');
    expectConfigError(() => run(1, 'strict', { semantics: ['bullshit' as never] }), '--semantics');
    expectConfigError(() => run(1, 'strict', { representations: ['edge'] }), 'representation');
    // validation is eager: at the call, before iteration
    expectConfigError(() => generateJson({ seed: 1, compat: 'strict', filter: { tasks: ['nope'] } }), 'nope');
  });

  it('generates fast', () => {
    const t0 = performance.now();
    let n = 0;
    for (const compat of ['strict', 'reference'] as const) for (const r of generateJson({ seed: 99, compat, filter: {} })) n += r.prompt.length > 0 ? 1 : 0;
    const ms = performance.now() - t0;
    expect(n).toBeGreaterThan(3000);
    expect(ms).toBeLessThan(2500);
  });
});
