/**
 * One worker's share of a run that several `hpt-bench run` processes execute together (issue 17 §3): which samples it
 * evaluates (those of the blocks it claims, store/claims.ts), when a block is done, lease renewal with the heartbeat,
 * taking over the blocks of a worker that died, and how a worker that stops early leaves the run to the others.
 *
 * How a run is shared: every worker streams all samples in index order. At the first sample of a block that is not
 * yet recorded it claims the block (one upsert); it evaluates the block's samples that are not recorded (read once per
 * claim) and skips the blocks other workers hold. The block is marked done in the same transaction as its last sample
 * write, once the stream has moved past it. When its stream is exhausted a worker polls (`CLAIM_POLL_MS`) for blocks
 * whose lease expired or whose worker's process is gone on this host, takes and evaluates them, and waits until no
 * block is open; then every sample is recorded and each worker computes the same summary from the store (the first
 * to get there marks the run completed).
 */
import type { Logger } from '@hpt-bench/sdk';
import { blockOf, blockRange, CLAIM_BLOCK } from '../store/claims.js';
import type { RunStore } from '../store/store.js';
import { liveWorkers, processGone } from './resume.js';

/** How often (ms) a worker whose stream is exhausted checks for blocks to take over and for the run's end. */
export const CLAIM_POLL_MS = 250;

/** A block this worker holds: samples admitted and not finished, whether the stream moved past it, and its recorded samples. */
interface HeldBlock {
  pending: number;
  closed: boolean;
  recorded: Set<number>;
}

/** One worker's side of a shared run (see the module comment). */
export class RunShare {
  private current = -1;
  private readonly held = new Map<number, HeldBlock>();
  /** blocks of this pass another worker holds (or that are done) */
  private readonly elsewhere = new Set<number>();
  /** blocks claimed (claim statements won) by this worker */
  claims = 0;
  /** claim statements made (won or lost) */
  claimAttempts = 0;
  /** blocks taken over from a stopped worker */
  takenOver = 0;
  /** samples this worker finished (done or errored) */
  finished = 0;
  /** whether another worker held a block or was seen alive: the run was shared */
  shared = false;

  /**
   * @param store the run's store; `runId` the run; `worker` this process (`<host>:<pid>`); `blockSize` samples per
   *   block (default `CLAIM_BLOCK`; every worker of a run must use the same).
   */
  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    private readonly worker: string,
    private readonly blockSize = CLAIM_BLOCK,
  ) {}

  /**
   * Whether this worker evaluates the streamed sample at `index`. Call it for every sample of the stream, in stream
   * order (`skipped`: recorded before this invocation started, never evaluated). The first sample of a block that
   * is not skipped claims the block; a sample in a block another worker holds, or recorded since, is not evaluated.
   * `only`: evaluate only these blocks (a take-over pass). Every admitted sample must be passed to `finish` later.
   */
  admit(index: number, skipped: boolean, only?: Set<number>): boolean {
    const b = blockOf(index, this.blockSize);
    if (b !== this.current) {
      if (b > this.current) this.close(this.current);
      this.current = b;
    }
    if (skipped || (only && !only.has(b)) || this.elsewhere.has(b)) return false;
    let h = this.held.get(b);
    if (!h) {
      this.claimAttempts++;
      if (!this.store.claimBlock(this.runId, b, this.worker)) {
        this.elsewhere.add(b);
        this.shared = true;
        return false;
      }
      this.claims++;
      const [first, last] = blockRange(b, this.blockSize);
      h = { pending: 0, closed: false, recorded: this.store.doneIndices(this.runId, first, last) };
      this.held.set(b, h);
    }
    if (h.recorded.has(index)) return false;
    h.pending++;
    return true;
  }

  /** An admitted sample was recorded (done or errored): its block is done once the stream moved past it. */
  finish(index: number): void {
    this.finished++;
    const b = blockOf(index, this.blockSize);
    const h = this.held.get(b);
    if (!h) return;
    h.pending--;
    this.maybeComplete(b, h);
  }

  /** The stream is exhausted: every held block is closed (and done when its samples are). */
  endPass(): void {
    for (const b of [...this.held.keys()]) this.close(b);
    this.current = -1;
    this.elsewhere.clear();
  }

  private close(b: number): void {
    const h = this.held.get(b);
    if (!h) return;
    h.closed = true;
    this.maybeComplete(b, h);
  }

  private maybeComplete(b: number, h: HeldBlock): void {
    if (!h.closed || h.pending > 0) return;
    this.held.delete(b);
    this.store.completeBlock(this.runId, b, this.worker);
  }

  /**
   * The heartbeat's part: renew this worker's leases and its `run_workers` row (samples finished, blocks claimed).
   * Best effort (a failed write is retried at the next heartbeat). @returns the other live workers.
   */
  heartbeat(logger?: Logger): string[] {
    try {
      const still = new Set(this.store.renewClaims(this.runId, this.worker));
      for (const b of [...this.held.keys()]) {
        if (still.has(b)) continue;
        // said once: the block is no longer this worker's (a sample both record keeps the first record)
        this.held.delete(b);
        logger?.warn(`block ${b} of run ${this.runId} was taken over by another worker (this process missed its lease); its samples in flight may be evaluated twice`);
      }
      this.store.updateWorker(this.runId, this.worker, { samples: this.finished, claims: this.claims });
      const others = liveWorkers(this.store, this.runId, this.worker);
      if (others.length) this.shared = true;
      return others;
    } catch {
      return [];
    }
  }

  /**
   * Take the open blocks of other workers whose lease expired or whose process is gone on this host (a worker killed
   * with SIGKILL). @returns the blocks taken (to evaluate in a take-over pass: `admit(i, skipped, only)`).
   */
  takeOver(now = Date.now()): Set<number> {
    const taken = new Set<number>();
    const open = this.store.openClaims(this.runId).filter((c) => c.worker !== this.worker);
    const gone = new Set<string>();
    for (const c of open) {
      if (c.leaseUntil >= now && !gone.has(c.worker) && processGone(c.worker)) {
        gone.add(c.worker);
        this.store.releaseClaims(this.runId, c.worker);
      }
    }
    for (const c of open) {
      if (c.leaseUntil >= now && !gone.has(c.worker)) continue;
      this.claimAttempts++;
      if (this.store.claimBlock(this.runId, c.block, this.worker, now)) {
        this.claims++;
        this.takenOver++;
        taken.add(c.block);
        const [first, last] = blockRange(c.block, this.blockSize);
        this.held.set(c.block, { pending: 0, closed: false, recorded: this.store.doneIndices(this.runId, first, last) });
      }
    }
    if (open.length) this.shared = true;
    return taken;
  }

  /** Open blocks of the run (any worker's), after committing this worker's queued writes. */
  openBlocks(): number {
    return this.store.openClaims(this.runId).length;
  }

  /** Record this worker's end in `run_workers` (`finished`, `left` or `failed`), releasing any block it still holds. */
  leave(state: 'finished' | 'left' | 'failed'): void {
    try {
      this.store.releaseClaims(this.runId, this.worker);
      this.store.updateWorker(this.runId, this.worker, { samples: this.finished, claims: this.claims, state });
    } catch {
      // a broken store: the leases expire on their own
    }
  }
}

/**
 * A worker of run `runId` stops early (an error, Ctrl-C, SIGTERM): when other workers execute the run, its claims are
 * released for them to take and the run stays `running`; otherwise the run is marked failed with `reason` (as a
 * single process always did). Best effort on a broken store.
 * @returns `'left'` (others carry on) or `'failed'`.
 */
export function leaveRun(store: RunStore, runId: string, worker: string, reason: string): 'left' | 'failed' {
  let others: string[] = [];
  try {
    others = liveWorkers(store, runId, worker);
  } catch {
    // unreadable: mark the run failed below
  }
  const state = others.length ? 'left' : 'failed';
  try {
    store.releaseClaims(runId, worker);
    store.updateWorker(runId, worker, { state });
  } catch {
    // a broken store: the leases expire on their own
  }
  if (state === 'failed') store.failRun(runId, reason);
  return state;
}
