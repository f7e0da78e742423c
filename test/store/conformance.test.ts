// The store conformance suite: the same cases against the SQLite store (a real file) and the PostgreSQL store (a real
// throwaway server, test/helpers/postgres.ts; skipped with a printed reason where PostgreSQL is missing). A case that
// passes on one backend and fails on the other is a difference of semantics the PostgreSQL backend must not have.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallCache, HptError, PostgresDatabase, RunStore, SqliteDatabase, textHash, type SqlDatabase } from '@hpt-bench/core';
import { POSTGRES_MISSING, startPostgres, warnIfPostgresMissing, type TestPostgres } from '../helpers/postgres.js';
import { ladderResult as result } from '../helpers/sample-result.js';

warnIfPostgresMissing('store conformance');


interface Backend {
  name: 'sqlite' | 'postgres';
  /** a fresh, empty store location */
  fresh(): Promise<string>;
  /** a second connection to the store (what another process sees) */
  connect(location: string): SqlDatabase;
}

const sqlite: Backend = {
  name: 'sqlite',
  fresh: async () => join(mkdtempSync(join(tmpdir(), 'hpt-conf-')), 'x.db'),
  connect: (location) => new SqliteDatabase(new Database(location)),
};

let server: TestPostgres | undefined;
const postgres: Backend = {
  name: 'postgres',
  fresh: () => server!.createDatabase(),
  connect: (location) => new PostgresDatabase(location),
};

const CORE_DIST = new URL('../../packages/core/dist/index.js', import.meta.url).href;
const timings: Record<string, number> = {};

for (const backend of [sqlite, postgres]) {
  describe.skipIf(backend.name === 'postgres' && POSTGRES_MISSING)(`store conformance: ${backend.name}`, () => {
    let started = 0;
    beforeAll(async () => {
      if (backend.name === 'postgres') server = await startPostgres();
      started = performance.now();
    });
    afterAll(() => {
      timings[backend.name] = performance.now() - started;
      if (backend.name === 'postgres') server?.stop();
      console.log(`store conformance ${backend.name}: ${timings[backend.name]!.toFixed(0)} ms for the cases${backend.name === 'postgres' ? ' (server start not counted)' : ''}`);
    });
    const count = (location: string, sql: string, ...params: unknown[]) => {
      const db = backend.connect(location);
      try {
        return (db.prepare(sql).get(...params) as { c: number }).c;
      } finally {
        db.close();
      }
    };
    const open = async (groupCommit?: { maxWrites: number; maxDelayMs: number }) => {
      const location = await backend.fresh();
      const s = new RunStore(location, groupCommit ? { groupCommit } : {});
      s.createRun({ id: 'r', dataset: 'd', model: 'm', mode: 'manual', config: { seed: 1 }, configHash: 'h', owner: 'host:1' });
      return { s, location };
    };

    it('creates, finishes and fails runs; lists them newest first', async () => {
      const { s } = await open();
      expect(s.getRun('r')).toMatchObject({ id: 'r', status: 'running', config: { seed: 1 }, configHash: 'h', owner: 'host:1', summary: null, error: null });
      s.createRun({ id: 'r2', dataset: 'd', model: 'm2', mode: 'manual', config: {}, fingerprint: { v: '1' } });
      s.finishRun('r', { hpi: 3.84 });
      expect(s.getRun('r')).toMatchObject({ status: 'completed', summary: { hpi: 3.84 }, owner: null });
      expect(s.failRun('r2', 'boom')).toBe(true);
      expect(s.getRun('r2')).toMatchObject({ status: 'failed', error: 'boom', fingerprint: { v: '1' } });
      expect(s.listRuns().map((r) => r.id)).toEqual(['r2', 'r']);
      expect(s.getRun('nope')).toBeUndefined();
      expect(() => s.createRun({ id: 'r', dataset: 'd', model: 'm', mode: 'manual', config: {} })).toThrow(/UNIQUE|duplicate key/);
      s.close();
    });

    it('round-trips samples, errored samples, attempts and calls; aggregates them as numbers', async () => {
      const { s } = await open();
      for (const [i, l] of [[2, 1], [0, 3], [1, null]] as const) s.saveSample('r', result(i, l), `hash${i}`);
      s.saveErrored('r', { id: 'id3', index: 3, target: 'A', meta: { k: 'v' } }, 'endpoint down', 'hash3');
      const agg = s.aggregate('r');
      expect(agg).toEqual({
        n: 3, hpiSum: 1 + 3 + 7.52, solved: 2, samples: 3, levelCounts: { '1': 1, '3': 1 }, unsolved: 1, errored: 1, calls: 9, cachedCalls: 0, promptTokens: 90, completionTokens: 18,
        usageByLevel: [1, 2, 3, 4, 5].map((level) => ({ level, model: 'm', cached: false, batched: false, calls: [3, 2, 2, 1, 1][level - 1], promptTokens: [30, 20, 20, 10, 10][level - 1], completionTokens: [6, 4, 4, 2, 2][level - 1] })),
        selections: 0, invalidSelections: 0, selectorUsage: [],
      });
      for (const v of [agg.n, agg.hpiSum, agg.calls, agg.promptTokens]) expect(typeof v).toBe('number');
      const back = [...s.iterSamples('r')];
      expect(back.map((r) => r.index)).toEqual([0, 1, 2]);
      expect(back[1]).toEqual(result(1, null));
      expect(back[0]!.attempts[0]!.calls[0]!.latencyMs).toBe(5.25);
      expect([...s.iterPredictions('r')].map((p) => [p.index, p.solved])).toEqual([[0, true], [1, false], [2, true]]);
      expect(s.erroredSamples('r')).toEqual([{ sampleId: 'id3', index: 3, error: 'endpoint down' }]);
      expect(s.sampleCounts().get('r')).toEqual({ done: 3, errored: 1 });
      expect(s.sampleUnitRows('r').map((u) => [u.index, u.hpi, u.scores, u.solved, u.level])).toEqual([[0, 3, 1, 1, 3], [1, 7.52, 1, 0, null], [2, 1, 1, 1, 1]]);
      expect(s.recordedSamples('r').get(3)).toEqual({ sampleId: 'id3', hash: 'hash3', errored: true });
      s.close();
    });

    it('sums HPI as SQLite does (compensated, in input order), whatever order the samples were written in', async () => {
      const { s } = await open();
      const hpis = Array.from({ length: 400 }, (_, i) => [1, 2.6, 3.3, 4.1, 5, 7.52][i % 6]! * (1 + (i % 7) / 10));
      const order = hpis.map((_, i) => (i * 149) % hpis.length); // a permutation (149 is prime to 400)
      for (const i of order) s.saveSample('r', { ...result(i, 1), hpi: hpis[i]! });
      let sum = 0;
      let err = 0;
      for (const x of hpis) {
        const t = sum + x;
        err += Math.abs(sum) > Math.abs(x) ? sum - t + x : x - t + sum;
        sum = t;
      }
      expect(s.aggregate('r').hpiSum).toBe(sum + err);
      s.close();
    });

    it('recordedIndices, deleteErrored, and a retried errored sample replaced in one write', async () => {
      const { s } = await open();
      s.saveSample('r', result(0, 1));
      s.saveErrored('r', { id: 'id1', index: 1, target: 'A' }, 'down');
      s.saveErrored('r', { id: 'id2', index: 2, target: 'A' }, 'down');
      expect(s.recordedIndices('r')).toEqual({ done: new Set([0]), errored: new Set([1, 2]) });
      s.saveSample('r', result(1, 2)); // the retry of 1 replaces its errored row
      s.deleteErrored('r', [2]);
      expect(s.recordedIndices('r')).toEqual({ done: new Set([0, 1]), errored: new Set() });
      expect(s.aggregate('r')).toMatchObject({ samples: 2, errored: 0, calls: 3 });
      s.close();
    });

    it('a sample is written whole or not at all; the group keeps the good ones', async () => {
      const { s, location } = await open();
      const bad = result(1, 2);
      bad.attempts[1]!.calls.push({ ...bad.attempts[1]!.calls[0]! });
      s.saveSample('r', result(0, 1));
      s.saveSample('r', bad);
      s.saveSample('r', result(2, 3));
      expect(() => s.flush()).toThrow(/UNIQUE|duplicate key/);
      expect(s.failure).toMatchObject({ code: 'E_STORE', exitCode: 1 });
      expect(s.aggregate('r')).toMatchObject({ n: 2, calls: 1 + 3 });
      expect(count(location, 'SELECT COUNT(*) AS c FROM attempts WHERE idx = 1')).toBe(0);
      expect(() => s.saveSample('r', result(3, 1))).toThrow(/cannot write to the store/);
      expect(s.failRun('r', 'store failed')).toBe(true);
      expect(() => s.close()).not.toThrow();
    });

    it('deleting a run cascades to its samples, attempts, calls and selections', async () => {
      const { s, location } = await open();
      const r = result(0, 2);
      r.selections = [{ iteration: 0, level: 2, valid: true, raw: '2', solved: true }];
      s.saveSample('r', r);
      s.flush();
      s.db.prepare('DELETE FROM runs WHERE id = ?').run('r');
      for (const t of ['samples', 'attempts', 'calls', 'selections']) expect(count(location, `SELECT COUNT(*) AS c FROM ${t}`)).toBe(0);
      s.close();
    });

    it('findUnfinished / findLatest / claimRun inside exclusive', async () => {
      const { s } = await open();
      expect(s.findUnfinished('h')?.id).toBe('r');
      s.finishRun('r', {});
      expect(s.findUnfinished('h')).toBeUndefined();
      expect(s.findLatest('h')?.id).toBe('r');
      s.createRun({ id: 'r3', dataset: 'd', model: 'm', mode: 'manual', config: {}, configHash: 'h' });
      s.failRun('r3', 'killed');
      const taken = s.exclusive(() => {
        const run = s.findUnfinished('h');
        if (run) s.claimRun(run.id, 'host:2');
        return run?.id;
      });
      expect(taken).toBe('r3');
      expect(s.getRun('r3')).toMatchObject({ status: 'running', owner: 'host:2', error: null });
      expect(s.findLatest('h')?.id).toBe('r3');
      // a failing exclusive section writes nothing
      expect(() => s.exclusive(() => {
        s.claimRun('r', 'host:9');
        throw new Error('changed my mind');
      })).toThrow('changed my mind');
      expect(s.getRun('r')!.owner).toBeNull();
      s.close();
    });

    it('heartbeat: only the owner, outside the group commit', async () => {
      const { s, location } = await open({ maxWrites: 1000, maxDelayMs: 60_000 });
      const before = s.getRun('r')!.heartbeatAt;
      await new Promise((r) => setTimeout(r, 5));
      expect(s.heartbeat('r', 'host:1')).toBe(true);
      expect(s.heartbeat('r', 'host:other')).toBe(false);
      const db = backend.connect(location);
      expect((db.prepare('SELECT heartbeat_at FROM runs WHERE id = ?').get('r') as { heartbeat_at: string }).heartbeat_at > before!).toBe(true);
      db.close();
      s.close();
    });

    it('the call cache: put / get / stats / clear, first writer wins, hits counted in the group', async () => {
      const { s, location } = await open({ maxWrites: 1000, maxDelayMs: 60_000 });
      const cache = new CallCache(s.db, s);
      const response = { text: 'jä', usage: { promptTokens: 3, completionTokens: 1 }, finishReason: 'stop', latencyMs: 1 };
      cache.put('k1', 'openai:m', 'http://user:pw@127.0.0.1:1/v1', response);
      cache.put('k1', 'openai:m', undefined, { ...response, text: 'second' });
      cache.put('k2', 'openai:n', undefined, response);
      expect(cache.get('k1')).toEqual({ text: 'jä', usage: { promptTokens: 3, completionTokens: 1 }, finishReason: 'stop' });
      expect(count(location, 'SELECT COUNT(*) AS c FROM call_cache')).toBe(0);
      const stats = s.cacheStats();
      expect(stats).toMatchObject({ entries: 2, hits: 1, byModel: { 'openai:m': { entries: 1, hits: 1 }, 'openai:n': { entries: 1, hits: 0 } } });
      const db = backend.connect(location);
      const rows = db.prepare('SELECT key, response, model, endpoint FROM call_cache').all() as { key: string; response: string; model: string; endpoint: string | null }[];
      db.close();
      expect(rows.find((r) => r.key === 'k1')!.endpoint).not.toContain('pw');
      expect(stats.bytes).toBe(rows.reduce((n, r) => n + Buffer.byteLength(r.key) + Buffer.byteLength(r.response) + Buffer.byteLength(r.model) + Buffer.byteLength(r.endpoint ?? ''), 0));
      expect(new CallCache(s.db).get('k2')).toBeDefined();
      expect(s.clearCache('openai:n')).toBe(1);
      expect(s.clearCache()).toBe(1);
      expect(s.cacheStats()).toMatchObject({ entries: 0 });
      s.close();
    });

    it('calibrations: saved, replaced, read back', async () => {
      const { s } = await open();
      expect(s.savedHpiDataset('d')).toBeUndefined();
      s.saveCalibration({ dataset: 'd', hpiDataset: 2.25, n: 40, source: 'annotations', createdAt: '2026-01-01T00:00:00.000Z' });
      s.saveCalibration({ dataset: 'd', hpiDataset: 2.5, n: 41, source: 'judge', createdAt: '2026-01-02T00:00:00.000Z' });
      expect(s.savedHpiDataset('d')).toEqual({ hpiDataset: 2.5, n: 41, source: 'judge', createdAt: '2026-01-02T00:00:00.000Z' });
      expect(() => s.saveCalibration({ dataset: 'd', hpiDataset: -1, n: 1, source: 'x' })).toThrow(/positive/);
      s.close();
    });

    it('stores a long prompt line once across samples (texts) and restores it', async () => {
      const { s, location } = await open();
      const long = Array.from({ length: 60 }, (_, i) => `line ${i} of a long shared document that every prompt repeats`).join('\n');
      s.saveSample('r', result(0, 2, long));
      s.saveSample('r', result(1, 1, `Intro\n${long}`));
      s.flush();
      const texts = count(location, 'SELECT COUNT(*) AS c FROM texts');
      expect(texts).toBeGreaterThan(0);
      s.saveSample('r', result(2, 3, long));
      s.flush();
      expect(count(location, 'SELECT COUNT(*) AS c FROM texts')).toBe(texts);
      const back = [...s.iterSamples('r')];
      expect(back[0]!.attempts[1]!.calls[0]!.messages[0]!.content).toBe(long);
      expect(back[1]!.attempts[0]!.calls[0]!.messages[0]!.content).toBe(`Intro\n${long}`);
      expect(textHash('x')).toHaveLength(32);
      s.close();
    });

    it('read-only: reads work, every write is refused with E_STORE or a read-only error, nothing changes', async () => {
      const { s, location } = await open();
      s.saveSample('r', result(0, 1));
      s.close();
      const ro = new RunStore(location, { readonly: true });
      expect(ro.getRun('r')?.id).toBe('r');
      expect(ro.aggregate('r').samples).toBe(1);
      expect(ro.cacheStats().entries).toBe(0);
      expect(() => ro.saveSample('r', result(1, 1))).toThrow(HptError);
      expect(() => ro.saveSample('r', result(1, 1))).toThrow(/opened read-only/);
      expect(() => ro.finishRun('r', {})).toThrow(/read-?only/i);
      expect(() => ro.db.prepare('DELETE FROM samples').run()).toThrow(/read-?only/i);
      expect(ro.heartbeat('r', 'host:1')).toBe(false);
      ro.close();
      expect(count(location, 'SELECT COUNT(*) AS c FROM samples')).toBe(1);
      expect(count(location, "SELECT COUNT(*) AS c FROM runs WHERE status = 'running'")).toBe(1);
    });

    it('read-only opening of an empty database / missing file is E_STORE exit 2', async () => {
      const location = await backend.fresh();
      let err: unknown;
      try {
        new RunStore(location, { readonly: true });
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: 'E_STORE', exitCode: 2 });
    });

    it('group commit: maxWrites per commit, a read commits the queue, the timer commits a partial group', async () => {
      const { s, location } = await open({ maxWrites: 3, maxDelayMs: 60_000 });
      s.saveSample('r', result(0, 1));
      s.saveSample('r', result(1, 2));
      expect(count(location, 'SELECT COUNT(*) AS c FROM samples')).toBe(0);
      s.saveSample('r', result(2, null));
      expect(count(location, 'SELECT COUNT(*) AS c FROM samples')).toBe(3);
      s.saveSample('r', result(3, 1));
      expect(s.aggregate('r').samples).toBe(4);
      expect(count(location, 'SELECT COUNT(*) AS c FROM samples')).toBe(4);
      s.close();
      const t = new RunStore(location, { groupCommit: { maxWrites: 1000, maxDelayMs: 20 } });
      t.saveSample('r', result(4, 1));
      await new Promise((r) => setTimeout(r, 100));
      expect(count(location, 'SELECT COUNT(*) AS c FROM samples')).toBe(5);
      t.close();
    });

    it('group commit on exit, and a SIGKILL loses only the open group, never part of a sample', async () => {
      const { s, location } = await open();
      s.close();
      const script = (kill: boolean) => `
        const { RunStore } = await import(${JSON.stringify(CORE_DIST)});
        const s = new RunStore(${JSON.stringify(location)}, { groupCommit: { maxWrites: 4, maxDelayMs: 60000 } });
        const r = (i) => ({ sampleId: 'id' + i, index: i, level: 1, hpi: 1, solved: true, prediction: 'A', target: 'A',
          attempts: [{ level: 1, strategy: 's', solved: true, score: 1, extracted: 'A', graded: { completion: 'A' },
            calls: [{ seq: 0, purpose: 'graded', model: 'm', messages: [], output: 'A', usage: { promptTokens: 1, completionTokens: 1 }, latencyMs: 1, finishReason: 'stop' }] }] });
        for (let i = ${kill ? 10 : 0}; i < ${kill ? 16 : 5}; i++) s.saveSample('r', r(i));
        ${kill ? "process.kill(process.pid, 'SIGKILL');" : 'process.exit(0);'}`;
      const exit = spawnSync(process.execPath, ['--input-type=module', '-e', script(false)], { encoding: 'utf8' });
      expect(exit.status, exit.stderr).toBe(0);
      expect(count(location, 'SELECT COUNT(*) AS c FROM samples')).toBe(5);
      const killed = spawnSync(process.execPath, ['--input-type=module', '-e', script(true)], { encoding: 'utf8' });
      expect(killed.signal).toBe('SIGKILL');
      // 6 saved, groups of 4: the first group is committed, the open group of 2 is lost whole
      expect(count(location, 'SELECT COUNT(*) AS c FROM samples WHERE idx >= 10')).toBe(4);
      expect(count(location, 'SELECT COUNT(*) AS c FROM calls WHERE idx >= 10')).toBe(4);
    });
  });
}
