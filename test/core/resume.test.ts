import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkResumedSample, configHash, configHashes, currentOwner, dataFingerprint, openRun, ownerAlive, RunStore, sampleHash, STALE_MS, type RunConfig } from '@hpt-bench/core';
import { BASE_CONFIG } from '../helpers/run-config.js';

const base: RunConfig = BASE_CONFIG;

describe('configHash (which runs may resume each other)', () => {
  it('ignores execution settings and key names, not what changes results', () => {
    const h = configHash(base);
    expect(configHash({ ...base, concurrency: 64, cache: false, maxRetries: 0, cacheDir: '/x', prices: { 'openai:m': { input: 1, output: 1 } } })).toBe(h);
    expect(configHash({ ...base, modelOptions: { apiKeyEnv: 'OTHER', baseUrl: 'http://127.0.0.1:1/v1', timeoutMs: 5 } })).toBe(h);
    for (const changed of [{ seed: 1 }, { model: 'openai:n' }, { limit: 10 }, { compat: 'reference' as const }, { generation: { ...base.generation, temperature: 0 } }, { filters: { task: ['x'] } }]) {
      expect(configHash({ ...base, ...changed }), JSON.stringify(changed)).not.toBe(h);
    }
  });

  it('the endpoint list is not part of the identity (replicas of one model), unless --cache-key-endpoint', () => {
    const h = configHash(base);
    const urls = (baseUrl: string | string[]): RunConfig => ({ ...base, modelOptions: { ...base.modelOptions, baseUrl } });
    for (const other of ['http://other/v1', ['http://127.0.0.1:1/v1', 'http://127.0.0.1:2/v1'], ['http://a/v1', 'http://b/v1', 'http://c/v1']]) {
      expect(configHash(urls(other)), JSON.stringify(other)).toBe(h);
    }
    const keyed = (baseUrl: string | string[]) => configHash({ ...urls(baseUrl), cacheKeyEndpoint: true });
    expect(keyed('http://other/v1')).not.toBe(keyed('http://127.0.0.1:1/v1'));
    expect(keyed(['http://a/v1', 'http://b/v1'])).toBe(keyed(['http://b/v1', 'http://a/v1'])); // a list's order does not count
    expect(keyed(['http://a/v1', 'http://b/v1'])).not.toBe(keyed(['http://a/v1', 'http://c/v1']));
    expect(keyed('http://u:secret@other/v1')).toBe(keyed('http://other/v1')); // credentials never count
    // the hash of earlier versions (base URL always hashed) is the --cache-key-endpoint hash, tried second
    expect(configHashes(base)).toEqual([h, keyed('http://127.0.0.1:1/v1')]);
    expect(configHashes({ ...base, cacheKeyEndpoint: true })).toEqual([keyed('http://127.0.0.1:1/v1')]);
    expect(configHashes(urls(['http://a/v1', 'http://b/v1']))).toEqual([h]);
  });
});

describe('openRun (resume, --new, --retry-errors, --resume, one owner at a time)', () => {
  const sample = (index: number) => ({ id: `s${index}`, index, target: true });
  const done = (store: RunStore, runId: string, index: number) =>
    store.saveSample(runId, { sampleId: `s${index}`, index, level: 1, hpi: 1, solved: true, prediction: true, target: true, attempts: [{ level: 1, strategy: 'role', solved: true, score: 1, extracted: true, graded: { promptText: '', completion: 'True', cue: '' }, calls: [] }] });
  const me = currentOwner();
  const create = { dataset: 'boolq', model: 'openai:m', mode: 'manual', config: {} };
  const open = (store: RunStore, config: RunConfig, plan: Parameters<typeof openRun>[2], id: string, owner = me) => openRun(store, config, plan, id, owner, create);
  const newStore = () => new RunStore(join(mkdtempSync(join(tmpdir(), 'hpt-plan-')), 's.db'));

  it('continues the newest unfinished run of the same configuration, skipping done samples and redoing errored ones', () => {
    const store = newStore();
    const h = configHash(base);
    const first = open(store, base, {}, 'new1');
    expect(first).toEqual({ runId: 'new1', resumed: false, skip: new Set(), recorded: new Map() });
    expect(store.getRun('new1')).toMatchObject({ status: 'running', owner: me, configHash: h });
    store.finishRun('new1', {});
    store.createRun({ id: 'r1', dataset: 'boolq', model: 'openai:m', mode: 'manual', config: {}, configHash: h });
    done(store, 'r1', 0);
    done(store, 'r1', 2);
    store.saveErrored('r1', sample(1), 'HTTP 500');
    const resumed = open(store, base, {}, 'new2');
    expect(resumed).toMatchObject({ runId: 'r1', resumed: true, skip: new Set([0, 2]) });
    expect([...resumed.recorded.keys()].sort()).toEqual([0, 1, 2]);
    expect(resumed.recorded.get(1)).toEqual({ sampleId: 's1', hash: null, errored: true });
    expect(store.getRun('r1')).toMatchObject({ status: 'running', owner: me, error: null });
    expect(open(store, base, { retryErrors: true }, 'new3')).toMatchObject({ runId: 'r1', resumed: true, skip: new Set([0, 2]) });
    expect(open(store, base, { fresh: true }, 'new4').runId).toBe('new4');
    store.finishRun('new4', {});
    expect(open(store, { ...base, seed: 5 }, {}, 'new5').runId).toBe('new5');
    // a completed run is not resumed, but --retry-errors still finds it
    store.finishRun('r1', {});
    expect(store.getRun('r1')).toMatchObject({ owner: null });
    expect(open(store, base, {}, 'new6').runId).toBe('new6');
    store.finishRun('new6', {});
    // runs created within one millisecond: make r1 the newest explicitly
    for (const id of ['new1', 'new4', 'new6']) store.db.prepare('UPDATE runs SET created_at = ? WHERE id = ?').run('2000-01-01T00:00:00.000Z', id);
    expect(open(store, base, { retryErrors: true }, 'new7').runId).toBe('r1');
    expect(open(store, base, { resume: 'r1' }, 'new8')).toMatchObject({ runId: 'r1', resumed: true });
    expect(() => open(store, base, { resume: 'nope' }, 'x')).toThrow(/no run nope in/);
    expect(() => open(store, { ...base, seed: 9 }, { resume: 'r1' }, 'x')).toThrow(/run r1 has another configuration/);
    // an errored sample redone successfully replaces its errored row
    done(store, 'r1', 1);
    expect(store.recordedIndices('r1')).toEqual({ done: new Set([0, 1, 2]), errored: new Set() });
    expect(store.aggregate('r1')).toMatchObject({ n: 3, errored: 0 });
    store.close();
  });

  it('joins a run another live process executes (naming it) as one more worker, and takes over one whose owner died or went silent', async () => {
    const store = newStore();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      const live = `${hostname()}:${other.pid}`;
      open(store, base, {}, 'busy', live);
      expect(store.claimBlock('busy', 0, live)).toBe(true);
      // a second process joins: same run, the live one named, its claims kept
      expect(open(store, base, {}, 'second')).toMatchObject({ runId: 'busy', resumed: true, joined: [live] });
      expect(store.openClaims('busy')).toEqual([expect.objectContaining({ block: 0, worker: live })]);
      expect(open(store, base, { resume: 'busy' }, 'x')).toMatchObject({ runId: 'busy', joined: [live] });
      expect(store.listWorkers('busy').map((w) => w.worker).sort()).toEqual([live, me].sort());
      // --new is a separate run, and is allowed
      expect(open(store, base, { fresh: true }, 'separate').runId).toBe('separate');
      store.finishRun('separate', {});
      expect(store.getRun('busy')).toMatchObject({ status: 'running', owner: live });
      // this process leaves: the run is the live owner's alone again
      store.updateWorker('busy', me, { state: 'left' });
      // the owner dies (SIGKILL: it could not release the run): the run is taken over at once
      other.kill('SIGKILL');
      await once(other, 'exit');
      const third = open(store, base, {}, 'third');
      expect(third).toMatchObject({ runId: 'busy', resumed: true });
      expect(third.joined).toBeUndefined();
      expect(store.getRun('busy')).toMatchObject({ owner: me });
      // no live worker: a new round, whose claims start empty
      expect(store.openClaims('busy')).toEqual([]);
    } finally {
      other.kill('SIGKILL');
    }
    // an owner on another host is alive while its heartbeat is fresh, gone once it is older than STALE_MS
    const now = Date.now();
    expect(ownerAlive({ owner: 'elsewhere:1', heartbeatAt: new Date(now - 1000).toISOString() }, now)).toBe(true);
    expect(ownerAlive({ owner: 'elsewhere:1', heartbeatAt: new Date(now - STALE_MS - 1).toISOString() }, now)).toBe(false);
    expect(ownerAlive({ owner: null, heartbeatAt: null }, now)).toBe(false);
    store.close();
  });

  it('keys the run on the data content: the same bytes elsewhere continue it, changed bytes start a new run or fail --resume', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hpt-data-'));
    const a = join(dir, 'a.jsonl');
    writeFileSync(a, '{"question":"q1"}\n{"question":"q2"}\n');
    const copy = join(dir, 'copy.jsonl');
    writeFileSync(copy, readFileSync(a));
    const ha = await dataFingerprint(a);
    expect(ha).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await dataFingerprint(copy)).toBe(ha);
    expect(await dataFingerprint(join(dir, 'missing.jsonl'))).toBeUndefined();
    const cfg = (data: string, dataHash: string | undefined): RunConfig => ({ ...base, data, ...(dataHash ? { dataHash } : {}) });
    expect(configHash(cfg(a, ha))).toBe(configHash(cfg(copy, ha)));
    const store = newStore();
    const run = open(store, cfg(a, ha), {}, 'r-a');
    store.failRun(run.runId, 'killed');
    expect(open(store, cfg(copy, ha), {}, 'x').runId).toBe('r-a');
    store.failRun('r-a', 'killed');
    // reversed lines: other content, so another run
    writeFileSync(a, '{"question":"q2"}\n{"question":"q1"}\n');
    const hb = await dataFingerprint(a);
    expect(hb).not.toBe(ha);
    expect(open(store, cfg(a, hb), {}, 'r-b').runId).toBe('r-b');
    // --resume of the old run with the changed file: a clear error
    store.db.prepare('UPDATE runs SET config = ? WHERE id = ?').run(JSON.stringify({ data: a, dataHash: ha }), 'r-a');
    expect(() => open(store, cfg(a, hb), { resume: 'r-a' }, 'x')).toThrow(/the data of run r-a changed since it started/);
    store.close();
  });

  it('checkResumedSample: the same id and content pass, another sample at a recorded position fails with E_DATA_CHANGED', () => {
    const s = { id: 'q7', index: 3, input: { question: 'Is it?' }, target: true };
    const h = sampleHash(s);
    expect(h).toMatch(/^[0-9a-f]{32}$/);
    expect(sampleHash({ ...s, input: { question: 'Is it not?' } })).not.toBe(h);
    expect(sampleHash({ ...s, meta: { replicate: 1 } })).not.toBe(h);
    expect(() => checkResumedSample('r', s, h, undefined)).not.toThrow();
    expect(() => checkResumedSample('r', s, h, { sampleId: 'q7', hash: h, errored: false })).not.toThrow();
    expect(() => checkResumedSample('r', s, h, { sampleId: 'q7', hash: null, errored: false })).not.toThrow();
    expect(() => checkResumedSample('r', s, h, { sampleId: 'q9', hash: null, errored: false })).toThrow(/position 3 holds sample "q7" but run r recorded "q9"/);
    let error: unknown;
    try {
      checkResumedSample('r', s, h, { sampleId: 'q7', hash: 'f'.repeat(32), errored: true });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'E_DATA_CHANGED' });
    expect((error as Error).message).toMatch(/sample q7 has other content.*--new/);
  });
});
