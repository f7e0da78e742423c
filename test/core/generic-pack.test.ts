import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  checkFilters,
  datasetPack,
  discoverPlugins,
  genericPack,
  GRADED_SYSTEM_PROMPT,
  LadderEngine,
  RunStore,
  withGenericInput,
  type DatasetDecl,
  type Model,
  type ModelRequest,
  type Sample,
  type Scorer,
} from '@hpt-bench/core';
import { ROOT } from '../helpers/cli.js';
import { hpfLevels } from '../helpers/ladder.js';

const builtin = (p: string) => ({ root: join(ROOT, 'plugins', p), origin: 'builtin' as const });
/** The built-in plugins that matter here: the datasets, and @hpt-bench/hpf-strategies, which contributes the generic pack. */
const BUILTINS = ['hpt-datasets', 'hpf-strategies', 'hibench'].map(builtin);
const registry = discoverPlugins(BUILTINS);

/** A plugin directory with this manifest `contributes` and these JSON files. */
function plugin(name: string, contributes: object, files: Record<string, unknown> = {}): { root: string; origin: 'local' } {
  const dir = mkdtempSync(join(tmpdir(), 'hpt-generic-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', 'hpt-bench': { apiVersion: 1, contributes } }));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), JSON.stringify(content));
  }
  return { root: dir, origin: 'local' };
}

const sample: Sample = {
  id: 'g1',
  index: 0,
  input: { question: 'Given the hierarchical structure 1 -> 0, which node is the root?', format: 'Reply {"answer": N}.', format_cot: 'Think step by step.', exemplars: 'Example 1: ...', system: 'You reason about trees.' },
  target: 1,
  meta: { scenario: 'multiple-tree', task: 'root' },
};

const never: Scorer = { id: 'never', score: (_s, o) => ({ solved: false, score: 0, extracted: o.completion }) };

function recorder(): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'rec',
    requests,
    async generate(r) {
      requests.push(r);
      return { text: `out${requests.length}`, usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' };
    },
  };
}

describe('generic prompt pack (DESIGN.md "Prompt packs")', () => {
  it('is a valid pack with all five HPF levels and a system template', () => {
    const pack = genericPack(registry);
    expect(Object.keys(pack.strategies)).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge']);
    expect(pack.system).toBe('{system}');
    expect([pack.id, pack.cue]).toEqual(['generic', '']);
    // a dataset without a pack gets it
    expect(datasetPack(registry.get('datasets', 'hibench/json'), registry)).toBe(pack);
  });

  it('comes from @hpt-bench/hpf-strategies (a packs entry with generic: true), not from the core', () => {
    const generic = registry.list('packs').filter((p) => p.decl.generic === true);
    expect(generic.map((p) => [p.plugin.name, p.id, p.qualifiedId, p.decl.promptPack])).toEqual([['@hpt-bench/hpf-strategies', 'generic', 'hpf-strategies/generic', './packs/generic.json']]);
  });

  it('fills optional fields with the pack\'s inputs and rejects a sample without a question', () => {
    const pack = genericPack(registry);
    // the pack's own values of its optional fields, not the core's: an answer-format sentence, the step-by-step cue,
    // no exemplars, HPT's graded system prompt
    expect(pack.inputs).toEqual({ format: '', format_cot: "Let's think step by step.", exemplars: '', system: GRADED_SYSTEM_PROMPT });
    const s = withGenericInput({ id: 'x', index: 0, input: { question: 'Q?' }, target: 'a' }, pack);
    expect(s.input).toEqual({ ...pack.inputs, question: 'Q?' });
    // a field the sample gives wins over the pack's value
    expect(withGenericInput({ id: 'x', index: 0, input: { question: 'Q?', format: 'Answer yes or no.' }, target: 'a' }, pack).input.format).toBe('Answer yes or no.');
    expect(() => withGenericInput({ id: 'x', index: 0, input: { text: 'Q?' }, target: 'a' }, pack)).toThrow(/sample x: the generic prompt pack needs an input field 'question'/);
    // a field the templates read without a value in `inputs` is required
    const stricter = { ...pack, inputs: { format: '', exemplars: '', system: '' } };
    expect(() => withGenericInput({ id: 'y', index: 0, input: { question: 'Q?' }, target: 'a' }, stricter)).toThrow(/sample y: .* input field 'format_cot'/);
  });

  it('drives all five levels: the pack system message on graded calls only, {pred} chained, meta kept on the result', async () => {
    const model = recorder();
    const engine = new LadderEngine({
      levels: hpfLevels(),
      model,
      knowledgeModel: model,
      scorer: never,
      scorerOptions: {},
      pack: genericPack(registry),
      hpiDataset: 2.6,
      compat: 'strict',
      generation: { temperature: 0, topP: 1, maxTokens: 64 },
      seed: 0,
    });
    const res = await engine.climb(sample);
    expect(res.hpi).toBeCloseTo(7.6, 10);
    expect(res.meta).toEqual(sample.meta);
    // 1 + 1 + 1 + 3 (chain) + 3 knowledge + 1 graded
    expect(model.requests).toHaveLength(10);
    const graded = model.requests.filter((r) => r.context!.purpose === 'graded');
    expect(graded).toHaveLength(5);
    for (const r of graded) expect(r.messages[0]).toEqual({ role: 'system', content: 'You reason about trees.' });
    for (const r of model.requests.filter((x) => x.context!.purpose !== 'graded')) expect(r.messages.every((m) => m.role === 'user')).toBe(true);
    expect(model.requests[0]!.messages[1]!.content).toBe('You are an omniscient expert in this domain. Given the hierarchical structure 1 -> 0, which node is the root?\nReply {"answer": N}.');
    expect(model.requests[2]!.messages[1]!.content).toContain('Example 1: ...\n\nGiven the hierarchical structure');
    // least-to-most: step 2 gets step 1's output, step 3 (graded) gets step 2's
    expect(model.requests[4]!.messages[0]!.content).toContain('Sub-problems:\nout4\n');
    expect(model.requests[5]!.messages[1]!.content).toContain('Solved sub-problems:\nout5\n');
    // generated knowledge: the first candidate (no logprobs) fills the inference template
    expect(model.requests[9]!.messages[1]!.content).toMatch(/^Knowledge: out7\n/);
  });
});

describe('generic packs of several plugins (packs entries with generic: true)', () => {
  const json = () => registry.get('datasets', 'hibench/json');

  it('merge: strategies unite in discovery order; cue, system and task come from the first that sets them', () => {
    const extra = plugin('generic-extra', { packs: [{ generic: true, promptPack: './g.json' }] }, { 'g.json': { strategies: { 'plan-and-solve': { template: 'PLAN {question}' } } } });
    const reg = discoverPlugins([...BUILTINS, extra]);
    const pack = genericPack(reg);
    expect(Object.keys(pack.strategies)).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', 'plan-and-solve']);
    expect([pack.id, pack.cue, pack.system, pack.task]).toEqual(['generic', '', '{system}', '{question}\n{format}']);
    expect(datasetPack(reg.get('datasets', 'hibench/json'), reg).strategies['plan-and-solve']).toEqual({ template: 'PLAN {question}' });
    // a field the first one leaves out is taken from a later one; a field set to the same value is no clash
    const first = plugin('generic-first', { packs: [{ generic: true, promptPack: './g.json' }] }, { 'g.json': { strategies: { x: { template: '{question}' } } } });
    const second = plugin('generic-second', { packs: [{ generic: true, promptPack: './g.json' }] }, { 'g.json': { cue: 'Answer:', system: 'S', strategies: { y: { template: '{question}' } } } });
    const only = genericPack(discoverPlugins([first, second]));
    expect([only.id, only.cue, only.system, only.task, Object.keys(only.strategies)]).toEqual(['generic', 'Answer:', 'S', undefined, ['x', 'y']]);
    const same = plugin('generic-same', { packs: [{ generic: true, promptPack: './g.json' }] }, { 'g.json': { system: '{system}', strategies: { z: { template: '{question}' } } } });
    expect(genericPack(discoverPlugins([...BUILTINS, same])).system).toBe('{system}');
  });

  it('an entry two generic packs give, or a different cue/system/task, is an error naming both plugins', () => {
    const dup = plugin('generic-dup', { packs: [{ generic: true, promptPack: './g.json' }] }, { 'g.json': { strategies: { role: { template: 'R {question}' } } } });
    expect(() => genericPack(discoverPlugins([...BUILTINS, dup]))).toThrow(
      "plugin generic-dup (packs ./g.json) gives a 'role' entry of the generic prompt pack, which plugin @hpt-bench/hpf-strategies (packs ./packs/generic.json) already provides; remove one of them",
    );
    const sys = plugin('generic-sys', { packs: [{ generic: true, promptPack: './g.json' }] }, { 'g.json': { system: 'Be brief.', strategies: { x: { template: '{question}' } } } });
    expect(() => datasetPack(json(), discoverPlugins([...BUILTINS, sys]))).toThrow(/^the generic prompt packs of plugin @hpt-bench\/hpf-strategies \(packs \.\/packs\/generic\.json\) and plugin generic-sys \(packs \.\/g\.json\) set different 'system' values/);
    const cue = plugin('generic-cue', { packs: [{ generic: true, promptPack: './g.json' }] }, { 'g.json': { cue: 'A:', strategies: { x: { template: '{question}' } } } });
    expect(() => genericPack(discoverPlugins([...BUILTINS, cue]))).toThrow(/set different 'cue' values/);
  });

  it('a dataset without a pack and no generic pack installed: a clear error naming the dataset', () => {
    const reg = discoverPlugins([builtin('hibench')]);
    let error: unknown;
    try {
      datasetPack(reg.get('datasets', 'hibench/json'), reg);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'E_PACK', message: 'dataset json of plugin @hpt-bench/hibench names no prompt pack, and no installed plugin contributes a generic prompt pack (a "packs" entry with "generic": true)' });
    expect((error as { hint?: string }).hint).toMatch(/@hpt-bench\/hpf-strategies/);
    // a dataset with its own pack does not need one
    expect(datasetPack(discoverPlugins([builtin('hpt-datasets')]).get('datasets', 'boolq')).id).toBe('boolq');
  });

  it('the manifest takes exactly one of dataset and generic', () => {
    for (const [name, entry] of [
      ['both', { dataset: 'boolq', generic: true, promptPack: './g.json' }],
      ['neither', { promptPack: './g.json' }],
      ['not-true', { generic: false, promptPack: './g.json' }],
    ] as const) {
      const p = plugin(`generic-${name}`, { packs: [entry] }, { 'g.json': { strategies: { x: { template: '{question}' } } } });
      expect(() => discoverPlugins([p])).toThrow(new RegExp(`manifest of plugin generic-${name} is invalid`));
    }
  });
});

describe('generator filters are checked against the manifest', () => {
  const decl = (filters?: string[]): DatasetDecl => ({ id: 'd', scorer: 'x', hpiDataset: 1, ...(filters ? { filters } : {}) });
  it('accepts declared filters and empty lists, rejects others with the accepted list', () => {
    expect(() => checkFilters('d', decl(['task', 'icl']), { task: ['a'], icl: ['zero'] })).not.toThrow();
    expect(() => checkFilters('boolq', decl(), { preset: [] })).not.toThrow();
    expect(() => checkFilters('d', decl(['task']), { representation: ['edge'] })).toThrow(/dataset d has no filter --representation \(it accepts: --task\)/);
    expect(() => checkFilters('boolq', decl(), { task: ['x'] })).toThrow(/dataset boolq is not generated and takes no generator filter \(--task\)/);
  });
});

describe('RunStore keeps sample meta (per-configuration metrics)', () => {
  it('stores meta, returns it from iterPredictions and iterSamples, and upgrades a store without the column', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hpt-meta-')), 'old.db');
    // a store written before the meta column existed
    const old = new Database(path);
    old.exec(`CREATE TABLE runs (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, status TEXT NOT NULL, dataset TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL, config TEXT NOT NULL, summary TEXT, error TEXT);
      CREATE TABLE samples (run_id TEXT NOT NULL, idx INTEGER NOT NULL, sample_id TEXT NOT NULL, level INTEGER, hpi REAL NOT NULL, solved INTEGER NOT NULL, prediction TEXT NOT NULL, target TEXT NOT NULL, PRIMARY KEY (run_id, idx));
      INSERT INTO runs VALUES ('old', 't', 't', 'completed', 'boolq', 'm', 'manual', '{}', NULL, NULL);
      INSERT INTO samples VALUES ('old', 0, 's0', 1, 1, 1, '"A"', '"A"');`);
    old.close();
    const store = new RunStore(path);
    expect([...store.iterPredictions('old')]).toEqual([{ sampleId: 's0', index: 0, prediction: 'A', target: 'A', solved: true }]);
    store.createRun({ id: 'r', dataset: 'hibench/formula', model: 'm', mode: 'manual', config: {} });
    const attempt = { level: 1, strategy: 'role', solved: true, score: 1, extracted: '11', graded: { promptText: 'p', completion: 'c', cue: '' }, calls: [] };
    store.saveSample('r', { sampleId: 'f1', index: 0, level: 1, hpi: 1, solved: true, prediction: '11', target: '11', attempts: [attempt], meta: { scenario: 'formula', task: 'calculate' } });
    expect([...store.iterPredictions('r')][0]!.meta).toEqual({ scenario: 'formula', task: 'calculate' });
    expect([...store.iterSamples('r')][0]!.meta).toEqual({ scenario: 'formula', task: 'calculate' });
    store.close();
  });
});
