import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { HptError, type Json, type SampleResult } from '@hpt-bench/sdk';
import { CallCache } from './cache.js';
import { assignBatch, batchesOfRun, recordBatch, type StoredBatch, type StoredBatchState, unconsumedBatches, updateBatch } from './batches.js';
import { claimBlock, claimCounts, type ClaimRow, completeBlock, listWorkers, openClaims, registerWorker, releaseClaims, renewClaims, resetClaims, updateWorker, type WorkerRow } from './claims.js';
import { saveCalibration, savedHpiDataset, type SavedCalibration } from './calibrations.js';
import { openStoreDatabase } from './backends.js';
import { isReadOnlyError } from './db.js';
import { storeLabel } from './location.js';
import { cacheStats, ladderVerdictRows, type LadderVerdictRow, type RunProgressCounts, runProgressCounts, samplePage, type SamplePageOptions, type SamplePageRow, sampleUnitRows, type CacheStats, type SampleUnitRow } from './queries.js';
import { attemptFromRow, selectionFromRow, storedGraded, toRun, wellFormed } from './rows.js';
import type { SqlDatabase, SqlStatement } from './sql.js';
import { decodeMessages, encodeMessages } from './texts.js';
import { checkGroupCommit, DEFAULT_GROUP_COMMIT, type GroupCommit, GroupWriter, type WriteQueue } from './writer.js';

export { wellFormed } from './rows.js';
export { blockOf, blockRange, CLAIM_BLOCK, type ClaimRow, LEASE_MS, type WorkerRow } from './claims.js';
export { DEFAULT_GROUP_COMMIT, type GroupCommit, type WriteQueue } from './writer.js';

/**
 * Hashes of committed shared texts a `RunStore` remembers: the first ones it stores, which are the chunks every sample
 * repeats (the fixed parts of prompt templates); a sample's own chunks are stored once anyway.
 */
const TEXTS_STORED_MAX = 4096;

/** State of a run in the store: `running` until it completes or fails; only `completed` runs have a trusted summary. */
export type RunStatus = 'running' | 'completed' | 'failed';

/** A run row. `config` is the validated run configuration (never secrets); `summary` is set when completed. */
export interface RunRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  status: RunStatus;
  dataset: string;
  model: string;
  mode: string;
  config: Record<string, Json>;
  summary: Record<string, Json> | null;
  error: string | null;
  /** identity of the result-relevant configuration (runs with equal hashes may resume each other) */
  configHash: string | null;
  /** the process executing the run (`<host>:<pid>`), while it runs; null once it completed or failed */
  owner: string | null;
  /** when the owner last said it is alive (ISO-8601), see `heartbeat` */
  heartbeatAt: string | null;
  /** what the scorer's environment check found before the run's first model call (`Scorer.preflight`), if it has one */
  preflight: Record<string, Json> | null;
  /**
   * what the run was made with (`RunFingerprint`, run/fingerprint.ts), recorded when the run was created and kept by
   * resumes; null for runs of stores written before fingerprints were recorded
   */
  fingerprint: Record<string, Json> | null;
}

/** Aggregates of a run's stored samples (used for the run summary; hpt.md §2.1). */
export interface StoredAggregate {
  /**
   * recorded scores: one per done sample, except adaptive runs under `--compat reference`, whose samples may carry zero
   * or two (hpt.md §2.3 (a)-(b))
   */
  n: number;
  hpiSum: number;
  solved: number;
  /** done samples (rows), whatever their number of recorded scores */
  samples: number;
  /** samples solved at each level, by level number; unsolved count separately */
  levelCounts: Record<string, number>;
  unsolved: number;
  /** samples recorded as errored (model calls failed after every retry); not in n, HPI or accuracy */
  errored: number;
  /** every recorded call of the ladder (cached or not) */
  calls: number;
  /** of which answered from the model-call cache (no request made) */
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** per level, model, cache and batch state: calls and tokens (`reasoningTokens` of `completionTokens`), and the calls that ended inside a thinking block */
  usageByLevel: { level: number; model: string; cached: boolean; batched?: boolean; calls: number; promptTokens: number; completionTokens: number; reasoningTokens?: number; truncatedThinking?: number }[];
  /** adaptive HPF: selections made, of which outside 1..m, and the selector model's calls by model and cache state */
  selections: number;
  invalidSelections: number;
  selectorUsage: { model: string; cached: boolean; batched?: boolean; calls: number; promptTokens: number; completionTokens: number; reasoningTokens?: number }[];
}


/**
 * The run store (DESIGN.md "store"): an SQLite file (WAL journal) or a PostgreSQL database (a `postgres://` URL, same
 * tables and guarantees; store/postgres.ts), every write of a sample in one transaction, so a
 * crash leaves either the whole sample (with its attempts and calls) or nothing of it. Sample writes are grouped into
 * shared transactions (`GroupCommit`).
 */
export class RunStore implements WriteQueue {
  /** the database connection (SQLite or PostgreSQL, `SqlDatabase`); new store code takes it and writes portable SQL */
  readonly db: SqlDatabase;

  /**
   * Open (creating directories and tables as needed) the store at `path`: an SQLite file, or a PostgreSQL database
   * given as a `postgres://user@host:port/db` (or `postgresql://`) URL, whose password is never shown in messages.
   * @param options.groupCommit batching of the per-sample writes (default `DEFAULT_GROUP_COMMIT`).
   * @param options.readonly open for reading only (the reading commands `runs`, `report`, `compare`, `cache stats`):
   *   works on a read-only file, directory or mount; the file must exist and nothing is created or migrated; any write
   *   throws `E_STORE`.
   * @throws HptError `E_STORE` when the file cannot be opened or is not an hpt-bench store.
   */
  constructor(readonly path: string, options: { groupCommit?: GroupCommit; readonly?: boolean } = {}) {
    const group = options.groupCommit ?? DEFAULT_GROUP_COMMIT;
    checkGroupCommit(group);
    this.readonly = options.readonly === true;
    try {
      this.db = openStoreDatabase(path, this.readonly, (copy) => (this.snapshot = copy));
    } catch (e) {
      const hint = this.readonly ? '' : isReadOnlyError(e) ? ' (the file or its directory is read-only: reading commands such as `runs` and `report` still work)' : '';
      throw new HptError('E_STORE', `cannot open store ${storeLabel(path)}: ${redactLocation((e as Error).message, path)}${hint}`, { exitCode: this.readonly ? 2 : 1 });
    }
    this.writer = new GroupWriter(this.db, storeLabel(path), group, this.readonly, {
      committed: () => {
        for (const h of this.textsPending) this.textsStored.add(h);
        this.textsPending.clear();
      },
      rolledBack: () => this.textsPending.clear(),
    });
  }

  /** Opened with `readonly` (see the constructor). */
  readonly readonly: boolean;
  /** the temporary copy read instead of `path` (see `openReadOnly`), removed on close */
  private snapshot: string | undefined;
  private readonly writer: GroupWriter;

  /** Queue `write` for the next group commit (`GroupWriter.defer`). */
  defer(write: () => void): void {
    this.writer.defer(write);
  }

  /** Commit the queued writes now (`GroupWriter.flush`). */
  flush(): void {
    this.writer.flush();
  }

  /** The first failed commit of this store, if any (sticky: a store that lost a write accepts no more writes). */
  get failure(): HptError | undefined {
    return this.writer.failure;
  }

  /** Commit the queue before a read, so the store reads its own writes (a broken store reads what it holds). */
  private sync(): void {
    this.writer.sync();
  }

  /**
   * Record a new run in state `running`, owned by `owner` (`<host>:<pid>`, see `RunRecord.owner`). `configHash`
   * identifies runs that may resume each other; `fingerprint` is what the run is made with (`RunFingerprint`).
   */
  createRun(run: { id: string; dataset: string; model: string; mode: string; config: Record<string, Json>; configHash?: string; owner?: string; fingerprint?: Record<string, Json> }): void {
    this.flush();
    const now = new Date().toISOString();
    this.db
      .prepare('INSERT INTO runs (id, created_at, updated_at, status, dataset, model, mode, config, config_hash, owner, heartbeat_at, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(run.id, now, now, 'running', run.dataset, run.model, run.mode, JSON.stringify(run.config), run.configHash ?? null, run.owner ?? null, run.owner ? now : null, run.fingerprint ? JSON.stringify(run.fingerprint) : null);
  }

  /**
   * Run `fn` in one IMMEDIATE transaction: no other connection (process) can write between its reads and writes, so
   * "find the run to continue, then take it" is atomic across processes. `fn` must be synchronous.
   */
  exclusive<T>(fn: () => T): T {
    this.flush();
    return this.db.transaction(fn).immediate();
  }

  /**
   * Take over run `runId` for `owner`: back to `running` with its error cleared and its summary dropped until it
   * completes again, owner and heartbeat set. Call inside `exclusive` after checking the previous owner is gone.
   */
  claimRun(runId: string, owner: string): void {
    this.flush();
    const now = new Date().toISOString();
    this.db.prepare("UPDATE runs SET status = 'running', error = NULL, summary = NULL, updated_at = ?, owner = ?, heartbeat_at = ? WHERE id = ?").run(now, owner, now, runId);
  }

  /**
   * Take block `block` of run `runId` for `worker` (claims.ts `claimBlock`: one atomic upsert, outside the group
   * commit). @returns whether `worker` holds it now.
   */
  claimBlock(runId: string, block: number, worker: string, now = Date.now(), leaseMs?: number): boolean {
    return claimBlock(this.db, runId, block, worker, now, leaseMs);
  }

  /** Extend `worker`'s leases in run `runId` (claims.ts `renewClaims`); @returns the blocks it still holds. */
  renewClaims(runId: string, worker: string, now = Date.now(), leaseMs?: number): number[] {
    return renewClaims(this.db, runId, worker, now, leaseMs);
  }

  /**
   * Mark block `block` done in the next group commit, in the same transaction as the block's last queued sample
   * writes (claims.ts `completeBlock`).
   */
  completeBlock(runId: string, block: number, worker: string): void {
    this.defer(() => completeBlock(this.db, runId, block, worker));
  }

  /** Commit the queue, then end `worker`'s open leases in run `runId` so others take its blocks at once. @returns how many. */
  releaseClaims(runId: string, worker: string): number {
    this.flush();
    return releaseClaims(this.db, runId, worker);
  }

  /** The open (not done) claims of run `runId` (claims.ts `openClaims`), after committing the queue. */
  openClaims(runId: string): ClaimRow[] {
    this.sync();
    return openClaims(this.db, runId);
  }

  /** Blocks claimed, done and taken over in run `runId` (claims.ts `claimCounts`). */
  claimCounts(runId: string): { blocks: number; done: number; takenOver: number } {
    this.sync();
    return claimCounts(this.db, runId);
  }

  /** Forget every claim of run `runId` (a new round of a run no live worker executes). */
  resetClaims(runId: string): void {
    this.flush();
    resetClaims(this.db, runId);
  }

  /** Record `worker` as a worker of run `runId` (claims.ts `registerWorker`). */
  registerWorker(runId: string, worker: string): void {
    this.flush();
    registerWorker(this.db, runId, worker);
  }

  /** Heartbeat and figures of a worker (claims.ts `updateWorker`); best effort: false when the write failed. */
  updateWorker(runId: string, worker: string, figures: { samples?: number; claims?: number; state?: string }): boolean {
    try {
      updateWorker(this.db, runId, worker, figures);
      return true;
    } catch {
      return false;
    }
  }

  /** The workers of run `runId`, or of every run (claims.ts `listWorkers`). */
  listWorkers(runId?: string): WorkerRow[] {
    this.sync();
    return listWorkers(this.db, runId);
  }

  /**
   * The indices in `[first, last]` that run `runId` has recorded as done and committed (a block just claimed: its
   * samples to skip). Does not commit this connection's queue first — a worker has queued nothing of a block it did
   * not hold — so claiming a block does not cut the group commit short.
   */
  doneIndices(runId: string, first: number, last: number): Set<number> {
    const out = new Set<number>();
    for (const r of this.stmt("SELECT idx FROM samples WHERE run_id = ? AND idx >= ? AND idx <= ? AND status = 'done'").all(runId, first, last) as { idx: number }[]) out.add(Number(r.idx));
    return out;
  }

  /** Keep the scorer's environment check with the run (`RunRecord.preflight`). */
  setPreflight(runId: string, preflight: Record<string, Json>): void {
    this.flush();
    this.db.prepare('UPDATE runs SET preflight = ? WHERE id = ?').run(JSON.stringify(preflight), runId);
  }

  /**
   * Record that `owner` still executes `runId` (a running process calls this every few seconds). Best effort and
   * outside the group commit: returns false when the write failed (e.g. a full disk) or the run has another owner.
   */
  heartbeat(runId: string, owner: string): boolean {
    try {
      return this.stmt('UPDATE runs SET heartbeat_at = ? WHERE id = ? AND owner = ?').run(new Date().toISOString(), runId, owner).changes === 1;
    } catch {
      return false;
    }
  }

  /** The newest unfinished (`running` or `failed`) run with this configuration hash, if any (resume). */
  findUnfinished(configHash: string): RunRecord | undefined {
    this.sync();
    const row = this.db
      .prepare("SELECT * FROM runs WHERE config_hash = ? AND status IN ('running', 'failed') ORDER BY created_at DESC, id DESC LIMIT 1")
      .get(configHash) as Record<string, unknown> | undefined;
    return row ? toRun(row) : undefined;
  }

  /** The newest run with this configuration hash in any state, if any (`--retry-errors`). */
  findLatest(configHash: string): RunRecord | undefined {
    this.sync();
    const row = this.db.prepare('SELECT * FROM runs WHERE config_hash = ? ORDER BY created_at DESC, id DESC LIMIT 1').get(configHash) as Record<string, unknown> | undefined;
    return row ? toRun(row) : undefined;
  }

  /** Indices of the samples a run has recorded, by state: `done` (a ladder result) or `errored`. */
  recordedIndices(runId: string): { done: Set<number>; errored: Set<number> } {
    this.sync();
    const done = new Set<number>();
    const errored = new Set<number>();
    for (const row of this.db.prepare('SELECT idx, status FROM samples WHERE run_id = ?').iterate(runId) as Iterable<{ idx: number; status: string }>) {
      (row.status === 'errored' ? errored : done).add(row.idx);
    }
    return { done, errored };
  }

  /**
   * The samples a run has recorded, by index: their id, content hash (null for rows written before hashes were kept)
   * and state. A resume checks each streamed sample against this.
   */
  recordedSamples(runId: string): Map<number, { sampleId: string; hash: string | null; errored: boolean }> {
    this.sync();
    const out = new Map<number, { sampleId: string; hash: string | null; errored: boolean }>();
    for (const row of this.db.prepare('SELECT idx, sample_id, sample_hash, status FROM samples WHERE run_id = ?').iterate(runId) as Iterable<{ idx: number; sample_id: string; sample_hash: string | null; status: string }>) {
      out.set(row.idx, { sampleId: row.sample_id, hash: row.sample_hash, errored: row.status === 'errored' });
    }
    return out;
  }

  /**
   * Record a sample whose model calls failed after every retry: state `errored` with the reason, no
   * level and no HPI contribution; `--retry-errors` redoes it. Replaces an earlier errored row of the same index; a
   * done row (another worker of a shared run recorded the sample meanwhile) is kept.
   */
  saveErrored(runId: string, sample: { id: string; index: number; target: Json; meta?: Record<string, Json> }, reason: string, sampleHash?: string): void {
    const target = JSON.stringify(sample.target);
    const meta = sample.meta ? JSON.stringify(sample.meta) : null;
    const error = wellFormed(reason);
    this.defer(() => {
      this.stmt("DELETE FROM samples WHERE run_id = ? AND idx = ? AND status = 'errored'").run(runId, sample.index);
      this.stmt("INSERT INTO samples (run_id, idx, sample_id, level, hpi, solved, prediction, target, meta, status, error, sample_hash) VALUES (?, ?, ?, NULL, 0, 0, 'null', ?, ?, 'errored', ?, ?) ON CONFLICT (run_id, idx) DO NOTHING")
        .run(runId, sample.index, wellFormed(sample.id), target, meta, error, sampleHash ?? null);
    });
  }

  private readonly statements = new Map<string, SqlStatement>();

  /** A prepared statement, compiled once per store (the per-sample writes are on the hot path of a run). */
  private stmt(sql: string): SqlStatement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /** Shared texts this store has committed (their rows exist: no INSERT needed); bounded by `TEXTS_STORED_MAX`. */
  private readonly textsStored = new Set<string>();
  /** Shared texts inserted by the transaction in progress: stored once it commits, forgotten if it rolls back. */
  private readonly textsPending = new Set<string>();

  /**
   * Store a shared prompt line once (texts.ts), inside the write of the sample that uses it, so the line is committed
   * or rolled back with the sample. Lines this store committed already are skipped (`textsStored` learns a hash only
   * when the transaction that inserted it commits, so a rolled-back sample never leaves a dangling reference).
   */
  private readonly putText = (hash: string, body: string): void => {
    if (this.textsStored.has(hash)) return;
    this.stmt('INSERT INTO texts (hash, body) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING').run(hash, body);
    if (this.textsStored.size < TEXTS_STORED_MAX) this.textsPending.add(hash);
  };

  /** A stored call's messages with their shared lines restored (texts.ts). */
  private messagesOf(json: string): ReturnType<typeof decodeMessages> {
    return decodeMessages(json, (hash) => (this.stmt('SELECT body FROM texts WHERE hash = ?').get(hash) as { body: string } | undefined)?.body);
  }

  private readonly insertSample = (runId: string, r: SampleResult, sampleHash: string | null): void => {
    const records = r.records;
    const solved = records ? records.filter((x) => x.solved).length : r.solved ? 1 : 0;
    // a sample another worker of a shared run recorded meanwhile (it took the block over after this worker's lease
    // expired) keeps the first record: nothing of this one is written
    const inserted = this.stmt('INSERT INTO samples (run_id, idx, sample_id, level, hpi, solved, prediction, target, meta, iteration, scores, records, sample_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, idx) DO NOTHING').run(
      runId, r.index, wellFormed(r.sampleId), r.level, r.hpi, solved, JSON.stringify(r.prediction), JSON.stringify(r.target), r.meta ? JSON.stringify(r.meta) : null,
      r.iteration ?? null, records ? records.length : 1, records ? JSON.stringify(records) : null, sampleHash,
    );
    if (inserted.changes === 0) return;
    const insA = this.stmt('INSERT INTO attempts (run_id, idx, attempt, level, strategy, solved, score, extracted, graded, notes, iteration, extraction) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const insC = this.stmt(
      'INSERT INTO calls (run_id, idx, attempt, level, seq, purpose, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason, mean_token_prob, cached, batched, reasoning, reasoning_tokens, truncated_thinking) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const [n, a] of r.attempts.entries()) {
      insA.run(runId, r.index, n, a.level, a.strategy, a.solved ? 1 : 0, a.score, JSON.stringify(a.extracted), storedGraded(a), a.notes ? JSON.stringify(a.notes) : null, a.iteration ?? null, a.extraction ? JSON.stringify(a.extraction) : null);
      for (const c of a.calls) {
        insC.run(runId, r.index, n, a.level, c.seq, c.purpose, c.model, encodeMessages(c.messages, this.putText), wellFormed(c.output), c.usage.promptTokens, c.usage.completionTokens, c.latencyMs, c.finishReason, c.meanTokenProb ?? null, c.cached ? 1 : 0, c.batched ? 1 : 0, c.reasoning !== undefined ? wellFormed(c.reasoning) : null, c.usage.reasoningTokens ?? null, c.truncatedThinking ? 1 : 0);
      }
    }
    if (r.selections?.length) {
      const insS = this.stmt(
        'INSERT INTO selections (run_id, idx, iteration, level, valid, raw, solved, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason, cached, batched, reasoning, reasoning_tokens, truncated_thinking) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const s of r.selections) {
        const c = s.call;
        insS.run(
          runId, r.index, s.iteration, s.level, s.valid ? 1 : 0, s.raw === undefined ? null : wellFormed(s.raw), s.solved === undefined ? null : s.solved ? 1 : 0,
          c?.model ?? null, c ? encodeMessages(c.messages, this.putText) : null, c ? wellFormed(c.output) : null, c?.usage.promptTokens ?? 0, c?.usage.completionTokens ?? 0, c?.latencyMs ?? null, c?.finishReason ?? null, c?.cached ? 1 : 0, c?.batched ? 1 : 0,
          c?.reasoning !== undefined ? wellFormed(c.reasoning) : null, c?.usage.reasoningTokens ?? null, c?.truncatedThinking ? 1 : 0,
        );
      }
    }
  };

  /**
   * Append one sample's result with its attempts and calls, atomically (a crash leaves all of it or none of it), in the
   * next group commit (`GroupCommit`). An earlier `errored` row of the same index (being retried) is replaced in the
   * same transaction; an earlier done row is kept (the first record of a sample wins). `result` must not be mutated afterwards (it is written when the group commits).
   */
  saveSample(runId: string, result: SampleResult, sampleHash?: string): void {
    this.defer(() => {
      this.stmt("DELETE FROM samples WHERE run_id = ? AND idx = ? AND status = 'errored'").run(runId, result.index);
      this.insertSample(runId, result, sampleHash ?? null);
    });
  }

  /** Mark a run completed with its summary. */
  finishRun(runId: string, summary: Record<string, Json>): void {
    this.flush();
    this.db.prepare("UPDATE runs SET status = 'completed', summary = ?, updated_at = ?, owner = NULL WHERE id = ?").run(JSON.stringify(summary), new Date().toISOString(), runId);
  }

  /**
   * Mark a run failed with the reason (already free of secrets), committing the queue first. Best effort: on a broken
   * or full store the run may stay `running`, which a re-run continues just the same.
   * @returns whether the state was written.
   */
  failRun(runId: string, error: string): boolean {
    try {
      this.sync();
    } catch {
      // the queue could not be committed (the store is broken now): record the state all the same if possible
    }
    try {
      this.db.prepare("UPDATE runs SET status = 'failed', error = ?, updated_at = ?, owner = NULL WHERE id = ?").run(error, new Date().toISOString(), runId);
      return true;
    } catch {
      return false;
    }
  }

  /** A run by id, or undefined. */
  getRun(id: string): RunRecord | undefined {
    this.sync();
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return row ? toRun(row) : undefined;
  }

  /** All runs, newest first. */
  listRuns(): RunRecord[] {
    this.sync();
    return (this.db.prepare('SELECT * FROM runs ORDER BY created_at DESC, id DESC').all() as Record<string, unknown>[]).map(toRun);
  }

  /** Aggregate a run's stored samples and calls. */
  aggregate(runId: string): StoredAggregate {
    this.sync();
    const s = this.db
      .prepare("SELECT COUNT(*) AS samples, COALESCE(SUM(scores), 0) AS n, COALESCE(SUM(hpi), 0) AS hpi_sum, COALESCE(SUM(solved), 0) AS solved FROM samples WHERE run_id = ? AND status = 'done'")
      .get(runId) as { samples: number; n: number; hpi_sum: number; solved: number };
    const errored = (this.db.prepare("SELECT COUNT(*) AS c FROM samples WHERE run_id = ? AND status = 'errored'").get(runId) as { c: number }).c;
    const levels = this.db.prepare("SELECT level, COUNT(*) AS c FROM samples WHERE run_id = ? AND status = 'done' AND solved > 0 GROUP BY level").all(runId) as { level: number; c: number }[];
    const sel = this.db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(1 - valid), 0) AS invalid FROM selections WHERE run_id = ?').get(runId) as { n: number; invalid: number };
    const selectorUsage = (
      this.db
        .prepare('SELECT model, cached, batched, COUNT(*) AS calls, COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c, COALESCE(SUM(reasoning_tokens), 0) AS r FROM selections WHERE run_id = ? AND model IS NOT NULL GROUP BY model, cached, batched ORDER BY model, cached, batched')
        .all(runId) as { model: string; cached: number; batched: number; calls: number; p: number; c: number; r: number }[]
    ).map((r) => ({ model: r.model, cached: r.cached === 1, batched: r.batched === 1, calls: r.calls, promptTokens: r.p, completionTokens: r.c, ...(Number(r.r) ? { reasoningTokens: Number(r.r) } : {}) }));
    const calls = this.db
      .prepare('SELECT COUNT(*) AS calls, COALESCE(SUM(cached), 0) AS cached, COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c FROM calls WHERE run_id = ?')
      .get(runId) as { calls: number; cached: number; p: number; c: number };
    const perLevel = this.db
      .prepare(
        'SELECT level, model, cached, batched, COUNT(*) AS calls, COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c, COALESCE(SUM(reasoning_tokens), 0) AS r, COALESCE(SUM(truncated_thinking), 0) AS t FROM calls WHERE run_id = ? GROUP BY level, model, cached, batched ORDER BY level, model, cached, batched',
      )
      .all(runId) as { level: number; model: string; cached: number; batched: number; calls: number; p: number; c: number; r: number; t: number }[];
    const levelCounts: Record<string, number> = {};
    for (const l of levels) levelCounts[String(l.level)] = l.c;
    return {
      n: s.n,
      hpiSum: this.db.dialect === 'sqlite' ? s.hpi_sum : compensatedSum(this.db.prepare("SELECT hpi FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").all(runId) as { hpi: number }[]),
      solved: s.solved,
      samples: s.samples,
      levelCounts,
      // every recorded score that is not a solve is a penalty (manual: the unsolved samples)
      unsolved: s.n - s.solved,
      errored,
      calls: calls.calls,
      cachedCalls: calls.cached,
      promptTokens: calls.p,
      completionTokens: calls.c,
      usageByLevel: perLevel.map((r) => ({ level: r.level, model: r.model, cached: r.cached === 1, batched: r.batched === 1, calls: r.calls, promptTokens: r.p, completionTokens: r.c, ...(Number(r.r) ? { reasoningTokens: Number(r.r) } : {}), ...(Number(r.t) ? { truncatedThinking: Number(r.t) } : {}) })),
      selections: sel.n,
      invalidSelections: sel.invalid,
      selectorUsage,
    };
  }

  /**
   * Stream a run's recorded predictions and targets in input order (for dataset metrics; hpt.md §3: one prediction per
   * sample, the solving level's or the last level's).
   */
  *iterPredictions(runId: string): Generator<{ sampleId: string; index: number; prediction: Json; target: Json; solved: boolean; meta?: Record<string, Json> }> {
    this.sync();
    for (const row of this.db.prepare("SELECT sample_id, idx, prediction, target, solved, meta, records FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").iterate(runId) as Iterable<Record<string, unknown>>) {
      const base = {
        sampleId: row.sample_id as string,
        index: row.idx as number,
        target: JSON.parse(row.target as string) as Json,
        ...(typeof row.meta === 'string' ? { meta: JSON.parse(row.meta) as Record<string, Json> } : {}),
      };
      // adaptive runs under --compat reference: one prediction per recorded score (zero or two; hpt.md §2.3)
      if (typeof row.records === 'string') {
        for (const r of JSON.parse(row.records) as { solved: boolean; prediction: Json }[]) yield { ...base, prediction: r.prediction, solved: r.solved };
        continue;
      }
      yield { ...base, prediction: JSON.parse(row.prediction as string) as Json, solved: row.solved === 1 };
    }
  }

  /** Stream a run's sample results in input order, with their attempts and calls (for `--out`). */
  *iterSamples(runId: string): Generator<SampleResult> {
    this.sync();
    for (const row of this.db.prepare("SELECT * FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").iterate(runId) as Iterable<Record<string, unknown>>) {
      yield this.sampleFromRow(runId, row);
    }
  }

  /**
   * One done sample of a run by its index (`samples.idx`), with its attempts, calls and selections, as `iterSamples`
   * yields it; undefined when the run has no done sample at that index (unknown, errored, or not recorded yet).
   */
  getSample(runId: string, index: number): SampleResult | undefined {
    this.sync();
    const row = this.db.prepare("SELECT * FROM samples WHERE run_id = ? AND idx = ? AND status = 'done'").get(runId, index) as Record<string, unknown> | undefined;
    return row ? this.sampleFromRow(runId, row) : undefined;
  }

  /** A `samples` row as a `SampleResult`, its attempts, calls and selections read by the row's index. */
  private sampleFromRow(runId: string, row: Record<string, unknown>): SampleResult {
    const idx = row.idx as number;
    const calls = this.stmt('SELECT * FROM calls WHERE run_id = ? AND idx = ? ORDER BY attempt, seq').all(runId, idx) as Record<string, unknown>[];
    const messages = (json: string) => this.messagesOf(json);
    const selections = (this.stmt('SELECT * FROM selections WHERE run_id = ? AND idx = ? ORDER BY iteration').all(runId, idx) as Record<string, unknown>[]).map((s) => selectionFromRow(s, messages));
    const attempts = (this.stmt('SELECT * FROM attempts WHERE run_id = ? AND idx = ? ORDER BY attempt').all(runId, idx) as Record<string, unknown>[]).map((a) => attemptFromRow(a, calls, messages));
    return {
      sampleId: row.sample_id as string,
      index: idx,
      level: row.level as number | null,
      hpi: row.hpi as number,
      solved: row.solved === 1,
      prediction: JSON.parse(row.prediction as string) as Json,
      target: JSON.parse(row.target as string) as Json,
      attempts,
      ...(typeof row.meta === 'string' ? { meta: JSON.parse(row.meta) as Record<string, Json> } : {}),
      ...(row.iteration !== null && row.iteration !== undefined ? { iteration: row.iteration as number } : {}),
      ...(selections.length ? { selections } : {}),
      ...(typeof row.records === 'string' ? { records: JSON.parse(row.records) as NonNullable<SampleResult['records']> } : {}),
    };
  }

  /** How far a run has got: done and errored rows, HPI sum, scores and solves so far (`runProgressCounts`). */
  runProgress(runId: string): RunProgressCounts {
    this.sync();
    return runProgressCounts(this.db, runId);
  }

  /** A page of a run's samples, done and errored, in input order, with the filter's total (`samplePage`). */
  samplePage(runId: string, options: SamplePageOptions = {}): { total: number; rows: SamplePageRow[] } {
    this.sync();
    return samplePage(this.db, runId, options);
  }

  /** Delete errored rows of these indices (samples that failed only because the endpoint was down). */
  deleteErrored(runId: string, indices: number[]): void {
    this.flush();
    const del = this.db.prepare("DELETE FROM samples WHERE run_id = ? AND idx = ? AND status = 'errored'");
    this.db.transaction(() => {
      for (const i of indices) del.run(runId, i);
    })();
  }

  /** A run's errored samples in input order, with the reason each failed. */
  erroredSamples(runId: string): { sampleId: string; index: number; error: string }[] {
    this.sync();
    return (this.db.prepare("SELECT sample_id, idx, error FROM samples WHERE run_id = ? AND status = 'errored' ORDER BY idx").all(runId) as Record<string, unknown>[]).map((r) => ({
      sampleId: r.sample_id as string,
      index: r.idx as number,
      error: (r.error as string | null) ?? '',
    }));
  }

  /** Per run: samples done and errored (for `hpt-bench runs`). */
  sampleCounts(): Map<string, { done: number; errored: number }> {
    this.sync();
    const out = new Map<string, { done: number; errored: number }>();
    for (const r of this.db.prepare('SELECT run_id, status, COUNT(*) AS c FROM samples GROUP BY run_id, status').all() as { run_id: string; status: string; c: number }[]) {
      const e = out.get(r.run_id) ?? { done: 0, errored: 0 };
      if (r.status === 'errored') e.errored = r.c;
      else e.done = r.c;
      out.set(r.run_id, e);
    }
    return out;
  }

  /** A run's done samples in input order, as reports read them (`sampleUnitRows`). */
  sampleUnitRows(runId: string): SampleUnitRow[] {
    this.sync();
    return sampleUnitRows(this.db, runId);
  }

  /**
   * The verdicts of a manual run's stored attempts, one row per attempt of each done sample, by sample index then
   * attempt (`ladderVerdictRows`; issue 28: with `--full-ladder`, every level of every sample).
   */
  ladderVerdictRows(runId: string): LadderVerdictRow[] {
    this.sync();
    return ladderVerdictRows(this.db, runId);
  }

  /** Size and use of the model-call cache (`cacheStats`). */
  cacheStats(): CacheStats {
    this.sync();
    // a store without the table has no entries (and a read-only store cannot create it)
    if (!this.db.hasTable('call_cache')) return { entries: 0, bytes: 0, hits: 0, byModel: {} };
    return cacheStats(this.db);
  }

  /** Delete every cached model response, or only those of model id `model`; returns the number deleted. */
  clearCache(model?: string): number {
    this.flush();
    return new CallCache(this.db).clear(model);
  }

  /**
   * Record a batch just uploaded or created by `run --batch` under its endpoint and id (`recordBatch`; a batch the
   * endpoint has forgotten under the same id is superseded), committed at once: it must survive a crash.
   */
  recordBatch(batch: Omit<StoredBatch, 'state' | 'outputFileId' | 'errorFileId' | 'finishedAt'> & { state?: 'uploaded' | 'submitted' }): void {
    this.flush();
    recordBatch(this.db, batch);
  }

  /** The uploaded batch `uploadedId` at `endpoint` got its provider id `batchId` (`assignBatch`), committed at once. */
  assignBatch(endpoint: string | null, uploadedId: string, batchId: string): void {
    this.flush();
    assignBatch(this.db, endpoint, uploadedId, batchId);
  }

  /**
   * Set the state of the stored batch `id` at `endpoint` (`updateBatch`). `consumed` is queued for the group commit,
   * after the cache entries of its results (so a crash loses both or neither); any other state is committed at once.
   */
  updateBatch(endpoint: string | null, id: string, state: StoredBatchState, extra: { outputFileId?: string; errorFileId?: string; finishedAt?: string } = {}): void {
    if (state === 'consumed') {
      this.defer(() => updateBatch(this.db, endpoint, id, state, extra));
      return;
    }
    this.flush();
    updateBatch(this.db, endpoint, id, state, extra);
  }

  /** The batches of model id `model` whose results are still to be read, at every endpoint (`unconsumedBatches`). */
  unconsumedBatches(model: string): StoredBatch[] {
    this.flush();
    return unconsumedBatches(this.db, model);
  }

  /**
   * The batches of run `runId` (`batchesOfRun`), after committing the queue; none in a store written before batches
   * were recorded (opened read-only, such a store has no `batches` table).
   */
  batchesOfRun(runId: string): StoredBatch[] {
    this.sync();
    if (this.readonly && !this.db.hasTable('batches')) return [];
    return batchesOfRun(this.db, runId);
  }

  /** Save `calibration` as its dataset's HPI_Dataset (`saveCalibration`, hpt.md §2.4). */
  saveCalibration(calibration: { dataset: string; hpiDataset: number; n: number; source: string; createdAt?: string }): SavedCalibration {
    this.flush();
    return saveCalibration(this.db, calibration);
  }

  /** The HPI_Dataset saved for `datasetId`, or undefined (`savedHpiDataset`). */
  savedHpiDataset(datasetId: string): SavedCalibration | undefined {
    this.sync();
    return savedHpiDataset(this.db, datasetId);
  }

  /**
   * Commit the queued writes and close the database. A broken store (see `flush`) is closed without throwing again:
   * its error was already raised to the writer.
   */
  close(): void {
    try {
      this.sync();
    } finally {
      this.writer.dispose();
      this.db.close();
      if (this.snapshot) rmSync(dirname(this.snapshot), { recursive: true, force: true });
    }
  }
}

/** `message` without the password of `location` (a database URL; error text may quote it). */
function redactLocation(message: string, location: string): string {
  const label = storeLabel(location);
  return label === location ? message : message.split(location).join(label);
}

/**
 * The sum of the rows' `hpi` as SQLite's SUM computes it (since 3.43: Kahan-Babuska-Neumaier compensated summation, in
 * the rows' order, here input order as SQLite reads them through the primary key), so a PostgreSQL store (whose SUM
 * adds doubles plainly, in storage order) gives the same HPI to the last bit.
 */
function compensatedSum(rows: { hpi: number }[]): number {
  let sum = 0;
  let err = 0;
  for (const { hpi } of rows) {
    const t = sum + hpi;
    err += Math.abs(sum) > Math.abs(hpi) ? sum - t + hpi : hpi - t + sum;
    sum = t;
  }
  return sum + err;
}
