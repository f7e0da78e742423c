/**
 * Copying a whole store to another (`hpt-bench store migrate --from A --to B`): SQLite to PostgreSQL, PostgreSQL to
 * SQLite or SQLite to SQLite (each side is a file path or a `postgres://` URL). Every table of the schema
 * (`storeTables`) is copied in batches of multi-row INSERTs inside one transaction on the target: it gets all of the
 * source or nothing.
 */
import { HptError } from '@hpt-bench/sdk';
import { storeLabel } from './location.js';
import { BATCHES_COPY_EXPRESSIONS } from './batches.js';
import { STORE_SCHEMAS, storeTables, tablesOf } from './schema.js';
import type { SqlDatabase } from './sql.js';
import { quoteIdent } from './sql.js';
import { RunStore } from './store.js';

/** What `migrateStore` copied: rows per table (tables the source lacks are absent), and rows skipped as already present. */
export interface MigrateResult {
  from: string;
  to: string;
  /** rows written to the target, per table */
  tables: Record<string, number>;
  /** rows of shared tables (`texts`, `call_cache`, `hpi_calibrations`) the target already held under the same key, kept as they were */
  skipped: Record<string, number>;
  rows: number;
}

/**
 * What a column of an earlier version's table is read as when copied (by table, then column: an SQL expression over the
 * source row), for columns whose rules have tightened since: a source opened read-only is not migrated in place.
 */
const COPY_EXPRESSIONS: Record<string, Record<string, string>> = { batches: BATCHES_COPY_EXPRESSIONS };

/** Bound parameters per INSERT (below SQLite's 32,766 and PostgreSQL's 65,535). */
const MAX_PARAMS = 30_000;
/** Rows per INSERT at most. */
const MAX_BATCH = 500;

/**
 * Copy every table of the store at `from` into the store at `to` (created when missing), in one transaction on the
 * target. Runs are never merged: the target must not hold any of the source's run ids. Shared content-addressed rows
 * (`texts`, cache entries, calibrations) the target already has are kept and counted in `skipped`.
 * @throws HptError `E_STORE` (exit code 2) when a side cannot be opened, `from` and `to` are the same store, or the
 *   target already holds one of the source's runs (nothing is written); `E_STORE` (exit code 1) when the copy fails
 *   (rolled back: nothing is written).
 */
export function migrateStore(from: string, to: string): MigrateResult {
  if (from === to) throw new HptError('E_STORE', `--from and --to name the same store ${storeLabel(from)}`, { exitCode: 2 });
  const source = new RunStore(from, { readonly: true });
  try {
    const target = new RunStore(to);
    try {
      return copy(source.db, target.db, storeLabel(from), storeLabel(to));
    } finally {
      target.close();
    }
  } finally {
    source.close();
  }
}

function copy(src: SqlDatabase, dst: SqlDatabase, fromLabel: string, toLabel: string): MigrateResult {
  const result: MigrateResult = { from: fromLabel, to: toLabel, tables: {}, skipped: {}, rows: 0 };
  const run = dst.transaction(() => {
    const have = new Set((dst.prepare('SELECT id FROM runs').all() as { id: string }[]).map((r) => r.id));
    const clash = (src.prepare('SELECT id FROM runs ORDER BY id').all() as { id: string }[]).map((r) => r.id).filter((id) => have.has(id));
    if (clash.length) {
      throw new HptError('E_STORE', `${toLabel} already holds ${clash.length} of the runs of ${fromLabel} (${clash.slice(0, 5).join(', ')}${clash.length > 5 ? ', ...' : ''}); nothing was copied`, {
        exitCode: 2,
        hint: 'migrate into an empty store, or one that holds other runs only',
      });
    }
    // tables made on first use (the cache, calibrations) exist in the target when the source has them
    for (const schema of STORE_SCHEMAS) if (tablesOf(schema).some((t) => src.hasTable(t) && !dst.hasTable(t))) dst.exec(schema);
    for (const table of storeTables()) {
      if (!src.hasTable(table)) continue;
      const dstColumns = dst.columns(table);
      const columns = [...src.columns(table)].filter((c) => dstColumns.has(c));
      const [written, skipped] = copyTable(src, dst, table, columns);
      result.tables[table] = written;
      if (skipped) result.skipped[table] = skipped;
      result.rows += written;
    }
  });
  try {
    run.immediate();
  } catch (e) {
    if (e instanceof HptError) throw e;
    throw new HptError('E_STORE', `cannot copy ${fromLabel} to ${toLabel}: ${(e as Error).message} (rolled back: nothing was written)`, { cause: e, exitCode: 1 });
  }
  return result;
}

/** Copy `columns` of every row of `table`; returns [rows written, rows the target already had]. */
function copyTable(src: SqlDatabase, dst: SqlDatabase, table: string, columns: string[]): [number, number] {
  const cols = columns.map(quoteIdent).join(', ');
  const per = Math.max(1, Math.min(MAX_BATCH, Math.floor(MAX_PARAMS / columns.length)));
  const row = `(${columns.map(() => '?').join(', ')})`;
  const statements = new Map<number, ReturnType<SqlDatabase['prepare']>>();
  const insert = (n: number) => {
    let st = statements.get(n);
    if (!st) {
      st = dst.prepare(`INSERT INTO ${quoteIdent(table)} (${cols}) VALUES ${Array.from({ length: n }, () => row).join(', ')} ON CONFLICT DO NOTHING`);
      statements.set(n, st);
    }
    return st;
  };
  let written = 0;
  let read = 0;
  let batch: unknown[] = [];
  let inBatch = 0;
  const flush = () => {
    if (!inBatch) return;
    written += insert(inBatch).run(...batch).changes;
    batch = [];
    inBatch = 0;
  };
  const selected = columns.map((c) => (COPY_EXPRESSIONS[table]?.[c] ? `${COPY_EXPRESSIONS[table][c]} AS ${quoteIdent(c)}` : quoteIdent(c))).join(', ');
  for (const r of src.prepare(`SELECT ${selected} FROM ${quoteIdent(table)}`).iterate() as Iterable<Record<string, unknown>>) {
    for (const c of columns) batch.push(r[c]);
    read++;
    if (++inBatch >= per) flush();
  }
  flush();
  return [written, read - written];
}
