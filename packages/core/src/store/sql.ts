/**
 * The store's database handle: the subset of better-sqlite3's synchronous API the store uses, implemented by SQLite
 * (`SqliteDatabase`, a thin wrapper of better-sqlite3) and by PostgreSQL (`PostgresDatabase`, store/postgres.ts). Store
 * code writes portable SQL (`?` placeholders; INSERT ... ON CONFLICT; TEXT / INTEGER / REAL columns; snake_case
 * aliases) and asks the handle, not the catalogue, what differs (`hasTable`, `columns`, `addColumn`).
 */
import type Database from 'better-sqlite3';

/** Which database a handle talks to. */
export type Dialect = 'sqlite' | 'postgres';

/** What a write statement reports: the rows it changed. */
export interface SqlRunResult {
  changes: number;
}

/**
 * A prepared statement (`?` placeholders, bound positionally). Rows are plain objects keyed by column name; INTEGER
 * columns and aggregates come back as JS numbers on both backends.
 */
export interface SqlStatement<R = unknown> {
  run(...params: unknown[]): SqlRunResult;
  get(...params: unknown[]): R | undefined;
  all(...params: unknown[]): R[];
  iterate(...params: unknown[]): IterableIterator<R>;
}

/**
 * A function wrapped in a transaction (better-sqlite3's `db.transaction(fn)`): calling it runs `fn` between BEGIN and
 * COMMIT (ROLLBACK when it throws; a nested call is a savepoint). `immediate` takes the store's write lock first: on
 * SQLite `BEGIN IMMEDIATE`; on PostgreSQL a transaction-scoped advisory lock that every `immediate` transaction of the
 * same database takes, so "read, then write" sections of several processes run one at a time.
 */
export interface SqlTransaction<A extends unknown[], T> {
  (...args: A): T;
  immediate(...args: A): T;
}

/** A synchronous connection to the store's database (see the file comment). */
export interface SqlDatabase {
  readonly dialect: Dialect;
  /** Compile `sql` (one statement, `?` placeholders). @throws the database's error for invalid SQL. */
  prepare<R = unknown>(sql: string): SqlStatement<R>;
  /** Run one or more statements without parameters (DDL: INTEGER / REAL columns are mapped per dialect). */
  exec(sql: string): void;
  /** `fn` as a transaction (see `SqlTransaction`); `fn` must be synchronous. */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): SqlTransaction<A, T>;
  /** Whether table `name` exists. */
  hasTable(name: string): boolean;
  /** The column names of `table` (empty when it does not exist). */
  columns(table: string): Set<string>;
  /** Add column `name` of portable type `type` (e.g. `INTEGER NOT NULL DEFAULT 0`) to `table`. */
  addColumn(table: string, name: string, type: string): void;
  /** Close the connection. */
  close(): void;
}

/** The SQLite handle: better-sqlite3 itself, with the dialect helpers over `sqlite_master` and `PRAGMA table_info`. */
export class SqliteDatabase implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  constructor(readonly raw: Database.Database) {}

  prepare<R = unknown>(sql: string): SqlStatement<R> {
    return this.raw.prepare(sql) as unknown as SqlStatement<R>;
  }

  exec(sql: string): void {
    this.raw.exec(sql);
  }

  transaction<A extends unknown[], T>(fn: (...args: A) => T): SqlTransaction<A, T> {
    return this.raw.transaction(fn) as unknown as SqlTransaction<A, T>;
  }

  hasTable(name: string): boolean {
    return this.raw.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }

  columns(table: string): Set<string> {
    return new Set((this.raw.prepare(`PRAGMA table_info(${quoteIdent(table)})`).all() as { name: string }[]).map((c) => c.name));
  }

  addColumn(table: string, name: string, type: string): void {
    this.raw.exec(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN ${quoteIdent(name)} ${type}`);
  }

  close(): void {
    this.raw.close();
  }
}

/**
 * The columns of `table`'s primary key, in key order (empty when it has none or does not exist): from SQLite's
 * `PRAGMA table_info`, or PostgreSQL's `information_schema` (the current schema). What a migration that changes a key
 * asks (store/batches.ts).
 */
export function primaryKeyColumns(db: SqlDatabase, table: string): string[] {
  if (db.dialect === 'sqlite') {
    const rows = db.prepare(`PRAGMA table_info(${quoteIdent(table)})`).all() as { name: string; pk: number }[];
    return rows.filter((r) => r.pk > 0).sort((a, b) => a.pk - b.pk).map((r) => r.name);
  }
  const rows = db
    .prepare(
      "SELECT k.column_name FROM information_schema.table_constraints c JOIN information_schema.key_column_usage k ON k.constraint_schema = c.constraint_schema AND k.constraint_name = c.constraint_name AND k.table_name = c.table_name WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = current_schema() AND c.table_name = ? ORDER BY k.ordinal_position",
    )
    .all(table) as { column_name: string }[];
  return rows.map((r) => r.column_name);
}

/**
 * `name` as a quoted SQL identifier.
 * @throws Error for a name that is not a plain identifier (letters, digits, underscore), so no caller can inject SQL.
 */
export function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a plain SQL identifier: ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** A store handle, or a raw better-sqlite3 connection (what the store's functions took before `SqlDatabase`). */
export type SqlHandle = SqlDatabase | Database.Database;

/** `db` as a `SqlDatabase` (a raw better-sqlite3 connection is wrapped). */
export function sqlHandle(db: SqlHandle): SqlDatabase {
  return 'dialect' in db ? db : new SqliteDatabase(db);
}
