import { RunStore, type Json, storeExists, storeLabel } from '@hpt-bench/core';
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
  /** samples with a ladder result */
  done: number;
  /** samples recorded as errored */
  errored: number;
  /** the summary's HPI, for completed runs */
  hpi: number | null;
  error: string | null;
}

/** `hpt-bench runs`: the runs of a store and their state. */
export default class Runs extends HptCommand {
  static override summary = 'List the runs in the store: state, dataset, model, samples done and errored, HPI.';
  static override description = `A run is running (or was killed), failed, or completed. \`hpt-bench run\` with the same configuration continues the newest unfinished one; \`--resume <id>\` continues a given one.`;
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
        for (const r of store.listRuns()) {
          const c = counts.get(r.id) ?? { done: 0, errored: 0 };
          const hpi = r.summary && typeof (r.summary as Record<string, Json>).hpi === 'number' ? ((r.summary as Record<string, Json>).hpi as number) : null;
          listing.push({ runId: r.id, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt, dataset: r.dataset, model: r.model, done: c.done, errored: c.errored, hpi, error: r.error });
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
    const t = new TerminalTable({ head: ['run', 'status', 'dataset', 'model', 'done', 'errored', 'HPI', 'updated'] });
    for (const r of listing) t.push([r.runId, r.status, r.dataset, r.model, String(r.done), String(r.errored), r.hpi === null ? '-' : r.hpi.toFixed(3), r.updatedAt]);
    this.log(t.toString());
  }
}
