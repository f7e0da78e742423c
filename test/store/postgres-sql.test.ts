// The PostgreSQL handle's SQL translation, its errors, and the test server helper on a long data-directory path.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { CURSOR_ROWS, DEFAULT_STORE_TIMEOUT_S, numberPlaceholders, postgresDdl, STORE_LOCK, storeTimeoutMs } from '../../packages/core/src/store/postgres.js';
import { isPostgresUrl, PostgresDatabase, RunStore, storeLabel } from '@hpt-bench/core';
import { POSTGRES_MISSING, startPostgres, warnIfPostgresMissing } from '../helpers/postgres.js';

warnIfPostgresMissing('postgres-sql');

describe('SQL translation for PostgreSQL', () => {
  it('numbers ? placeholders outside literals, quoted identifiers and comments', () => {
    expect(numberPlaceholders('SELECT * FROM t WHERE a = ? AND b = ?')).toBe('SELECT * FROM t WHERE a = $1 AND b = $2');
    expect(numberPlaceholders("SELECT '?', 'it''s ?', \"a?\" FROM t WHERE x = ? -- why?\nAND y = ?")).toBe("SELECT '?', 'it''s ?', \"a?\" FROM t WHERE x = $1 -- why?\nAND y = $2");
    expect(numberPlaceholders("INSERT INTO s VALUES (?, 'null', ?)")).toBe("INSERT INTO s VALUES ($1, 'null', $2)");
  });

  it('maps INTEGER to BIGINT and REAL to DOUBLE PRECISION in DDL, not inside literals', () => {
    expect(postgresDdl("CREATE TABLE t (a INTEGER NOT NULL, b REAL, c TEXT DEFAULT 'INTEGER REAL')")).toBe("CREATE TABLE t (a BIGINT NOT NULL, b DOUBLE PRECISION, c TEXT DEFAULT 'INTEGER REAL')");
  });

  it('recognises database URLs and hides their password', () => {
    expect(isPostgresUrl('postgres://u@h/db')).toBe(true);
    expect(isPostgresUrl('postgresql://u@h/db')).toBe(true);
    expect(isPostgresUrl('./postgres.db')).toBe(false);
    expect(storeLabel('postgres://bench:s3cret@db.example:5432/hpt?sslmode=require&password=x')).toBe('postgres://bench@db.example:5432/hpt?sslmode=require&password=redacted');
    expect(storeLabel('.hpt-bench/hpt-bench.db')).toBe('.hpt-bench/hpt-bench.db');
  });
});

describe.skipIf(POSTGRES_MISSING)('the PostgreSQL handle on a real server', () => {
  it('works with a long data-directory path (the socket stays in a short directory), and reports errors as E_STORE', async () => {
    const long = join('/tmp', `hpt-pg-long-${process.pid}`, 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(long, { recursive: true });
    const server = await startPostgres({ baseDir: long });
    try {
      expect(join(server.socketDir, '.s.PGSQL.65535').length).toBeLessThan(107);
      const url = await server.createDatabase();
      const db = new PostgresDatabase(url);
      expect(db.prepare('SELECT ? AS a, ? AS b, COUNT(*) AS c FROM (VALUES (1)) v').get(2 ** 40, 'x')).toEqual({ a: String(2 ** 40), b: 'x', c: 1 });
      expect(() => db.prepare('SELECT * FROM nope').all()).toThrow(/relation "nope" does not exist/);
      // a failed statement inside a transaction rolls it back and the connection stays usable
      db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY)');
      expect(() => db.transaction(() => {
        db.prepare('INSERT INTO t (a) VALUES (?)').run(1);
        db.prepare('INSERT INTO t (a) VALUES (?)').run(1);
      })()).toThrow(/duplicate key/);
      expect(db.prepare('SELECT COUNT(*) AS c FROM t').get()).toEqual({ c: 0 });
      // nested transactions are savepoints
      db.transaction(() => {
        db.prepare('INSERT INTO t (a) VALUES (?)').run(1);
        expect(() => db.transaction(() => {
          db.prepare('INSERT INTO t (a) VALUES (?)').run(2);
          throw new Error('inner');
        })()).toThrow('inner');
      })();
      expect(db.prepare('SELECT a FROM t ORDER BY a').all()).toEqual([{ a: 1 }]);
      expect(db.columns('t')).toEqual(new Set(['a']));
      db.addColumn('t', 'b', 'REAL');
      expect(db.columns('t')).toEqual(new Set(['a', 'b']));
      db.close();
      expect(() => db.prepare('SELECT 1').get()).toThrow(/closed/);
      // a database that does not exist: E_STORE, exit 1 for writing, 2 for reading
      const missing = url.replace(/\/\w+$/, '/no_such_db');
      expect(() => new RunStore(missing)).toThrow(expect.objectContaining({ code: 'E_STORE', exitCode: 1, message: expect.stringMatching(/cannot open store .*no_such_db.*does not exist/) }));
      expect(() => new RunStore(missing, { readonly: true })).toThrow(expect.objectContaining({ code: 'E_STORE', exitCode: 2 }));
    } finally {
      server.stop();
      rmSync(join('/tmp', `hpt-pg-long-${process.pid}`), { recursive: true, force: true });
    }
  });
});

describe.skipIf(POSTGRES_MISSING)('exclusive sections across processes on PostgreSQL', () => {
  it("RunStore.exclusive waits while another connection holds the store's lock, then runs", async () => {
    const server = await startPostgres();
    try {
      const url = await server.createDatabase();
      new RunStore(url).close(); // the tables
      const holder = new pg.Client({ connectionString: url });
      holder.on('error', () => {});
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(${STORE_LOCK})`);
      const core = new URL('../../packages/core/dist/index.js', import.meta.url).href;
      const script = `
        const { RunStore } = await import(${JSON.stringify(core)});
        // opening for writing takes the lock too (the schema check), so the wait may happen there or in exclusive
        const s = new RunStore(${JSON.stringify(url)});
        s.exclusive(() => s.createRun({ id: 'late', dataset: 'd', model: 'm', mode: 'manual', config: {} }));
        console.log(Date.now());
        s.close();`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const done = new Promise<number | null>((resolve) => child.on('close', resolve));
      await new Promise((r) => setTimeout(r, 700));
      // still waiting: nothing written yet
      expect((await holder.query("SELECT COUNT(*) AS c FROM runs WHERE id = 'late'")).rows[0].c).toBe('0');
      const committedAt = Date.now();
      await holder.query('COMMIT');
      expect(await done).toBe(0);
      // the child's exclusive section ended after the lock was released (whatever its start-up time on a busy machine)
      expect(Number(out.trim())).toBeGreaterThanOrEqual(committedAt);
      expect((await holder.query("SELECT COUNT(*) AS c FROM runs WHERE id = 'late'")).rows[0].c).toBe('1');
      await holder.end();
    } finally {
      server.stop();
    }
  });
});

describe.skipIf(POSTGRES_MISSING)('iterate on PostgreSQL streams through a server-side cursor', () => {
  it(`yields every row in order ${CURSOR_ROWS} at a time, lets other statements run between rows, and closes the cursor when the loop ends or breaks`, async () => {
    const server = await startPostgres();
    try {
      const url = await server.createDatabase();
      const db = new PostgresDatabase(url);
      db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT NOT NULL)');
      const n = 2 * CURSOR_ROWS + 500;
      db.transaction(() => {
        const ins = db.prepare('INSERT INTO t (a, b) VALUES (?, ?)');
        for (let i = 0; i < n; i++) ins.run(i, `row ${i}`);
      })();
      const openCursors = () => (db.prepare<{ c: number }>('SELECT COUNT(*) AS c FROM pg_cursors WHERE name LIKE ?').get('hpt_cursor_%')!.c);
      const seen: number[] = [];
      let openDuring = -1;
      for (const row of db.prepare<{ a: number; b: string }>('SELECT a, b FROM t WHERE a >= ? ORDER BY a').iterate(0)) {
        expect(row.b).toBe(`row ${row.a}`);
        seen.push(row.a);
        if (row.a === CURSOR_ROWS + 7) openDuring = openCursors(); // another statement mid-iteration, same connection
      }
      expect(seen).toEqual(Array.from({ length: n }, (_, i) => i));
      expect(openDuring).toBe(1);
      expect(openCursors()).toBe(0);
      // an early break closes the cursor too
      let k = 0;
      for (const row of db.prepare<{ a: number }>('SELECT a FROM t ORDER BY a').iterate()) {
        if (++k === 3) {
          expect(row.a).toBe(2);
          break;
        }
      }
      expect(openCursors()).toBe(0);
      // an empty result, a failing statement (thrown on the first row), and a read-only connection
      expect([...db.prepare('SELECT a FROM t WHERE a < 0').iterate()]).toEqual([]);
      expect(() => [...db.prepare('SELECT * FROM nope').iterate()]).toThrow(/relation "nope" does not exist/);
      expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
      db.close();
      const ro = new PostgresDatabase(url, { readonly: true });
      expect([...ro.prepare<{ a: number }>('SELECT a FROM t WHERE a < ? ORDER BY a').iterate(3)].map((r) => r.a)).toEqual([0, 1, 2]);
      expect(() => [...ro.prepare('DELETE FROM t RETURNING a').iterate()]).toThrow(/readonly/);
      ro.close();
    } finally {
      server.stop();
    }
  });
});

describe('storeTimeoutMs: the bound of one request (HPT_STORE_TIMEOUT, seconds)', () => {
  it('defaults to DEFAULT_STORE_TIMEOUT_S, reads seconds (fractions too), refuses anything else with E_CONFIG', () => {
    expect(storeTimeoutMs({})).toBe(DEFAULT_STORE_TIMEOUT_S * 1000);
    expect(storeTimeoutMs({ HPT_STORE_TIMEOUT: ' ' })).toBe(DEFAULT_STORE_TIMEOUT_S * 1000);
    expect(storeTimeoutMs({ HPT_STORE_TIMEOUT: '3' })).toBe(3000);
    expect(storeTimeoutMs({ HPT_STORE_TIMEOUT: '0.25' })).toBe(250);
    expect(storeTimeoutMs({ HPT_STORE_TIMEOUT: '86400' })).toBe(86_400_000);
    for (const bad of ['0', '-1', 'abc', '1e9', 'Infinity', '86401']) {
      expect(() => storeTimeoutMs({ HPT_STORE_TIMEOUT: bad })).toThrow(expect.objectContaining({ code: 'E_CONFIG', message: expect.stringContaining(`got '${bad}'`) }));
    }
  });
});
