import * as Flags from '@oclif/core/flags';
import { RunStore, storeExists, storeLabel } from '@hpt-bench/core';
import { HptCommand } from '../../base.js';
import { storeFlag } from '../../store-flag.js';

/** `hpt-bench cache clear`: delete cached model responses (all, or one model's). Runs and results are kept. */
export default class CacheClear extends HptCommand {
  static override summary = 'Delete cached model responses (all, or only --model); runs and results are kept.';
  static override examples = ['<%= config.bin %> cache clear', '<%= config.bin %> cache clear --model openai:gpt-4o-mini --json'];
  static override flags = {
    store: storeFlag(),
    model: Flags.string({ description: 'only the responses of this model id' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CacheClear);
    let deleted = 0;
    if (storeExists(flags.store)) {
      const store = new RunStore(flags.store);
      try {
        deleted = store.clearCache(flags.model);
      } finally {
        store.close();
      }
    }
    if (flags.json) {
      this.printJson({ store: storeLabel(flags.store), deleted, ...(flags.model ? { model: flags.model } : {}) });
      return;
    }
    this.log(`deleted ${deleted} cached response${deleted === 1 ? '' : 's'}${flags.model ? ` of ${flags.model}` : ''} from ${storeLabel(flags.store)}`);
  }
}
