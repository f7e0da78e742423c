import 'reflect-metadata';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Command, Flags, type Interfaces } from '@oclif/core';
import { createRunContainer, credentialFreeUrl, discoverPlugins, HptError, isHptError, Tokens, type Json, type Logger, type PluginEntry, type Registry } from '@hpt-bench/core';
import type { DependencyContainer } from 'tsyringe';
import { terminalSafe } from './terminal.js';

export { tableStyle, terminalSafe, TerminalTable, type TerminalCell } from './terminal.js';

/** Roots of the broken installed plugins already reported by this process (each is reported once). */
const warnedBroken = new Set<string>();
/** Roots of the built-in or installed plugins already reported as replaced by a `--plugin DIR` copy. */
const warnedOverride = new Set<string>();

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

  /** Messages go to stderr so that stdout holds only results (control characters made visible: `terminalSafe`). */
  protected readonly logger: Logger = {
    info: (m) => process.stderr.write(`${terminalSafe(m)}\n`),
    warn: (m) => process.stderr.write(`warning: ${terminalSafe(m)}\n`),
    debug: (m) => {
      if (process.env.HPT_BENCH_DEBUG) process.stderr.write(`debug: ${terminalSafe(m)}\n`);
    },
  };

  /**
   * Discover plugins: every oclif plugin of this CLI (built-ins are oclif plugins of the root package) plus `dirs`.
   * An installed plugin that cannot be loaded is reported once per process as `warning: plugin X ignored: reason` on
   * stderr and left out; a run that needs one of its ids fails naming it (`Registry.get`). A `--plugin DIR` copy of an
   * installed (or built-in) plugin replaces it, with one `warning: plugin X: using the development copy at ...` line.
   */
  protected discover(dirs: string[] = []): { registry: Registry; container: DependencyContainer } {
    const entries: PluginEntry[] = this.config.getPluginsList().map((p) => ({ root: p.root, origin: originOf(p.type) }));
    for (const d of dirs) entries.push({ root: d, origin: 'local' });
    const registry = discoverPlugins(entries, {
      onBroken: (b) => {
        if (warnedBroken.has(b.root)) return;
        warnedBroken.add(b.root);
        this.logger.warn(`plugin ${b.name} ignored: ${b.reason}`);
      },
      onOverride: (o) => {
        if (warnedOverride.has(o.ignored)) return;
        warnedOverride.add(o.ignored);
        this.logger.warn(`plugin ${o.name}: using the development copy at ${o.used} (--plugin) instead of the ${o.ignoredOrigin === 'builtin' ? 'built-in' : 'installed'} copy at ${o.ignored}`);
      },
    });
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
      process.stderr.write(`Error: ${terminalSafe(err.message, true)}\n`);
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

/**
 * Flags of every command that calls models (`run`, `judge`, `calibrate --judge`): the OpenAI-compatible endpoint and
 * key variable, the per-call timeout and retries, the model-call cache, and the Hugging Face download cache.
 */
export const endpointFlags = {
  'base-url': Flags.string({ description: 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: OPENAI_BASE_URL, else OpenAI)' }),
  'api-key-env': Flags.string({ description: 'environment variable that holds the API key', default: 'OPENAI_API_KEY' }),
  'cache-dir': Flags.string({ description: 'cache directory for Hugging Face downloads', default: join(homedir(), '.cache', 'hpt-bench') }),
  cache: Flags.boolean({ description: 'answer repeated model calls from the store (--no-cache: always call the model)', default: true, allowNo: true, helpGroup: 'EXECUTION' }),
  'max-retries': Flags.integer({ description: 'retries of a call failing with 429, 5xx, a timeout or a dropped connection (exponential backoff with jitter, Retry-After honoured)', default: 5, min: 0, max: 100, helpGroup: 'EXECUTION' }),
  timeout: Flags.string({ description: 'seconds before a model call times out (and is retried)', default: '600', helpGroup: 'EXECUTION' }),
};

/**
 * The model options the endpoint flags give (`apiKeyEnv`, `timeoutMs` in milliseconds, `baseUrl` when given).
 * @throws HptError `E_CONFIG` when `--timeout` is not a number of seconds in [0.001, 86400].
 */
export function modelOptionsFrom(flags: { 'api-key-env': string; timeout: string; 'base-url'?: string | undefined }): { apiKeyEnv: string; timeoutMs: number; baseUrl?: string } & Record<string, Json> {
  const timeoutMs = 1000 * numberFlag('--timeout', flags.timeout, 0.001, 86_400);
  if (flags['base-url']) checkEndpointUrl('--base-url', flags['base-url']);
  return { apiKeyEnv: flags['api-key-env'], timeoutMs, ...(flags['base-url'] ? { baseUrl: flags['base-url'] } : {}) };
}

/**
 * Check that an endpoint flag is an http(s) URL (`file:///etc/passwd` or `ftp://` are rejected before any call; issue #13
 * item 7). The message does not repeat the URL's credentials.
 * @throws HptError `E_CONFIG` naming the flag.
 */
export function checkEndpointUrl(flag: string, value: string): void {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new HptError('E_CONFIG', `${flag} must be an http:// or https:// URL such as http://127.0.0.1:8000/v1, got '${credentialFreeUrl(value)}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new HptError('E_CONFIG', `${flag} must be an http:// or https:// URL such as http://127.0.0.1:8000/v1, got a ${u.protocol} URL`);
}

/**
 * Parse a numeric flag within [min, max] (`Number.MIN_VALUE` as `min` reads "0 (exclusive)" in the message).
 * @throws HptError `E_CONFIG` naming the flag, the range and the value.
 */
export function numberFlag(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!value.trim() || !Number.isFinite(n) || n < min || n > max) throw new HptError('E_CONFIG', `${flag} must be a number in [${min === Number.MIN_VALUE ? '0 (exclusive)' : min}, ${max}], got '${value}'`);
  return n;
}
