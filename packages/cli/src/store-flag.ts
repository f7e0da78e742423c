/**
 * The `--store` flag every command that reads or writes the run store takes (one definition): an SQLite file (default
 * `.hpt-bench/hpt-bench.db`) or a PostgreSQL URL (`postgres://user@host:port/db`, `postgresql://...`); when the flag is
 * not given, the environment variable `HPT_BENCH_STORE` names the store (an explicit flag wins).
 */
import * as Flags from '@oclif/core/flags';
import { STORE_ENV } from '@hpt-bench/core';

/** The store used when neither `--store` nor `HPT_BENCH_STORE` is given. */
export const DEFAULT_STORE = '.hpt-bench/hpt-bench.db';

/** `--store` with `what` (e.g. `(holds the model-call cache)`) appended to its description. */
export function storeFlag(what = '') {
  return Flags.string({
    description: `Run store: an SQLite file or a postgres://user@host:port/db URL${what ? ` ${what}` : ''} (default $${STORE_ENV}, else ${DEFAULT_STORE})`,
    default: DEFAULT_STORE,
    env: STORE_ENV,
  });
}
