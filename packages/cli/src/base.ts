import 'reflect-metadata';
import { Command } from '@oclif/core/command';
import * as Flags from '@oclif/core/flags';
import type * as Interfaces from '@oclif/core/interfaces';
import { createRunContainer, credentialFreeUrl, declaredFilters, didYouMean, discoverPlugins, EXIT_CODES, HptError, isHptError, RUN_DEFAULTS, Tokens, type JudgeCallSettings, type Json, type Logger, type PluginEntry, type Registry } from '@hpt-bench/core';
import type { DependencyContainer } from 'tsyringe';
import { terminalSafe } from './terminal.js';

export { renderTables, tableStyle, terminalSafe, TerminalTable, type TerminalCell } from './terminal.js';

/**
 * What one invocation of the CLI (one oclif `Config`) has already reported, so each broken installed plugin and each
 * plugin replaced by a `--plugin DIR` copy is reported once even when a command discovers plugins twice: the roots of
 * the broken plugins and of the replaced ones.
 */
const reported = new WeakMap<object, { broken: Set<string>; override: Set<string> }>();

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
   * An installed plugin that cannot be loaded is reported once per invocation as `warning: plugin X ignored: reason` on
   * stderr and left out; a run that needs one of its ids fails naming it (`Registry.get`). A `--plugin DIR` copy of an
   * installed (or built-in) plugin replaces it, with one `warning: plugin X: using the development copy at ...` line.
   */
  protected discover(dirs: string[] = []): { registry: Registry; container: DependencyContainer } {
    const seen = reported.get(this.config) ?? { broken: new Set<string>(), override: new Set<string>() };
    reported.set(this.config, seen);
    const entries: PluginEntry[] = this.config.getPluginsList().map((p) => ({ root: p.root, origin: originOf(p.type) }));
    for (const d of dirs) entries.push({ root: d, origin: 'local' });
    const registry = discoverPlugins(entries, {
      onBroken: (b) => {
        if (seen.broken.has(b.root)) return;
        seen.broken.add(b.root);
        this.logger.warn(`plugin ${b.name} ignored: ${b.reason}`);
      },
      onOverride: (o) => {
        if (seen.override.has(o.ignored)) return;
        seen.override.add(o.ignored);
        this.logger.warn(`plugin ${o.name}: using the development copy at ${o.used} (--plugin) instead of the ${o.ignoredOrigin === 'builtin' ? 'built-in' : 'installed'} copy at ${o.ignored}`);
      },
    });
    const container = createRunContainer(registry);
    container.register(Tokens.Logger, { useValue: this.logger });
    return { registry, container };
  }

  /**
   * Discover plugins (`--plugin DIR`s read from the raw command line) and return the command line to parse, with the
   * declared generator filters (other than the command's own flag names) rewritten into `--filter` entries
   * (`filterFlags`, `filterArgv`). Parse the result with `this.parse(cmd, argv)`, then `parseFilterOptions(flags.filter)`.
   * @throws HptError `E_CONFIG` for a filter flag without a value.
   */
  protected discoverWithFilters(cmd: { flags?: object; baseFlags?: object }): { registry: Registry; container: DependencyContainer; argv: string[] } {
    const { registry, container } = this.discover(pluginDirsOf(this.argv));
    const own = new Set([...Object.keys(cmd.flags ?? {}), ...Object.keys(cmd.baseFlags ?? {})]);
    const names = declaredFilters(registry).map((f) => f.name).filter((n) => !own.has(n));
    return { registry, container, argv: filterArgv(this.argv, names) };
  }

  /** Print a value as one JSON line on stdout. */
  protected printJson(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** Whether the raw command line asks for `--json` (known before, and even when, parsing fails). */
  protected jsonRequested(): boolean {
    const end = this.argv.indexOf('--');
    return (end === -1 ? this.argv : this.argv.slice(0, end)).includes('--json');
  }

  /**
   * Every error ends the command the same way (README "Exit codes"): with `--json`, one `{"error": {...}}` object on
   * stdout (`errorReport`); otherwise `Error: <message>` on stderr (and `hint: ...` when there is one), without a stack
   * trace for errors a user can cause. Flag-parsing errors are usage errors (exit 2); anything unexpected is
   * `E_INTERNAL` (exit 1; its stack is shown with HPT_BENCH_DEBUG).
   */
  protected override async catch(err: Interfaces.CommandError): Promise<unknown> {
    const ctor = this.constructor as { flags?: object; baseFlags?: object };
    const report = errorReport(err, [...Object.keys(ctor.flags ?? {}), ...Object.keys(ctor.baseFlags ?? {})]);
    if (report === undefined) return super.catch(err); // oclif's own exits (`this.exit`, --help, --version)
    if (this.jsonRequested()) {
      this.printJson({ error: report.error });
      this.exit(report.exitCode);
    }
    if (isHptError(err) || report.error.code === 'E_USAGE') {
      process.stderr.write(`Error: ${terminalSafe(report.error.message, true)}\n`);
      if (report.error.hint) process.stderr.write(`hint: ${terminalSafe(report.error.hint, true)}\n`);
      this.exit(report.exitCode);
    }
    if (process.env.HPT_BENCH_DEBUG) return super.catch(err);
    process.stderr.write(`Error: ${terminalSafe(report.error.message, true)} (an internal error: set HPT_BENCH_DEBUG=1 for its stack trace)\n`);
    this.exit(report.exitCode);
  }
}

/** The `--json` error object of the CLI: `{"error": {"code": "E_…", "message": "…", "hint"?: "…"}}`. */
export interface ErrorObject {
  error: { code: string; message: string; hint?: string };
}

/**
 * How an error ends a command: its JSON object and exit code (`EXIT_CODES`). `HptError`s keep their code, hint and
 * exit code; oclif's flag and argument errors are `E_USAGE` (exit 2); anything else is `E_INTERNAL` (exit 1).
 * Returns undefined for oclif's exit signals, which are not errors.
 */
export function errorReport(err: unknown, flagNames: readonly string[] = []): (ErrorObject & { exitCode: number }) | undefined {
  const oclif = (err as { oclif?: { exit?: number } } | undefined)?.oclif;
  if ((err as Error | undefined)?.name === 'ExitError' || (err as { code?: string } | undefined)?.code === 'EEXIT') return undefined;
  if (isHptError(err)) return { error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) }, exitCode: err.exitCode };
  const message = err instanceof Error ? err.message : String(err);
  if (oclif?.exit === EXIT_CODES.usage) {
    // a mistyped flag: the closest flags of the command
    const unknown = /Nonexistent flags?: (--?[\w-]+)/.exec(message)?.[1];
    const close = unknown ? didYouMean(unknown.replace(/^-+/, ''), flagNames).map((f) => `--${f}`) : [];
    const hint = close.length ? `did you mean ${close.join(' or ')}? (see --help)` : 'see --help';
    return { error: { code: 'E_USAGE', message: usageMessage(message), hint }, exitCode: EXIT_CODES.usage };
  }
  return { error: { code: 'E_INTERNAL', message }, exitCode: EXIT_CODES.runtime };
}

/**
 * An oclif parse error as one clean message: its own text without the flag list oclif appends ("See more help with
 * --help"), and without the "allows multiple values" note that the repeatable `--plugin` flag adds to unrelated errors.
 */
function usageMessage(message: string): string {
  return message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^See more help with/.test(l) && !/flag allows multiple values/i.test(l) && !/^Note: /.test(l))
    .join(' ');
}

/**
 * The generator-filter flag of `run` and `generate`. oclif flags are static per command, but the filters are declared
 * by the datasets of whatever plugins are installed (schemas/plugin-manifest.schema.json #/$defs/filter), so the
 * commands declare one generic, repeatable `--filter name=value[,value...]`, and accept every filter name the
 * registry's datasets declare as a flag of its own (`--task calculate` or `--task=calculate,convert`): before oclif
 * parses the command line, `filterArgv` rewrites those into `--filter` entries (`parseWithFilters`). Values are checked
 * against the dataset's declared values (`checkFilters`); `--help` lists the declared filters and values (help.ts).
 */
export const filterFlags = {
  filter: Flags.string({
    description: 'generated datasets: keep only samples whose filter takes these values, name=value[,value...]; repeatable. Every filter a dataset declares is also a flag: --task calculate = --filter task=calculate (FILTERS below)',
    multiple: true,
    helpGroup: 'GENERATOR',
  }),
};

/** The `--plugin DIR` values of a raw command line (before oclif parses it: discovery decides which flags exist). */
export function pluginDirsOf(argv: readonly string[]): string[] {
  const dirs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--plugin' && i + 1 < argv.length) dirs.push(argv[++i]!);
    else if (a.startsWith('--plugin=')) dirs.push(a.slice('--plugin='.length));
  }
  return dirs;
}

/**
 * Rewrite declared filter flags into `--filter` entries: `--<name> v` and `--<name>=v` become `--filter <name>=v`
 * for every name of `names` (the filters the registry declares, minus the command's own flag names). Tokens after
 * `--` are left alone.
 * @throws HptError `E_CONFIG` when a filter flag has no value.
 */
export function filterArgv(argv: readonly string[], names: readonly string[]): string[] {
  const out: string[] = [];
  const wanted = new Set(names);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const eq = a.indexOf('=');
    const name = a.startsWith('--') ? a.slice(2, eq < 0 ? undefined : eq) : '';
    if (!wanted.has(name)) {
      out.push(a);
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) value = argv[++i];
    if (!value) throw new HptError('E_CONFIG', `--${name} needs a value, e.g. --${name} <value>[,<value>...]`);
    out.push('--filter', `${name}=${value}`);
  }
  return out;
}

/**
 * Flags of every command that calls models (`run`, `judge`, `calibrate --judge`): the OpenAI-compatible endpoint and
 * key variable, the per-call timeout and retries, the model-call cache, and the Hugging Face download cache.
 */
export const endpointFlags = {
  'base-url': Flags.string({ multiple: true, description: 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: OPENAI_BASE_URL, else OpenAI); give it several times for replicas of one model (calls go to the endpoint with the fewest outstanding requests; a failing one is drained and probed again later)' }),
  'cache-key-endpoint': Flags.boolean({ description: 'put the endpoint URL into the model-call cache key and the run identity (for endpoints serving different weights under one model name); default: the model name and generation settings only, so replicas share cached answers', default: false, helpGroup: 'EXECUTION' }),
  'api-key-env': Flags.string({ description: 'environment variable that holds the API key', default: RUN_DEFAULTS.apiKeyEnv }),
  'cache-dir': Flags.string({ description: 'cache directory for Hugging Face downloads', default: RUN_DEFAULTS.cacheDir }),
  cache: Flags.boolean({ description: 'answer repeated model calls from the store (--no-cache: always call the model)', default: true, allowNo: true, helpGroup: 'EXECUTION' }),
  'max-retries': Flags.integer({ description: 'retries of a call failing with 429, 5xx, a timeout or a dropped connection (exponential backoff with jitter, Retry-After honoured)', default: RUN_DEFAULTS.maxRetries, min: 0, max: 100, helpGroup: 'EXECUTION' }),
  timeout: Flags.string({ description: 'seconds before a model call times out (and is retried)', default: String(RUN_DEFAULTS.timeoutSeconds), helpGroup: 'EXECUTION' }),
};

/**
 * The model options the endpoint flags give (`apiKeyEnv`, `timeoutMs` in milliseconds, `baseUrl` when given: one URL as
 * a string, several — `--base-url` given several times, or a list in an evaluation file — as a list).
 * @throws HptError `E_CONFIG` when `--timeout` is not a number of seconds in [0.001, 86400], or a base URL is not an
 *   http(s) URL.
 */
export function modelOptionsFrom(flags: { 'api-key-env': string; timeout: string; 'base-url'?: string | string[] | undefined }): { apiKeyEnv: string; timeoutMs: number; baseUrl?: string | string[] } & Record<string, Json> {
  const timeoutMs = 1000 * numberFlag('--timeout', flags.timeout, 0.001, 86_400);
  const baseUrl = baseUrlOf(flags['base-url']);
  for (const url of typeof baseUrl === 'string' ? [baseUrl] : baseUrl ?? []) checkEndpointUrl('--base-url', url);
  return { apiKeyEnv: flags['api-key-env'], timeoutMs, ...(baseUrl !== undefined ? { baseUrl } : {}) };
}

/**
 * The model-call settings of `judge` and `calibrate --judge` from their flags (`JudgeCallSettings`): the endpoint's
 * model options (`modelOptionsFrom`), calls in flight (`--concurrency`), the cache (`--cache`, `--cache-key-endpoint`)
 * and `--max-retries`.
 * @throws HptError `E_CONFIG` as `modelOptionsFrom`.
 */
export function judgeCallSettingsFrom(flags: Parameters<typeof modelOptionsFrom>[0] & { concurrency: number; cache: boolean; 'cache-key-endpoint': boolean; 'max-retries': number }): JudgeCallSettings {
  return { modelOptions: modelOptionsFrom(flags), concurrency: flags.concurrency, cache: flags.cache, cacheKeyEndpoint: flags['cache-key-endpoint'], maxRetries: flags['max-retries'] };
}

/** `--base-url` values as the `baseUrl` model option: undefined when none, the URL when one, else the list (empty values dropped). */
export function baseUrlOf(value: string | readonly string[] | undefined): string | string[] | undefined {
  const urls = (typeof value === 'string' ? [value] : (value ?? [])).filter((u) => u !== '');
  if (!urls.length) return undefined;
  return urls.length === 1 ? urls[0]! : [...urls];
}

/**
 * Check that an endpoint flag is an http(s) URL (`file:///etc/passwd` or `ftp://` are rejected before any call). The
 * message does not repeat the URL's credentials.
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
