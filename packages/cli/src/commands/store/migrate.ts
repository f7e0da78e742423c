import * as Flags from '@oclif/core/flags';
import { migrateStore } from '@hpt-bench/core';
import { HptCommand, TerminalTable } from '../../base.js';

/** `hpt-bench store migrate`: copy a whole store (SQLite file or PostgreSQL URL) into another. */
export default class StoreMigrate extends HptCommand {
  static override summary = 'Copy every run, sample, call, cached response and calibration of one store into another.';
  static override description = `Each side is an SQLite file or a postgres://user@host:port/db URL, so this moves a store to PostgreSQL, back, or between files. Everything is copied in one transaction on the target (all or nothing). The target is created when missing and may hold other runs, but none of the source's (then nothing is written and the exit code is 2); cached responses, shared prompt texts and calibrations it already has are kept. The source is only read.`;
  static override examples = ['<%= config.bin %> store migrate --from .hpt-bench/hpt-bench.db --to postgres://bench@db.example:5432/hpt', '<%= config.bin %> store migrate --from postgres://bench@db.example/hpt --to copy.db --json'];
  static override flags = {
    from: Flags.string({ description: 'the store to copy: an SQLite file or a postgres:// URL', required: true }),
    to: Flags.string({ description: 'the store to copy into: an SQLite file or a postgres:// URL (created when missing)', required: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(StoreMigrate);
    const result = migrateStore(flags.from, flags.to);
    if (flags.json) {
      this.printJson(result);
      return;
    }
    const t = new TerminalTable({ head: ['table', 'rows copied', 'already there'] });
    for (const [table, n] of Object.entries(result.tables)) t.push([table, String(n), String(result.skipped[table] ?? 0)]);
    this.log(`${t.toString()}\ncopied ${result.rows} rows from ${result.from} to ${result.to}`);
  }
}
