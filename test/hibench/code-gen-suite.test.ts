/**
 * hibench/code-gen records (issue 15): counts and order, determinism (same seed → identical records, filters only
 * drop records), hibench/code's prompt texts, canonical readable labels, every program of the default suite parsing
 * under tree-sitter for several seeds, and the dataset's load (on the fly and from a generate file).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DatasetLoadOptions, Sample } from '@hpt-bench/sdk';
import { assertRecord } from '../../plugins/hibench/src/record-schema.js';
import { canonicalBigO } from '../../plugins/hibench/src/lib/program/bigo.js';
import { codeQueryFields } from '../../plugins/hibench/src/lib/program/complexity.js';
import { CodeSyntax } from '../../plugins/hibench/src/lib/program/syntax.js';
import { CodeGenDataset } from '../../plugins/hibench/src/code-gen/index.js';
import { drawProgram, PRESETS } from '../../plugins/hibench/src/code-gen/generate.js';
import { CODE_GEN_PER_PRESET, generateCodeGen } from '../../plugins/hibench/src/code-gen/suite.js';
import { configKey } from '../../plugins/hibench/src/dataset.js';
import type { HibenchRecord } from '../../plugins/hibench/src/types.js';

const all = (seed: number, filter = {}, compat: 'strict' | 'reference' = 'strict'): HibenchRecord[] => [...generateCodeGen({ seed, compat, filter })];

async function collect(it: AsyncIterable<Sample>): Promise<Sample[]> {
  const out: Sample[] = [];
  for await (const s of it) out.push(s);
  return out;
}
const loadOptions = (over: Partial<DatasetLoadOptions> = {}): DatasetLoadOptions => ({ onInvalid: 'fail', cacheDir: '/tmp', warn: () => {}, ...over });

describe('hibench/code-gen records', () => {
  it('50 programs × 3 presets × 2 languages × 2 tasks × 3 ICL modes = 1,800, in preset → program → language → task → ICL order, fast', () => {
    const t0 = performance.now();
    const recs = all(0);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(CODE_GEN_PER_PRESET).toBe(50);
    expect(recs).toHaveLength(1800);
    expect(recs.slice(0, 13).map((r) => r.id)).toEqual([
      'code-gen/SpaceComplexity/easy/python/0/zero',
      'code-gen/SpaceComplexity/easy/python/0/one',
      'code-gen/SpaceComplexity/easy/python/0/few',
      'code-gen/TimeComplexity/easy/python/0/zero',
      'code-gen/TimeComplexity/easy/python/0/one',
      'code-gen/TimeComplexity/easy/python/0/few',
      'code-gen/SpaceComplexity/easy/cpp/0/zero',
      'code-gen/SpaceComplexity/easy/cpp/0/one',
      'code-gen/SpaceComplexity/easy/cpp/0/few',
      'code-gen/TimeComplexity/easy/cpp/0/zero',
      'code-gen/TimeComplexity/easy/cpp/0/one',
      'code-gen/TimeComplexity/easy/cpp/0/few',
      'code-gen/SpaceComplexity/easy/python/1/zero',
    ]);
    expect(new Set(recs.map((r) => r.id)).size).toBe(1800);
    for (const r of recs) assertRecord(r, r.id);
    expect(recs.filter((r) => r.preset === 'hard' && r.language === 'cpp')).toHaveLength(300);
  });

  it('same seed → identical records; another seed → other programs; filters only drop records', () => {
    expect(JSON.stringify(all(5))).toBe(JSON.stringify(all(5)));
    expect(all(6).map((r) => r.code)).not.toEqual(all(5).map((r) => r.code));
    const full = all(5);
    const part = all(5, { presets: ['hard'], languages: ['cpp'], tasks: ['TimeComplexity'], icl: ['few'] });
    expect(part).toHaveLength(50);
    expect(part).toEqual(full.filter((r) => r.preset === 'hard' && r.language === 'cpp' && r.task === 'TimeComplexity' && r.icl === 'few'));
    expect(() => all(5, { presets: ['python'] })).toThrow(/unknown --preset 'python'.*valid: easy, medium, hard/);
    expect(() => all(5, { languages: ['java'] })).toThrow(/unknown --language 'java'/);
    expect(() => all(5, { representations: ['edge'] })).toThrow(/--representation/);
    expect(all(5, { languages: ['c++' as 'cpp'], presets: ['easy'], tasks: ['TimeComplexity'], icl: ['zero'] }).every((r) => r.language === 'cpp')).toBe(true);
  });

  it("uses hibench/code's prompt texts, matcher and exemplars; the same construction in both languages with the same labels", () => {
    const recs = all(1, { presets: ['medium'] });
    for (const compat of ['strict', 'reference'] as const) {
      const r = all(1, { presets: ['medium'], icl: ['few'], tasks: ['SpaceComplexity'], languages: ['cpp'] }, compat)[3]!;
      expect({ system: r.system, prompt: r.prompt, question: r.question, format: r.format, formatCot: r.formatCot, exemplars: r.exemplars }).toEqual(
        codeQueryFields('SpaceComplexity', r.code!, 'cpp', 'few', compat),
      );
    }
    const r0 = recs[0]!;
    expect(r0.question).toBe(`Given a code snippet ${r0.code!}, calculate its space complexity.`);
    expect(r0.prompt.endsWith('Please return the answer in JSON format directly like {"answer":  O(1)}  and do not feedback the detailed process.')).toBe(true);
    expect(r0.matcher).toEqual({ type: 'string', bigo: true });
    const py = recs.find((r) => r.id === 'code-gen/TimeComplexity/medium/python/7/zero')!;
    const cpp = recs.find((r) => r.id === 'code-gen/TimeComplexity/medium/cpp/7/zero')!;
    expect(py.target).toBe(cpp.target);
    expect(py.params).toEqual(cpp.params);
    expect(py.code).toMatch(/^def solve\(n, m\):/m);
    expect(cpp.code).toMatch(/^long long solve\(int n, int m\) \{/m);
    expect(configKey(py)).toBe('code-gen/TimeComplexity/medium/python/zero');
  });

  it('labels are single readable big-O groups; different bounds never canonicalise alike; presets differ in depth and blocks', () => {
    const byCanon = new Map<string, string>();
    for (const seed of [0, 1, 2]) {
      for (const r of all(seed, { icl: ['zero'], languages: ['python'] })) {
        const c = canonicalBigO(r.target as string);
        expect(c, r.target as string).toHaveLength(1);
        const prev = byCanon.get(c![0]!);
        if (prev !== undefined) expect(prev).toBe(r.target);
        byCanon.set(c![0]!, r.target as string);
        expect(r.target).not.toMatch(/\^\(\d+\/2\)/);
      }
    }
    expect(byCanon.size).toBeGreaterThan(60);
    for (const preset of ['easy', 'medium', 'hard'] as const) {
      const spec = PRESETS[preset];
      const drawn = Array.from({ length: 50 }, (_, i) => drawProgram(3, preset, i));
      for (const p of drawn) {
        expect(p.depth).toBeGreaterThanOrEqual(spec.depth[0]);
        expect(p.depth).toBeLessThanOrEqual(spec.depth[1]);
        expect(p.blocks).toBeGreaterThanOrEqual(spec.blocks[0]);
        expect(p.blocks).toBeLessThanOrEqual(spec.blocks[1]);
      }
      expect(new Set(drawn.map((p) => p.depth)).size).toBe(2);
    }
  });

  it('every program of the default suite parses under tree-sitter without ERROR or MISSING nodes (seeds 0-3)', async () => {
    const syntax = await CodeSyntax.create();
    try {
      let n = 0;
      for (const seed of [0, 1, 2, 3]) {
        for (const r of all(seed, { tasks: ['TimeComplexity'], icl: ['zero'] })) {
          const rep = syntax.check(r.language!, r.code!);
          expect(rep.issues, `${r.id} seed ${seed}\n${r.code!}`).toEqual([]);
          expect(rep.ok).toBe(true);
          n++;
        }
      }
      expect(n).toBe(4 * 300);
      // and the checker does catch a broken program
      expect(syntax.check('python', 'def solve(n, m):\n    for i in range(n)\n        pass\n').ok).toBe(false);
      expect(syntax.check('cpp', 'long long solve(int n, int m) {\n    for (long long i = 0; i < n; i++ {\n    }\n}\n').ok).toBe(false);
    } finally {
      syntax.delete();
    }
  });
});

describe('CodeGenDataset', () => {
  it('loads without --data (generated from the seed) and from a generate file, with the same samples and filters', async () => {
    const ds = new CodeGenDataset();
    const filters = { preset: ['easy'], language: ['cpp'], icl: ['zero'] };
    const gen = await collect(ds.load(loadOptions({ seed: 4, filters })));
    expect(gen).toHaveLength(100);
    expect(gen[0]!.meta).toMatchObject({ scenario: 'code-gen', preset: 'easy', language: 'cpp', icl: 'zero', config: 'code-gen/SpaceComplexity/easy/cpp/zero' });
    const dir = mkdtempSync(join(tmpdir(), 'hpt-code-gen-'));
    const file = join(dir, 'recs.jsonl');
    writeFileSync(file, [...ds.generate({ seed: 4, compat: 'strict', filters: {} })].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const fromFile = await collect(ds.load(loadOptions({ data: file, seed: 99, filters })));
    expect(fromFile).toEqual(gen);
    await expect(collect(ds.load(loadOptions({ split: 'test' })))).rejects.toThrow(/no splits/);
  });
});
