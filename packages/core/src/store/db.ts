/**
 * Opening a store of each backend (the table that picks one is store/backends.ts): an SQLite file or a PostgreSQL
 * database (store/postgres.ts). For SQLite: pragmas, the migrations of stores written by earlier versions (additive columns,
 * the attempt-ordinal rebuild, batches keyed by endpoint), the tables (store/schema.ts), and read-only opening (with a private snapshot when
 * SQLite cannot open a WAL file read-only in place).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { batchesNeedEndpointKey, migrateBatchesByEndpoint } from './batches.js';
import { PostgresDatabase } from './postgres.js';
import { ADDED_COLUMNS, CACHE_SCHEMA, CALIBRATIONS_SCHEMA, MIGRATE_ATTEMPTS_V2, RUN_SCHEMA } from './schema.js';
import { type SqlDatabase, SqliteDatabase } from './sql.js';

/**
 * Open the PostgreSQL database at `url`: read-only (it must hold a `runs` table; writes are refused), or for writing
 * (newer columns added to tables of earlier versions, an earlier `batches` table rebuilt keyed by endpoint and id,
 * missing tables created, under the store's lock so that processes starting together do not race on the catalogue).
 */
export function openPostgres(url: string, readonly: boolean): SqlDatabase {
  const db = new PostgresDatabase(url, { readonly });
  try {
    if (readonly) {
      if (!db.hasTable('runs')) throw new Error('not an hpt-bench store (no runs table)');
      return db;
    }
    db.transaction(() => {
      for (const [table, columns] of Object.entries(ADDED_COLUMNS)) addMissingColumns(db, table, columns);
      migrateBatchesByEndpoint(db);
      // every table at once: PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against a concurrent creator
      db.exec(RUN_SCHEMA + CACHE_SCHEMA + CALIBRATIONS_SCHEMA);
    }).immediate();
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * Open the SQLite file at `path`: read-only (`openReadOnly`; it must hold a `runs` table), or for writing (directories
 * created, WAL journal, foreign keys, earlier stores migrated, missing tables created).
 */
export function openSqlite(path: string, readonly: boolean, onSnapshot: (copy: string) => void): Database.Database {
  if (readonly) {
    const db = openReadOnly(path, onSnapshot);
    db.pragma('busy_timeout = 5000');
    if (!new SqliteDatabase(db).hasTable('runs')) {
      db.close();
      throw new Error('not an hpt-bench store (no runs table)');
    }
    return db;
  }
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // stores written by earlier versions gain the newer columns (nullable or defaulted, so old rows stay valid)
    const handle = new SqliteDatabase(db);
    for (const [table, columns] of Object.entries(ADDED_COLUMNS)) addMissingColumns(handle, table, columns);
    if (handle.hasTable('attempts') && handle.hasTable('calls') && !handle.columns('attempts').has('attempt')) migrateAttemptsV2(db);
    // batches keyed by endpoint and id (checked again under the write lock: another process may have done it)
    if (batchesNeedEndpointKey(handle)) handle.transaction(() => migrateBatchesByEndpoint(handle)).immediate();
    db.exec(RUN_SCHEMA);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Add the columns `table` lacks (a table that does not exist yet is left to RUN_SCHEMA). */
function addMissingColumns(db: SqlDatabase, table: string, columns: Record<string, string>): void {
  if (!db.hasTable(table)) return;
  const have = db.columns(table);
  for (const [name, type] of Object.entries(columns)) if (!have.has(name)) db.addColumn(table, name, type);
}

/** Rebuild attempts and calls with the attempt ordinal in their keys (see MIGRATE_ATTEMPTS_V2); all or nothing. */
function migrateAttemptsV2(db: Database.Database): void {
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      db.exec(MIGRATE_ATTEMPTS_V2);
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length) throw new Error(`migration left ${broken.length} dangling rows`);
    })();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}

/**
 * Open `path` read-only. SQLite cannot open a WAL database read-only in a directory it cannot write unless the `-shm`
 * file exists (a read-only mount, a store copied without it): then the file (with its `-wal`, if any) is copied to a
 * private temporary directory and the copy is opened, a snapshot of the store at that moment; `onSnapshot` receives
 * the copy's path so the caller removes it.
 * @throws the SQLite error when the file cannot be read at all.
 */
export function openReadOnly(path: string, onSnapshot: (copy: string) => void): Database.Database {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      // opening is lazy: the first read is what fails without a -shm file
      db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
    } catch (e) {
      db.close();
      throw e;
    }
    return db;
  } catch (e) {
    if (!existsSync(path) || (e as { code?: string }).code !== 'SQLITE_CANTOPEN') throw e;
    const copyDir = mkdtempSync(join(tmpdir(), 'hpt-store-ro-'));
    const copy = join(copyDir, basename(path));
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    onSnapshot(copy);
    return new Database(copy, { readonly: true, fileMustExist: true });
  }
}


/** Whether a database error says the database (or its directory) cannot be written. */
export function isReadOnlyError(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || code === 'E_READONLY' || code === '25006' || /read-?only/i.test((e as Error).message ?? '');
}

