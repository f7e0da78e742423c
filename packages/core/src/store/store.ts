import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { type CallRecord, type GradedOutput, HptError, type Json, type SelectionRecord } from '@hpt-bench/sdk';
import type { AttemptRecord, SampleResult } from '../ladder/engine.js';
import { CallCache } from './cache.js';
import { saveCalibration, savedHpiDataset, type SavedCalibration } from './calibrations.js';
import { sampleUnitRows, type CacheStats, type SampleUnitRow } from './queries.js';
import { MIGRATE_ATTEMPTS_V2, RUN_SCHEMA } from './schema.js';

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
  /** calls and tokens per ladder level, model and cache state (for usage and cost per level) */
  usageByLevel: { level: number; model: string; cached: boolean; calls: number; promptTokens: number; completionTokens: number }[];
  /** adaptive HPF: selections made, of which outside 1..m, and the selector model's calls by model and cache state */
  selections: number;
  invalidSelections: number;
  selectorUsage: { model: string; cached: boolean; calls: number; promptTokens: number; completionTokens: number }[];
}

/**
 * Group commit of the store (throughput): the per-sample writes of a run (and the call cache's writes, see
 * `CallCache`) are queued and committed together, in one transaction, once `maxWrites` are queued or `maxDelayMs`
 * after the first of them, whichever comes first. A commit per sample cost about 50 µs of CPU and 34 page writes per
 * 11-call sample: 30,000 random-baseline BoolQ samples took 3.6 s with it and take 2.0 s with groups.
 * A crash (SIGKILL, power loss) loses at most the queued writes — the samples finished in the last `maxDelayMs` — and
 * never leaves a partial sample: a resume redoes them. Every read of the store, every other write, `close()` and
 * process exit commit the queue first, so within the process the store always reads its own writes.
 */
export interface GroupCommit {
  /** commit when this many writes (samples, errored samples, cache entries) are queued; ≥ 1 (1 = commit each write) */
  maxWrites: number;
  /** commit at the latest this many milliseconds after the first queued write */
  maxDelayMs: number;
}

/** The store's default group commit: 128 writes or 100 ms. */
export const DEFAULT_GROUP_COMMIT: GroupCommit = { maxWrites: 128, maxDelayMs: 100 };

/** Queues writes for the next group commit (implemented by `RunStore`; used by `CallCache`). */
export interface WriteQueue {
  /** Run `write` (synchronous SQLite statements) inside the next group commit. */
  defer(write: () => void): void;
  /** Commit every queued write now. */
  flush(): void;
}

/**
 * The SQLite run store (DESIGN.md "store"): one file, WAL journal, every write of a sample in one transaction, so a
 * crash leaves either the whole sample (with its attempts and calls) or nothing of it. Sample writes are grouped into
 * shared transactions (`GroupCommit`).
 */
export class RunStore implements WriteQueue {
  readonly db: Database.Database;
  private readonly group: GroupCommit;
  private queue: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly flushOnExit = (): void => {
    try {
      this.flush();
    } catch {
      // the process is exiting: what could not be written is redone by a resume
    }
  };
  /** the first failed commit: every later write and flush throws it */
  private broken: HptError | undefined;

  /**
   * Open (creating directories and tables as needed) the store at `path`.
   * @param options.groupCommit batching of the per-sample writes (default `DEFAULT_GROUP_COMMIT`).
   * @param options.readonly open for reading only (the reading commands `runs`, `report`, `compare`, `cache stats`):
   *   works on a read-only file, directory or mount; the file must exist and nothing is created or migrated; any write
   *   throws `E_STORE`.
   * @throws HptError `E_STORE` when the file cannot be opened or is not an hpt-bench store.
   */
  constructor(readonly path: string, options: { groupCommit?: GroupCommit; readonly?: boolean } = {}) {
    this.group = options.groupCommit ?? DEFAULT_GROUP_COMMIT;
    if (!(this.group.maxWrites >= 1) || !(this.group.maxDelayMs >= 0)) throw new HptError('E_STORE', `invalid group commit ${JSON.stringify(this.group)}: maxWrites ≥ 1, maxDelayMs ≥ 0`);
    this.readonly = options.readonly === true;
    try {
      if (this.readonly) {
        this.db = openReadOnly(path, (copy) => (this.snapshot = copy));
        this.db.pragma('busy_timeout = 5000');
        if (!this.hasTable('runs')) throw new Error('not an hpt-bench store (no runs table)');
        return;
      }
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      this.db = new Database(path);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.db.pragma('busy_timeout = 5000');
      // stores written by earlier versions gain the newer columns (nullable or defaulted, so old rows stay valid)
      this.addMissingColumns('samples', { meta: 'TEXT', status: "TEXT NOT NULL DEFAULT 'done'", error: 'TEXT', iteration: 'INTEGER', scores: 'INTEGER NOT NULL DEFAULT 1', records: 'TEXT', sample_hash: 'TEXT' });
      this.addMissingColumns('calls', { cached: 'INTEGER NOT NULL DEFAULT 0' });
      this.addMissingColumns('runs', { config_hash: 'TEXT', owner: 'TEXT', heartbeat_at: 'TEXT', preflight: 'TEXT' });
      if (this.hasTable('attempts') && this.hasTable('calls') && !this.columns('attempts').has('attempt')) this.migrateAttemptsV2();
      this.db.exec(RUN_SCHEMA);
    } catch (e) {
      const hint = this.readonly ? '' : isReadOnlyError(e) ? ' (the file or its directory is read-only: reading commands such as `runs` and `report` still work)' : '';
      throw new HptError('E_STORE', `cannot open store ${path}: ${(e as Error).message}${hint}`, { exitCode: this.readonly ? 2 : 1 });
    }
  }

  /** Opened with `readonly` (see the constructor). */
  readonly readonly: boolean;
  /** the temporary copy read instead of `path` (see `openReadOnly`), removed on close */
  private snapshot: string | undefined;

  private hasTable(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }

  private columns(table: string): Set<string> {
    return new Set((this.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
  }

  /** Add the columns `table` lacks (a table that does not exist yet is left to SCHEMA). */
  private addMissingColumns(table: string, columns: Record<string, string>): void {
    if (!this.hasTable(table)) return;
    const have = this.columns(table);
    for (const [name, type] of Object.entries(columns)) if (!have.has(name)) this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
  }

  /** Rebuild attempts and calls with the attempt ordinal in their keys (see MIGRATE_ATTEMPTS_V2); all or nothing. */
  private migrateAttemptsV2(): void {
    this.db.pragma('foreign_keys = OFF');
    try {
      this.db.transaction(() => {
        this.db.exec(MIGRATE_ATTEMPTS_V2);
        const broken = this.db.pragma('foreign_key_check') as unknown[];
        if (broken.length) throw new Error(`migration left ${broken.length} dangling rows`);
      })();
    } finally {
      this.db.pragma('foreign_keys = ON');
    }
  }

  /**
   * Queue `write` for the next group commit (see `GroupCommit`); commits at once when the queue is full.
   * @throws HptError `E_STORE` (exit code 1) once any commit of this store has failed (see `broken`): nothing more is
   *   queued, so a run stops instead of evaluating samples it cannot keep.
   */
  defer(write: () => void): void {
    this.assertWritable();
    this.queue.push(write);
    if (this.queue.length === 1) process.once('exit', this.flushOnExit);
    if (this.queue.length >= this.group.maxWrites) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        try {
          this.flush();
        } catch {
          // recorded in `broken`; the next write or flush throws it
        }
      }, this.group.maxDelayMs);
      this.timer.unref?.();
    }
  }

  /**
   * Commit the queued writes now, all in one transaction (all or nothing). A no-op when nothing is queued.
   * When the group fails (disk full, I/O error, constraint), its writes are retried one by one so the good ones are
   * kept, and the store becomes `broken`: the failing writes are lost (their samples are redone by a resume) and every
   * later write or flush throws, so no caller can go on as if they were stored.
   * @throws HptError `E_STORE` (exit code 1) naming the store, the number of writes lost and SQLite's reason.
   */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.assertWritable();
    const writes = this.queue;
    if (!writes.length) return;
    this.queue = [];
    process.off('exit', this.flushOnExit);
    this.commitTx ??= this.db.transaction((ws: (() => void)[]) => {
      for (const w of ws) w();
    });
    try {
      this.commitTx(writes);
      return;
    } catch (e) {
      // one write failed and rolled the group back: commit them one by one, so the others are kept (as they were
      // when every sample had its own transaction) and only the failing ones are lost
      let first = e;
      let lost = writes.length;
      if (writes.length > 1) {
        lost = 0;
        for (const w of writes) {
          try {
            this.commitTx([w]);
          } catch (err) {
            lost++;
            first = err;
          }
        }
        if (lost === 0) return;
      }
      this.broken = new HptError('E_STORE', `cannot write to the store ${this.path}: ${(first as Error).message} (${lost} of ${writes.length} queued writes lost; the run stops, and re-running the same command redoes the samples not stored)`, { cause: first, exitCode: 1 });
      throw this.broken;
    }
  }

  private commitTx?: Database.Transaction<(ws: (() => void)[]) => void>;

  /** The first failed commit of this store, if any (sticky: a store that lost a write accepts no more writes). */
  get failure(): HptError | undefined {
    return this.broken;
  }

  private assertWritable(): void {
    if (this.broken) throw this.broken;
    if (this.readonly) throw new HptError('E_STORE', `the store ${this.path} was opened read-only`, { exitCode: 1 });
  }

  /** Commit the queue before a read, so the store reads its own writes (a broken store reads what it holds). */
  private sync(): void {
    if (!this.broken && !this.readonly) this.flush();
  }

  /**
   * Record a new run in state `running`, owned by `owner` (`<host>:<pid>`, see `RunRecord.owner`). `configHash`
   * identifies runs that may resume each other.
   */
  createRun(run: { id: string; dataset: string; model: string; mode: string; config: Record<string, Json>; configHash?: string; owner?: string }): void {
    this.flush();
    const now = new Date().toISOString();
    this.db
      .prepare('INSERT INTO runs (id, created_at, updated_at, status, dataset, model, mode, config, config_hash, owner, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(run.id, now, now, 'running', run.dataset, run.model, run.mode, JSON.stringify(run.config), run.configHash ?? null, run.owner ?? null, run.owner ? now : null);
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
   * level and no HPI contribution; `--retry-errors` redoes it. Replaces an earlier row of the same index.
   */
  saveErrored(runId: string, sample: { id: string; index: number; target: Json; meta?: Record<string, Json> }, reason: string, sampleHash?: string): void {
    const target = JSON.stringify(sample.target);
    const meta = sample.meta ? JSON.stringify(sample.meta) : null;
    const error = wellFormed(reason);
    this.defer(() => {
      this.stmt('DELETE FROM samples WHERE run_id = ? AND idx = ?').run(runId, sample.index);
      this.stmt("INSERT INTO samples (run_id, idx, sample_id, level, hpi, solved, prediction, target, meta, status, error, sample_hash) VALUES (?, ?, ?, NULL, 0, 0, 'null', ?, ?, 'errored', ?, ?)")
        .run(runId, sample.index, wellFormed(sample.id), target, meta, error, sampleHash ?? null);
    });
  }

  private readonly statements = new Map<string, Database.Statement>();

  /** A prepared statement, compiled once per store (the per-sample writes are on the hot path of a run). */
  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  private readonly insertSample = (runId: string, r: SampleResult, sampleHash: string | null): void => {
    const records = r.records;
    const solved = records ? records.filter((x) => x.solved).length : r.solved ? 1 : 0;
    this.stmt('INSERT INTO samples (run_id, idx, sample_id, level, hpi, solved, prediction, target, meta, iteration, scores, records, sample_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      runId, r.index, wellFormed(r.sampleId), r.level, r.hpi, solved, JSON.stringify(r.prediction), JSON.stringify(r.target), r.meta ? JSON.stringify(r.meta) : null,
      r.iteration ?? null, records ? records.length : 1, records ? JSON.stringify(records) : null, sampleHash,
    );
    const insA = this.stmt('INSERT INTO attempts (run_id, idx, attempt, level, strategy, solved, score, extracted, graded, notes, iteration) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const insC = this.stmt(
      'INSERT INTO calls (run_id, idx, attempt, level, seq, purpose, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason, mean_token_prob, cached) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const [n, a] of r.attempts.entries()) {
      insA.run(runId, r.index, n, a.level, a.strategy, a.solved ? 1 : 0, a.score, JSON.stringify(a.extracted), storedGraded(a), a.notes ? JSON.stringify(a.notes) : null, a.iteration ?? null);
      for (const c of a.calls) {
        insC.run(runId, r.index, n, a.level, c.seq, c.purpose, c.model, JSON.stringify(c.messages), wellFormed(c.output), c.usage.promptTokens, c.usage.completionTokens, c.latencyMs, c.finishReason, c.meanTokenProb ?? null, c.cached ? 1 : 0);
      }
    }
    if (r.selections?.length) {
      const insS = this.stmt(
        'INSERT INTO selections (run_id, idx, iteration, level, valid, raw, solved, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason, cached) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const s of r.selections) {
        const c = s.call;
        insS.run(
          runId, r.index, s.iteration, s.level, s.valid ? 1 : 0, s.raw === undefined ? null : wellFormed(s.raw), s.solved === undefined ? null : s.solved ? 1 : 0,
          c?.model ?? null, c ? JSON.stringify(c.messages) : null, c ? wellFormed(c.output) : null, c?.usage.promptTokens ?? 0, c?.usage.completionTokens ?? 0, c?.latencyMs ?? null, c?.finishReason ?? null, c?.cached ? 1 : 0,
        );
      }
    }
  };

  /**
   * Append one sample's result with its attempts and calls, atomically (a crash leaves all of it or none of it), in the
   * next group commit (`GroupCommit`). An earlier `errored` row of the same index (being retried) is replaced in the
   * same transaction. `result` must not be mutated afterwards (it is written when the group commits).
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
      .prepare("SELECT COUNT(*) AS samples, COALESCE(SUM(scores), 0) AS n, COALESCE(SUM(hpi), 0) AS hpiSum, COALESCE(SUM(solved), 0) AS solved FROM samples WHERE run_id = ? AND status = 'done'")
      .get(runId) as { samples: number; n: number; hpiSum: number; solved: number };
    const errored = (this.db.prepare("SELECT COUNT(*) AS c FROM samples WHERE run_id = ? AND status = 'errored'").get(runId) as { c: number }).c;
    const levels = this.db.prepare("SELECT level, COUNT(*) AS c FROM samples WHERE run_id = ? AND status = 'done' AND solved > 0 GROUP BY level").all(runId) as { level: number; c: number }[];
    const sel = this.db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(1 - valid), 0) AS invalid FROM selections WHERE run_id = ?').get(runId) as { n: number; invalid: number };
    const selectorUsage = (
      this.db
        .prepare('SELECT model, cached, COUNT(*) AS calls, COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c FROM selections WHERE run_id = ? AND model IS NOT NULL GROUP BY model, cached ORDER BY model, cached')
        .all(runId) as { model: string; cached: number; calls: number; p: number; c: number }[]
    ).map((r) => ({ model: r.model, cached: r.cached === 1, calls: r.calls, promptTokens: r.p, completionTokens: r.c }));
    const calls = this.db
      .prepare('SELECT COUNT(*) AS calls, COALESCE(SUM(cached), 0) AS cached, COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c FROM calls WHERE run_id = ?')
      .get(runId) as { calls: number; cached: number; p: number; c: number };
    const perLevel = this.db
      .prepare(
        'SELECT level, model, cached, COUNT(*) AS calls, COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c FROM calls WHERE run_id = ? GROUP BY level, model, cached ORDER BY level, model, cached',
      )
      .all(runId) as { level: number; model: string; cached: number; calls: number; p: number; c: number }[];
    const levelCounts: Record<string, number> = {};
    for (const l of levels) levelCounts[String(l.level)] = l.c;
    return {
      n: s.n,
      hpiSum: s.hpiSum,
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
      usageByLevel: perLevel.map((r) => ({ level: r.level, model: r.model, cached: r.cached === 1, calls: r.calls, promptTokens: r.p, completionTokens: r.c })),
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
    const attemptsQ = this.db.prepare('SELECT * FROM attempts WHERE run_id = ? AND idx = ? ORDER BY attempt');
    const callsQ = this.db.prepare('SELECT * FROM calls WHERE run_id = ? AND idx = ? ORDER BY attempt, seq');
    const selectionsQ = this.db.prepare('SELECT * FROM selections WHERE run_id = ? AND idx = ? ORDER BY iteration');
    for (const row of this.db.prepare("SELECT * FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").iterate(runId) as Iterable<Record<string, unknown>>) {
      const idx = row.idx as number;
      const calls = callsQ.all(runId, idx) as Record<string, unknown>[];
      const selections: SelectionRecord[] = (selectionsQ.all(runId, idx) as Record<string, unknown>[]).map((s) => ({
        iteration: s.iteration as number,
        level: s.level as number | null,
        valid: s.valid === 1,
        ...(s.raw !== null ? { raw: s.raw as string } : {}),
        ...(s.solved !== null ? { solved: s.solved === 1 } : {}),
        ...(s.model !== null
          ? {
              call: {
                seq: 0,
                purpose: 'selector' as const,
                model: s.model as string,
                messages: JSON.parse(s.messages as string),
                output: s.output as string,
                usage: { promptTokens: s.prompt_tokens as number, completionTokens: s.completion_tokens as number },
                latencyMs: s.latency_ms as number,
                finishReason: s.finish_reason as string,
                ...(s.cached === 1 ? { cached: true } : {}),
              },
            }
          : {}),
      }));
      const attempts: AttemptRecord[] = (attemptsQ.all(runId, idx) as Record<string, unknown>[]).map((a) => {
        const own: CallRecord[] = calls
          .filter((c) => c.attempt === a.attempt)
          .map((c) => ({
            seq: c.seq as number,
            purpose: c.purpose as 'graded',
            model: c.model as string,
            messages: JSON.parse(c.messages as string),
            output: c.output as string,
            usage: { promptTokens: c.prompt_tokens as number, completionTokens: c.completion_tokens as number },
            latencyMs: c.latency_ms as number,
            finishReason: c.finish_reason as string,
            ...(c.mean_token_prob !== null || c.purpose === 'knowledge' ? { meanTokenProb: c.mean_token_prob as number | null } : {}),
            ...(c.cached === 1 ? { cached: true } : {}),
          }));
        return {
          level: a.level as number,
          strategy: a.strategy as string,
          solved: a.solved === 1,
          score: a.score as number,
          extracted: JSON.parse(a.extracted as string) as Json,
          graded: loadedGraded(a.graded as string, own),
          ...(a.notes ? { notes: JSON.parse(a.notes as string) } : {}),
          ...(a.iteration !== null && a.iteration !== undefined ? { iteration: a.iteration as number } : {}),
          calls: own,
        };
      });
      yield {
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

  /** Size and use of the model-call cache (`cacheStats`). */
  cacheStats(): CacheStats {
    this.sync();
    return new CallCache(this.db).stats();
  }

  /** Delete every cached model response, or only those of model id `model`; returns the number deleted. */
  clearCache(model?: string): number {
    this.flush();
    return new CallCache(this.db).clear(model);
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
      if (this.timer) clearTimeout(this.timer);
      process.off('exit', this.flushOnExit);
      this.db.close();
      if (this.snapshot) rmSync(dirname(this.snapshot), { recursive: true, force: true });
    }
  }
}

/**
 * Open `path` read-only. SQLite cannot open a WAL database read-only in a directory it cannot write unless the `-shm`
 * file exists (a read-only mount, a store copied without it): then the file (with its `-wal`, if any) is copied to a
 * private temporary directory and the copy is opened, a snapshot of the store at that moment; `onSnapshot` receives
 * the copy's path so the caller removes it.
 * @throws the SQLite error when the file cannot be read at all.
 */
function openReadOnly(path: string, onSnapshot: (copy: string) => void): Database.Database {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      // opening is lazy: the first read is what fails without a -shm file
      db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
    } catch (e) {
      db.close();
      throw e;
    }
    return db;
  } catch (e) {
    if (!existsSync(path) || (e as { code?: string }).code !== 'SQLITE_CANTOPEN') throw e;
    const copyDir = mkdtempSync(join(tmpdir(), 'hpt-store-ro-'));
    const copy = join(copyDir, basename(path));
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    onSnapshot(copy);
    return new Database(copy, { readonly: true, fileMustExist: true });
  }
}

/** Whether an SQLite error says the database (or its directory) cannot be written. */
function isReadOnlyError(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || /read-?only/i.test((e as Error).message ?? '');
}

/**
 * The user message of an attempt's last graded call: what `graded.promptText` is for every built-in strategy
 * (`assemblePrompt` returns it as both).
 */
function gradedCallPrompt(calls: CallRecord[]): string | undefined {
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i]!;
    if (c.purpose !== 'graded') continue;
    for (let k = c.messages.length - 1; k >= 0; k--) if (c.messages[k]!.role === 'user') return c.messages[k]!.content;
    return undefined;
  }
  return undefined;
}

/**
 * The attempt's graded output as stored: without `promptText` when it is the graded call's user message, which the
 * calls table holds already (this copy was about a third of a store's bytes). Any other `promptText` is stored as is.
 */
function storedGraded(a: AttemptRecord): string {
  const { promptText, ...rest } = a.graded;
  return promptText === gradedCallPrompt(a.calls) ? JSON.stringify(rest) : JSON.stringify(a.graded);
}

/** The inverse of `storedGraded` (rows written before it carry `promptText` and are returned unchanged). */
function loadedGraded(json: string, calls: CallRecord[]): GradedOutput {
  const g = JSON.parse(json) as Partial<GradedOutput>;
  if (Object.hasOwn(g, 'promptText')) return g as GradedOutput;
  const promptText = gradedCallPrompt(calls);
  return (promptText === undefined ? g : { promptText, ...g }) as GradedOutput;
}

/**
 * `text` as well-formed UTF-16 without NUL: lone surrogates become U+FFFD (SQLite would store them as invalid UTF-8)
 * and U+0000 becomes U+FFFD (C tools reading the store stop at a NUL). Applied to the raw text columns (completions,
 * selector replies, errors, sample ids); JSON columns escape both already.
 */
export function wellFormed(text: string): string {
  return SUSPECT.test(text) ? text.replace(ILL_FORMED, '\uFFFD') : text;
}

/** Any surrogate or NUL (cheap pre-test); `ILL_FORMED` matches the lone surrogates and NULs themselves. */
const SUSPECT = /[\0\uD800-\uDFFF]/;
const ILL_FORMED = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function toRun(row: Record<string, unknown>): RunRecord {
  return {
    id: row.id as string,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
    status: row.status as RunStatus,
    dataset: row.dataset as string,
    model: row.model as string,
    mode: row.mode as string,
    config: JSON.parse(row.config as string) as Record<string, Json>,
    summary: row.summary ? (JSON.parse(row.summary as string) as Record<string, Json>) : null,
    error: (row.error as string | null) ?? null,
    configHash: (row.config_hash as string | null) ?? null,
    owner: (row.owner as string | null) ?? null,
    heartbeatAt: (row.heartbeat_at as string | null) ?? null,
    preflight: typeof row.preflight === 'string' ? (JSON.parse(row.preflight) as Record<string, Json>) : null,
  };
}
