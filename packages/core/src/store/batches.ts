/**
 * The batches of `run --batch` (store side): one row per batch submitted to a provider's batch interface, so that an
 * interrupted run picks its batches up again instead of submitting (and paying for) them twice. Every statement on the
 * `batches` table is here; the SQL is portable (SQLite and PostgreSQL: no `INSERT OR ...`, no pragma, TEXT / INTEGER).
 */
import { primaryKeyColumns, type SqlDatabase } from './sql.js';

/**
 * The `batches` table (part of `RUN_SCHEMA`), keyed by endpoint and batch id: a batch id means something only at the
 * endpoint that gave it (two gateways, or one gateway restarted without its state, give the same ids to different
 * batches). `endpoint` is the credential-free base URL (`''` for a model without one).
 */
export const BATCHES_SCHEMA = `
CREATE TABLE IF NOT EXISTS batches (
  endpoint TEXT NOT NULL,
  id TEXT NOT NULL,
  run_id TEXT,
  round INTEGER NOT NULL,
  model TEXT NOT NULL,
  state TEXT NOT NULL,
  input_file_id TEXT,
  output_file_id TEXT,
  error_file_id TEXT,
  custom_ids TEXT NOT NULL,
  requests INTEGER NOT NULL,
  submitted_at TEXT NOT NULL,
  finished_at TEXT,
  PRIMARY KEY (endpoint, id)
);
`;

/**
 * Stores written before batches were keyed by endpoint had `id TEXT PRIMARY KEY` (so a second endpoint's `batch-1`
 * failed with "UNIQUE constraint failed: batches.id"). Their table is rebuilt with the key (endpoint, id), every row
 * kept (a missing endpoint becomes `''`); portable SQL, run in one transaction by the store's opener (store/db.ts).
 */
export const MIGRATE_BATCHES_BY_ENDPOINT = `
CREATE TABLE batches_by_endpoint (
  endpoint TEXT NOT NULL, id TEXT NOT NULL, run_id TEXT, round INTEGER NOT NULL, model TEXT NOT NULL, state TEXT NOT NULL,
  input_file_id TEXT, output_file_id TEXT, error_file_id TEXT, custom_ids TEXT NOT NULL, requests INTEGER NOT NULL,
  submitted_at TEXT NOT NULL, finished_at TEXT,
  PRIMARY KEY (endpoint, id)
);
INSERT INTO batches_by_endpoint (endpoint, id, run_id, round, model, state, input_file_id, output_file_id, error_file_id, custom_ids, requests, submitted_at, finished_at)
  SELECT COALESCE(endpoint, ''), id, run_id, round, model, state, input_file_id, output_file_id, error_file_id, custom_ids, requests, submitted_at, finished_at FROM batches;
DROP TABLE batches;
ALTER TABLE batches_by_endpoint RENAME TO batches;
`;

/**
 * How `store migrate` reads the columns of a source `batches` table (a source opened read-only keeps an earlier
 * version's form): a missing endpoint as `''`, as the key requires.
 */
export const BATCHES_COPY_EXPRESSIONS: Readonly<Record<string, string>> = Object.freeze({ endpoint: "COALESCE(endpoint, '')" });

/** Whether the store's `batches` table is of the form before `MIGRATE_BATCHES_BY_ENDPOINT` (its key is not (endpoint, id)). */
export function batchesNeedEndpointKey(db: SqlDatabase): boolean {
  if (!db.hasTable('batches')) return false;
  return primaryKeyColumns(db, 'batches').join(',') !== 'endpoint,id';
}

/** Rebuild an earlier store's `batches` table keyed by (endpoint, id) (`MIGRATE_BATCHES_BY_ENDPOINT`); call inside a transaction. */
export function migrateBatchesByEndpoint(db: SqlDatabase): void {
  if (batchesNeedEndpointKey(db)) db.exec(MIGRATE_BATCHES_BY_ENDPOINT);
}

/**
 * The life of a stored batch: `uploaded` (its input file is uploaded and the batch is being created: the row's id is
 * `file:<input file id>` until the provider's batch id is known), `submitted` (created at the provider, results not
 * read yet), the provider's final states `completed` / `failed` / `expired` / `cancelled` once polled to the end,
 * `consumed` once its results are in the model-call cache (a consumed batch is never fetched again: its lines are cache
 * hits), and `lost` when the batch is gone at its endpoint before its results were read: the endpoint gave its id to a
 * later batch, answered HTTP 404 for it, or refused to create it from its uploaded file (a gateway restarted without its
 * state). A lost batch is never polled again; its calls are submitted again when a run needs them.
 */
export type StoredBatchState = 'uploaded' | 'submitted' | 'completed' | 'failed' | 'expired' | 'cancelled' | 'consumed' | 'lost';

/**
 * One stored batch: provider batch id, the run that submitted it, its 1-based round within that invocation, the model
 * id and credential-free endpoint (null for a model without one), state, file ids, the custom ids (model-call cache
 * keys) of its lines, and ISO-8601 times of submission and of the end of polling. A batch is known by its endpoint
 * and id together.
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
  endpoint: string;
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
  endpoint: r.endpoint === '' ? null : r.endpoint,
  state: r.state as StoredBatchState,
  inputFileId: r.input_file_id,
  outputFileId: r.output_file_id,
  errorFileId: r.error_file_id,
  customIds: JSON.parse(r.custom_ids) as string[],
  submittedAt: r.submitted_at,
  finishedAt: r.finished_at,
});

/** The key value of an endpoint (`''` stands for none). */
const endpointKey = (endpoint: string | null): string => endpoint ?? '';

/** States in which a batch's results are still to be read (see `unconsumedBatches`). */
const UNREAD = new Set<string>(['uploaded', 'submitted', 'completed', 'expired']);

/**
 * Make room for a new batch `id` at `endpoint`: a row already there is a batch the endpoint has forgotten (it gives its
 * ids again, e.g. a gateway restarted without its state). That row is kept under `<id>@<submitted at>` (history: `runs
 * show` of its run still lists it), and marked `lost` when its results were not read (polling its id now would
 * reach the new batch). Call inside a transaction.
 */
function supersede(db: SqlDatabase, endpoint: string, id: string): void {
  const old = db.prepare('SELECT state, submitted_at FROM batches WHERE endpoint = ? AND id = ?').get(endpoint, id) as { state: string; submitted_at: string } | undefined;
  if (!old) return;
  let renamed = `${id}@${old.submitted_at}`;
  for (let n = 2; db.prepare('SELECT 1 FROM batches WHERE endpoint = ? AND id = ?').get(endpoint, renamed) !== undefined; n++) renamed = `${id}@${old.submitted_at}#${n}`;
  db.prepare('UPDATE batches SET id = ?, state = ? WHERE endpoint = ? AND id = ?').run(renamed, UNREAD.has(old.state) ? 'lost' : old.state, endpoint, id);
}

/**
 * Record a batch (state `submitted`, or `uploaded` for a batch whose input file is uploaded but which is not created
 * yet: id `file:<input file id>`) under its endpoint and id. A row already holding that endpoint and id is a batch the
 * endpoint has forgotten and is superseded (see `supersede`): the new batch takes the key.
 */
export function recordBatch(db: SqlDatabase, b: Omit<StoredBatch, 'state' | 'outputFileId' | 'errorFileId' | 'finishedAt'> & { state?: 'uploaded' | 'submitted' }): void {
  db.transaction(() => {
    supersede(db, endpointKey(b.endpoint), b.id);
    db.prepare('INSERT INTO batches (endpoint, id, run_id, round, model, state, input_file_id, custom_ids, requests, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      endpointKey(b.endpoint),
      b.id,
      b.runId,
      b.round,
      b.model,
      b.state ?? 'submitted',
      b.inputFileId,
      JSON.stringify(b.customIds),
      b.customIds.length,
      b.submittedAt,
    );
  }).immediate();
}

/**
 * An `uploaded` batch (id `file:<input file id>`) at `endpoint` was created at the provider as `batchId`: the row takes
 * that id, state `submitted`. Another row already holding `batchId` there is a batch the endpoint has forgotten (its
 * ids start again), and is superseded (see `supersede`). Nothing happens when the uploaded row is gone (another
 * process of the run assigned it first).
 */
export function assignBatch(db: SqlDatabase, endpoint: string | null, uploadedId: string, batchId: string): void {
  const key = endpointKey(endpoint);
  db.transaction(() => {
    if (uploadedId === batchId || db.prepare('SELECT 1 FROM batches WHERE endpoint = ? AND id = ?').get(key, uploadedId) === undefined) return;
    supersede(db, key, batchId);
    db.prepare("UPDATE batches SET id = ?, state = 'submitted' WHERE endpoint = ? AND id = ?").run(batchId, key, uploadedId);
  }).immediate();
}

/** Set the state of batch `id` at `endpoint` (and its output / error file ids and end time, when given). */
export function updateBatch(db: SqlDatabase, endpoint: string | null, id: string, state: StoredBatchState, extra: { outputFileId?: string; errorFileId?: string; finishedAt?: string } = {}): void {
  db.prepare('UPDATE batches SET state = ?, output_file_id = COALESCE(?, output_file_id), error_file_id = COALESCE(?, error_file_id), finished_at = COALESCE(?, finished_at) WHERE endpoint = ? AND id = ?').run(
    state,
    extra.outputFileId ?? null,
    extra.errorFileId ?? null,
    extra.finishedAt ?? null,
    endpointKey(endpoint),
    id,
  );
}

/**
 * The batches of model id `model` whose results have not been read (`uploaded`, `submitted`, `completed`, `expired`),
 * at every endpoint, oldest first: what an interrupted run left in flight. Batches whose provider state is `failed` or
 * `cancelled`, and `lost` ones, are left out (nothing to read from them).
 */
export function unconsumedBatches(db: SqlDatabase, model: string): StoredBatch[] {
  return (db.prepare("SELECT * FROM batches WHERE model = ? AND state IN ('uploaded', 'submitted', 'completed', 'expired') ORDER BY submitted_at, id").all(model) as BatchRow[]).map(fromRow);
}

/** Every batch submitted for run `runId`, oldest first. */
export function batchesOfRun(db: SqlDatabase, runId: string): StoredBatch[] {
  return (db.prepare('SELECT * FROM batches WHERE run_id = ? ORDER BY submitted_at, id').all(runId) as BatchRow[]).map(fromRow);
}
