import { RunStore, storeExists, storeLabel } from '@hpt-bench/core';
import { HptCommand, TerminalTable } from '../../base.js';
import { storeFlag } from '../../store-flag.js';

/** `hpt-bench cache stats`: size and use of the model-call cache. */
export default class CacheStats extends HptCommand {
  static override summary = 'Show the model-call cache: entries, size and hits, per model.';
  static override examples = ['<%= config.bin %> cache stats', '<%= config.bin %> cache stats --store results.db --json'];
  static override flags = {
    store: storeFlag(),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CacheStats);
    let stats = { entries: 0, bytes: 0, hits: 0, byModel: {} as Record<string, { entries: number; hits: number }> };
    if (storeExists(flags.store)) {
      const store = new RunStore(flags.store, { readonly: true });
      try {
        stats = store.cacheStats();
      } finally {
        store.close();
      }
    }
    if (flags.json) {
      this.printJson({ store: storeLabel(flags.store), ...stats });
      return;
    }
    const t = new TerminalTable({ head: ['model', 'entries', 'hits'] });
    for (const [model, s] of Object.entries(stats.byModel)) t.push([model, String(s.entries), String(s.hits)]);
    t.push(['total', String(stats.entries), String(stats.hits)]);
    this.log(`${t.toString()}\n${(stats.bytes / 1e6).toFixed(2)} MB of cached responses in ${storeLabel(flags.store)}`);
  }
}
