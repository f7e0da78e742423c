import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  checkFilters,
  GENERIC_INPUT_DEFAULTS,
  GENERIC_PACK_PATH,
  GRADED_SYSTEM_PROMPT,
  LadderEngine,
  loadPromptPack,
  RunStore,
  withGenericInput,
  type DatasetDecl,
  type Model,
  type ModelRequest,
  type Sample,
  type Scorer,
} from '@hpt-bench/core';
import { hpfLevels } from '../helpers/ladder.js';

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
    const pack = loadPromptPack(GENERIC_PACK_PATH);
    expect(Object.keys(pack.strategies)).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge']);
    expect(pack.system).toBe('{system}');
  });

  it('fills optional fields with defaults and rejects a sample without a question', () => {
    const s = withGenericInput({ id: 'x', index: 0, input: { question: 'Q?' }, target: 'a' });
    expect(s.input).toEqual({ ...GENERIC_INPUT_DEFAULTS, question: 'Q?' });
    expect(s.input.system).toBe(GRADED_SYSTEM_PROMPT);
    expect(() => withGenericInput({ id: 'x', index: 0, input: { text: 'Q?' }, target: 'a' })).toThrow(/sample x: the generic prompt pack needs an input field 'question'/);
  });

  it('drives all five levels: the pack system message on graded calls only, {pred} chained, meta kept on the result', async () => {
    const model = recorder();
    const engine = new LadderEngine({
      levels: hpfLevels(),
      model,
      knowledgeModel: model,
      scorer: never,
      scorerOptions: {},
      pack: loadPromptPack(GENERIC_PACK_PATH),
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
