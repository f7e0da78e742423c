import { ownerAlive, type RunRecord, RunStore, runGroup, type Json, storeExists, storeLabel, type WorkerRow } from '@hpt-bench/core';
import { HptCommand, TerminalTable } from '../base.js';
import { storeFlag } from '../store-flag.js';

/** One run as `hpt-bench runs --json` lists it. */
export interface RunListing {
  /** the run id, named as in `run`, `report` and `compare --json` */
  runId: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  dataset: string;
  model: string;
  /** the ladder: its id (`hpf`), or a ladder file's name without `.json` (`--ladder two.json`: `two`) */
  ladder: string;
  /** the ladder's number of levels; null when the run recorded no level list */
  levels: number | null;
  /** the run was made with `--full-ladder` (every level on every sample) */
  fullLadder: boolean;
  /** samples with a ladder result */
  done: number;
  /** samples recorded as errored */
  errored: number;
  /** the summary's HPI, for completed runs */
  hpi: number | null;
  error: string | null;
  /**
   * the processes that executed the run (`<host>:<pid>`, oldest first): `state` running, finished, left (stopped
   * early, its blocks left to the others), failed, or gone (killed, or silent too long); `samples` it finished; `claims` blocks of samples it took;
   * `heartbeatAt` its last sign of life. Empty for runs recorded before workers were.
   */
  workers: { worker: string; state: string; samples: number; claims: number; heartbeatAt: string }[];
}

/**
 * A worker row as `runs` and `runs show` list it: a worker recorded as running whose process is gone (killed: it could
 * not say so) or silent for longer than `STALE_MS` is listed as `gone`.
 */
export function workerListing(w: WorkerRow): RunListing['workers'][number] {
  const state = w.state === 'running' && !ownerAlive({ owner: w.worker, heartbeatAt: w.heartbeatAt }) ? 'gone' : w.state;
  return { worker: w.worker, state, samples: w.samples, claims: w.claims, heartbeatAt: w.heartbeatAt };
}

/**
 * A run's ladder as `runs` lists it (`RunListing.ladder`, `levels`, `fullLadder`): the ladder id of its comparability
 * group (`runGroup`: fingerprint, else stored config; `hpf` by default) and the number of its levels (the summary's
 * ladder, else the fingerprint's or the stored configuration's level list).
 */
export function ladderListing(run: Pick<RunRecord, 'dataset' | 'model' | 'mode' | 'config' | 'summary' | 'fingerprint'>): Pick<RunListing, 'ladder' | 'levels' | 'fullLadder'> {
  const g = runGroup(run);
  const stored = run.config?.ladderLevels;
  const levels = g.ladder.length ? g.ladder.length : Array.isArray(stored) && stored.length ? stored.length : null;
  return { ladder: g.ladderId, levels, fullLadder: run.config?.fullLadder === true };
}

/** The ladder column of `runs`: `hpf (5)`, `hpf (5, full)` for a `--full-ladder` run, `two (2)`; `hpf` without a level count. */
export function ladderCell(r: Pick<RunListing, 'ladder' | 'levels' | 'fullLadder'>): string {
  const inner = [...(r.levels !== null ? [String(r.levels)] : []), ...(r.fullLadder ? ['full'] : [])];
  return inner.length ? `${r.ladder} (${inner.join(', ')})` : r.ladder;
}

/** The workers column of `runs`: `3 (2 running)` for a run executed by three processes, two of them running. */
export function workersCell(workers: RunListing['workers']): string {
  if (!workers.length) return '-';
  const running = workers.filter((w) => w.state === 'running').length;
  return running ? `${workers.length} (${running} running)` : String(workers.length);
}

/** `hpt-bench runs`: the runs of a store and their state. */
export default class Runs extends HptCommand {
  static override summary = 'List the runs in the store: state, dataset, model, ladder, samples done and errored, HPI.';
  static override description = `A run is running (or was killed), failed, or completed. \`hpt-bench run\` with the same configuration continues the newest unfinished one (or joins it as one more worker while other processes execute it); \`--resume <id>\` continues a given one. The ladder column names each run's ladder and its number of levels (\`full\`: made with \`--full-ladder\`). The workers column counts the processes that executed a run (and how many of them run now); \`--json\` lists them.`;
  static override examples = ['<%= config.bin %> runs', '<%= config.bin %> runs --store results.db --json'];
  static override flags = {
    store: storeFlag(),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Runs);
    const listing: RunListing[] = [];
    if (storeExists(flags.store)) {
      const store = new RunStore(flags.store, { readonly: true });
      try {
        const counts = store.sampleCounts();
        const workers = new Map<string, RunListing['workers']>();
        for (const w of store.listWorkers()) {
          const list = workers.get(w.runId) ?? [];
          list.push(workerListing(w));
          workers.set(w.runId, list);
        }
        for (const r of store.listRuns()) {
          const c = counts.get(r.id) ?? { done: 0, errored: 0 };
          const hpi = r.summary && typeof (r.summary as Record<string, Json>).hpi === 'number' ? ((r.summary as Record<string, Json>).hpi as number) : null;
          listing.push({ runId: r.id, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt, dataset: r.dataset, model: r.model, ...ladderListing(r), done: c.done, errored: c.errored, hpi, error: r.error, workers: workers.get(r.id) ?? [] });
        }
      } finally {
        store.close();
      }
    }
    if (flags.json) {
      this.printJson({ store: storeLabel(flags.store), runs: listing });
      return;
    }
    if (listing.length === 0) {
      this.log(`no runs in ${storeLabel(flags.store)}`);
      return;
    }
    const t = new TerminalTable({ head: ['run', 'status', 'dataset', 'model', 'ladder', 'done', 'errored', 'HPI', 'workers', 'updated'] });
    for (const r of listing) t.push([r.runId, r.status, r.dataset, r.model, ladderCell(r), String(r.done), String(r.errored), r.hpi === null ? '-' : r.hpi.toFixed(3), workersCell(r.workers), r.updatedAt]);
    this.log(t.toString());
  }
}
