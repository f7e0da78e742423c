import 'reflect-metadata';
import { Help } from '@oclif/core/help';
import type { Command } from '@oclif/core/command';
import { declaredFilters, discoverPlugins, type PluginEntry, type Registry } from '@hpt-bench/core';
import { pluginDirsOf } from './base.js';
import { terminalSafe } from './terminal.js';

/** Values shown per dataset line before the list is cut (the full list is in `hpt-bench list datasets --json`). */
const MAX_VALUES = 12;

/**
 * The FILTERS section of `run --help` and `generate --help`: every generator filter the installed datasets declare
 * (built-ins, installed plugins and the command line's `--plugin DIR`s), with its description and, per dataset, its
 * allowed values (schemas/plugin-manifest.schema.json #/$defs/filter). oclif's flag help is static per command, so the
 * declared filters cannot be flags of their own in it; they are accepted as `--<name>` by `filterArgv` (base.ts).
 */
export function filtersHelp(registry: Registry): string {
  const filters = declaredFilters(registry);
  if (filters.length === 0) return '';
  const lines = ['FILTERS (generated datasets; --<name> value[,value...] or --filter <name>=value[,value...])'];
  for (const f of filters) {
    lines.push(`  --${f.name}${f.descriptions.length ? `  ${f.descriptions.join('; ')}` : ''}`);
    for (const [dataset, values] of Object.entries(f.datasets)) {
      const shown = values === undefined ? 'any value (checked by the dataset)' : values.length > MAX_VALUES ? `${values.slice(0, MAX_VALUES).join(', ')}, ... (${values.length} values)` : values.join(', ');
      lines.push(`      ${dataset}: ${shown}`);
    }
  }
  return terminalSafe(lines.join('\n'));
}

/**
 * The CLI's help (package.json oclif.helpClass): oclif's, plus the FILTERS section for commands that take `--filter`.
 * Plugins that fail to load are left out silently here (the command itself reports them).
 */
export default class HptHelp extends Help {
  private argv: string[] = [];

  override async showHelp(argv: string[]): Promise<void> {
    this.argv = argv;
    return super.showHelp(argv);
  }

  override async showCommandHelp(command: Command.Loadable): Promise<void> {
    await super.showCommandHelp(command);
    if (!command.flags || !('filter' in command.flags)) return;
    let registry: Registry;
    try {
      const entries: PluginEntry[] = this.config.getPluginsList().map((p) => ({ root: p.root, origin: p.type === 'core' ? 'builtin' : 'installed' }));
      for (const d of pluginDirsOf(this.argv)) entries.push({ root: d, origin: 'local' });
      registry = discoverPlugins(entries);
    } catch {
      return;
    }
    const text = filtersHelp(registry);
    if (text) this.log(`\n${text}`);
  }
}
