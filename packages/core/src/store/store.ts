import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { CallRecord, GradedOutput, Json, SelectionRecord } from '../contracts.js';
import { HptError } from '../errors.js';
import type { AttemptRecord, SampleResult } from '../ladder/engine.js';

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

const SCHEMA = `
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
  config_hash TEXT
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
  PRIMARY KEY (run_id, idx, iteration),
  FOREIGN KEY (run_id, idx) REFERENCES samples(run_id, idx) ON DELETE CASCADE
);
`;

/**
 * Stores of schema version 1 keyed attempts by (run, sample, level), which the adaptive HPF breaks (a level can be tried
 * at several iterations). Version 2 keys attempts and calls by the attempt's ordinal within the sample; a manual run's
 * attempts are levels 1..k in order, so a version-1 row's ordinal is level - 1. The tables are rebuilt in one
 * transaction (SQLite cannot change a primary key in place).
 */
const MIGRATE_ATTEMPTS_V2 = `
CREATE TABLE attempts_v2 (
  run_id TEXT NOT NULL, idx INTEGER NOT NULL, attempt INTEGER NOT NULL, level INTEGER NOT NULL, strategy TEXT NOT NULL,
  solved INTEGER NOT NULL, score REAL NOT NULL, extracted TEXT NOT NULL, graded TEXT NOT NULL, notes TEXT, iteration INTEGER,
  PRIMARY KEY (run_id, idx, attempt),
  FOREIGN KEY (run_id, idx) REFERENCES samples(run_id, idx) ON DELETE CASCADE
);
INSERT INTO attempts_v2 (run_id, idx, attempt, level, strategy, solved, score, extracted, graded, notes)
  SELECT run_id, idx, level - 1, level, strategy, solved, score, extracted, graded, notes FROM attempts;
CREATE TABLE calls_v2 (
  run_id TEXT NOT NULL, idx INTEGER NOT NULL, attempt INTEGER NOT NULL, level INTEGER NOT NULL, seq INTEGER NOT NULL,
  purpose TEXT NOT NULL, model TEXT NOT NULL, messages TEXT NOT NULL, output TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL, latency_ms REAL NOT NULL, finish_reason TEXT NOT NULL, mean_token_prob REAL,
  cached INTEGER NOT NULL DEFAULT 0,
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

/**
 * Group commit of the store (issue #5: throughput): the per-sample writes of a run (and the call cache's writes, see
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
  /** a failure of a timer-driven commit, rethrown by the next call that writes or flushes */
  private failure: Error | undefined;

  /**
   * Open (creating directories and tables as needed) the store at `path`.
   * @param options.groupCommit batching of the per-sample writes (default `DEFAULT_GROUP_COMMIT`).
   * @throws HptError `E_STORE` when the file cannot be opened or is not an hpt-bench store.
   */
  constructor(readonly path: string, options: { groupCommit?: GroupCommit } = {}) {
    this.group = options.groupCommit ?? DEFAULT_GROUP_COMMIT;
    if (!(this.group.maxWrites >= 1) || !(this.group.maxDelayMs >= 0)) throw new HptError('E_STORE', `invalid group commit ${JSON.stringify(this.group)}: maxWrites ≥ 1, maxDelayMs ≥ 0`);
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      this.db = new Database(path);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.db.pragma('busy_timeout = 5000');
      // stores written by earlier versions gain the newer columns (nullable or defaulted, so old rows stay valid)
      this.addMissingColumns('samples', { meta: 'TEXT', status: "TEXT NOT NULL DEFAULT 'done'", error: 'TEXT', iteration: 'INTEGER', scores: 'INTEGER NOT NULL DEFAULT 1', records: 'TEXT' });
      this.addMissingColumns('calls', { cached: 'INTEGER NOT NULL DEFAULT 0' });
      this.addMissingColumns('runs', { config_hash: 'TEXT' });
      if (this.hasTable('attempts') && this.hasTable('calls') && !this.columns('attempts').has('attempt')) this.migrateAttemptsV2();
      this.db.exec(SCHEMA);
    } catch (e) {
      throw new HptError('E_STORE', `cannot open store ${path}: ${(e as Error).message}`);
    }
  }

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
   * @throws the error of an earlier timer-driven commit that failed (e.g. disk full), once.
   */
  defer(write: () => void): void {
    this.rethrow();
    this.queue.push(write);
    if (this.queue.length === 1) process.once('exit', this.flushOnExit);
    if (this.queue.length >= this.group.maxWrites) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        try {
          this.flush();
        } catch (e) {
          this.failure = e as Error;
        }
      }, this.group.maxDelayMs);
      this.timer.unref?.();
    }
  }

  /**
   * Commit the queued writes now, all in one transaction (all or nothing). A no-op when nothing is queued.
   * @throws the SQLite error of a write that failed (the other writes of the group are then committed one by one and
   *   kept; the failing one is lost, and its sample redone on resume), or the error of an earlier timer-driven commit.
   */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const writes = this.queue;
    if (writes.length) {
      this.queue = [];
      process.off('exit', this.flushOnExit);
      this.commitTx ??= this.db.transaction((ws: (() => void)[]) => {
        for (const w of ws) w();
      });
      try {
        this.commitTx(writes);
      } catch (e) {
        if (writes.length === 1) throw e;
        // one write failed and rolled the group back: commit them one by one, so the others are kept (as they were
        // when every sample had its own transaction) and only the failing ones are lost
        let first: unknown;
        for (const w of writes) {
          try {
            this.commitTx([w]);
          } catch (err) {
            first ??= err;
          }
        }
        if (first !== undefined) throw first;
      }
    }
    this.rethrow();
  }

  private commitTx?: Database.Transaction<(ws: (() => void)[]) => void>;

  private rethrow(): void {
    const f = this.failure;
    if (f) {
      this.failure = undefined;
      throw new HptError('E_STORE', `cannot write to the store ${this.path}: ${f.message}`);
    }
  }

  /** Record a new run in state `running`. `configHash` identifies runs that may resume each other (issue #5). */
  createRun(run: { id: string; dataset: string; model: string; mode: string; config: Record<string, Json>; configHash?: string }): void {
    this.flush();
    const now = new Date().toISOString();
    this.db
      .prepare('INSERT INTO runs (id, created_at, updated_at, status, dataset, model, mode, config, config_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(run.id, now, now, 'running', run.dataset, run.model, run.mode, JSON.stringify(run.config), run.configHash ?? null);
  }

  /** The newest unfinished (`running` or `failed`) run with this configuration hash, if any (resume, issue #5). */
  findUnfinished(configHash: string): RunRecord | undefined {
    this.flush();
    const row = this.db
      .prepare("SELECT * FROM runs WHERE config_hash = ? AND status IN ('running', 'failed') ORDER BY created_at DESC, id DESC LIMIT 1")
      .get(configHash) as Record<string, unknown> | undefined;
    return row ? toRun(row) : undefined;
  }

  /** The newest run with this configuration hash in any state, if any (`--retry-errors`). */
  findLatest(configHash: string): RunRecord | undefined {
    this.flush();
    const row = this.db.prepare('SELECT * FROM runs WHERE config_hash = ? ORDER BY created_at DESC, id DESC LIMIT 1').get(configHash) as Record<string, unknown> | undefined;
    return row ? toRun(row) : undefined;
  }

  /** Set a resumed run back to `running` (its error cleared, its summary dropped until it completes again). */
  reopenRun(runId: string): void {
    this.flush();
    this.db.prepare("UPDATE runs SET status = 'running', error = NULL, summary = NULL, updated_at = ? WHERE id = ?").run(new Date().toISOString(), runId);
  }

  /** Indices of the samples a run has recorded, by state: `done` (a ladder result) or `errored`. */
  recordedIndices(runId: string): { done: Set<number>; errored: Set<number> } {
    this.flush();
    const done = new Set<number>();
    const errored = new Set<number>();
    for (const row of this.db.prepare('SELECT idx, status FROM samples WHERE run_id = ?').iterate(runId) as Iterable<{ idx: number; status: string }>) {
      (row.status === 'errored' ? errored : done).add(row.idx);
    }
    return { done, errored };
  }

  /**
   * Record a sample whose model calls failed after every retry (issue #5 item 3): state `errored` with the reason, no
   * level and no HPI contribution; `--retry-errors` redoes it. Replaces an earlier row of the same index.
   */
  saveErrored(runId: string, sample: { id: string; index: number; target: Json; meta?: Record<string, Json> }, reason: string): void {
    const target = JSON.stringify(sample.target);
    const meta = sample.meta ? JSON.stringify(sample.meta) : null;
    this.defer(() => {
      this.stmt('DELETE FROM samples WHERE run_id = ? AND idx = ?').run(runId, sample.index);
      this.stmt("INSERT INTO samples (run_id, idx, sample_id, level, hpi, solved, prediction, target, meta, status, error) VALUES (?, ?, ?, NULL, 0, 0, 'null', ?, ?, 'errored', ?)")
        .run(runId, sample.index, sample.id, target, meta, reason);
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

  private readonly insertSample = (runId: string, r: SampleResult): void => {
    const records = r.records;
    const solved = records ? records.filter((x) => x.solved).length : r.solved ? 1 : 0;
    this.stmt('INSERT INTO samples (run_id, idx, sample_id, level, hpi, solved, prediction, target, meta, iteration, scores, records) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      runId, r.index, r.sampleId, r.level, r.hpi, solved, JSON.stringify(r.prediction), JSON.stringify(r.target), r.meta ? JSON.stringify(r.meta) : null,
      r.iteration ?? null, records ? records.length : 1, records ? JSON.stringify(records) : null,
    );
    const insA = this.stmt('INSERT INTO attempts (run_id, idx, attempt, level, strategy, solved, score, extracted, graded, notes, iteration) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const insC = this.stmt(
      'INSERT INTO calls (run_id, idx, attempt, level, seq, purpose, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason, mean_token_prob, cached) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const [n, a] of r.attempts.entries()) {
      insA.run(runId, r.index, n, a.level, a.strategy, a.solved ? 1 : 0, a.score, JSON.stringify(a.extracted), storedGraded(a), a.notes ? JSON.stringify(a.notes) : null, a.iteration ?? null);
      for (const c of a.calls) {
        insC.run(runId, r.index, n, a.level, c.seq, c.purpose, c.model, JSON.stringify(c.messages), c.output, c.usage.promptTokens, c.usage.completionTokens, c.latencyMs, c.finishReason, c.meanTokenProb ?? null, c.cached ? 1 : 0);
      }
    }
    if (r.selections?.length) {
      const insS = this.stmt(
        'INSERT INTO selections (run_id, idx, iteration, level, valid, raw, solved, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason, cached) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const s of r.selections) {
        const c = s.call;
        insS.run(
          runId, r.index, s.iteration, s.level, s.valid ? 1 : 0, s.raw ?? null, s.solved === undefined ? null : s.solved ? 1 : 0,
          c?.model ?? null, c ? JSON.stringify(c.messages) : null, c?.output ?? null, c?.usage.promptTokens ?? 0, c?.usage.completionTokens ?? 0, c?.latencyMs ?? null, c?.finishReason ?? null, c?.cached ? 1 : 0,
        );
      }
    }
  };

  /**
   * Append one sample's result with its attempts and calls, atomically (a crash leaves all of it or none of it), in the
   * next group commit (`GroupCommit`). An earlier `errored` row of the same index (being retried) is replaced in the
   * same transaction. `result` must not be mutated afterwards (it is written when the group commits).
   */
  saveSample(runId: string, result: SampleResult): void {
    this.defer(() => {
      this.stmt("DELETE FROM samples WHERE run_id = ? AND idx = ? AND status = 'errored'").run(runId, result.index);
      this.insertSample(runId, result);
    });
  }

  /** Mark a run completed with its summary. */
  finishRun(runId: string, summary: Record<string, Json>): void {
    this.flush();
    this.db.prepare("UPDATE runs SET status = 'completed', summary = ?, updated_at = ? WHERE id = ?").run(JSON.stringify(summary), new Date().toISOString(), runId);
  }

  /** Mark a run failed with the reason (already free of secrets). */
  failRun(runId: string, error: string): void {
    this.flush();
    this.db.prepare("UPDATE runs SET status = 'failed', error = ?, updated_at = ? WHERE id = ?").run(error, new Date().toISOString(), runId);
  }

  /** A run by id, or undefined. */
  getRun(id: string): RunRecord | undefined {
    this.flush();
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return row ? toRun(row) : undefined;
  }

  /** All runs, newest first. */
  listRuns(): RunRecord[] {
    this.flush();
    return (this.db.prepare('SELECT * FROM runs ORDER BY created_at DESC, id DESC').all() as Record<string, unknown>[]).map(toRun);
  }

  /** Aggregate a run's stored samples and calls. */
  aggregate(runId: string): StoredAggregate {
    this.flush();
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
    this.flush();
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
    this.flush();
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
    this.flush();
    return (this.db.prepare("SELECT sample_id, idx, error FROM samples WHERE run_id = ? AND status = 'errored' ORDER BY idx").all(runId) as Record<string, unknown>[]).map((r) => ({
      sampleId: r.sample_id as string,
      index: r.idx as number,
      error: (r.error as string | null) ?? '',
    }));
  }

  /** Per run: samples done and errored (for `hpt-bench runs`). */
  sampleCounts(): Map<string, { done: number; errored: number }> {
    this.flush();
    const out = new Map<string, { done: number; errored: number }>();
    for (const r of this.db.prepare('SELECT run_id, status, COUNT(*) AS c FROM samples GROUP BY run_id, status').all() as { run_id: string; status: string; c: number }[]) {
      const e = out.get(r.run_id) ?? { done: 0, errored: 0 };
      if (r.status === 'errored') e.errored = r.c;
      else e.done = r.c;
      out.set(r.run_id, e);
    }
    return out;
  }

  /** Commit the queued writes and close the database. */
  close(): void {
    try {
      this.flush();
    } finally {
      this.db.close();
    }
  }
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
  };
}
