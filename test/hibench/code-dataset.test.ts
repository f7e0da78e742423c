/**
 * The Code scenario (specs/hibench.md §3.5, §4.3, §5.1, §7 recs 19-20): source readers (code.jsonl and the toolkit's
 * folder layout), the records (prompt assembly, ICL modes, counts, filters), the strict and compat matchers, and the
 * dataset's load with its tree-sitter check.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Sample } from '@hpt-bench/sdk';
import { COMPAT_EXAMPLES, STRICT_EXAMPLE_PROGRAMS } from '../../plugins/hibench/src/lib/program/complexity.js';
import { readCodeFolder, readCodeJsonl, readCodeSource } from '../../plugins/hibench/src/lib/program/source.js';
import { generateCode, resolveCodeFilter } from '../../plugins/hibench/src/code/suite.js';
import { CodeSyntax } from '../../plugins/hibench/src/lib/program/syntax.js';
import { recordToSample } from '../../plugins/hibench/src/dataset.js';
import { CodeDataset } from '../../plugins/hibench/src/code/index.js';
import { matchAnswer } from '../../plugins/hibench/src/match/matchers.js';
import { HierarchyScorer, renderAnswer } from '../../plugins/hibench/src/match/scorer.js';
import type { MatcherSpec } from '../../plugins/hibench/src/types.js';
import { collect, loadOptions } from '../helpers/dataset-load.js';

const SHARED = new URL('../../../shared/data/hibench-code/code.jsonl', import.meta.url).pathname;
const FIXTURE = new URL('../fixtures/hibench-code', import.meta.url).pathname;
const BIGO: MatcherSpec = { type: 'string', bigo: true };

const strict = (out: string, target: string) => matchAnswer(out, target, BIGO, 'strict').correct;
const compat = (out: string, target: string) => matchAnswer(out, target, BIGO, 'reference').correct;

describe('Code source readers', () => {
  it('reads the shared code.jsonl: 189 programs (100 C++, 89 Python) with both labels', () => {
    const items = readCodeJsonl(SHARED);
    expect(items).toHaveLength(189);
    expect(items.filter((i) => i.language === 'cpp')).toHaveLength(100);
    expect(items.filter((i) => i.language === 'python')).toHaveLength(89);
    expect(items[0]).toMatchObject({ id: 'python/1', questionNo: 1, space: 'O(1)', time: 'O(1)' });
  });

  it('reads the toolkit folder layout: `time` or `time complexity`, programs without labels and labels without programs left out with a warning', () => {
    const warnings: string[] = [];
    const items = readCodeFolder(FIXTURE, (m) => warnings.push(m));
    expect(items.map((i) => i.id)).toEqual(['python/1', 'python/2', 'python/3', 'cpp/1', 'cpp/2']);
    expect(items.find((i) => i.id === 'python/1')).toMatchObject({ space: 'O(1)', time: 'O(n)', source: 'pythonSelected/1.py' });
    expect(items.find((i) => i.id === 'python/2')!.time).toBe('O(nlogn)');
    expect(items.find((i) => i.id === 'cpp/2')!.time).toBe('O(logn)');
    expect(items.find((i) => i.id === 'cpp/1')!.code).toBe(readFileSync(`${FIXTURE}/c++Selected/1.cpp`, 'utf8'));
    expect(warnings).toEqual([expect.stringMatching(/labels question 4 but pythonSelected\/4\.py does not exist/)]);
    expect(readCodeSource(FIXTURE)).toHaveLength(5);
  });

  it('bad sources are E_DATA errors naming the place', () => {
    expect(() => readCodeFolder('/tmp')).toThrow(/neither c\+\+Selected\/ nor pythonSelected\/ found/);
    expect(() => readCodeSource(`${FIXTURE}/pythonSelected/answer.json`)).toThrow(/line 1: not a JSON object|line 1: not JSON/);
  });
});

describe('Code records (§2, §3.5, §5.1)', () => {
  const items = readCodeJsonl(SHARED);

  it('189 programs x 2 tasks x 3 ICL modes = 1,134 records, unique ids, 12 configurations', () => {
    const recs = [...generateCode(items, { seed: 0, compat: 'strict', filter: {} })];
    expect(recs).toHaveLength(1134);
    expect(new Set(recs.map((r) => r.id)).size).toBe(1134);
    expect(new Set(recs.map((r) => `${r.task}/${r.preset}/${r.icl}`)).size).toBe(12);
    expect(recs.slice(0, 6).map((r) => r.id)).toEqual([
      'code/SpaceComplexity/python/1/zero',
      'code/SpaceComplexity/python/1/one',
      'code/SpaceComplexity/python/1/few',
      'code/TimeComplexity/python/1/zero',
      'code/TimeComplexity/python/1/one',
      'code/TimeComplexity/python/1/few',
    ]);
  });

  it('filters by task, language and ICL mode; unknown values are E_CONFIG with a suggestion', () => {
    const recs = [...generateCode(items, { seed: 0, compat: 'strict', filter: { tasks: ['TimeComplexity'], languages: ['cpp'], icl: ['zero'] } })];
    expect(recs).toHaveLength(100);
    expect(() => resolveCodeFilter({ tasks: ['time'] })).toThrow(/unknown --task 'time' \(did you mean 'TimeComplexity'\?\)/);
    expect(() => resolveCodeFilter({ languages: ['java' as never] })).toThrow(/unknown --language 'java'/);
    expect(() => resolveCodeFilter({ representations: ['edge'] })).toThrow(/tree scenarios only/);
  });

  it('zero-shot prompt: the toolkit wording, raw code, no separators, two spaces before "and"', () => {
    const item = items[0]!;
    const [r] = [...generateCode([item], { seed: 0, compat: 'reference', filter: { tasks: ['TimeComplexity'], icl: ['zero'] } })];
    expect(r!.system).toBe('As an AI agent, you are tasked with performing code reasoning to assist in understanding and analyzing complex code snippets.');
    expect(r!.prompt).toBe(
      `Given a code snippet ${item.code}, calculate its time complexity.Please return the answer in JSON format directly like {"answer":  O(n)}  and do not feedback the detailed process.`,
    );
    expect(r!.target).toBe(item.time);
    expect(r!.language).toBe('python');
    expect(r!.code).toBe(item.code);
    expect(r!.matcher).toEqual({ type: 'string', bigo: true });
  });

  it('compat one/few-shot use the toolkit examples verbatim; strict uses own programs of the same language with JSON answers', () => {
    const item = items.find((i) => i.language === 'cpp')!;
    const [one] = [...generateCode([item], { seed: 0, compat: 'reference', filter: { tasks: ['SpaceComplexity'], icl: ['one'] } })];
    expect(one!.prompt.startsWith(`Here is one example.The input is ${COMPAT_EXAMPLES.SpaceComplexity[0]!.input}, the answer is O(1).Given a code snippet `)).toBe(true);
    expect(COMPAT_EXAMPLES.SpaceComplexity[0]!.input).toBe('class Solution(object):\n  def sum(self, num1, num2):\n      return num1+num2\nWhat is the Space Complexity?\n');
    expect(COMPAT_EXAMPLES.TimeComplexity.map((e) => e.answer)).toEqual(['O(1)', 'O(n)', 'O(nlogn)']);
    const [few] = [...generateCode([item], { seed: 0, compat: 'strict', filter: { tasks: ['TimeComplexity'], icl: ['few'] } })];
    expect(few!.prompt.startsWith('Here are a few examples. The input is Given a code snippet int last(')).toBe(true);
    expect(few!.exemplars.map((e) => e.answer)).toEqual(['{"answer": "O(1)"}', '{"answer": "O(n)"}', '{"answer": "O(n^2)"}']);
  });

  it('the strict example programs parse', async () => {
    const syntax = await CodeSyntax.create();
    try {
      for (const [language, programs] of Object.entries(STRICT_EXAMPLE_PROGRAMS)) {
        for (const p of programs) expect(syntax.check(language as 'python' | 'cpp', p.code).ok, p.code).toBe(true);
      }
    } finally {
      syntax.delete();
    }
  });
});

describe('Code matching (§3.5, §4.3, §7 rec. 19)', () => {
  it('compat: whitespace removed, then containment — the toolkit leniencies', () => {
    expect(compat('{"answer": O(n log n)}', 'O(n)')).toBe(true); // "onlogn" contains "on"
    expect(compat('{"answer": "O(n^2)"}', 'O(n)')).toBe(true); // "on2" contains "on"
    expect(compat('{"answer":  O(n)}', 'O(n)')).toBe(true);
    expect(compat('{"answer": O(n log n)}', 'O(nlogn)')).toBe(true);
    expect(compat('{"answer": O(1)}', 'O(n)')).toBe(false);
    expect(compat('O(n)', 'O(n)')).toBe(false); // no {"answer": ...}: no fallback
    expect(compat('{"answer": "O(m + n)"}', 'O(m + n) ~ O(m * n)')).toBe(false); // the whole label must be contained
  });

  it('strict: canonical big-O equality, a range accepts either end, unparsable answers are wrong', () => {
    expect(strict('{"answer": "O(n log n)"}', 'O(nlogn)')).toBe(true);
    expect(strict('{"answer": "O(n log n)"}', 'O(n)')).toBe(false);
    expect(strict('{"answer": "O(n^2)"}', 'O(n)')).toBe(false);
    expect(strict('{"answer": "O(V + E)"}', 'O(|V| + |E|)')).toBe(true);
    expect(strict('{"answer": "O(n * m)"}', 'O(m + n) ~ O(m * n)')).toBe(true);
    expect(strict('{"answer": "O(m + n)"}', 'O(m + n) ~ O(m * n)')).toBe(true);
    expect(strict('{"answer": "linear"}', 'O(n)')).toBe(false);
    expect(strict('{"answer": "O(n"}', 'O(n)')).toBe(false);
    expect(strict('no answer', 'O(n)')).toBe(false);
    expect(strict('{"answer": "O(r)"}', 'O(r), r is the range size of the integers')).toBe(true);
    // answer forms models write: the template's unquoted form, a comment after the group, a code fence, upper case
    expect(strict('{"answer":  O(n log n)}', 'O(nlogn)')).toBe(true);
    expect(strict('{"answer": "O(n), where n is the length of nums"}', 'O(n)')).toBe(true);
    expect(strict('```json\n{"answer": "O(N^2)"}\n```', 'O(n^2)')).toBe(true);
    expect(strict('{"answer": "O(1)"} ... on reflection {"answer": "O(n)"}', 'O(n)')).toBe(true); // strict reads the last answer
    expect(() => matchAnswer('{"answer": "O(n)"}', 'linear', BIGO, 'strict')).toThrow(/not a valid big-O label/);
  });

  it('the random baseline answers a common big-O form, which the strict matcher reads', () => {
    const scorer = new HierarchyScorer();
    const sample: Sample = { id: 'code/x', index: 0, input: {}, target: 'O(n)', meta: { matcher: { type: 'string', bigo: true } } };
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const answers = new Set(Array.from({ length: 40 }, () => scorer.randomAnswer(sample, random)));
    expect(answers.size).toBeGreaterThan(2);
    for (const a of answers) expect(a).toMatch(/^\{"answer": "O\(.+\)"\}$/);
    expect([...answers].some((a) => strict(a, 'O(n)'))).toBe(true);
  });

  it('the oracle completion of every label is right in both modes', () => {
    for (const item of readCodeJsonl(SHARED)) {
      for (const label of [item.space, item.time]) {
        const out = renderAnswer(label, BIGO);
        expect(strict(out, label), `${out} strict`).toBe(true);
        expect(compat(out, label), `${out} compat`).toBe(true);
      }
    }
  });
});

describe('CodeDataset', () => {
  it('loads code.jsonl as 1,134 samples and parses all 189 programs without ERROR nodes (no warning)', async () => {
    const ds = new CodeDataset();
    const o = loadOptions({ data: SHARED });
    const t0 = performance.now();
    const samples = await collect(ds.load(o));
    console.log(`hibench/code: load + tree-sitter parse of 189 programs -> ${samples.length} samples in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(samples).toHaveLength(1134);
    expect(o.warnings).toEqual([]);
    expect(samples[0]!.meta).toMatchObject({ scenario: 'code', task: 'SpaceComplexity', preset: 'python', language: 'python', icl: 'zero', config: 'code/SpaceComplexity/python/zero' });
    expect(samples[0]!.input.question).toMatch(/calculate its space complexity\.$/);
  });

  it('loads the folder layout and warns (through the Logger) about a program that does not parse', async () => {
    const logged: string[] = [];
    const ds = new CodeDataset({ info: () => {}, debug: () => {}, warn: (m) => logged.push(m) });
    const samples = await collect(ds.load(loadOptions({ data: FIXTURE, filters: { icl: ['zero'] } })));
    expect(samples).toHaveLength(5 * 2);
    expect(logged.some((m) => /python\/3 does not parse as python .*line 2/.test(m))).toBe(true);
    expect(logged.some((m) => /labels question 4/.test(m))).toBe(true);
  });

  it('reads back a file of generated records, and needs --data', async () => {
    const ds = new CodeDataset();
    await expect(collect(ds.load(loadOptions()))).rejects.toThrow(/give --data/);
    await expect(collect(ds.load(loadOptions({ data: SHARED, split: 'test' })))).rejects.toThrow(/no splits/);
    const recs = [...ds.generate({ seed: 0, compat: 'strict', filters: { language: ['cpp'] }, data: FIXTURE })];
    expect(recs).toHaveLength(2 * 2 * 3);
    expect(recordToSample(recs[0] as never, 0).id).toBe('code/SpaceComplexity/cpp/1/zero');
  });
});
