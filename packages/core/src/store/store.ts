import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Json } from '../contracts.js';
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
  n: number;
  hpiSum: number;
  solved: number;
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
  PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS attempts (
  run_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  level INTEGER NOT NULL,
  strategy TEXT NOT NULL,
  solved INTEGER NOT NULL,
  score REAL NOT NULL,
  extracted TEXT NOT NULL,
  graded TEXT NOT NULL,
  notes TEXT,
  PRIMARY KEY (run_id, idx, level),
  FOREIGN KEY (run_id, idx) REFERENCES samples(run_id, idx) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS calls (
  run_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
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
  PRIMARY KEY (run_id, idx, level, seq),
  FOREIGN KEY (run_id, idx, level) REFERENCES attempts(run_id, idx, level) ON DELETE CASCADE
);
`;

/**
 * The SQLite run store (DESIGN.md "store"): one file, WAL journal, every write of a sample in one transaction, so a
 * crash leaves either the whole sample (with its attempts and calls) or nothing of it.
 */
export class RunStore {
  readonly db: Database.Database;

  /**
   * Open (creating directories and tables as needed) the store at `path`.
   * @throws HptError `E_STORE` when the file cannot be opened or is not an hpt-bench store.
   */
  constructor(readonly path: string) {
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      this.db = new Database(path);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.db.pragma('busy_timeout = 5000');
      this.db.exec(SCHEMA);
      // stores written by earlier versions gain the newer columns (nullable or defaulted, so old rows stay valid)
      this.addMissingColumns('samples', { meta: 'TEXT', status: "TEXT NOT NULL DEFAULT 'done'", error: 'TEXT' });
      this.addMissingColumns('calls', { cached: 'INTEGER NOT NULL DEFAULT 0' });
      this.addMissingColumns('runs', { config_hash: 'TEXT' });
    } catch (e) {
      throw new HptError('E_STORE', `cannot open store ${path}: ${(e as Error).message}`);
    }
  }

  private addMissingColumns(table: string, columns: Record<string, string>): void {
    const have = new Set((this.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
    for (const [name, type] of Object.entries(columns)) if (!have.has(name)) this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
  }

  /** Record a new run in state `running`. `configHash` identifies runs that may resume each other (issue #5). */
  createRun(run: { id: string; dataset: string; model: string; mode: string; config: Record<string, Json>; configHash?: string }): void {
    const now = new Date().toISOString();
    this.db
      .prepare('INSERT INTO runs (id, created_at, updated_at, status, dataset, model, mode, config, config_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(run.id, now, now, 'running', run.dataset, run.model, run.mode, JSON.stringify(run.config), run.configHash ?? null);
  }

  /** The newest unfinished (`running` or `failed`) run with this configuration hash, if any (resume, issue #5). */
  findUnfinished(configHash: string): RunRecord | undefined {
    const row = this.db
      .prepare("SELECT * FROM runs WHERE config_hash = ? AND status IN ('running', 'failed') ORDER BY created_at DESC, id DESC LIMIT 1")
      .get(configHash) as Record<string, unknown> | undefined;
    return row ? toRun(row) : undefined;
  }

  /** The newest run with this configuration hash in any state, if any (`--retry-errors`). */
  findLatest(configHash: string): RunRecord | undefined {
    const row = this.db.prepare('SELECT * FROM runs WHERE config_hash = ? ORDER BY created_at DESC, id DESC LIMIT 1').get(configHash) as Record<string, unknown> | undefined;
    return row ? toRun(row) : undefined;
  }

  /** Set a resumed run back to `running` (its error cleared, its summary dropped until it completes again). */
  reopenRun(runId: string): void {
    this.db.prepare("UPDATE runs SET status = 'running', error = NULL, summary = NULL, updated_at = ? WHERE id = ?").run(new Date().toISOString(), runId);
  }

  /** Indices of the samples a run has recorded, by state: `done` (a ladder result) or `errored`. */
  recordedIndices(runId: string): { done: Set<number>; errored: Set<number> } {
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
    this.db.transaction(() => {
      this.stmt('DELETE FROM samples WHERE run_id = ? AND idx = ?').run(runId, sample.index);
      this.stmt("INSERT INTO samples (run_id, idx, sample_id, level, hpi, solved, prediction, target, meta, status, error) VALUES (?, ?, ?, NULL, 0, 0, 'null', ?, ?, 'errored', ?)")
        .run(runId, sample.index, sample.id, JSON.stringify(sample.target), sample.meta ? JSON.stringify(sample.meta) : null, reason);
    })();
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
    this.stmt('INSERT INTO samples (run_id, idx, sample_id, level, hpi, solved, prediction, target, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      runId, r.index, r.sampleId, r.level, r.hpi, r.solved ? 1 : 0, JSON.stringify(r.prediction), JSON.stringify(r.target), r.meta ? JSON.stringify(r.meta) : null,
    );
    const insA = this.stmt('INSERT INTO attempts (run_id, idx, level, strategy, solved, score, extracted, graded, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const insC = this.stmt(
      'INSERT INTO calls (run_id, idx, level, seq, purpose, model, messages, output, prompt_tokens, completion_tokens, latency_ms, finish_reason, mean_token_prob, cached) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const a of r.attempts) {
      insA.run(runId, r.index, a.level, a.strategy, a.solved ? 1 : 0, a.score, JSON.stringify(a.extracted), JSON.stringify(a.graded), a.notes ? JSON.stringify(a.notes) : null);
      for (const c of a.calls) {
        insC.run(runId, r.index, a.level, c.seq, c.purpose, c.model, JSON.stringify(c.messages), c.output, c.usage.promptTokens, c.usage.completionTokens, c.latencyMs, c.finishReason, c.meanTokenProb ?? null, c.cached ? 1 : 0);
      }
    }
  };

  /**
   * Append one sample's result with its attempts and calls, atomically (a crash leaves all of it or none of it). An
   * earlier `errored` row of the same index (being retried) is replaced in the same transaction.
   */
  saveSample(runId: string, result: SampleResult): void {
    this.saveTx ??= this.db.transaction((id: string, r: SampleResult) => {
      this.stmt("DELETE FROM samples WHERE run_id = ? AND idx = ? AND status = 'errored'").run(id, r.index);
      this.insertSample(id, r);
    });
    this.saveTx(runId, result);
  }

  private saveTx?: Database.Transaction<(runId: string, r: SampleResult) => void>;

  /** Mark a run completed with its summary. */
  finishRun(runId: string, summary: Record<string, Json>): void {
    this.db.prepare("UPDATE runs SET status = 'completed', summary = ?, updated_at = ? WHERE id = ?").run(JSON.stringify(summary), new Date().toISOString(), runId);
  }

  /** Mark a run failed with the reason (already free of secrets). */
  failRun(runId: string, error: string): void {
    this.db.prepare("UPDATE runs SET status = 'failed', error = ?, updated_at = ? WHERE id = ?").run(error, new Date().toISOString(), runId);
  }

  /** A run by id, or undefined. */
  getRun(id: string): RunRecord | undefined {
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return row ? toRun(row) : undefined;
  }

  /** All runs, newest first. */
  listRuns(): RunRecord[] {
    return (this.db.prepare('SELECT * FROM runs ORDER BY created_at DESC, id DESC').all() as Record<string, unknown>[]).map(toRun);
  }

  /** Aggregate a run's stored samples and calls. */
  aggregate(runId: string): StoredAggregate {
    const s = this.db
      .prepare("SELECT COUNT(*) AS n, COALESCE(SUM(hpi), 0) AS hpiSum, COALESCE(SUM(solved), 0) AS solved FROM samples WHERE run_id = ? AND status = 'done'")
      .get(runId) as { n: number; hpiSum: number; solved: number };
    const errored = (this.db.prepare("SELECT COUNT(*) AS c FROM samples WHERE run_id = ? AND status = 'errored'").get(runId) as { c: number }).c;
    const levels = this.db.prepare("SELECT level, COUNT(*) AS c FROM samples WHERE run_id = ? AND status = 'done' GROUP BY level").all(runId) as { level: number | null; c: number }[];
    const calls = this.db
      .prepare('SELECT COUNT(*) AS calls, COALESCE(SUM(cached), 0) AS cached, COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c FROM calls WHERE run_id = ?')
      .get(runId) as { calls: number; cached: number; p: number; c: number };
    const perLevel = this.db
      .prepare(
        'SELECT level, model, cached, COUNT(*) AS calls, COALESCE(SUM(prompt_tokens), 0) AS p, COALESCE(SUM(completion_tokens), 0) AS c FROM calls WHERE run_id = ? GROUP BY level, model, cached ORDER BY level, model, cached',
      )
      .all(runId) as { level: number; model: string; cached: number; calls: number; p: number; c: number }[];
    const levelCounts: Record<string, number> = {};
    let unsolved = 0;
    for (const l of levels) {
      if (l.level === null) unsolved = l.c;
      else levelCounts[String(l.level)] = l.c;
    }
    return {
      n: s.n,
      hpiSum: s.hpiSum,
      solved: s.solved,
      levelCounts,
      unsolved,
      errored,
      calls: calls.calls,
      cachedCalls: calls.cached,
      promptTokens: calls.p,
      completionTokens: calls.c,
      usageByLevel: perLevel.map((r) => ({ level: r.level, model: r.model, cached: r.cached === 1, calls: r.calls, promptTokens: r.p, completionTokens: r.c })),
    };
  }

  /**
   * Stream a run's recorded predictions and targets in input order (for dataset metrics; hpt.md §3: one prediction per
   * sample, the solving level's or the last level's).
   */
  *iterPredictions(runId: string): Generator<{ sampleId: string; index: number; prediction: Json; target: Json; solved: boolean; meta?: Record<string, Json> }> {
    for (const row of this.db.prepare("SELECT sample_id, idx, prediction, target, solved, meta FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").iterate(runId) as Iterable<Record<string, unknown>>) {
      yield {
        sampleId: row.sample_id as string,
        index: row.idx as number,
        prediction: JSON.parse(row.prediction as string) as Json,
        target: JSON.parse(row.target as string) as Json,
        solved: row.solved === 1,
        ...(typeof row.meta === 'string' ? { meta: JSON.parse(row.meta) as Record<string, Json> } : {}),
      };
    }
  }

  /** Stream a run's sample results in input order, with their attempts and calls (for `--out`). */
  *iterSamples(runId: string): Generator<SampleResult> {
    const attemptsQ = this.db.prepare('SELECT * FROM attempts WHERE run_id = ? AND idx = ? ORDER BY level');
    const callsQ = this.db.prepare('SELECT * FROM calls WHERE run_id = ? AND idx = ? ORDER BY level, seq');
    for (const row of this.db.prepare("SELECT * FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").iterate(runId) as Iterable<Record<string, unknown>>) {
      const idx = row.idx as number;
      const calls = callsQ.all(runId, idx) as Record<string, unknown>[];
      const attempts: AttemptRecord[] = (attemptsQ.all(runId, idx) as Record<string, unknown>[]).map((a) => ({
        level: a.level as number,
        strategy: a.strategy as string,
        solved: a.solved === 1,
        score: a.score as number,
        extracted: JSON.parse(a.extracted as string) as Json,
        graded: JSON.parse(a.graded as string),
        ...(a.notes ? { notes: JSON.parse(a.notes as string) } : {}),
        calls: calls
          .filter((c) => c.level === a.level)
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
          })),
      }));
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
      };
    }
  }

  /** Delete errored rows of these indices (samples that failed only because the endpoint was down). */
  deleteErrored(runId: string, indices: number[]): void {
    const del = this.db.prepare("DELETE FROM samples WHERE run_id = ? AND idx = ? AND status = 'errored'");
    this.db.transaction(() => {
      for (const i of indices) del.run(runId, i);
    })();
  }

  /** A run's errored samples in input order, with the reason each failed. */
  erroredSamples(runId: string): { sampleId: string; index: number; error: string }[] {
    return (this.db.prepare("SELECT sample_id, idx, error FROM samples WHERE run_id = ? AND status = 'errored' ORDER BY idx").all(runId) as Record<string, unknown>[]).map((r) => ({
      sampleId: r.sample_id as string,
      index: r.idx as number,
      error: (r.error as string | null) ?? '',
    }));
  }

  /** Per run: samples done and errored (for `hpt-bench runs`). */
  sampleCounts(): Map<string, { done: number; errored: number }> {
    const out = new Map<string, { done: number; errored: number }>();
    for (const r of this.db.prepare('SELECT run_id, status, COUNT(*) AS c FROM samples GROUP BY run_id, status').all() as { run_id: string; status: string; c: number }[]) {
      const e = out.get(r.run_id) ?? { done: 0, errored: 0 };
      if (r.status === 'errored') e.errored = r.c;
      else e.done = r.c;
      out.set(r.run_id, e);
    }
    return out;
  }

  close(): void {
    this.db.close();
  }
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
