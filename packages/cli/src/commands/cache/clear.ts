import { existsSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { RunStore } from '@hpt-bench/core';
import { HptCommand } from '../../base.js';

/** `hpt-bench cache clear`: delete cached model responses (all, or one model's). Runs and results are kept. */
export default class CacheClear extends HptCommand {
  static override summary = 'Delete cached model responses (all, or only --model); runs and results are kept.';
  static override examples = ['<%= config.bin %> cache clear', '<%= config.bin %> cache clear --model openai:gpt-4o-mini --json'];
  static override flags = {
    store: Flags.string({ description: 'SQLite store file', default: '.hpt-bench/hpt-bench.db' }),
    model: Flags.string({ description: 'only the responses of this model id' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CacheClear);
    let deleted = 0;
    if (existsSync(flags.store)) {
      const store = new RunStore(flags.store);
      try {
        deleted = store.clearCache(flags.model);
      } finally {
        store.close();
      }
    }
    if (flags.json) {
      this.printJson({ store: flags.store, deleted, ...(flags.model ? { model: flags.model } : {}) });
      return;
    }
    this.log(`deleted ${deleted} cached response${deleted === 1 ? '' : 's'}${flags.model ? ` of ${flags.model}` : ''} from ${flags.store}`);
  }
}
