/**
 * The store's schema: every table of the SQLite store and the migrations of stores written by earlier versions. The
 * run tables (`RUN_SCHEMA`) are created when a store is opened for writing; the cache table when a `CallCache` is
 * first made on it; the calibrations table when a calibration is first saved. Changes must stay additive (new
 * nullable or defaulted columns, new tables), so that a store written by an earlier version still opens and resumes.
 */

import { BATCHES_SCHEMA } from './batches.js';

/**
 * Runs, their samples, attempts, calls and adaptive selections, the long prompt lines the calls share (`texts`, see
 * texts.ts), the claims and workers of runs that several processes execute together (claims.ts), and the Batch API
 * batches of `run --batch` (batches.ts).
 */
export const RUN_SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running','completed','failed')),
  dataset TEXT NOT NULL,
  model TEXT NOT NULL,
  mode TEXT NOT NULL,
  config TEXT NOT NULL,
  summary TEXT,
  error TEXT,
  config_hash TEXT,
  owner TEXT,
  heartbeat_at TEXT,
  preflight TEXT,
  fingerprint TEXT
);
CREATE TABLE IF NOT EXISTS samples (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  sample_id TEXT NOT NULL,
  level INTEGER,
  hpi REAL NOT NULL,
  solved INTEGER NOT NULL,
  prediction TEXT NOT NULL,
  target TEXT NOT NULL,
  meta TEXT,
  status TEXT NOT NULL DEFAULT 'done',
  error TEXT,
  iteration INTEGER,
  scores INTEGER NOT NULL DEFAULT 1,
  records TEXT,
  sample_hash TEXT,
  PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS attempts (
  run_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  level INTEGER NOT NULL,
  strategy TEXT NOT NULL,
  solved INTEGER NOT NULL,
  score REAL NOT NULL,
  extracted TEXT NOT NULL,
  graded TEXT NOT NULL,
  notes TEXT,
  iteration INTEGER,
  extraction TEXT,
  PRIMARY KEY (run_id, idx, attempt),
  FOREIGN KEY (run_id, idx) REFERENCES samples(run_id, idx) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS calls (
  run_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  level INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  purpose TEXT NOT NULL,
  model TEXT NOT NULL,
  messages TEXT NOT NULL,
  output TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  latency_ms REAL NOT NULL,
  finish_reason TEXT NOT NULL,
  mean_token_prob REAL,
  cached INTEGER NOT NULL DEFAULT 0,
  batched INTEGER NOT NULL DEFAULT 0,
  reasoning TEXT,
  reasoning_tokens INTEGER,
  truncated_thinking INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, idx, attempt, seq),
  FOREIGN KEY (run_id, idx, attempt) REFERENCES attempts(run_id, idx, attempt) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS selections (
  run_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  iteration INTEGER NOT NULL,
  level INTEGER,
  valid INTEGER NOT NULL,
  raw TEXT,
  solved INTEGER,
  model TEXT,
  messages TEXT,
  output TEXT,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  latency_ms REAL,
  finish_reason TEXT,
  cached INTEGER NOT NULL DEFAULT 0,
  batched INTEGER NOT NULL DEFAULT 0,
  reasoning TEXT,
  reasoning_tokens INTEGER,
  truncated_thinking INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, idx, iteration),
  FOREIGN KEY (run_id, idx) REFERENCES samples(run_id, idx) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS texts (
  hash TEXT PRIMARY KEY,
  body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS run_claims (
  run_id TEXT NOT NULL,
  block INTEGER NOT NULL,
  worker TEXT NOT NULL,
  claimed_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL,
  done INTEGER NOT NULL DEFAULT 0,
  taken_from TEXT,
  PRIMARY KEY (run_id, block)
);
CREATE TABLE IF NOT EXISTS run_workers (
  run_id TEXT NOT NULL,
  worker TEXT NOT NULL,
  started_at TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL,
  state TEXT NOT NULL,
  samples INTEGER NOT NULL DEFAULT 0,
  claims INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, worker)
);
${BATCHES_SCHEMA}`;

/**
 * Stores of schema version 1 keyed attempts by (run, sample, level), which the adaptive HPF breaks (a level can be tried
 * at several iterations). Version 2 keys attempts and calls by the attempt's ordinal within the sample; a manual run's
 * attempts are levels 1..k in order, so a version-1 row's ordinal is level - 1. The tables are rebuilt in one
 * transaction (SQLite cannot change a primary key in place).
 */
export const MIGRATE_ATTEMPTS_V2 = `
CREATE TABLE attempts_v2 (
  run_id TEXT NOT NULL, idx INTEGER NOT NULL, attempt INTEGER NOT NULL, level INTEGER NOT NULL, strategy TEXT NOT NULL,
  solved INTEGER NOT NULL, score REAL NOT NULL, extracted TEXT NOT NULL, graded TEXT NOT NULL, notes TEXT, iteration INTEGER, extraction TEXT,
  PRIMARY KEY (run_id, idx, attempt),
  FOREIGN KEY (run_id, idx) REFERENCES samples(run_id, idx) ON DELETE CASCADE
);
INSERT INTO attempts_v2 (run_id, idx, attempt, level, strategy, solved, score, extracted, graded, notes)
  SELECT run_id, idx, level - 1, level, strategy, solved, score, extracted, graded, notes FROM attempts;
CREATE TABLE calls_v2 (
  run_id TEXT NOT NULL, idx INTEGER NOT NULL, attempt INTEGER NOT NULL, level INTEGER NOT NULL, seq INTEGER NOT NULL,
  purpose TEXT NOT NULL, model TEXT NOT NULL, messages TEXT NOT NULL, output TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL, latency_ms REAL NOT NULL, finish_reason TEXT NOT NULL, mean_token_prob REAL,
  cached INTEGER NOT NULL DEFAULT 0, batched INTEGER NOT NULL DEFAULT 0,
  reasoning TEXT, reasoning_tokens INTEGER, truncated_thinking INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, idx, attempt, seq),
  FOREIGN KEY (run_id, idx, attempt) REFERENCES attempts(run_id, idx, attempt) ON DELETE CASCADE
);
INSERT INTO calls_v2 (run_id, idx, attempt, level, seq, purpose, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason, mean_token_prob, cached)
  SELECT run_id, idx, level - 1, level, seq, purpose, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason, mean_token_prob, cached FROM calls;
DROP TABLE calls;
DROP TABLE attempts;
ALTER TABLE attempts_v2 RENAME TO attempts;
ALTER TABLE calls_v2 RENAME TO calls;
`;

/*
 * The `batches` table's own migration (its key became (endpoint, id): a changed key needs a rebuild) is
 * `MIGRATE_BATCHES_BY_ENDPOINT` in batches.ts, beside every other statement on that table; store/db.ts runs it for
 * SQLite and PostgreSQL.
 */

/**
 * Columns added since the first stores, by table: a store that lacks them gains them on open (nullable or defaulted,
 * so old rows stay valid).
 */
export const ADDED_COLUMNS: Record<string, Record<string, string>> = {
  samples: { meta: 'TEXT', status: "TEXT NOT NULL DEFAULT 'done'", error: 'TEXT', iteration: 'INTEGER', scores: 'INTEGER NOT NULL DEFAULT 1', records: 'TEXT', sample_hash: 'TEXT' },
  attempts: { extraction: 'TEXT' },
  calls: { cached: 'INTEGER NOT NULL DEFAULT 0', batched: 'INTEGER NOT NULL DEFAULT 0', reasoning: 'TEXT', reasoning_tokens: 'INTEGER', truncated_thinking: 'INTEGER NOT NULL DEFAULT 0' },
  selections: { batched: 'INTEGER NOT NULL DEFAULT 0', reasoning: 'TEXT', reasoning_tokens: 'INTEGER', truncated_thinking: 'INTEGER NOT NULL DEFAULT 0' },
  runs: { config_hash: 'TEXT', owner: 'TEXT', heartbeat_at: 'TEXT', preflight: 'TEXT', fingerprint: 'TEXT' },
};

/** The model-call cache (`CallCache`). */
export const CACHE_SCHEMA = `
CREATE TABLE IF NOT EXISTS call_cache (
  key TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  endpoint TEXT,
  response TEXT NOT NULL,
  created_at TEXT NOT NULL,
  hits INTEGER NOT NULL DEFAULT 0
);
`;

/** HPI_Dataset values saved by `hpt-bench calibrate --save` (hpt.md §2.4). */
export const CALIBRATIONS_SCHEMA = `
CREATE TABLE IF NOT EXISTS hpi_calibrations (
  dataset TEXT PRIMARY KEY,
  hpi_dataset REAL NOT NULL,
  n INTEGER NOT NULL,
  source TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`;

/**
 * Every table definition of the store, in an order in which each table comes after the tables it references (what
 * `store migrate` copies, in this order; a new schema constant belongs in this list).
 */
export const STORE_SCHEMAS: readonly string[] = [RUN_SCHEMA, CACHE_SCHEMA, CALIBRATIONS_SCHEMA];

/** The store's table names in `STORE_SCHEMAS` order (parents before children). */
export function storeTables(): string[] {
  return STORE_SCHEMAS.flatMap(tablesOf);
}

/** The tables a schema constant creates, in order. */
export function tablesOf(schema: string): string[] {
  return [...schema.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/g)].map((m) => m[1]!);
}
