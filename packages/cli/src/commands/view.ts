import * as Flags from '@oclif/core/flags';
import { HptError, loadReportViews, RunStore, storeExists, storeLabel } from '@hpt-bench/core';
import { HptCommand } from '../base.js';
import { storeFlag } from '../store-flag.js';
import { createViewServer } from '../view/server.js';

/**
 * `hpt-bench view`: a local, read-only web viewer of a run store (SQLite file or PostgreSQL database) on 127.0.0.1 —
 * the runs with filters, a running run's progress live, run pages with the report tables, a sample browser with each
 * level's prompt, reply, reasoning, extraction rule and verdict, and comparisons of two runs. The server and its JSON
 * API are `view/server.ts`; this command opens the store read-only, prints the URL and serves until SIGINT or SIGTERM.
 */
export default class View extends HptCommand {
  static override summary = 'Browse a run store in a local web viewer: runs, live progress, tables, sample traces, comparisons.';
  static override description = `Serves a read-only web app on 127.0.0.1 (never another interface) over the store: the runs list with filters (model, dataset, ladder, status), a running run's progress live (samples done, HPI so far, errors, ETA — also while another \`hpt-bench run\` process writes the store), run pages with the report's tables (usage and cost per level, reasoning tokens when recorded), a sample browser (each level's prompt, reply, reasoning, extraction rule and verdict) and paired comparisons of two runs. Pages have links to share (#/run/ID, #/run/ID/sample/INDEX, #/compare/A/B). --port 0 (the default) picks a free port; the URL is printed on stdout (--json: {"url": ...}). Ctrl-C stops it.`;
  static override examples = ['<%= config.bin %> view', '<%= config.bin %> view --store results.db --port 8765', '<%= config.bin %> view --store postgres://me@db:5432/hpt'];
  static override flags = {
    store: storeFlag(),
    port: Flags.integer({ description: 'port on 127.0.0.1 (0: a free one)', default: 0, min: 0, max: 65535 }),
    bootstrap: Flags.integer({ description: 'bootstrap resamples B of the intervals on run pages and comparisons', default: 2000, min: 1, max: 1_000_000 }),
    seed: Flags.integer({ description: 'bootstrap seed', default: 0 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(View);
    if (!storeExists(flags.store)) throw new HptError('E_CONFIG', `no store at ${storeLabel(flags.store)}; give --store FILE or URL (the store \`hpt-bench run --store\` wrote)`);
    const { registry, container } = this.discover(flags.plugin ?? []);
    const views = await loadReportViews(registry, container, { onCodeError: (c, e) => this.logger.warn(`report view ${c.qualifiedId} of plugin ${c.plugin.name}: its computed tables are left out (${(e as Error).message})`) });
    const store = new RunStore(flags.store, { readonly: true });
    const label = storeLabel(flags.store);
    let listening;
    try {
      listening = await createViewServer({ store, label, views, resamples: flags.bootstrap, seed: flags.seed }).listen(flags.port);
    } catch (e) {
      store.close();
      throw new HptError('E_CONFIG', `cannot listen on 127.0.0.1:${flags.port}: ${(e as Error).message}`);
    }
    if (flags.json) this.printJson({ url: listening.url, store: label });
    else process.stdout.write(`hpt-bench view: ${listening.url} (store ${label}; Ctrl-C stops)\n`);
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await listening.close();
    store.close();
    this.logger.info(`hpt-bench view: stopped (${signal})`);
  }
}
