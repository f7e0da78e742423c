/**
 * Claims of several workers on one run (issue 17 §3): several `hpt-bench run` processes with the same configuration
 * and store work on the same run, each evaluating only the samples of the blocks it has claimed.
 *
 * A *block* is a run's samples `block * CLAIM_BLOCK ..< (block + 1) * CLAIM_BLOCK` by sample index. A claim row
 * (`run_claims`, one per run and block) names its worker (`<host>:<pid>`), a lease (epoch milliseconds) that the
 * worker renews with its heartbeat, and whether the block is done (every sample of it recorded). A block is taken with
 * one upsert: a new row, or the row of an expired lease (a dead or silent worker), or the worker's own row; a done
 * block is never taken again. The upsert is one statement, atomic on SQLite (the write lock) and on PostgreSQL (the
 * conflicting row's lock), so two workers never hold one block: no `SELECT … FOR UPDATE SKIP LOCKED`, which SQLite
 * lacks. Workers themselves are listed in `run_workers` (for `hpt-bench runs`, and to tell whether a run has live
 * workers). Every statement here is portable SQL (SQLite and PostgreSQL): `ON CONFLICT … DO UPDATE`, `RETURNING`,
 * INTEGER and TEXT columns only.
 */
import type { SqlDatabase } from './sql.js';

/**
 * Samples per claim block: 32. A worker makes one claim (one upsert plus one read of the block's recorded samples)
 * per block it evaluates, so about 1000 / 32 ≈ 31 claims per 1,000 samples whatever the number of workers, plus one
 * lease renewal per worker and heartbeat. It is fixed (not derived from `--concurrency`, which may differ between the
 * workers of a run): every worker must cut the run into the same blocks. A dead worker costs at most the unrecorded
 * samples of the blocks it held (see `run/share.ts`).
 */
export const CLAIM_BLOCK = 32;

/**
 * How long a claim lasts without renewal (ms): 30 s, the store's `STALE_MS` (a worker renews every `HEARTBEAT_MS`,
 * 5 s). A worker on this host whose process is gone loses its claims at once (`run/share.ts` checks the pid).
 */
export const LEASE_MS = 30_000;

/** The block of sample index `index` (blocks of `size` samples, default `CLAIM_BLOCK`). */
export function blockOf(index: number, size = CLAIM_BLOCK): number {
  return Math.floor(index / size);
}

/** The sample indices of block `block`: `[first, last]`, both inclusive. */
export function blockRange(block: number, size = CLAIM_BLOCK): [number, number] {
  return [block * size, block * size + size - 1];
}

/** A claim row: its block, worker, lease end (epoch ms), whether the block is done, and the worker it was taken from. */
export interface ClaimRow {
  block: number;
  worker: string;
  leaseUntil: number;
  done: boolean;
  /** the worker that held the block before an expired lease let `worker` take it over; null when never taken over */
  takenFrom: string | null;
}

/** A worker of a run as `run_workers` records it (times ISO-8601; `samples`: samples it finished; `claims`: blocks it took). */
export interface WorkerRow {
  runId: string;
  worker: string;
  startedAt: string;
  heartbeatAt: string;
  /** `running`; `finished` (its part done); `left` (stopped early, claims released); `failed` */
  state: string;
  samples: number;
  claims: number;
}

/**
 * Take block `block` of run `runId` for `worker` unless another worker holds an unexpired lease on it or it is done.
 * Renews the lease when `worker` already holds it. One statement (atomic across processes).
 * @param now epoch ms; the lease runs until `now + leaseMs`.
 * @returns whether `worker` holds the block now.
 */
export function claimBlock(db: SqlDatabase, runId: string, block: number, worker: string, now = Date.now(), leaseMs = LEASE_MS): boolean {
  const row = db
    .prepare(
      `INSERT INTO run_claims (run_id, block, worker, claimed_at, lease_until, done, taken_from) VALUES (?, ?, ?, ?, ?, 0, NULL)
       ON CONFLICT (run_id, block) DO UPDATE SET
         worker = excluded.worker,
         taken_from = CASE WHEN run_claims.worker = excluded.worker THEN run_claims.taken_from ELSE run_claims.worker END,
         claimed_at = excluded.claimed_at,
         lease_until = excluded.lease_until
       WHERE run_claims.done = 0 AND (run_claims.lease_until < excluded.claimed_at OR run_claims.worker = excluded.worker)
       RETURNING worker`,
    )
    .get(runId, block, worker, now, now + leaseMs) as { worker: string } | undefined;
  return row?.worker === worker;
}

/**
 * Extend the leases of every open block `worker` holds in run `runId` to `now + leaseMs` (its heartbeat).
 * @returns the blocks it still holds (a block whose lease expired and was taken over is no longer among them).
 */
export function renewClaims(db: SqlDatabase, runId: string, worker: string, now = Date.now(), leaseMs = LEASE_MS): number[] {
  db.prepare('UPDATE run_claims SET lease_until = ? WHERE run_id = ? AND worker = ? AND done = 0').run(now + leaseMs, runId, worker);
  return (db.prepare('SELECT block FROM run_claims WHERE run_id = ? AND worker = ? AND done = 0 ORDER BY block').all(runId, worker) as { block: number }[]).map((r) => r.block);
}

/**
 * Mark block `block` done (every sample of it recorded) if `worker` holds it; meant to run in the same transaction as
 * the block's last sample write, so "done" is never committed without the samples.
 * @returns whether the row was updated.
 */
export function completeBlock(db: SqlDatabase, runId: string, block: number, worker: string): boolean {
  return db.prepare('UPDATE run_claims SET done = 1 WHERE run_id = ? AND block = ? AND worker = ?').run(runId, block, worker).changes === 1;
}

/** Let the open blocks of `worker` be taken at once (a worker that stops early): their leases end now. @returns how many. */
export function releaseClaims(db: SqlDatabase, runId: string, worker: string): number {
  return db.prepare('UPDATE run_claims SET lease_until = 0 WHERE run_id = ? AND worker = ? AND done = 0').run(runId, worker).changes;
}

/** The open (not done) claims of run `runId`, by block. */
export function openClaims(db: SqlDatabase, runId: string): ClaimRow[] {
  return (db.prepare('SELECT block, worker, lease_until, done, taken_from FROM run_claims WHERE run_id = ? AND done = 0 ORDER BY block').all(runId) as Record<string, unknown>[]).map(claimFromRow);
}

/** Claim counts of run `runId`: blocks claimed, done, and taken over from another worker. */
export function claimCounts(db: SqlDatabase, runId: string): { blocks: number; done: number; takenOver: number } {
  const r = db
    .prepare('SELECT COUNT(*) AS blocks, COALESCE(SUM(done), 0) AS done, COALESCE(SUM(CASE WHEN taken_from IS NULL THEN 0 ELSE 1 END), 0) AS taken FROM run_claims WHERE run_id = ?')
    .get(runId) as { blocks: number; done: number; taken: number };
  return { blocks: Number(r.blocks), done: Number(r.done), takenOver: Number(r.taken) };
}

/** Forget every claim of run `runId` (a process that continues a run no live worker executes starts a new round). */
export function resetClaims(db: SqlDatabase, runId: string): void {
  db.prepare('DELETE FROM run_claims WHERE run_id = ?').run(runId);
}

/**
 * Record `worker` as a worker of run `runId`, state `running`, heartbeat now (again, when the same `<host>:<pid>`
 * worked on the run before).
 */
export function registerWorker(db: SqlDatabase, runId: string, worker: string, now = new Date().toISOString()): void {
  db.prepare(
    `INSERT INTO run_workers (run_id, worker, started_at, heartbeat_at, state, samples, claims) VALUES (?, ?, ?, ?, 'running', 0, 0)
     ON CONFLICT (run_id, worker) DO UPDATE SET started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, state = 'running', samples = 0, claims = 0`,
  ).run(runId, worker, now, now);
}

/** Update a worker's row: heartbeat now and, when given, its samples finished, blocks claimed and state. */
export function updateWorker(db: SqlDatabase, runId: string, worker: string, figures: { samples?: number; claims?: number; state?: string }, now = new Date().toISOString()): void {
  db.prepare('UPDATE run_workers SET heartbeat_at = ?, samples = COALESCE(?, samples), claims = COALESCE(?, claims), state = COALESCE(?, state) WHERE run_id = ? AND worker = ?').run(
    now, figures.samples ?? null, figures.claims ?? null, figures.state ?? null, runId, worker,
  );
}

/**
 * The workers of run `runId` (all runs when undefined), oldest first. A store without the table (written by an older
 * version and opened read-only) has none.
 */
export function listWorkers(db: SqlDatabase, runId?: string): WorkerRow[] {
  let rows: Record<string, unknown>[];
  try {
    rows = (runId === undefined
      ? db.prepare('SELECT * FROM run_workers ORDER BY run_id, started_at, worker').all()
      : db.prepare('SELECT * FROM run_workers WHERE run_id = ? ORDER BY started_at, worker').all(runId)) as Record<string, unknown>[];
  } catch {
    return [];
  }
  return rows.map((r) => ({
    runId: r.run_id as string,
    worker: r.worker as string,
    startedAt: r.started_at as string,
    heartbeatAt: r.heartbeat_at as string,
    state: r.state as string,
    samples: Number(r.samples),
    claims: Number(r.claims),
  }));
}

function claimFromRow(r: Record<string, unknown>): ClaimRow {
  return { block: Number(r.block), worker: r.worker as string, leaseUntil: Number(r.lease_until), done: Number(r.done) === 1, takenFrom: (r.taken_from as string | null) ?? null };
}
