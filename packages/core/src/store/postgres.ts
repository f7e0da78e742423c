/**
 * The PostgreSQL store handle (`SqlDatabase`, store/sql.ts) with a synchronous API over the asynchronous `pg` client.
 *
 * How it is synchronous: each handle starts one worker thread holding one `pg.Client` (one connection per store, so a
 * transaction is BEGIN ... COMMIT on that connection). A call posts its request on a MessagePort and blocks in
 * `Atomics.wait` on a shared flag; the worker runs the query, posts the answer, sets the flag and notifies; the caller
 * takes the answer with `receiveMessageOnPort`. This is what the `synckit` library does inside, written out here
 * (about 60 lines) because the store needs a worker of its own per handle (a transaction lives on one connection, and
 * `close` ends that worker), whereas synckit keeps one shared worker per worker file; and because the worker's code is
 * a string evaluated in the worker (the `pg` module is passed by its resolved path), it runs the same from the
 * compiled `dist/` and from the TypeScript sources the tests load, with no worker file to locate.
 *
 * SQL: `?` placeholders become `$1..$n` (outside string literals, quoted identifiers and comments); in `exec` (DDL)
 * INTEGER columns become BIGINT and REAL columns DOUBLE PRECISION; BIGINT (int8) and NUMERIC results (COUNT, SUM) are
 * read back as JS numbers. Statements are prepared on the server once per connection (named statements).
 * HPT_PG_DEBUG=1 prints every request to stderr.
 *
 * Every request ends within a bound (issue #25: a connection that goes silent must not hang the run): `HPT_STORE_TIMEOUT`
 * seconds (default `DEFAULT_STORE_TIMEOUT_S`). A request that the server has not answered by then closes the handle
 * and throws `E_STORE` (exit code 1): what was committed stays, and the same command continues the run. While a request
 * waits, the main thread is blocked and cannot run JavaScript signal handlers, so after `SLOW_STORE_MS` of waiting the
 * process's SIGINT/SIGTERM listeners are set aside until the answer: a signal then ends the process at once, by its
 * default action (exit status 130 / 143; the server rolls back the open transaction), rather than after the bound.
 */
import { createRequire } from 'node:module';
import { HptError } from '@hpt-bench/sdk';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Dialect, SqlDatabase, SqlRunResult, SqlStatement, SqlTransaction } from './sql.js';
import { quoteIdent } from './sql.js';

/** The worker's code (CommonJS, evaluated): one pg.Client, one request at a time, answers through the shared flag. */
const WORKER = `(function () {
const { workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
function answer(msg) {
  port.postMessage(msg);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
let pg;
try {
  pg = require(workerData.pgPath);
} catch (e) {
  port.on('message', () => answer({ error: { message: 'cannot load the pg client: ' + String(e && e.message || e), code: 'E_WORKER' } }));
  return;
}
const toNumber = (v) => (v === null ? null : Number(v));
pg.types.setTypeParser(20, toNumber);   // int8 (BIGINT columns, COUNT)
pg.types.setTypeParser(1700, toNumber); // numeric (SUM of BIGINT)
const client = new pg.Client({
  connectionString: workerData.url,
  connectionTimeoutMillis: workerData.connectTimeoutMs,
  keepAlive: true,
  ...(workerData.readonly ? { options: '-c default_transaction_read_only=on' } : {}),
});
let broken;
client.on('error', (e) => { broken = e; });
const ready = client.connect().then(() => client.query('SET client_min_messages = warning'));
ready.catch((e) => { broken = e; });
const names = new Map();
port.on('message', async (req) => {
  try {
    await ready;
    if (broken) throw broken;
    if (req.op === 'query') {
      let name = req.unnamed ? undefined : names.get(req.sql);
      if (!name && !req.unnamed) { name = 's' + names.size; names.set(req.sql, name); }
      const r = await client.query({ name, text: req.sql, values: req.params });
      answer({ rows: r.rows, changes: r.rowCount ?? 0 });
    } else if (req.op === 'batch') {
      const changes = [];
      for (const q of req.items) {
        let name = names.get(q.sql);
        if (!name) { name = 's' + names.size; names.set(q.sql, name); }
        changes.push((await client.query({ name, text: q.sql, values: q.params })).rowCount ?? 0);
      }
      answer({ rows: [], changes: 0, batch: changes });
    } else if (req.op === 'exec') {
      await client.query(req.sql);
      answer({ rows: [], changes: 0 });
    } else if (req.op === 'close') {
      await client.end().catch(() => {});
      answer({ rows: [], changes: 0 });
      port.close();
    }
  } catch (e) {
    answer({ error: { message: String(e && e.message || e), code: e && e.code, detail: e && e.detail } });
  }
});
})();
`;

/** An error of the PostgreSQL server or connection: `code` is the SQLSTATE (e.g. `23505`) or the client's code. */
export class PostgresError extends Error {
  constructor(message: string, readonly code: string | undefined, readonly detail?: string) {
    super(detail ? `${message} (${detail})` : message);
    this.name = 'PostgresError';
  }
}

/** Whether `location` names a PostgreSQL database (`postgres://` or `postgresql://` URL) rather than an SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * `?` placeholders as `$1..$n`, leaving `?` inside '...' literals, "..." identifiers and -- comments alone.
 * @returns the translated SQL and the number of placeholders.
 */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return mapOutsideLiterals(sql, (code) => code.replace(/\?/g, () => `$${++n}`));
}

/** Portable DDL types as PostgreSQL's: INTEGER -> BIGINT (64-bit, as SQLite's), REAL -> DOUBLE PRECISION. */
export function postgresDdl(sql: string): string {
  return mapOutsideLiterals(sql, (code) => code.replace(/\bINTEGER\b/gi, 'BIGINT').replace(/\bREAL\b/gi, 'DOUBLE PRECISION'));
}

/** Apply `fn` to the parts of `sql` outside string literals, quoted identifiers and line comments. */
function mapOutsideLiterals(sql: string, fn: (code: string) => string): string {
  let out = '';
  let i = 0;
  let code = '';
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      out += fn(code);
      code = '';
      let j = i + 1;
      for (;;) {
        const k = sql.indexOf(ch, j);
        if (k === -1) {
          j = sql.length;
          break;
        }
        if (sql[k + 1] === ch) j = k + 2;
        else {
          j = k + 1;
          break;
        }
      }
      out += sql.slice(i, j);
      i = j;
    } else if (ch === '-' && sql[i + 1] === '-') {
      out += fn(code);
      code = '';
      const k = sql.indexOf('\n', i);
      const j = k === -1 ? sql.length : k;
      out += sql.slice(i, j);
      i = j;
    } else {
      code += ch;
      i++;
    }
  }
  return out + fn(code);
}

/** Whether a statement only reads (SELECT / WITH ... SELECT / VALUES / SHOW). */
function isRead(sql: string): boolean {
  return /^\s*(SELECT|WITH|VALUES|SHOW)\b/i.test(sql) && !/\b(INSERT|UPDATE|DELETE)\b/i.test(sql.replace(/'(?:[^']|'')*'/g, ''));
}

/** Statement parameters as `pg` binds them: `undefined` as NULL (better-sqlite3 binds it so too). */
function bindable(params: unknown[]): unknown[] {
  return params.map((p) => (p === undefined ? null : p));
}

/** Rows per FETCH of a cursor (`PostgresDatabase` iterate): ~2 MB of rows of the `calls` table, a few KB of others. */
export const CURSOR_ROWS = 1000;

/** Any 64-bit key: the advisory lock every `immediate` transaction of a database takes (see `SqlTransaction`). */
export const STORE_LOCK = 0x6870745f62656e;

/** The bound of one request to the server when `HPT_STORE_TIMEOUT` is not set (seconds). */
export const DEFAULT_STORE_TIMEOUT_S = 60;

/** How long a request waits with the process's signal listeners in place (ms); see the file comment. */
export const SLOW_STORE_MS = 1000;

/**
 * The bound of one store request in ms: `HPT_STORE_TIMEOUT` (seconds, a number in (0, 86400]) from `env`, else
 * `DEFAULT_STORE_TIMEOUT_S`.
 * @throws HptError `E_CONFIG` (exit code 2) when the variable is set to anything else.
 */
export function storeTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.HPT_STORE_TIMEOUT;
  if (raw === undefined || raw.trim() === '') return DEFAULT_STORE_TIMEOUT_S * 1000;
  const s = Number(raw);
  if (!Number.isFinite(s) || s <= 0 || s > 86_400) throw new HptError('E_CONFIG', `HPT_STORE_TIMEOUT must be a number of seconds in (0, 86400], got '${raw}'`, { exitCode: 2 });
  return Math.ceil(s * 1000);
}

/** The signals whose listeners a long store wait sets aside (see the file comment). */
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * `Atomics.wait` on `flag` (until it leaves 0) for at most `timeoutMs`: the first `SLOW_STORE_MS` with the signal
 * listeners in place, the rest without them, so that a signal ends a process whose store is stuck.
 * @returns whether the flag was set (false: timed out)
 */
function waitAnswer(flag: Int32Array, timeoutMs: number): boolean {
  if (Atomics.wait(flag, 0, 0, Math.min(timeoutMs, SLOW_STORE_MS)) !== 'timed-out') return true;
  if (timeoutMs <= SLOW_STORE_MS) return false;
  const aside = SIGNALS.map((signal) => [signal, process.listeners(signal)] as const);
  for (const [signal] of aside) process.removeAllListeners(signal);
  try {
    return Atomics.wait(flag, 0, 0, timeoutMs - SLOW_STORE_MS) !== 'timed-out';
  } finally {
    for (const [signal, listeners] of aside) for (const l of listeners) if (!process.listeners(signal).includes(l)) process.on(signal, l);
  }
}

interface Answer {
  rows?: Record<string, unknown>[];
  changes?: number;
  /** rows changed by each statement of a batch */
  batch?: number[];
  error?: { message: string; code?: string; detail?: string };
}

/**
 * A synchronous PostgreSQL connection (see the file comment).
 * @param url `postgres://user[:password]@host[:port]/db[?...]` (libpq-style parameters as `pg` reads them; the
 *   password may also come from PGPASSWORD or ~/.pgpass).
 * @param options.readonly refuse every statement that writes (checked here, and the connection's transactions are
 *   read-only on the server too).
 * @throws PostgresError when the server cannot be reached or refuses the connection (after `connectTimeoutMs`).
 */
export class PostgresDatabase implements SqlDatabase {
  readonly dialect: Dialect = 'postgres';
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private depth = 0;
  private closed = false;
  /** set when a request timed out: the handle is closed and every later request throws it */
  private lost: HptError | undefined;
  private readonly translated = new Map<string, string>();
  /** the bound of one request (ms) */
  private readonly timeoutMs: number;

  /**
   * @param options.timeoutMs the bound of one request (default: `storeTimeoutMs()`, from `HPT_STORE_TIMEOUT`)
   * @throws HptError `E_CONFIG` for an invalid `HPT_STORE_TIMEOUT`
   */
  constructor(url: string, private readonly options: { readonly?: boolean; connectTimeoutMs?: number; timeoutMs?: number } = {}) {
    this.timeoutMs = options.timeoutMs ?? storeTimeoutMs();
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.worker = new Worker(WORKER, {
      eval: true,
      // the worker's code is CommonJS: not the parent's flags (e.g. --input-type=module would make it a module)
      execArgv: [],
      workerData: { url, pgPath: createRequire(import.meta.url).resolve('pg'), flag: this.flag.buffer, port: port2, readonly: options.readonly === true, connectTimeoutMs },
      transferList: [port2],
    });
    this.worker.unref();
    this.port.unref();
    try {
      // the first answer also says the worker started: a worker that cannot start never answers, so wait for it only so long
      this.call({ op: 'exec', sql: 'SELECT 1' }, connectTimeoutMs + 10_000);
    } catch (e) {
      void this.worker.terminate();
      this.closed = true;
      throw e;
    }
  }

  /**
   * Send one request to the worker and wait for its answer (`unnamed`: a query not kept as a prepared statement), at
   * most `timeoutMs` (the constructor's first request) or the handle's bound.
   * @throws HptError `E_STORE` (exit code 1) when the bound passes (the handle is then closed), and on every later request
   */
  private call(req: { op: 'query' | 'exec' | 'close' | 'batch'; sql?: string; params?: unknown[]; items?: { sql: string; params: unknown[] }[]; unnamed?: boolean }, timeoutMs?: number): Answer {
    if (this.lost) throw this.lost;
    if (req.op !== 'batch') this.sendPending();
    if (this.closed) throw new PostgresError('the database connection is closed', 'E_CLOSED');
    if (process.env.HPT_PG_DEBUG) process.stderr.write(`[pg] ${req.op} ${req.sql ?? ''}\n`);
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(req);
    if (!waitAnswer(this.flag, timeoutMs ?? this.timeoutMs)) {
      if (timeoutMs !== undefined) throw new PostgresError(`the PostgreSQL client did not answer within ${timeoutMs} ms`, 'E_WORKER');
      this.closed = true;
      this.pending = [];
      void this.worker.terminate();
      this.lost = new HptError(
        'E_STORE',
        `the PostgreSQL store did not answer within ${this.timeoutMs / 1000} s (the connection is lost or the server is stuck; HPT_STORE_TIMEOUT sets the bound): the connection is closed, what was committed is kept, and the same command continues the run`,
        { exitCode: 1 },
      );
      throw this.lost;
    }
    const msg = receiveMessageOnPort(this.port)?.message as Answer | undefined;
    if (!msg) throw new PostgresError('the PostgreSQL worker gave no answer', 'E_WORKER');
    if (msg.error) throw new PostgresError(msg.error.message, msg.error.code, msg.error.detail);
    return msg;
  }

  /**
   * Writes inside a transaction waiting to be sent (see `write`): sent together, in order, before anything else goes
   * to the server, so a write is on the server before any later read or the COMMIT.
   */
  private pending: { sql: string; params: unknown[]; result: { changes: number } }[] = [];

  /** Send the pending writes in one round trip. @throws PostgresError of the first that failed (the rest are not sent). */
  private sendPending(): void {
    if (!this.pending.length) return;
    const items = this.pending;
    this.pending = [];
    const answer = this.call({ op: 'batch', items: items.map(({ sql, params }) => ({ sql, params })) });
    answer.batch!.forEach((n, i) => (items[i]!.result.changes = n));
  }

  private text(sql: string): string {
    let text = this.translated.get(sql);
    if (text === undefined) {
      text = numberPlaceholders(sql);
      this.translated.set(sql, text);
    }
    return text;
  }

  /** @throws PostgresError `E_READONLY` when this connection is read-only and `sql` writes. */
  private refuseWrite(sql: string): void {
    if (this.options.readonly && !isRead(sql)) throw new PostgresError('attempt to write a readonly database', 'E_READONLY');
  }

  private query(sql: string, params: unknown[]): Answer {
    this.refuseWrite(sql);
    return this.call({ op: 'query', sql: this.text(sql), params: bindable(params) });
  }

  /**
   * `run` of a statement: outside a transaction it is sent at once; inside one it is queued and sent with the next
   * request (a read, another transaction step, the COMMIT), which saves one round trip per write of a group commit
   * (a sample is ~17 statements). Reading `changes` sends the queue first, so the count is always the server's. A
   * queued write's error is thrown by the request that sends it, inside the same transaction, which then rolls back.
   */
  private write(sql: string, params: unknown[]): SqlRunResult {
    if (this.depth === 0) return { changes: this.query(sql, params).changes ?? 0 };
    this.refuseWrite(sql);
    const result = { changes: 0 };
    this.pending.push({ sql: this.text(sql), params: bindable(params), result });
    const self = this;
    return {
      get changes() {
        self.sendPending();
        return result.changes;
      },
    };
  }

  prepare<R = unknown>(sql: string): SqlStatement<R> {
    const q = (params: unknown[]) => this.query(sql, params);
    return {
      run: (...params: unknown[]): SqlRunResult => this.write(sql, params),
      get: (...params: unknown[]) => q(params).rows?.[0] as R | undefined,
      all: (...params: unknown[]) => (q(params).rows ?? []) as R[],
      iterate: (...params: unknown[]) => this.cursor<R>(sql, params),
    };
  }

  /** Cursors opened so far on this connection (their names: `hpt_cursor_<n>`). */
  private cursors = 0;

  /**
   * The rows of a read, `CURSOR_ROWS` at a time through a server-side cursor (`DECLARE ... NO SCROLL CURSOR WITH HOLD`,
   * then `FETCH`), so a large result (`store migrate` copying the calls table, `--out` of a long run) is never held
   * whole by the client, as SQLite's `iterate` does not hold it. Other statements may run between two rows (each FETCH
   * is a request of its own). The cursor is closed when the rows are exhausted or the loop ends early (`return`).
   * @throws PostgresError on the first `next()` when the statement fails (as with the other reads).
   */
  private *cursor<R>(sql: string, params: unknown[]): Generator<R> {
    this.refuseWrite(sql);
    const name = `hpt_cursor_${++this.cursors}`;
    this.call({ op: 'query', unnamed: true, sql: `DECLARE ${name} NO SCROLL CURSOR WITH HOLD FOR ${this.text(sql)}`, params: bindable(params) });
    try {
      for (;;) {
        const rows = (this.call({ op: 'query', unnamed: true, sql: `FETCH ${CURSOR_ROWS} FROM ${name}`, params: [] }).rows ?? []) as R[];
        yield* rows;
        if (rows.length < CURSOR_ROWS) return;
      }
    } finally {
      if (!this.closed) {
        try {
          this.call({ op: 'query', unnamed: true, sql: `CLOSE ${name}`, params: [] });
        } catch {
          // the connection is gone (the cursor with it), or the transaction that declared it was rolled back
        }
      }
    }
  }

  exec(sql: string): void {
    if (this.options.readonly) throw new PostgresError('attempt to write a readonly database', 'E_READONLY');
    this.call({ op: 'exec', sql: postgresDdl(sql) });
  }

  transaction<A extends unknown[], T>(fn: (...args: A) => T): SqlTransaction<A, T> {
    const run = (immediate: boolean, args: A): T => {
      const nested = this.depth > 0;
      const savepoint = `sp${this.depth}`;
      this.call({ op: 'exec', sql: nested ? `SAVEPOINT ${savepoint}` : immediate ? `BEGIN; SELECT pg_advisory_xact_lock(${STORE_LOCK})` : 'BEGIN' });
      this.depth++;
      let result: T;
      try {
        result = fn(...args);
      } catch (e) {
        this.depth--;
        this.pending = []; // never sent: rolled back with the rest
        try {
          this.call({ op: 'exec', sql: nested ? `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` : 'ROLLBACK' });
        } catch {
          // the connection is gone: the server rolls the transaction back
        }
        throw e;
      }
      this.depth--;
      try {
        this.call({ op: 'exec', sql: nested ? `RELEASE SAVEPOINT ${savepoint}` : 'COMMIT' });
      } catch (e) {
        this.pending = [];
        if (nested) {
          try {
            this.call({ op: 'exec', sql: `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` });
          } catch {
            // the outer transaction fails as a whole
          }
        } else {
          try {
            this.call({ op: 'exec', sql: 'ROLLBACK' });
          } catch {
            // nothing more to undo
          }
        }
        throw e;
      }
      return result;
    };
    const tx = ((...args: A) => run(false, args)) as SqlTransaction<A, T>;
    tx.immediate = (...args: A) => run(true, args);
    return tx;
  }

  hasTable(name: string): boolean {
    return this.query('SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?', [name]).rows!.length > 0;
  }

  columns(table: string): Set<string> {
    const rows = this.query('SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?', [table]).rows!;
    return new Set(rows.map((r) => r.column_name as string));
  }

  addColumn(table: string, name: string, type: string): void {
    this.exec(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN IF NOT EXISTS ${quoteIdent(name)} ${type}`);
  }

  close(): void {
    if (this.closed || this.lost) return;
    try {
      this.call({ op: 'close' });
    } finally {
      this.closed = true;
      void this.worker.terminate();
    }
  }
}
