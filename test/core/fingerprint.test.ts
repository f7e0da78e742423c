/**
 * Run fingerprints (issue 16): the builder over a really prepared run (built-in plugins), its freedom from secrets, and
 * `fingerprintDifferences` / `fingerprintNotes` as pure functions.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFingerprint, configHash, createRunContainer, EndpointSpread, currentOwner, executeRun, openRun, RunSession, dataFingerprint, discoverPlugins, fingerprintDifferences, fingerprintNotes, prepareRun, RunStore, type RunConfig, type RunFingerprint } from '@hpt-bench/core';
import { BASE_CONFIG } from '../helpers/run-config.js';
import { ROOT } from '../helpers/cli.js';

const builtins = ['hpt-datasets', 'hpf-strategies', 'openai', 'baselines', 'metrics'].map((p) => ({ root: join(ROOT, 'plugins', p), origin: 'builtin' as const }));
const registry = discoverPlugins(builtins);

async function fingerprintOf(config: RunConfig, version = '9.8.7'): Promise<RunFingerprint> {
  const prepared = await prepareRun(config, registry, createRunContainer(registry));
  return buildFingerprint(prepared, config, { hptBenchVersion: version });
}

describe('buildFingerprint', () => {
  it('records version, the plugins used with their versions, data, prompt hashes per level and the settings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-fp-'));
    const data = join(dir, 'boolq.json');
    writeFileSync(data, JSON.stringify([{ question: 'q', passage: 'p', answer: true }]));
    const dataHash = await dataFingerprint(data);
    const f = await fingerprintOf({ ...BASE_CONFIG, data, dataHash, limit: 5, seed: 3, generation: { ...BASE_CONFIG.generation, seed: 3 } });
    expect(f.hptBench).toBe('9.8.7');
    const pkg = (name: string) => f.plugins.find((p) => p.name === name);
    expect(f.plugins.map((p) => p.name)).toEqual(['@hpt-bench/hpf-strategies', '@hpt-bench/hpt-datasets', '@hpt-bench/metrics', '@hpt-bench/openai']);
    expect(pkg('@hpt-bench/hpt-datasets')).toEqual({ name: '@hpt-bench/hpt-datasets', version: '0.1.0', origin: 'builtin', uses: ['datasets:boolq'] });
    expect(pkg('@hpt-bench/openai')!.uses).toEqual(['models:openai']);
    expect(pkg('@hpt-bench/hpf-strategies')!.uses).toContain('ladders:hpf');
    expect(f.data).toEqual({ dataset: 'boolq', source: data, split: null, contentHash: dataHash });
    expect(f.ladderLevels).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge']);
    expect(Object.keys(f.prompts)).toEqual(f.ladderLevels);
    for (const h of Object.values(f.prompts)) expect(h).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(new Set(Object.values(f.prompts)).size).toBe(5);
    expect(f).toMatchObject({ model: 'openai:m', knowledgeModel: null, selector: null, mode: 'manual', seed: 3, compat: 'strict', limit: 5, replicates: 1, hpiDataset: 1.71, threshold: null });
    expect(f.generation).toEqual({ temperature: 0.6, topP: 0.9, maxTokens: 1024, seed: 3 });
    expect(f.endpoints).toEqual(['http://127.0.0.1:1/v1']);
  });

  it('several base URLs: the model is an EndpointSpread over one model per URL; the fingerprint records every endpoint, credential-free', async () => {
    const config: RunConfig = { ...BASE_CONFIG, modelOptions: { ...BASE_CONFIG.modelOptions, baseUrl: ['http://127.0.0.1:3/v1', 'http://bob:pw1234567@127.0.0.1:2/v1'] } };
    const prepared = await prepareRun(config, registry, createRunContainer(registry));
    expect(prepared.model).toBeInstanceOf(EndpointSpread);
    expect((prepared.model as EndpointSpread).endpoints).toEqual(['http://127.0.0.1:3/v1', 'http://127.0.0.1:2/v1']);
    expect(prepared.knowledgeModel).toBe(prepared.model);
    const f = buildFingerprint(prepared, config, { hptBenchVersion: '1' });
    expect(f.endpoints).toEqual(['http://127.0.0.1:2/v1', 'http://127.0.0.1:3/v1']);
    expect(JSON.stringify(f)).not.toMatch(/bob|pw1234567/);
    // a list of one is that one endpoint, no spread
    const one = await prepareRun({ ...BASE_CONFIG, modelOptions: { ...BASE_CONFIG.modelOptions, baseUrl: ['http://127.0.0.1:3/v1'] } }, registry, createRunContainer(registry));
    expect(one.model).not.toBeInstanceOf(EndpointSpread);
    expect(one.model.endpoint).toBe('http://127.0.0.1:3/v1');
    // the same endpoint twice is a configuration error
    await expect(prepareRun({ ...BASE_CONFIG, modelOptions: { ...BASE_CONFIG.modelOptions, baseUrl: ['http://127.0.0.1:3/v1', 'http://127.0.0.1:3/v1'] } }, registry, createRunContainer(registry))).rejects.toMatchObject({ code: 'E_CONFIG' });
  });

  it('never holds secrets: credentials in a base URL, the API key (its variable is not read), secret query values', async () => {
    process.env.HPT_FP_TEST_KEY = 'sk-very-secret-key';
    try {
      const f = await fingerprintOf({ ...BASE_CONFIG, modelOptions: { ...BASE_CONFIG.modelOptions, apiKeyEnv: 'HPT_FP_TEST_KEY', baseUrl: 'http://alice:hunter2@127.0.0.1:1/v1?api-key=qwerty' } });
      const text = JSON.stringify(f);
      for (const secret of ['alice', 'hunter2', 'qwerty', 'sk-very-secret-key']) expect(text).not.toContain(secret);
      expect(f.endpoints).toEqual(['http://127.0.0.1:1/v1']);
    } finally {
      delete process.env.HPT_FP_TEST_KEY;
    }
  });

  it('baselines have no endpoint; a hub dataset without --data names its source; a ladder file is not a plugin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-fp-'));
    const ladder = join(dir, 'two.json');
    writeFileSync(ladder, JSON.stringify({ id: 'two', levels: ['role', 'zero-shot-cot'] }));
    const f = await fingerprintOf({ ...BASE_CONFIG, model: 'baseline:oracle', ladder });
    expect(f.endpoints).toEqual([]);
    expect(f.data.source).toMatch(/^hub:.*boolq.*@/i);
    expect(f.data.contentHash).toBeNull();
    expect(f.ladder).toBe(ladder);
    expect(Object.keys(f.prompts)).toEqual(['role', 'zero-shot-cot']);
    expect(f.plugins.find((p) => p.name === '@hpt-bench/hpf-strategies')!.uses).toEqual(['strategies:role', 'strategies:zero-shot-cot']);
  });

  it('the same configuration gives the same fingerprint; the prompt hashes follow the pack', async () => {
    const a = await fingerprintOf(BASE_CONFIG);
    const b = await fingerprintOf(BASE_CONFIG);
    expect(b).toEqual(a);
    const prepared = await prepareRun(BASE_CONFIG, registry, createRunContainer(registry));
    const changed = { ...prepared, pack: { ...prepared.pack, strategies: { ...prepared.pack.strategies, role: { ...prepared.pack.strategies.role, template: 'another {question}' } } } };
    const c = buildFingerprint(changed, BASE_CONFIG);
    expect(c.hptBench).toBe('unknown');
    expect(c.prompts.role).not.toBe(a.prompts.role);
    expect(c.prompts['zero-shot-cot']).toBe(a.prompts['zero-shot-cot']);
  });
});

describe('fingerprintDifferences', () => {
  let base: RunFingerprint;
  const get = async () => (base ??= await fingerprintOf({ ...BASE_CONFIG, model: 'baseline:oracle' }));

  it('two runs that differ only in the model (and its plugin and endpoint) do not differ', async () => {
    const a = await get();
    const b = await fingerprintOf({ ...BASE_CONFIG, model: 'openai:gpt-x' });
    expect(b.plugins.map((p) => p.name)).toContain('@hpt-bench/openai');
    expect(fingerprintDifferences(a, b)).toEqual([]);
    expect(fingerprintDifferences(a, { ...a, model: 'baseline:random' })).toEqual([]);
  });

  it('names each differing field with both values', async () => {
    const a = await get();
    const b: RunFingerprint = {
      ...a,
      hptBench: '0.2.0',
      seed: 7,
      generation: { ...a.generation, temperature: 0 },
      data: { ...a.data, contentHash: 'sha256:bb' },
      prompts: { ...a.prompts, role: 'sha256:other' },
      plugins: a.plugins.map((p) => (p.name === '@hpt-bench/metrics' ? { ...p, version: '0.1.1' } : p)),
    };
    expect(fingerprintDifferences(a, b)).toEqual([
      { field: 'hptBench', a: '9.8.7', b: '0.2.0' },
      { field: 'plugins.@hpt-bench/metrics', a: '0.1.0', b: '0.1.1' },
      { field: 'data.contentHash', a: null, b: 'sha256:bb' },
      { field: 'prompts.role', a: a.prompts.role!, b: 'sha256:other' },
      { field: 'generation.temperature', a: 0.6, b: 0 },
      { field: 'seed', a: 0, b: 7 },
    ]);
  });

  it('the data path does not count when both runs hash their data; a plugin used for more than the model does', async () => {
    const a = await get();
    const withHash = (source: string, h: string): RunFingerprint => ({ ...a, data: { ...a.data, source, contentHash: h } });
    expect(fingerprintDifferences(withHash('/x/a.json', 'sha256:1'), withHash('/y/b.json', 'sha256:1'))).toEqual([]);
    expect(fingerprintDifferences(withHash('/x/a.json', 'sha256:1'), withHash('/y/b.json', 'sha256:2')).map((d) => d.field)).toEqual(['data.contentHash']);
    expect(fingerprintDifferences({ ...a, data: { ...a.data, source: 'x' } }, a).map((d) => d.field)).toEqual(['data.source']);
    const extra = { name: '@x/pack', version: '1.0.0', origin: 'installed', uses: ['packs:boolq'] };
    expect(fingerprintDifferences({ ...a, plugins: [...a.plugins, extra] }, a)).toEqual([{ field: 'plugins.@x/pack', a: '1.0.0', b: null }]);
  });

  it('fingerprintNotes names runs of one dataset that differ in more than the model, and runs without a fingerprint', async () => {
    const a = await get();
    const rec = (id: string, f: RunFingerprint | null, dataset = 'boolq') => ({ id, dataset, fingerprint: f as never });
    expect(fingerprintNotes([rec('r1', a), rec('r2', { ...a, model: 'openai:x' })])).toEqual([]);
    const notes = fingerprintNotes([rec('r1', a), rec('r2', { ...a, seed: 9 }), rec('r3', { ...a, seed: 9 }, 'csqa'), rec('r0', null)]);
    expect(notes).toEqual([
      'Runs r1 and r2 (boolq) differ in more than the model: seed; their results are not comparable as a model comparison.',
      '1 run(s) have no fingerprint (made before fingerprints were recorded): r0.',
    ]);
  });
});

describe('the store keeps the fingerprint', () => {
  it('createRun stores it, getRun reads it; a run without one reads null', async () => {
    const f = await fingerprintOf(BASE_CONFIG);
    const store = new RunStore(join(mkdtempSync(join(tmpdir(), 'hpt-fp-')), 's.db'));
    try {
      store.createRun({ id: 'a', dataset: 'boolq', model: 'openai:m', mode: 'manual', config: {}, fingerprint: f as never });
      store.createRun({ id: 'b', dataset: 'boolq', model: 'openai:m', mode: 'manual', config: {} });
      expect(store.getRun('a')!.fingerprint).toEqual(f);
      expect(store.getRun('b')!.fingerprint).toBeNull();
    } finally {
      store.close();
    }
  });

  it('a continued run keeps the fingerprint it was created with', async () => {
    const f = await fingerprintOf(BASE_CONFIG, '1.0.0');
    const later = await fingerprintOf(BASE_CONFIG, '2.0.0');
    const store = new RunStore(join(mkdtempSync(join(tmpdir(), 'hpt-fp-')), 's.db'));
    try {
      const create = (fp: RunFingerprint) => ({ dataset: 'boolq', model: 'openai:m', mode: 'manual', config: {}, fingerprint: fp as never });
      expect(openRun(store, BASE_CONFIG, {}, 'first', currentOwner(), create(f)).resumed).toBe(false);
      store.failRun('first', 'interrupted');
      const again = openRun(store, BASE_CONFIG, {}, 'second', currentOwner(), create(later));
      expect(again).toMatchObject({ runId: 'first', resumed: true });
      expect(store.getRun('first')!.fingerprint).toEqual(f);
      expect(store.getRun('first')!.configHash).toBe(configHash(BASE_CONFIG));
    } finally {
      store.close();
    }
  });

  it('executeRun records the session version; a continued run keeps it and warns that the version changed', async () => {
    const container = createRunContainer(registry);
    const config: RunConfig = { ...BASE_CONFIG, model: 'baseline:oracle', modelOptions: {}, split: 'mini', limit: 2 };
    const path = join(mkdtempSync(join(tmpdir(), 'hpt-fp-')), 's.db');
    const prepared = await prepareRun(config, registry, container);
    const execute = async (version: string, warned: string[]) => {
      const session = RunSession.forRun(path, config, container, undefined, version);
      try {
        const summary = await executeRun(prepared, session, { logger: { info: () => {}, warn: (m) => warned.push(m), debug: () => {} } }, undefined, { retryErrors: true });
        return { runId: summary.runId, fingerprint: session.store.getRun(summary.runId)!.fingerprint };
      } finally {
        session.close();
      }
    };
    const first: string[] = [];
    const a = await execute('1.0.0', first);
    expect(first).toEqual([]);
    expect(a.fingerprint).toMatchObject({ hptBench: '1.0.0', model: 'baseline:oracle', limit: 2, data: { source: expect.stringMatching(/^@hpt-bench\/hpt-datasets:.*mini/), contentHash: null } });
    const second: string[] = [];
    const b = await execute('2.0.0', second);
    expect(b.runId).toBe(a.runId);
    expect(b.fingerprint).toEqual(a.fingerprint);
    expect(second).toEqual([`run ${a.runId} was started with other versions (hptBench: 1.0.0 then, 2.0.0 now); it keeps its original fingerprint`]);
  });
});
