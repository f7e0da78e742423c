import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assemblePrompt, fillTemplate, loadPromptPack, placeholders, API_WRAPPER, GRADED_SYSTEM_PROMPT, LLAMA3_WRAPPER } from '@hpt-bench/core';
import { HPT_DATASETS } from '../../plugins/hpt-datasets/src/index.js';
import { ROOT, SHARED } from '../helpers/cli.js';

const PACKS = join(ROOT, 'plugins/hpt-datasets/packs');
const templates = JSON.parse(readFileSync(join(SHARED, 'specs/hpt-templates.json'), 'utf8')) as Record<string, Record<string, string | string[]>>;
const extras = JSON.parse(readFileSync(join(SHARED, 'specs/hpt-extras.json'), 'utf8')) as {
  answerCue: Record<string, string>;
  intermediateLtmCue: Record<string, string>;
  ltmPredSource: Record<string, (number | null)[]>;
  placeholders: Record<string, string[]>;
};

describe('fillTemplate (hpt.md §0: one pass)', () => {
  it('never re-scans inserted values', () => {
    const out = fillTemplate("Q: '{question}' code: {code}", { question: 'what is {code}?', code: 'def f(): return {"a": 1}' });
    expect(out).toBe('Q: \'what is {code}?\' code: def f(): return {"a": 1}');
  });
  it('names a placeholder without a value', () => {
    expect(() => fillTemplate('{passage} {question}', { passage: 'p' })).toThrow(/\{question\} has no value/);
  });
  it('fills like a one-pass regex replace on random templates, including repeated fills of the same template', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const pieces = ['{a}', '{b_1}', '{C}', '{', '}', '{}', '{1x}', '{ a}', 'text ', '\n', '{{a}}', 'é', '$&', '$1'];
    const vars = { a: 'A{b_1}', b_1: '$&', C: '' };
    const reference = (t: string) => t.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, n: string) => (vars as Record<string, string>)[n]!);
    for (let i = 0; i < 300; i++) {
      const t = Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => pick(pieces)).join('');
      expect(fillTemplate(t, vars)).toBe(reference(t));
      expect(fillTemplate(t, vars)).toBe(reference(t)); // second fill: from the compiled form
    }
  });
  it('lists placeholders in order of first appearance', () => {
    expect(placeholders('{a} {b} {a} {pred}')).toEqual(['a', 'b', 'pred']);
  });
});

describe('HPT prompt packs', () => {
  const ids = readdirSync(PACKS).map((f) => f.replace(/\.json$/, ''));
  it('cover the seven HPT datasets, each declared in the manifest with its pack and Table 4 HPI_Dataset', () => {
    expect(ids.sort()).toEqual(['boolq', 'csqa', 'gsm8k', 'humaneval', 'iwslt', 'mmlu', 'samsum']);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'plugins/hpt-datasets/package.json'), 'utf8')) as { 'hpt-bench': { contributes: { datasets: { id: string; promptPack: string; hpiDataset: number }[] } } };
    const declared = manifest['hpt-bench'].contributes.datasets;
    expect(declared.map((d) => d.id)).toEqual([...HPT_DATASETS]);
    for (const d of declared) {
      expect(d.promptPack).toBe(`./packs/${d.id}.json`);
      expect(d.hpiDataset).toBe((extras as unknown as { hpiDataset: Record<string, number> }).hpiDataset[d.id]);
    }
  });
  for (const id of ['boolq', 'csqa', 'gsm8k', 'humaneval', 'iwslt', 'mmlu', 'samsum']) {
    it(`${id}: validates and equals the reference strings, cues and {pred} wiring`, () => {
      const pack = loadPromptPack(join(PACKS, `${id}.json`));
      const t = templates[id]!;
      expect(pack.cue).toBe(extras.answerCue[id]);
      expect(pack.strategies.role!.template).toBe(t['1']);
      expect(pack.strategies['zero-shot-cot']!.template).toBe(t['2']);
      expect(pack.strategies['three-shot-cot']!.template).toBe(t['3']);
      const steps = pack.strategies['least-to-most']!.steps!;
      expect(steps.map((s) => s.template)).toEqual(t['4']);
      expect(steps.map((s) => s.pred)).toEqual(extras.ltmPredSource[id]);
      expect(steps.map((s) => s.cue)).toEqual([...Array(3).fill(extras.intermediateLtmCue[id]), extras.answerCue[id]]);
      expect(pack.strategies['generated-knowledge']).toEqual({ knowledge: (templates.knowledge as unknown as Record<string, string>)[id], template: t['5'] });
      // every placeholder is a dataset field or {pred}; {pred} appears exactly where the wiring feeds it
      const allowed = new Set([...extras.placeholders[id]!, 'pred']);
      const all = [t['1'], t['2'], t['3'], ...(t['4'] as string[]), t['5'], (templates.knowledge as unknown as Record<string, string>)[id]] as string[];
      for (const s of all) for (const p of placeholders(s)) expect(allowed.has(p)).toBe(true);
      steps.forEach((s) => expect(placeholders(s.template).includes('pred')).toBe(s.pred !== null));
    });
  }
});

describe('assemblePrompt (hpt.md §6, recommendation #13)', () => {
  it('strict graded: system prompt, template then cue on a new line', () => {
    const a = assemblePrompt('graded', 'Choose.', 'Answer:', 'strict');
    expect(a.messages).toEqual([
      { role: 'system', content: GRADED_SYSTEM_PROMPT },
      { role: 'user', content: 'Choose.\nAnswer:' },
    ]);
    expect(a.promptText).toBe('Choose.\nAnswer:');
  });
  it('strict intermediate and knowledge calls carry no system prompt; knowledge no cue', () => {
    expect(assemblePrompt('intermediate', 'Step.', 'Answer:', 'strict').messages).toEqual([{ role: 'user', content: 'Step.\nAnswer:' }]);
    expect(assemblePrompt('intermediate', 'Step.', '', 'strict').messages).toEqual([{ role: 'user', content: 'Step.' }]);
    expect(assemblePrompt('knowledge', 'Generate.', 'Answer:', 'strict').messages).toEqual([{ role: 'user', content: 'Generate.' }]);
  });
  it('reference: literal API wrapper + cue; knowledge always in the Llama-3 wrapper without cue', () => {
    const g = assemblePrompt('graded', 'T', 'Answer:', 'reference');
    expect(g.messages[1]!.content).toBe(`${API_WRAPPER.prefix}T${API_WRAPPER.suffix}Answer:`);
    expect(g.promptText).toBe('<|startoftext|>### Instruction: T<|endoftext|>\nAnswer:');
    const k = assemblePrompt('knowledge', 'K', 'Answer:', 'reference');
    expect(k.messages).toEqual([{ role: 'user', content: `${LLAMA3_WRAPPER.prefix}K${LLAMA3_WRAPPER.suffix}` }]);
  });
});
