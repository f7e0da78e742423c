/**
 * The plugins of an hpt-bench installation for code that is not the CLI (`evaluate()` from a script or a notebook):
 * the same plugin list the CLI sees — the built-in plugins the `hpt-bench` package names (its package.json
 * `oclif.plugins`), the plugins installed or linked with `hpt-bench plugins install|link` (oclif's data directory), and
 * plugin directories given by the caller — discovered and injected exactly as a command does (`discoverPlugins`,
 * `createRunContainer`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HptError, type Logger, Tokens } from '@hpt-bench/sdk';
import { createRunContainer, discoverPlugins, type PluginEntry } from '../plugins/host.js';
import { QUIET_LOGGER } from '../run/resolve.js';
import type { EvaluationPlugins } from './evaluate.js';

/**
 * Which plugins to load:
 * - `root`: the directory of the `hpt-bench` package whose built-in plugins to load (default: found by walking up from
 *   this module, then from the current directory, to a package.json named `hpt-bench`);
 * - `installed`: also the plugins installed or linked with `hpt-bench plugins` (default true);
 * - `dataDir`: oclif's data directory holding them (default `$HPT_BENCH_DATA_DIR`, else
 *   `$XDG_DATA_HOME/hpt-bench`, else `~/.local/share/hpt-bench`);
 * - `dirs`: plugin package directories to add (like `--plugin DIR`; a copy of a built-in or installed plugin wins);
 * - `logger`: where a broken installed plugin is reported (once, as a warning) and registered as `Tokens.Logger`.
 */
export interface LoadPluginsOptions {
  root?: string;
  installed?: boolean;
  dataDir?: string;
  dirs?: readonly string[];
  logger?: Logger;
}


/** The nearest directory at or above `from` whose package.json is named `hpt-bench`, or undefined. */
function findInstallation(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const pj = join(dir, 'package.json');
    if (existsSync(pj)) {
      try {
        if ((JSON.parse(readFileSync(pj, 'utf8')) as { name?: unknown }).name === 'hpt-bench') return dir;
      } catch {
        // not a readable package.json: keep walking
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** The directory of package `name` as Node would find it from `root` (node_modules of `root` and its parents). */
function packageDir(name: string, root: string): string | undefined {
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Whether the package at `dir` declares an hpt-bench manifest (oclif's own plugins, e.g. plugin-help, do not). */
function isHptPlugin(dir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>)['hpt-bench'] !== undefined;
  } catch {
    return false;
  }
}

/** oclif's data directory of hpt-bench (where `plugins install` puts packages). */
export function pluginDataDir(): string {
  if (process.env.HPT_BENCH_DATA_DIR) return process.env.HPT_BENCH_DATA_DIR;
  const base = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'hpt-bench');
}

/**
 * The plugin entries of an installation: its built-in plugins (origin `builtin`), then the installed and linked ones
 * of `dataDir` (origin `installed`). Packages without an `hpt-bench` manifest are skipped.
 * @throws HptError `E_PLUGIN` when a built-in plugin the package names is not installed beside it.
 */
export function installationPlugins(root: string, dataDir?: string): PluginEntry[] {
  const pj = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { oclif?: { plugins?: unknown[] } };
  const entries: PluginEntry[] = [];
  for (const name of pj.oclif?.plugins ?? []) {
    if (typeof name !== 'string') continue;
    const dir = packageDir(name, root);
    if (!dir) throw new HptError('E_PLUGIN', `the built-in plugin ${name} of ${root} is not installed (run npm install there)`);
    if (isHptPlugin(dir)) entries.push({ root: dir, origin: 'builtin' });
  }
  if (dataDir === undefined) return entries;
  const dataPj = join(dataDir, 'package.json');
  if (!existsSync(dataPj)) return entries;
  const records = (JSON.parse(readFileSync(dataPj, 'utf8')) as { oclif?: { plugins?: (string | { name: string; type?: string; root?: string })[] } }).oclif?.plugins ?? [];
  for (const r of records) {
    const dir = typeof r === 'string' ? join(dataDir, 'node_modules', r) : r.type === 'link' && r.root ? r.root : join(dataDir, 'node_modules', r.name);
    if (existsSync(join(dir, 'package.json')) && isHptPlugin(dir)) entries.push({ root: dir, origin: 'installed' });
  }
  return entries;
}

/**
 * Load the plugins of an hpt-bench installation for `evaluate()` (see the module comment): discovered, validated and
 * registered in a fresh run container, with `Tokens.Logger` set. A broken installed plugin is left out with one warning
 * (a run that needs one of its ids then fails naming it), as in the CLI.
 * @returns the registry and the container to pass as `EvaluateOptions.plugins`.
 * @throws HptError `E_PLUGIN` when no hpt-bench installation is found or a built-in plugin is missing; `E_MANIFEST`
 *   for an invalid manifest of a built-in or `dirs` plugin.
 */
export function loadPlugins(options: LoadPluginsOptions = {}): EvaluationPlugins {
  const root = options.root ?? findInstallation(dirname(fileURLToPath(import.meta.url))) ?? findInstallation(process.cwd());
  if (!root) throw new HptError('E_PLUGIN', 'no hpt-bench installation found above this module or the current directory; pass loadPlugins({ root }) the directory of the hpt-bench package');
  const logger = options.logger ?? QUIET_LOGGER;
  const entries = installationPlugins(root, options.installed === false ? undefined : (options.dataDir ?? pluginDataDir()));
  for (const d of options.dirs ?? []) entries.push({ root: resolve(d), origin: 'local' });
  const registry = discoverPlugins(entries, { onBroken: (b) => logger.warn(`plugin ${b.name} ignored: ${b.reason}`) });
  const container = createRunContainer(registry);
  container.register(Tokens.Logger, { useValue: logger });
  return { registry, container };
}
