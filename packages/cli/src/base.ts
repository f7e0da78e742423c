import 'reflect-metadata';
import { Command, Flags, type Interfaces } from '@oclif/core';
import { createRunContainer, discoverPlugins, isHptError, Tokens, type Logger, type PluginEntry, type Registry } from '@hpt-bench/core';
import type { DependencyContainer } from 'tsyringe';

/** cli-table3 style: coloured header on a colour TTY, plain text otherwise (pipes, files, NO_COLOR). */
export function tableStyle(): { head: string[]; border: string[] } {
  const colour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  return colour ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] };
}

/** Where oclif says a plugin came from, mapped to the origin recorded with each contribution. */
function originOf(type: string): PluginEntry['origin'] {
  return type === 'core' ? 'builtin' : 'installed';
}

/**
 * Base of every hpt-bench command: the shared `--plugin` and `--json` flags, plugin discovery (oclif's plugin list,
 * built-ins included, plus `--plugin DIR`), a stderr logger, and one-line errors without stack traces for errors a
 * user can cause (DESIGN.md "Conventions").
 */
export abstract class HptCommand extends Command {
  static override baseFlags = {
    plugin: Flags.string({ description: 'load a plugin package from this directory (local development); repeatable', multiple: true, helpGroup: 'PLUGINS' }),
    json: Flags.boolean({ description: 'print exactly one JSON object on stdout', default: false }),
  };

  /** Messages go to stderr so that stdout holds only results. */
  protected readonly logger: Logger = {
    info: (m) => process.stderr.write(`${m}\n`),
    warn: (m) => process.stderr.write(`warning: ${m}\n`),
    debug: (m) => {
      if (process.env.HPT_BENCH_DEBUG) process.stderr.write(`debug: ${m}\n`);
    },
  };

  /** Discover plugins: every oclif plugin of this CLI (built-ins are oclif plugins of the root package) plus `dirs`. */
  protected discover(dirs: string[] = []): { registry: Registry; container: DependencyContainer } {
    const entries: PluginEntry[] = this.config.getPluginsList().map((p) => ({ root: p.root, origin: originOf(p.type) }));
    for (const d of dirs) entries.push({ root: d, origin: 'local' });
    const registry = discoverPlugins(entries);
    const container = createRunContainer(registry);
    container.register(Tokens.Logger, { useValue: this.logger });
    return { registry, container };
  }

  /** Print a value as one JSON line on stdout. */
  protected printJson(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  }

  protected override async catch(err: Interfaces.CommandError): Promise<unknown> {
    if (isHptError(err)) {
      process.stderr.write(`Error: ${err.message}\n`);
      this.exit(err.exitCode);
    }
    return super.catch(err);
  }
}

/**
 * Filters of generated datasets (issue #4 items 3-4), shared by `run` and `generate`: each repeatable or
 * comma-separated; a dataset accepts the ones its manifest declares.
 */
export const generatorFlags = {
  task: Flags.string({ description: 'generated datasets: only these tasks (e.g. prefix_traversal, remove_node, calculate)', multiple: true, delimiter: ',', helpGroup: 'GENERATOR' }),
  preset: Flags.string({ description: 'generated datasets: only these presets (e.g. easy, medium-1, symbol_easy_value_easy_length_easy)', multiple: true, delimiter: ',', helpGroup: 'GENERATOR' }),
  representation: Flags.string({ description: 'tree scenarios: edge and/or hierarchy', multiple: true, delimiter: ',', options: ['edge', 'hierarchy'], helpGroup: 'GENERATOR' }),
  icl: Flags.string({ description: 'in-context examples: zero, one and/or few', multiple: true, delimiter: ',', options: ['zero', 'one', 'few'], helpGroup: 'GENERATOR' }),
  semantics: Flags.string({ description: 'JSON scenario: normal and/or nonsense names', multiple: true, delimiter: ',', options: ['normal', 'nonsense'], helpGroup: 'GENERATOR' }),
};

/** The generator filters given on the command line, by name (absent flags are left out). */
export function filtersFrom(flags: Partial<Record<keyof typeof generatorFlags, string[] | undefined>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of Object.keys(generatorFlags) as (keyof typeof generatorFlags)[]) {
    const v = flags[name];
    if (v && v.length) out[name] = v;
  }
  return out;
}
