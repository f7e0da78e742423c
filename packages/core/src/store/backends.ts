/**
 * The store backends in one table (issue 26, item 5): which locations each handles (`--store`, `HPT_BENCH_STORE`), how
 * it names one in messages, whether a store is there, and how it opens one. An SQLite file path, or a PostgreSQL
 * database URL (`postgres://user[:password]@host[:port]/db`, also `postgresql://`). Everything that depends on the kind of
 * store asks `storeBackend(location)`; no other module tests a location's kind.
 */
import { existsSync } from 'node:fs';
import { HptError } from '@hpt-bench/sdk';
import { openPostgres, openSqlite } from './db.js';
import { isPostgresUrl, PostgresDatabase } from './postgres.js';
import { type SqlDatabase, SqliteDatabase } from './sql.js';

/**
 * One kind of store.
 * - `handles(location)`: whether the location is of this kind (the table is tried in order; the last handles any);
 * - `isPath`: whether the location is a file path (resolved against a directory, e.g. an evaluation file's);
 * - `label(location)`: the location as messages show it (no credentials);
 * - `exists(location)`: whether there is a store to read (`storeExists`);
 * - `open(location, readonly, onSnapshot)`: the connection (`openStoreDatabase`).
 */
export interface StoreBackend {
  name: 'postgres' | 'sqlite';
  handles(location: string): boolean;
  isPath: boolean;
  label(location: string): string;
  exists(location: string): boolean;
  open(location: string, readonly: boolean, onSnapshot: (copy: string) => void): SqlDatabase;
}

/**
 * A database URL without its password (`postgres://user@host:5432/db`), secret-looking query parameters (`password=`,
 * `sslkey=`...) replaced by `redacted`.
 */
function redactedUrl(location: string): string {
  let u: URL;
  try {
    u = new URL(location);
  } catch {
    return location.replace(/(:\/\/[^:/@]*):[^@]*@/, '$1@');
  }
  u.password = '';
  for (const k of [...u.searchParams.keys()]) if (/pass|key|secret|token/i.test(k)) u.searchParams.set(k, 'redacted');
  return u.toString();
}

/**
 * Whether the database at `url` holds a `runs` table (connected to once, read-only, to ask).
 * @throws HptError `E_STORE` (exit code 2) when it cannot be reached or refuses the connection.
 */
function postgresStoreExists(url: string): boolean {
  let db: PostgresDatabase;
  try {
    db = new PostgresDatabase(url, { readonly: true });
  } catch (e) {
    const label = redactedUrl(url);
    throw new HptError('E_STORE', `cannot open store ${label}: ${(e as Error).message.split(url).join(label)}`, { exitCode: 2 });
  }
  try {
    return db.hasTable('runs');
  } finally {
    db.close();
  }
}

/** The backends, in the order they are tried: PostgreSQL URLs, then SQLite files (any other location). */
export const STORE_BACKENDS: readonly StoreBackend[] = [
  { name: 'postgres', handles: isPostgresUrl, isPath: false, label: redactedUrl, exists: postgresStoreExists, open: (url, readonly) => openPostgres(url, readonly) },
  { name: 'sqlite', handles: () => true, isPath: true, label: (path) => path, exists: existsSync, open: (path, readonly, onSnapshot) => new SqliteDatabase(openSqlite(path, readonly, onSnapshot)) },
];

/** The backend of `location` (the first in `STORE_BACKENDS` that handles it). */
export function storeBackend(location: string): StoreBackend {
  return STORE_BACKENDS.find((b) => b.handles(location))!;
}

/**
 * Open the store at `location` for reading (`openReadOnly` for SQLite: the file must hold a `runs` table) or writing
 * (directories created, earlier stores migrated, missing tables created), by its backend.
 * @param onSnapshot receives the path of a read-only SQLite snapshot copy, which the caller removes on close.
 * @throws the backend's error (SQLite, file system, `PostgresError`); `RunStore` turns it into `E_STORE`.
 */
export function openStoreDatabase(location: string, readonly: boolean, onSnapshot: (copy: string) => void): SqlDatabase {
  return storeBackend(location).open(location, readonly, onSnapshot);
}
