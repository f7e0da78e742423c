/**
 * The store's writer: group commit of the per-sample writes (and of the call cache's), and the store's sticky failure
 * once a commit lost writes.
 */
import type { SqlDatabase, SqlTransaction } from './sql.js';
import { HptError } from '@hpt-bench/sdk';

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
  /** Run `write` (synchronous statements on the store's handle) inside the next group commit. */
  defer(write: () => void): void;
  /** Commit every queued write now. */
  flush(): void;
}

/**
 * Check a group-commit setting.
 * @throws HptError `E_STORE` unless maxWrites ≥ 1 and maxDelayMs ≥ 0.
 */
export function checkGroupCommit(group: GroupCommit): void {
  if (!(group.maxWrites >= 1) || !(group.maxDelayMs >= 0)) throw new HptError('E_STORE', `invalid group commit ${JSON.stringify(group)}: maxWrites ≥ 1, maxDelayMs ≥ 0`);
}

/**
 * The group-commit queue of one store connection (see `GroupCommit`). Writes are synchronous statements (SQLite or PostgreSQL) run in
 * one transaction per group; the queue is committed at the latest on process exit.
 */
export class GroupWriter implements WriteQueue {
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
   * @param db the store's connection; `path` names the store in errors; `readonly`: every write throws `E_STORE`.
   * @throws HptError `E_STORE` for an invalid `group`.
   */
  constructor(
    private readonly db: SqlDatabase,
    private readonly path: string,
    private readonly group: GroupCommit,
    private readonly readonly: boolean,
    private readonly outcome?: { committed(): void; rolledBack(): void },
  ) {
    checkGroupCommit(group);
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
      this.commit(writes);
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
            this.commit([w]);
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

  private commitTx?: SqlTransaction<[(() => void)[]], void>;

  /** One transaction of `writes`, telling `outcome` whether it was committed or rolled back. */
  private commit(writes: (() => void)[]): void {
    try {
      this.commitTx!(writes);
    } catch (e) {
      this.outcome?.rolledBack();
      throw e;
    }
    this.outcome?.committed();
  }

  /** The first failed commit of this store, if any (sticky: a store that lost a write accepts no more writes). */
  get failure(): HptError | undefined {
    return this.broken;
  }

  /**
   * @throws HptError `E_STORE` once a commit failed (`failure`), or when the store was opened read-only.
   */
  assertWritable(): void {
    if (this.broken) throw this.broken;
    if (this.readonly) throw new HptError('E_STORE', `the store ${this.path} was opened read-only`, { exitCode: 1 });
  }

  /** Commit the queue before a read, so the store reads its own writes (a broken store reads what it holds). */
  sync(): void {
    if (!this.broken && !this.readonly) this.flush();
  }

  /** Stop the timer and the exit hook (the caller commits or gives up the queue first). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    process.off('exit', this.flushOnExit);
  }
}
