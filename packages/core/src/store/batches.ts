/**
 * The batches of `run --batch` (store side): one row per batch submitted to a provider's batch interface, so that an
 * interrupted run picks its batches up again instead of submitting (and paying for) them twice. Every statement on the
 * `batches` table is here; the SQL is portable (SQLite and PostgreSQL: no `INSERT OR ...`, no pragma, TEXT / INTEGER).
 */
import type { SqlDatabase } from './sql.js';

/** The `batches` table (part of `RUN_SCHEMA`). */
export const BATCHES_SCHEMA = `
CREATE TABLE IF NOT EXISTS batches (
  id TEXT PRIMARY KEY,
  run_id TEXT,
  round INTEGER NOT NULL,
  model TEXT NOT NULL,
  endpoint TEXT,
  state TEXT NOT NULL,
  input_file_id TEXT,
  output_file_id TEXT,
  error_file_id TEXT,
  custom_ids TEXT NOT NULL,
  requests INTEGER NOT NULL,
  submitted_at TEXT NOT NULL,
  finished_at TEXT
);
`;

/**
 * The life of a stored batch: `uploaded` (its input file is uploaded and the batch is being created: the row's id is
 * `file:<input file id>` until the provider's batch id is known), `submitted` (created at the provider, results not
 * read yet), the provider's final
 * states `completed` / `failed` / `expired` / `cancelled` once polled to the end, and `consumed` once its results are in
 * the model-call cache (a consumed batch is never fetched again: its lines are cache hits).
 */
export type StoredBatchState = 'uploaded' | 'submitted' | 'completed' | 'failed' | 'expired' | 'cancelled' | 'consumed';

/**
 * One stored batch: provider batch id, the run that submitted it, its 1-based round within that invocation, the model
 * id and credential-free endpoint, state, file ids, the custom ids (model-call cache keys) of its lines, and ISO-8601
 * times of submission and of the end of polling.
 */
export interface StoredBatch {
  id: string;
  runId: string | null;
  round: number;
  model: string;
  endpoint: string | null;
  state: StoredBatchState;
  inputFileId: string | null;
  outputFileId: string | null;
  errorFileId: string | null;
  customIds: string[];
  submittedAt: string;
  finishedAt: string | null;
}

interface BatchRow {
  id: string;
  run_id: string | null;
  round: number;
  model: string;
  endpoint: string | null;
  state: string;
  input_file_id: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  custom_ids: string;
  submitted_at: string;
  finished_at: string | null;
}

const fromRow = (r: BatchRow): StoredBatch => ({
  id: r.id,
  runId: r.run_id,
  round: r.round,
  model: r.model,
  endpoint: r.endpoint,
  state: r.state as StoredBatchState,
  inputFileId: r.input_file_id,
  outputFileId: r.output_file_id,
  errorFileId: r.error_file_id,
  customIds: JSON.parse(r.custom_ids) as string[],
  submittedAt: r.submitted_at,
  finishedAt: r.finished_at,
});

/**
 * Record a batch (state `submitted`, or `uploaded` for a batch whose input file is uploaded but which is not created
 * yet: id `file:<input file id>`); recording the same id again keeps the first row.
 */
export function recordBatch(db: SqlDatabase, b: Omit<StoredBatch, 'state' | 'outputFileId' | 'errorFileId' | 'finishedAt'> & { state?: 'uploaded' | 'submitted' }): void {
  db.prepare(
    'INSERT INTO batches (id, run_id, round, model, endpoint, state, input_file_id, custom_ids, requests, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  ).run(b.id, b.runId, b.round, b.model, b.endpoint, b.state ?? 'submitted', b.inputFileId, JSON.stringify(b.customIds), b.customIds.length, b.submittedAt);
}

/** An `uploaded` batch (id `file:<input file id>`) was created at the provider as `batchId`: the row takes that id, state `submitted`. */
export function assignBatch(db: SqlDatabase, uploadedId: string, batchId: string): void {
  db.prepare("UPDATE batches SET id = ?, state = 'submitted' WHERE id = ?").run(batchId, uploadedId);
}

/** Set a batch's state (and its output / error file ids and end time, when given). */
export function updateBatch(db: SqlDatabase, id: string, state: StoredBatchState, extra: { outputFileId?: string; errorFileId?: string; finishedAt?: string } = {}): void {
  db.prepare('UPDATE batches SET state = ?, output_file_id = COALESCE(?, output_file_id), error_file_id = COALESCE(?, error_file_id), finished_at = COALESCE(?, finished_at) WHERE id = ?').run(
    state,
    extra.outputFileId ?? null,
    extra.errorFileId ?? null,
    extra.finishedAt ?? null,
    id,
  );
}

/**
 * The batches of model id `model` whose results have not been consumed (any state but `consumed`), oldest first: what
 * an interrupted run left in flight. Batches whose provider state is `failed` or `cancelled` are left out (nothing to
 * read from them).
 */
export function unconsumedBatches(db: SqlDatabase, model: string): StoredBatch[] {
  return (db.prepare("SELECT * FROM batches WHERE model = ? AND state IN ('uploaded', 'submitted', 'completed', 'expired') ORDER BY submitted_at, id").all(model) as BatchRow[]).map(fromRow);
}

/** Every batch submitted for run `runId`, oldest first. */
export function batchesOfRun(db: SqlDatabase, runId: string): StoredBatch[] {
  return (db.prepare('SELECT * FROM batches WHERE run_id = ? ORDER BY submitted_at, id').all(runId) as BatchRow[]).map(fromRow);
}
