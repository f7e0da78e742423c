/**
 * The run's configuration (stored form, hash compatibility with stores written before `replicates` was renamed) and
 * the run session (the one place that wires store, cache, clients, limiters, RNG and the saved HPI_Dataset).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  configHash,
  configHashes,
  createEngine,
  createRunContainer,
  currentOwner,
  discoverPlugins,
  executeRun,
  fromStoredConfig,
  ModelClient,
  openRun,
  prepareRun,
  RunSession,
  RunStore,
  saveCalibration,
  toStoredConfig,
  Tokens,
  type Model,
  type RngFactory,
  type RunConfig,
} from '@hpt-bench/core';
import { BASE_CONFIG } from '../helpers/run-config.js';
import { ROOT } from '../helpers/cli.js';

const base: RunConfig = BASE_CONFIG;

const tmpStore = () => join(mkdtempSync(join(tmpdir(), 'hpt-session-')), 'sub', 's.db');
const builtins = ['hpt-datasets', 'hpf-strategies', 'openai', 'baselines', 'metrics'].map((p) => ({ root: join(ROOT, 'plugins', p), origin: 'builtin' as const }));

describe('run configuration: stored form and identity', () => {
  it('configHash is the hash earlier versions stored (replicates hashed under its former name `samples`; the base URL hashed as with --cache-key-endpoint)', () => {
    // values computed by the configHash of the previous versions (config field `samples`, base URL always hashed):
    // today's hash with --cache-key-endpoint, and the second hash `configHashes` tries without it
    expect(configHash({ ...base, cacheKeyEndpoint: true })).toBe('9987779630c9ad38a19fa92de85b3641a7ab8c418af6199f39f958224b1f4b9b');
    expect(configHash({ ...base, replicates: 3, cacheKeyEndpoint: true })).toBe('f5d9b4395a0585cb826b6fd74c1b5a898be438631c39865f8afa3654925bf0a0');
    expect(configHashes(base)[1]).toBe('9987779630c9ad38a19fa92de85b3641a7ab8c418af6199f39f958224b1f4b9b');
    expect(configHashes({ ...base, replicates: 3 })[1]).toBe('f5d9b4395a0585cb826b6fd74c1b5a898be438631c39865f8afa3654925bf0a0');
  });

  it('toStoredConfig keeps the stored shape (samples, ladderLevels, no prices, no credentials); fromStoredConfig reads it and older rows back', () => {
    const config: RunConfig = { ...base, replicates: 3, prices: { 'openai:m': { input: 1, output: 2 } }, modelOptions: { ...base.modelOptions, baseUrl: 'http://u:secret@host/v1' } };
    const stored = toStoredConfig(config, ['role', 'zero-shot-cot']);
    expect(stored.samples).toBe(3);
    expect('replicates' in stored).toBe(false);
    expect('prices' in stored).toBe(false);
    expect(stored.ladderLevels).toEqual(['role', 'zero-shot-cot']);
    expect(JSON.stringify(stored)).not.toContain('secret');
    const back = fromStoredConfig(stored);
    expect(back.replicates).toBe(3);
    expect('samples' in back).toBe(false);
    expect('ladderLevels' in back).toBe(false);
    // a row written by an earlier version (field `samples`, no `replicates`) continues the same run
    const old = { ...(base as unknown as Record<string, never>), samples: 3, ladderLevels: ['role'] };
    expect(configHash(fromStoredConfig(old))).toBe(configHash({ ...base, replicates: 3 }));
  });

  it('a run stored by an earlier version (config `samples`, its hash) is continued by the same configuration', () => {
    const store = new RunStore(tmpStore());
    try {
      const oldHash = 'f5d9b4395a0585cb826b6fd74c1b5a898be438631c39865f8afa3654925bf0a0';
      store.createRun({ id: 'old', dataset: 'boolq', model: 'openai:m', mode: 'manual', config: { ...(base as unknown as Record<string, never>), samples: 3, ladderLevels: ['role'] }, configHash: oldHash });
      store.failRun('old', 'interrupted');
      const opened = openRun(store, { ...base, replicates: 3 }, {}, 'new', currentOwner(), { dataset: 'boolq', model: 'openai:m', mode: 'manual', config: {} });
      expect(opened).toMatchObject({ runId: 'old', resumed: true });
      const resumed = openRun(store, fromStoredConfig(store.getRun('old')!.config), { resume: 'old' }, 'new2', currentOwner(), { dataset: 'boolq', model: 'openai:m', mode: 'manual', config: {} });
      expect(resumed.runId).toBe('old');
    } finally {
      store.close();
    }
  });
});

describe('RunSession', () => {
  const model = (id: string, endpoint?: string): Model => ({ id, ...(endpoint ? { endpoint } : {}), generate: async () => ({ text: 'x', usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop', latencyMs: 0 }) });

  it('registers the RNG and the store before plugins are built, and opens the store only when used', () => {
    const path = tmpStore();
    const container = createRunContainer(discoverPlugins([]));
    const session = new RunSession({ storePath: path, container, seed: 7, concurrency: 2 });
    try {
      expect((container.resolve(Tokens.Rng) as RngFactory).seed).toBe(7);
      expect(existsSync(path)).toBe(false);
      expect(session.savedHpiDataset('boolq')).toBeUndefined();
      expect(existsSync(path)).toBe(false);
      const store = container.resolve(Tokens.Store);
      expect(store).toBeInstanceOf(RunStore);
      expect(store).toBe(session.store);
      expect(existsSync(path)).toBe(true);
    } finally {
      session.close();
    }
  });

  it('one client per model object, all sharing the limiters and retry policy; the cache only for models with an endpoint', () => {
    const session = new RunSession({ storePath: tmpStore(), concurrency: 3, maxRetries: 2 });
    try {
      const a = model('openai:a', 'http://127.0.0.1:1/v1');
      const b = model('baseline:b');
      const ca = session.client(a);
      expect(ca).toBeInstanceOf(ModelClient);
      expect(session.client(a)).toBe(ca);
      expect(session.client(b)).not.toBe(ca);
      expect(session.retry.maxRetries).toBe(2);
      expect(session.storeOpen).toBe(true); // the endpoint model's client uses the cache, which lives in the store
      const noCache = new RunSession({ storePath: tmpStore(), concurrency: 1, cache: false });
      noCache.client(a);
      expect(noCache.cache).toBeUndefined();
      expect(noCache.storeOpen).toBe(false);
      noCache.close();
    } finally {
      session.close();
    }
  });

  it('withSavedHpiDataset: the saved value unless the configuration gives one, said on the logger', () => {
    const path = tmpStore();
    const s = new RunStore(path);
    saveCalibration(s.db, { dataset: 'boolq', hpiDataset: 2.5, n: 4, source: 'annotations', createdAt: '2025-01-01T00:00:00.000Z' });
    s.close();
    const said: string[] = [];
    const session = new RunSession({ storePath: path, concurrency: 1, logger: { info: (m) => said.push(m), warn: () => {}, debug: () => {} } });
    try {
      expect(session.withSavedHpiDataset(base, 'boolq').hpiDataset).toBe(2.5);
      expect(said[0]).toContain('using the calibrated HPI_Dataset 2.5 of boolq');
      expect(session.withSavedHpiDataset({ ...base, hpiDataset: 1 }, 'boolq').hpiDataset).toBe(1);
      expect(session.withSavedHpiDataset(base, 'csqa').hpiDataset).toBeUndefined();
    } finally {
      session.close();
    }
  });

  it('executes a run: the engine gets the session clients at construction, the summary keeps replicates as `samples`', async () => {
    const registry = discoverPlugins(builtins);
    const container = createRunContainer(registry);
    const config: RunConfig = { ...base, model: 'baseline:oracle', modelOptions: {}, split: 'mini', limit: 2, replicates: 2 };
    const session = RunSession.forRun(tmpStore(), config, container);
    try {
      const prepared = await prepareRun(config, registry, container);
      const seen: Model[] = [];
      createEngine(prepared, (m) => {
        seen.push(m);
        return session.client(m);
      });
      expect(seen[0]).toBe(prepared.model);
      const summary = await executeRun(prepared, session, { logger: { info: () => {}, warn: () => {}, debug: () => {} } });
      expect(summary).toMatchObject({ n: 4, samples: 2, accuracy: 1, complete: true });
      expect(session.store.getRun(summary.runId)!.config.samples).toBe(2);
    } finally {
      session.close();
    }
  });
});
