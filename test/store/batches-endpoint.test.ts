// The `batches` table keyed by endpoint and batch id (issue 25, item 2), on both store backends: the SQLite store (a
// real file) and the PostgreSQL store (a real throwaway server, test/helpers/postgres.ts; skipped with a printed reason
// where PostgreSQL is missing). A store written before the key changed (`id TEXT PRIMARY KEY`) is rebuilt on open with
// every row kept, and then takes a second endpoint's batch of the same id; `store migrate` copies such a store too.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateStore, PostgresDatabase, primaryKeyColumns, RunStore, SqliteDatabase, type SqlDatabase } from '@hpt-bench/core';
import { POSTGRES_MISSING, startPostgres, warnIfPostgresMissing, type TestPostgres } from '../helpers/postgres.js';

warnIfPostgresMissing('batches keyed by endpoint');

/** The `batches` table as stores before issue 25 wrote it. */
const OLD_BATCHES = `
CREATE TABLE batches (
  id TEXT PRIMARY KEY, run_id TEXT, round INTEGER NOT NULL, model TEXT NOT NULL, endpoint TEXT, state TEXT NOT NULL,
  input_file_id TEXT, output_file_id TEXT, error_file_id TEXT, custom_ids TEXT NOT NULL, requests INTEGER NOT NULL,
  submitted_at TEXT NOT NULL, finished_at TEXT
);
INSERT INTO batches (id, run_id, round, model, endpoint, state, input_file_id, output_file_id, custom_ids, requests, submitted_at, finished_at)
  VALUES ('batch-1', 'run-a', 1, 'openai:m', 'http://gw:8000/v1', 'consumed', 'file-1', 'file-2', '["k1","k2"]', 2, '2025-01-01T00:00:00.000Z', '2025-01-01T00:01:00.000Z');
INSERT INTO batches (id, run_id, round, model, endpoint, state, input_file_id, custom_ids, requests, submitted_at)
  VALUES ('batch-3', 'run-a', 2, 'openai:m', 'http://gw:8000/v1', 'submitted', 'file-3', '["k3"]', 1, '2025-01-01T00:02:00.000Z');
INSERT INTO batches (id, run_id, round, model, endpoint, state, input_file_id, custom_ids, requests, submitted_at)
  VALUES ('batch-9', 'run-a', 2, 'plugin:m', NULL, 'submitted', 'file-9', '["k9"]', 1, '2025-01-01T00:03:00.000Z');
`;

interface Backend {
  name: 'sqlite' | 'postgres';
  /** a fresh, empty store location */
  fresh(): Promise<string>;
  /** a raw connection to the store */
  connect(location: string): SqlDatabase;
}

let server: TestPostgres | undefined;
const backends: Backend[] = [
  { name: 'sqlite', fresh: async () => join(mkdtempSync(join(tmpdir(), 'hpt-batches-')), 'x.db'), connect: (l) => new SqliteDatabase(new Database(l)) },
  { name: 'postgres', fresh: () => server!.createDatabase(), connect: (l) => new PostgresDatabase(l) },
];

/** A store of `location` as an earlier version left it: the runs table (so it is a store) and the old batches table. */
function writeOldStore(backend: Backend, location: string): void {
  const db = backend.connect(location);
  try {
    db.exec('CREATE TABLE runs (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, status TEXT NOT NULL, dataset TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL, config TEXT NOT NULL, summary TEXT, error TEXT);');
    db.exec(OLD_BATCHES);
    expect(primaryKeyColumns(db, 'batches')).toEqual(['id']);
  } finally {
    db.close();
  }
}

const keyOf = (backend: Backend, location: string) => {
  const db = backend.connect(location);
  try {
    return primaryKeyColumns(db, 'batches');
  } finally {
    db.close();
  }
};

for (const backend of backends) {
  describe.skipIf(backend.name === 'postgres' && POSTGRES_MISSING)(`batches keyed by endpoint and id: ${backend.name}`, () => {
    beforeAll(async () => {
      if (backend.name === 'postgres') server = await startPostgres();
    });
    afterAll(() => {
      if (backend.name === 'postgres') server?.stop();
    });

    it('a new store keys batches by (endpoint, id): two endpoints may give the same id', async () => {
      const location = await backend.fresh();
      const s = new RunStore(location);
      expect(keyOf(backend, location)).toEqual(['endpoint', 'id']);
      for (const endpoint of ['http://gw-a:8000/v1', 'http://gw-b:8000/v1']) {
        s.recordBatch({ id: 'file:file-1', state: 'uploaded', runId: 'r', round: 1, model: 'openai:m', endpoint, inputFileId: 'file-1', customIds: [`k-${endpoint}`], submittedAt: new Date().toISOString() });
        s.assignBatch(endpoint, 'file:file-1', 'batch-1');
      }
      s.updateBatch('http://gw-b:8000/v1', 'batch-1', 'completed', { outputFileId: 'out-b' });
      expect(s.batchesOfRun('r').map((b) => [b.endpoint, b.id, b.state, b.outputFileId])).toEqual([
        ['http://gw-a:8000/v1', 'batch-1', 'submitted', null],
        ['http://gw-b:8000/v1', 'batch-1', 'completed', 'out-b'],
      ]);
      s.close();
    });

    it('an id given again at the same endpoint supersedes the earlier batch: kept as <id>@<submitted at>, lost when unread', async () => {
      const s = new RunStore(await backend.fresh());
      const e = 'http://gw:8000/v1';
      s.recordBatch({ id: 'batch-1', runId: 'old', round: 1, model: 'openai:m', endpoint: e, inputFileId: 'file-1', customIds: ['k1'], submittedAt: '2025-01-01T00:00:00.000Z' });
      s.updateBatch(e, 'batch-1', 'consumed');
      s.recordBatch({ id: 'file:file-2', state: 'uploaded', runId: 'old', round: 2, model: 'openai:m', endpoint: e, inputFileId: 'file-2', customIds: ['k2'], submittedAt: '2025-01-01T00:01:00.000Z' });
      s.assignBatch(e, 'file:file-2', 'batch-3');
      s.flush();
      // the gateway restarts: file and batch ids start again
      s.recordBatch({ id: 'file:file-2', state: 'uploaded', runId: 'new', round: 1, model: 'openai:m', endpoint: e, inputFileId: 'file-2', customIds: ['k4'], submittedAt: '2025-01-02T00:00:00.000Z' });
      s.assignBatch(e, 'file:file-2', 'batch-3');
      s.recordBatch({ id: 'batch-1', runId: 'new', round: 2, model: 'openai:m', endpoint: e, inputFileId: 'file-5', customIds: ['k5'], submittedAt: '2025-01-02T00:01:00.000Z' });
      expect(s.batchesOfRun('old').map((b) => [b.id, b.state, b.customIds])).toEqual([
        ['batch-1@2025-01-01T00:00:00.000Z', 'consumed', ['k1']],
        ['batch-3@2025-01-01T00:01:00.000Z', 'lost', ['k2']],
      ]);
      expect(s.batchesOfRun('new').map((b) => [b.id, b.state, b.customIds])).toEqual([
        ['batch-3', 'submitted', ['k4']],
        ['batch-1', 'submitted', ['k5']],
      ]);
      expect(s.unconsumedBatches('openai:m').map((b) => b.id)).toEqual(['batch-3', 'batch-1']);
      // an uploaded row already assigned (by another process of the run) is left alone
      s.assignBatch(e, 'file:file-2', 'batch-7');
      expect(s.batchesOfRun('new').map((b) => b.id)).toEqual(['batch-3', 'batch-1']);
      s.close();
    });

    it('a store of an earlier version is rebuilt on open with every row kept, once; then it takes the same id at another endpoint', async () => {
      const location = await backend.fresh();
      writeOldStore(backend, location);
      // read-only, it is read as it is
      const ro = new RunStore(location, { readonly: true });
      expect(ro.batchesOfRun('run-a').map((b) => b.id)).toEqual(['batch-1', 'batch-3', 'batch-9']);
      ro.close();
      expect(keyOf(backend, location)).toEqual(['id']);
      const s = new RunStore(location);
      expect(keyOf(backend, location)).toEqual(['endpoint', 'id']);
      expect(s.batchesOfRun('run-a')).toEqual([
        { id: 'batch-1', runId: 'run-a', round: 1, model: 'openai:m', endpoint: 'http://gw:8000/v1', state: 'consumed', inputFileId: 'file-1', outputFileId: 'file-2', errorFileId: null, customIds: ['k1', 'k2'], submittedAt: '2025-01-01T00:00:00.000Z', finishedAt: '2025-01-01T00:01:00.000Z' },
        { id: 'batch-3', runId: 'run-a', round: 2, model: 'openai:m', endpoint: 'http://gw:8000/v1', state: 'submitted', inputFileId: 'file-3', outputFileId: null, errorFileId: null, customIds: ['k3'], submittedAt: '2025-01-01T00:02:00.000Z', finishedAt: null },
        { id: 'batch-9', runId: 'run-a', round: 2, model: 'plugin:m', endpoint: null, state: 'submitted', inputFileId: 'file-9', outputFileId: null, errorFileId: null, customIds: ['k9'], submittedAt: '2025-01-01T00:03:00.000Z', finishedAt: null },
      ]);
      expect(s.unconsumedBatches('openai:m').map((b) => b.id)).toEqual(['batch-3']);
      s.recordBatch({ id: 'batch-1', runId: 'run-b', round: 1, model: 'openai:m', endpoint: 'http://other:8000/v1', inputFileId: 'file-1', customIds: ['k1'], submittedAt: new Date().toISOString() });
      s.updateBatch('http://gw:8000/v1', 'batch-3', 'consumed');
      s.close();
      // opened again: nothing to migrate, nothing changed
      const again = new RunStore(location);
      expect(again.batchesOfRun('run-a').map((b) => [b.id, b.state])).toEqual([['batch-1', 'consumed'], ['batch-3', 'consumed'], ['batch-9', 'submitted']]);
      expect(again.batchesOfRun('run-b').map((b) => [b.endpoint, b.id])).toEqual([['http://other:8000/v1', 'batch-1']]);
      again.close();
    });
  });
}

describe.skipIf(POSTGRES_MISSING)('store migrate: an SQLite store of an earlier version into PostgreSQL', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.stop());

  it('copies its batches into the table keyed by endpoint and id', async () => {
    const from = join(mkdtempSync(join(tmpdir(), 'hpt-batches-')), 'old.db');
    writeOldStore(backends[0]!, from);
    const to = await pg.createDatabase();
    const result = migrateStore(from, to);
    expect(result.tables.batches).toBe(3);
    const s = new RunStore(to);
    expect(s.batchesOfRun('run-a').map((b) => [b.endpoint, b.id, b.state])).toEqual([['http://gw:8000/v1', 'batch-1', 'consumed'], ['http://gw:8000/v1', 'batch-3', 'submitted'], [null, 'batch-9', 'submitted']]);
    s.close();
  });
});
