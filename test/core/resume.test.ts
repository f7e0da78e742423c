import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configHash, planRun, RunStore, type RunConfig } from '@hpt-bench/core';

const base: RunConfig = {
  dataset: 'boolq',
  model: 'openai:m',
  modelOptions: { apiKeyEnv: 'OPENAI_API_KEY', baseUrl: 'http://127.0.0.1:1/v1', timeoutMs: 1000 },
  ladder: 'hpf',
  compat: 'strict',
  seed: 0,
  concurrency: 4,
  generation: { temperature: 0.6, topP: 0.9, maxTokens: 1024 },
  onInvalid: 'fail',
  cacheDir: '/tmp/a',
};

describe('configHash (which runs may resume each other)', () => {
  it('ignores execution settings and key names, not what changes results', () => {
    const h = configHash(base);
    expect(configHash({ ...base, concurrency: 64, cache: false, maxRetries: 0, cacheDir: '/x', prices: { 'openai:m': { input: 1, output: 1 } } })).toBe(h);
    expect(configHash({ ...base, modelOptions: { apiKeyEnv: 'OTHER', baseUrl: 'http://127.0.0.1:1/v1', timeoutMs: 5 } })).toBe(h);
    for (const changed of [{ seed: 1 }, { model: 'openai:n' }, { limit: 10 }, { compat: 'reference' as const }, { generation: { ...base.generation, temperature: 0 } }, { modelOptions: { ...base.modelOptions, baseUrl: 'http://other/v1' } }, { filters: { task: ['x'] } }]) {
      expect(configHash({ ...base, ...changed }), JSON.stringify(changed)).not.toBe(h);
    }
  });
});

describe('planRun (resume, --new, --retry-errors, --resume)', () => {
  const sample = (index: number) => ({ id: `s${index}`, index, target: true });
  const done = (store: RunStore, runId: string, index: number) =>
    store.saveSample(runId, { sampleId: `s${index}`, index, level: 1, hpi: 1, solved: true, prediction: true, target: true, attempts: [{ level: 1, strategy: 'role', solved: true, score: 1, extracted: true, graded: { promptText: '', completion: 'True', cue: '' }, calls: [] }] });

  it('continues the newest unfinished run of the same configuration, skipping recorded samples (errored too, unless retried)', () => {
    const store = new RunStore(join(mkdtempSync(join(tmpdir(), 'hpt-plan-')), 's.db'));
    const h = configHash(base);
    expect(planRun(store, base, {}, 'new1')).toEqual({ runId: 'new1', resumed: false, skip: new Set() });
    store.createRun({ id: 'r1', dataset: 'boolq', model: 'openai:m', mode: 'manual', config: {}, configHash: h });
    done(store, 'r1', 0);
    done(store, 'r1', 2);
    store.saveErrored('r1', sample(1), 'HTTP 500');
    expect(planRun(store, base, {}, 'new2')).toEqual({ runId: 'r1', resumed: true, skip: new Set([0, 1, 2]) });
    expect(planRun(store, base, { retryErrors: true }, 'new3')).toEqual({ runId: 'r1', resumed: true, skip: new Set([0, 2]) });
    expect(planRun(store, base, { fresh: true }, 'new4').runId).toBe('new4');
    expect(planRun(store, { ...base, seed: 5 }, {}, 'new5').runId).toBe('new5');
    // a completed run is not resumed, but --retry-errors still finds it
    store.finishRun('r1', {});
    expect(planRun(store, base, {}, 'new6').runId).toBe('new6');
    expect(planRun(store, base, { retryErrors: true }, 'new7').runId).toBe('r1');
    expect(planRun(store, base, { resume: 'r1' }, 'new8')).toMatchObject({ runId: 'r1', resumed: true });
    expect(() => planRun(store, base, { resume: 'nope' }, 'x')).toThrow(/no run nope in/);
    expect(() => planRun(store, { ...base, seed: 9 }, { resume: 'r1' }, 'x')).toThrow(/run r1 has another configuration/);
    // an errored sample redone successfully replaces its errored row
    done(store, 'r1', 1);
    expect(store.recordedIndices('r1')).toEqual({ done: new Set([0, 1, 2]), errored: new Set() });
    expect(store.aggregate('r1')).toMatchObject({ n: 3, errored: 0 });
    store.close();
  });
});
