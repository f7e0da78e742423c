/**
 * Where a store is (`--store`, `HPT_BENCH_STORE`): an SQLite file path, or a PostgreSQL database URL
 * (`postgres://user[:password]@host[:port]/db`, also `postgresql://`). How such a string is shown and whether a store
 * is there; `RunStore` opens either (store/db.ts `openStoreDatabase` picks the backend).
 */
import { existsSync } from 'node:fs';
import { HptError } from '@hpt-bench/sdk';
import { isPostgresUrl, PostgresDatabase } from './postgres.js';

export { isPostgresUrl } from './postgres.js';

/** The environment variable naming the store when `--store` is not given. */
export const STORE_ENV = 'HPT_BENCH_STORE';

/**
 * `location` as messages show it: a database URL without its password (`postgres://user@host:5432/db`), secret-looking
 * query parameters (`password=`, `sslkey=`...) replaced by `redacted`; a file path unchanged.
 */
export function storeLabel(location: string): string {
  if (!isPostgresUrl(location)) return location;
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
 * Whether there is a store at `location` to read: the file exists, or the database holds a `runs` table (it is
 * connected to once to ask). Reading commands report "no runs" instead of opening a store that is not there.
 * @throws HptError `E_STORE` (exit code 2) when a database URL cannot be reached or refuses the connection.
 */
export function storeExists(location: string): boolean {
  if (!isPostgresUrl(location)) return existsSync(location);
  let db: PostgresDatabase;
  try {
    db = new PostgresDatabase(location, { readonly: true });
  } catch (e) {
    const label = storeLabel(location);
    throw new HptError('E_STORE', `cannot open store ${label}: ${(e as Error).message.split(location).join(label)}`, { exitCode: 2 });
  }
  try {
    return db.hasTable('runs');
  } finally {
    db.close();
  }
}
