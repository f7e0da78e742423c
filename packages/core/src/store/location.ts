/**
 * Where a store is (`--store`, `HPT_BENCH_STORE`): an SQLite file path, or a PostgreSQL database URL
 * (`postgres://user[:password]@host[:port]/db`, also `postgresql://`). How such a string is shown and whether a store
 * is there, through the backends' table (store/backends.ts), which also opens them.
 */
import { storeBackend } from './backends.js';

export { isPostgresUrl } from './postgres.js';

/** The environment variable naming the store when `--store` is not given. */
export const STORE_ENV = 'HPT_BENCH_STORE';

/**
 * `location` as messages show it: a database URL without its password (`postgres://user@host:5432/db`), secret-looking
 * query parameters (`password=`, `sslkey=`...) replaced by `redacted`; a file path unchanged (`StoreBackend.label`).
 */
export function storeLabel(location: string): string {
  return storeBackend(location).label(location);
}

/**
 * Whether there is a store at `location` to read: the file exists, or the database holds a `runs` table (it is
 * connected to once to ask). Reading commands report "no runs" instead of opening a store that is not there.
 * @throws HptError `E_STORE` (exit code 2) when a database URL cannot be reached or refuses the connection.
 */
export function storeExists(location: string): boolean {
  return storeBackend(location).exists(location);
}

/** Whether `location` is a file path (an SQLite store) rather than a database URL: a path is resolved against a directory. */
export function storeIsPath(location: string): boolean {
  return storeBackend(location).isPath;
}
