/**
 * The code-structure records over the 189 shared programs (README "Code structure"): every target computes, the
 * record counts per task and language, the oracle answer scores 1 and a wrong answer 0 in strict and compat mode,
 * determinism (same seed → byte-identical records; filters never change a pick), the wording and ICL examples, the
 * filters (and their manifest declaration), and the dataset's load (source file, folder layout, generated file).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { FilterDecl, Json, PluginManifest } from '@hpt-bench/sdk';
import { assertRecord } from '../../plugins/hibench/src/record-schema.js';
import { readCodeJsonl, type CodeItem } from '../../plugins/hibench/src/lib/program/source.js';
import { CODE_LANGUAGES, type CodeSyntax } from '../../plugins/hibench/src/lib/program/syntax.js';
import { CodeStructureDataset, loadedCodeSyntax, preloadCodeStructure } from '../../plugins/hibench/src/code-structure/index.js';
import {
  analyzeProgram,
  CODE_STRUCTURE_ICL_MODES,
  CODE_STRUCTURE_TASKS,
  generateCodeStructure,
  resolveCodeStructureFilter,
  STRUCTURE_EXAMPLE_PROGRAMS,
  structureExemplars,
  structureQuestions,
  seededPickers,
  type ProgramAnalysis,
} from '../../plugins/hibench/src/code-structure/suite.js';
import { recordToSample } from '../../plugins/hibench/src/dataset.js';
import { dimensionOf } from '../../plugins/hibench/src/match/aggregate.js';
import { matchAnswer } from '../../plugins/hibench/src/match/matchers.js';
import { HierarchyScorer } from '../../plugins/hibench/src/match/scorer.js';
import type { HibenchRecord, SuiteFilter } from '../../plugins/hibench/src/types.js';
import { ROOT, SHARED } from '../helpers/cli.js';
import { collect, loadOptions } from '../helpers/dataset-load.js';

/** The shared data folder beside the clone (../shared/data). */
const DATA = join(SHARED, 'data');
const CODE = join(DATA, 'hibench-code/code.jsonl');
const FIXTURE = join(ROOT, 'test/fixtures/hibench-code');

let syntax: CodeSyntax;
let items: CodeItem[];
beforeAll(async () => {
  syntax = await preloadCodeStructure();
  items = readCodeJsonl(CODE);
});

const gen = (over: { seed?: number; compat?: 'strict' | 'reference'; filter?: SuiteFilter } = {}, from: readonly CodeItem[] = items): HibenchRecord[] =>
  [...generateCodeStructure(from, { seed: over.seed ?? 0, compat: over.compat ?? 'strict', filter: over.filter ?? {}, syntax })];

/** A wrong answer of the target's kind that neither matcher accepts (compat sorts lists and compares up to the shorter). */
function wrongAnswer(target: Json): string {
  if (typeof target === 'number') return JSON.stringify({ answer: target + 1 });
  const items = target as string[];
  return JSON.stringify({ answer: ['aaa wrong', ...items.slice(1)].join(', ') });
}

describe('code-structure over the 189 shared programs', () => {
  it('computes every target without an exception; counts per task and language (logged)', () => {
    const analyses: ProgramAnalysis[] = items.map((i) => analyzeProgram(syntax, i.language, i.code));
    expect(analyses).toHaveLength(189);
    const counts: Record<string, number> = {};
    const skipped: Record<string, number> = {};
    items.forEach((item, k) => {
      for (const task of CODE_STRUCTURE_TASKS) {
        const qs = structureQuestions(task, item.code, item.language, analyses[k]!, seededPickers(0, task, item.id));
        counts[`${task}/${item.language}`] = (counts[`${task}/${item.language}`] ?? 0) + qs.length;
        if (qs.length === 0) skipped[task] = (skipped[task] ?? 0) + 1;
      }
    });
    console.log(`hibench/code-structure questions per task/language over 189 programs: ${JSON.stringify(counts)}; programs without a question: ${JSON.stringify(skipped)}`);
    expect(counts).toEqual({
      'class_methods/python': 96,
      'class_methods/cpp': 105,
      'loop_depth/python': 89,
      'loop_depth/cpp': 100,
      'enclosing_blocks/python': 89,
      'enclosing_blocks/cpp': 100,
      'callees/python': 27,
      'callees/cpp': 21,
    });
    expect(skipped).toEqual({ callees: 141 });
    const depths = analyses.map((a) => a.loopDepth);
    expect(Math.max(...depths)).toBe(4);
    expect(depths.filter((d) => d === 0)).toHaveLength(26);
  });

  it('the oracle answer scores 1 and a wrong answer 0, strict and compat, for every record', () => {
    const scorer = new HierarchyScorer();
    for (const compat of ['strict', 'reference'] as const) {
      const recs = gen({ compat, filter: { icl: ['zero'] } });
      expect(recs).toHaveLength(627);
      for (const r of recs) {
        const sample = recordToSample(r, 0);
        const ctx = { compat, options: {} } as never;
        const oracle = scorer.renderTarget(sample, ctx);
        expect(scorer.score(sample, { completion: oracle } as never, ctx).solved, `${r.id} ${compat} oracle ${oracle}`).toBe(true);
        const wrong = wrongAnswer(r.target);
        expect(matchAnswer(wrong, r.target, r.matcher, compat).correct, `${r.id} ${compat} wrong ${wrong}`).toBe(false);
      }
    }
  });

  it('order: methods and blocks must be in order in strict mode (compat, like the toolkit, sorts); callees are a set', () => {
    const recs = gen({ filter: { icl: ['zero'] } });
    const ordered = recs.find((r) => r.task === 'enclosing_blocks' && (r.target as string[]).length >= 3)!;
    const reversed = JSON.stringify({ answer: [...(ordered.target as string[])].reverse().join(', ') });
    expect(matchAnswer(reversed, ordered.target, ordered.matcher, 'strict').correct).toBe(false);
    expect(matchAnswer(reversed, ordered.target, ordered.matcher, 'reference').correct).toBe(true);
    const callees = recs.find((r) => r.task === 'callees' && (r.target as string[]).length >= 2)!;
    const swapped = JSON.stringify({ answer: [...(callees.target as string[])].reverse().join(', ') });
    expect(matchAnswer(swapped, callees.target, callees.matcher, 'strict').correct).toBe(true);
    // a JSON list answer, spacing and case do not matter; a missing item does
    const methods = recs.find((r) => r.id === 'code-structure/class_methods/cpp/16/UnionFind/zero')!;
    expect(methods.target).toEqual(['get_id', 'find_set', 'union_set']);
    expect(matchAnswer('{"answer": ["GET_ID", "find_set", "union_set"]}', methods.target, methods.matcher, 'strict').correct).toBe(true);
    expect(matchAnswer('{"answer": "get_id, find_set"}', methods.target, methods.matcher, 'strict').correct).toBe(false);
    const depth = recs.find((r) => r.task === 'loop_depth' && r.target === 2)!;
    expect(matchAnswer('{"answer": "2"}', depth.target, depth.matcher, 'strict').correct).toBe(true);
    expect(matchAnswer('{"answer": 3}', depth.target, depth.matcher, 'reference').correct).toBe(false);
  });
});

describe('code-structure records', () => {
  it('same seed → byte-identical records; another seed moves some picks; filters never change a pick; schema-valid', () => {
    const a = gen({ seed: 7 });
    const b = gen({ seed: 7 });
    expect(a.map((r) => JSON.stringify(r)).join('\n')).toBe(b.map((r) => JSON.stringify(r)).join('\n'));
    expect(a).toHaveLength(627 * 3);
    const c = gen({ seed: 8 });
    expect(c.map((r) => r.id)).not.toEqual(a.map((r) => r.id));
    const only = gen({ seed: 7, filter: { tasks: ['enclosing_blocks'], languages: ['cpp'], icl: ['one'] } });
    expect(only.map((r) => JSON.stringify(r))).toEqual(a.filter((r) => r.task === 'enclosing_blocks' && r.language === 'cpp' && r.icl === 'one').map((r) => JSON.stringify(r)));
    for (const r of a.slice(0, 60)) assertRecord(r, r.id);
  });

  it('wording: the toolkit Code style, line numbers with the line, the function with its line; Code system prompt; no separators', () => {
    const recs = gen({ filter: { icl: ['zero'] } });
    const line = recs.find((r) => r.task === 'enclosing_blocks')!;
    const args = line.args as { line: number; text: string };
    expect(line.question.startsWith(`Given a code snippet ${line.code}, list the blocks that enclose line ${args.line} (\`${args.text}\`)`)).toBe(true);
    expect(line.code!.split('\n')[args.line - 1]!.trim()).toBe(args.text);
    expect(line.prompt).toBe(line.question + line.format);
    expect(line.system).toMatch(/code reasoning/);
    expect(line.format).toBe(
      'Please return the answer in JSON format directly like {"answer": "class Solution, function solve, for, if"}, where the blocks are listed from the outermost to the innermost and split by comma,  and do not feedback the detailed process.',
    );
    const call = recs.find((r) => r.task === 'callees')!;
    const f = call.args as { function: string; line: number };
    expect(call.question).toContain(`the function ${f.function} (defined on line ${f.line}) calls`);
    expect(call.code!.split('\n')[f.line - 1]).toContain(f.function);
    expect(recs.find((r) => r.task === 'loop_depth' && r.language === 'python')!.question).toContain('comprehensions and generator expressions are not loops');
    expect(recs.find((r) => r.task === 'class_methods')!.matcher).toEqual({ type: 'list', ordered: true });
    expect(call.matcher).toEqual({ type: 'list' });
  });

  it('ICL: three examples per task and language from programs that are not items; one-shot uses the first, few-shot three', () => {
    const codes = new Set(items.map((i) => i.code));
    for (const language of CODE_LANGUAGES) {
      for (const p of STRUCTURE_EXAMPLE_PROGRAMS[language]) {
        expect(codes.has(p)).toBe(false);
        expect(syntax.check(language, p).ok).toBe(true);
      }
      for (const task of CODE_STRUCTURE_TASKS) expect(structureExemplars(syntax, task, language)).toHaveLength(3);
    }
    expect(structureExemplars(syntax, 'enclosing_blocks', 'cpp').map((e) => e.answer)).toEqual([
      '{"answer": "class Counter, function add, for, if"}',
      '{"answer": "function countPairs, for, for, else if"}',
      '{"answer": "function size, lambda"}',
    ]);
    expect(structureExemplars(syntax, 'callees', 'python').map((e) => e.answer)).toEqual(['{"answer": "clip"}', '{"answer": "count_pairs"}', '{"answer": "depth"}']);
    const [one, few] = ['one', 'few'].map((icl) => gen({ filter: { icl: [icl as 'one' | 'few'], tasks: ['loop_depth'] } }, items.slice(0, 1))[0]!);
    expect(one!.prompt.startsWith(`Here is one example.The input is ${one!.exemplars[0]!.input}, the answer is {"answer": 1}.Given a code snippet`)).toBe(true);
    expect(few!.prompt.startsWith('Here are a few examples. The input is ')).toBe(true);
    expect(few!.prompt.split('The input is ')).toHaveLength(4);
  });

  it('filters: task, language (preset alias, c++), icl; unknown values and other scenarios\' filters are E_CONFIG; the manifest declares the same values', () => {
    expect(resolveCodeStructureFilter({ presets: ['c++'], tasks: ['callees'] })).toEqual({ tasks: ['callees'], presets: ['cpp'], icl: ['zero', 'one', 'few'] });
    expect(() => resolveCodeStructureFilter({ tasks: ['loop-depth'] })).toThrow(/unknown --task 'loop-depth' \(did you mean 'loop_depth'\?\)/);
    expect(() => resolveCodeStructureFilter({ languages: ['java' as never] })).toThrow(/unknown --language 'java'/);
    expect(() => resolveCodeStructureFilter({ representations: ['edge'] })).toThrow(/--representation/);
    const manifest = (JSON.parse(readFileSync(join(ROOT, 'plugins/hibench/package.json'), 'utf8')) as { 'hpt-bench': PluginManifest })['hpt-bench'];
    const decl = manifest.contributes.datasets!.find((d) => d.id === 'code-structure')!;
    expect(decl).toMatchObject({ module: './dist/code-structure/entry.js', export: 'CodeStructureDataset', scorer: 'hierarchy', hpiDataset: 2.6 });
    expect(Object.fromEntries((decl.filters as FilterDecl[]).map((f) => [f.name, f.values]))).toEqual({ task: [...CODE_STRUCTURE_TASKS], language: [...CODE_LANGUAGES], icl: [...CODE_STRUCTURE_ICL_MODES] });
  });

  it('capability dimensions: loop depth is global structure, the others local relationships', () => {
    expect(CODE_STRUCTURE_TASKS.map(dimensionOf)).toEqual(['Local Relationship Awareness', 'Global Structural Understanding', 'Local Relationship Awareness', 'Local Relationship Awareness']);
  });

  it('a program without a class asks for its top-level functions; one without a call or a nested line asks neither', () => {
    const item: CodeItem = { id: 'python/9999', language: 'python', questionNo: 9999, code: 'def a(x):\n    return b(x)\n\n\ndef b(x):\n    return x\n', space: 'O(1)', time: 'O(1)' };
    const recs = gen({ filter: { icl: ['zero'] } }, [item]);
    expect(recs.map((r) => [r.id, r.target])).toEqual([
      ['code-structure/class_methods/python/9999/top-level/zero', ['a', 'b']],
      ['code-structure/loop_depth/python/9999/program/zero', 0],
      ['code-structure/callees/python/9999/a-1/zero', ['b']],
    ]);
    expect(recs[0]!.question).toContain('list the functions defined at the top level of the code');
  });
});

describe('CodeStructureDataset', () => {
  it('loads code.jsonl (1,881 samples), the toolkit folder layout, and a file of generated records; needs --data; no splits', async () => {
    const ds = new CodeStructureDataset();
    const samples = await collect(ds.load(loadOptions({ data: CODE })));
    expect(samples).toHaveLength(1881);
    expect(samples[0]!.meta).toMatchObject({ scenario: 'code-structure', task: 'class_methods', preset: 'python', language: 'python', icl: 'zero', config: 'code-structure/class_methods/python/zero' });

    // the fixture's python/3 does not parse: left out with a warning
    const fo = loadOptions({ data: FIXTURE, filters: { icl: ['zero'], task: ['loop_depth'] } });
    const folder = await collect(ds.load(fo));
    expect(folder.map((s) => s.id)).toEqual(['python/1', 'python/2', 'cpp/1', 'cpp/2'].map((id) => `code-structure/loop_depth/${id}/program/zero`));
    expect(fo.warnings).toEqual([expect.stringMatching(/labels question 4/), expect.stringMatching(/^hibench\/code-structure: python\/3 does not parse as python .*left out/)]);

    expect(loadedCodeSyntax()).toBe(syntax);
    const dir = mkdtempSync(join(tmpdir(), 'hpt-code-structure-'));
    const file = join(dir, 'records.jsonl');
    const generated = [...ds.generate({ seed: 0, compat: 'strict', filters: {}, data: CODE })];
    writeFileSync(file, generated.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const back = await collect(ds.load(loadOptions({ data: file, filters: { task: ['callees'], language: ['cpp'] } })));
    expect(back.map((s) => s.id)).toEqual(samples.filter((s) => s.meta!.task === 'callees' && s.meta!.preset === 'cpp').map((s) => s.id));
    expect(back.map((s) => s.target)).toEqual(samples.filter((s) => s.meta!.task === 'callees' && s.meta!.preset === 'cpp').map((s) => s.target));

    await expect(collect(ds.load(loadOptions()))).rejects.toThrow(/give --data/);
    await expect(collect(ds.load(loadOptions({ data: CODE, split: 'test' })))).rejects.toThrow(/has no splits/);
    expect(() => ds.generate({ seed: 0, compat: 'strict', filters: { task: ['nope'] }, data: CODE })).toThrow(/unknown --task 'nope'/);
  });

  it('generate before preloadCodeStructure() is an E_CONFIG error naming the fix (a fresh module: nothing loaded)', async () => {
    vi.resetModules();
    const fresh = await import('../../plugins/hibench/src/code-structure/index.js');
    expect(() => new fresh.CodeStructureDataset().generate({ seed: 0, compat: 'strict', filters: {}, data: CODE })).toThrow(/parsers are not loaded; `await preloadCodeStructure\(\)`/);
    await fresh.preloadCodeStructure();
    expect([...new fresh.CodeStructureDataset().generate({ seed: 0, compat: 'strict', filters: { task: ['loop_depth'], icl: ['zero'] }, data: CODE })]).toHaveLength(189);
  });
});
