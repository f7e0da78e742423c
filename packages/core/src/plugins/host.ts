import { realpathSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { assertValidAgainst, type Contribution, type ContributionKind, HptError, isHptError, type Json, type PluginSource, readJsonText, Tokens } from '@hpt-bench/sdk';
import { sharedCodeSandbox } from '../exec/code-sandbox.js';
import { constructContribution } from './construct.js';
import { declaredIds, readPluginManifest, resolvePluginPath } from './manifest.js';
import { kindNoun, Registry, type BrokenPlugin } from './registry.js';

/** A package directory to inspect for a manifest, and where it came from. */
export interface PluginEntry {
  root: string;
  origin: PluginSource['origin'];
}

/** Options of `discoverPlugins`. */
export interface DiscoverOptions {
  /**
   * Called once for each installed plugin (origin `installed`: `plugins link` / `plugins install`) that cannot be
   * loaded — unreadable package.json, invalid manifest, a path outside its root — after it was left out of the
   * registry. The CLI prints it as a warning on stderr. Built-in and `--plugin DIR` plugins still fail discovery.
   */
  onBroken?: (plugin: BrokenPlugin) => void;
  /**
   * Called once for each built-in or installed plugin left out because a `--plugin DIR` plugin has the same package
   * name: the development copy wins. The CLI prints it as a one-line warning naming both locations.
   */
  onOverride?: (override: PluginOverride) => void;
}

/** A plugin found twice, once as a `--plugin DIR` development copy (`used`) and once built-in or installed (`ignored`). */
export interface PluginOverride {
  name: string;
  /** root of the `--plugin DIR` copy, which is loaded */
  used: string;
  /** root of the built-in or installed copy, which is left out */
  ignored: string;
  ignoredOrigin: PluginSource['origin'];
}

/**
 * Discovery: read the manifest of every entry (oclif's plugin list, built-ins included, then `--plugin DIR`s) and
 * collect the contributions. Packages without an `hpt-bench` field are skipped. An installed plugin that cannot be
 * loaded is left out and recorded in `registry.broken` (so a run that asks for one of its ids is told why it is
 * missing) and reported through `options.onBroken`; every other command works without it. A `--plugin DIR` plugin
 * whose package name is also built in or installed wins: the other copy is left out and reported through
 * `options.onOverride` (two `--plugin DIR`s of one name still fail as "loaded twice").
 * @throws HptError `E_MANIFEST` / `E_PLUGIN` naming the plugin when the manifest of a built-in or a `--plugin DIR`
 *   plugin is invalid.
 */
export function discoverPlugins(entries: PluginEntry[], options: DiscoverOptions = {}): Registry {
  const registry = new Registry();
  // `--plugin DIR` copies first: they must load, and a built-in or installed plugin of the same name gives way to them
  const local = new Map<PluginEntry, PluginSource | undefined>();
  for (const e of entries) if (e.origin === 'local') local.set(e, readPluginManifest(e.root, e.origin));
  const localByName = new Map<string, PluginSource>();
  for (const s of local.values()) if (s && !localByName.has(s.name)) localByName.set(s.name, s);
  const giveWay = (name: string, e: PluginEntry): boolean => {
    const dev = localByName.get(name);
    if (!dev) return false;
    // the same directory reached twice (`plugins link DIR` and `--plugin DIR`) is one plugin: nothing to report
    if (!samePath(dev.root, e.root)) options.onOverride?.({ name, used: dev.root, ignored: resolve(e.root), ignoredOrigin: e.origin });
    return true;
  };
  for (const e of entries) {
    let source: PluginSource | undefined;
    if (e.origin === 'local') {
      source = local.get(e);
    } else {
      try {
        source = readPluginManifest(e.root, e.origin);
      } catch (err) {
        if (e.origin !== 'installed' || !isHptError(err)) throw err;
        const broken = brokenPlugin(e, err);
        if (giveWay(broken.name, e)) continue;
        registry.addBroken(broken);
        options.onBroken?.(broken);
        continue;
      }
      if (source && giveWay(source.name, e)) continue;
    }
    if (source) registry.add(source);
  }
  return registry;
}

/** Whether two directories are the same (after resolving symbolic links where they exist). */
function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return real(a) === real(b);
}

/** What is known of a plugin whose manifest failed: its name and the ids it declares (read tolerantly), and why. */
function brokenPlugin(e: PluginEntry, err: HptError): BrokenPlugin {
  let name = e.root.split(/[\\/]/).filter(Boolean).pop() ?? e.root;
  let declares: BrokenPlugin['declares'];
  try {
    const pj = JSON.parse(readJsonText(join(e.root, 'package.json'))) as Record<string, unknown>;
    if (typeof pj.name === 'string') name = pj.name;
    let raw = pj['hpt-bench'];
    if (typeof raw === 'string') raw = JSON.parse(readJsonText(resolvePluginPath({ name, root: e.root }, raw, 'manifest file')));
    declares = declaredIds(raw);
  } catch {
    declares = undefined;
  }
  // the reason without the leading "plugin <name>: " (the warning names the plugin already)
  const reason = err.message.startsWith(`plugin ${name}: `) ? err.message.slice(`plugin ${name}: `.length) : err.message;
  return { name, root: e.root, reason, declares };
}

const KIND_TOKEN: Record<ContributionKind, InjectionToken<Contribution>> = {
  datasets: Tokens.DatasetContribution,
  strategies: Tokens.StrategyContribution,
  models: Tokens.ModelContribution,
  scorers: Tokens.ScorerContribution,
  ladders: Tokens.LadderContribution,
  selectors: Tokens.SelectorContribution,
  metrics: Tokens.MetricContribution,
  packs: Tokens.PackContribution,
  reports: Tokens.ReportContribution,
};

/**
 * A child container of tsyringe's root container for one run (or one command), holding the registry, every
 * contribution under its kind token, and the process's code sandbox under `Tokens.CodeSandbox` (`sharedCodeSandbox`:
 * scorers receive it; it bounds how many programs run at once). Other core services (logger, RNG, store) are
 * registered by the caller.
 */
export function createRunContainer(registry: Registry, parent: DependencyContainer = rootContainer): DependencyContainer {
  const c = parent.createChildContainer();
  c.register(Tokens.Registry, { useValue: registry });
  c.register(Tokens.CodeSandbox, { useFactory: () => sharedCodeSandbox() });
  for (const kind of Object.keys(KIND_TOKEN) as ContributionKind[]) {
    for (const contribution of registry.list(kind)) c.register(KIND_TOKEN[kind], { useValue: contribution });
  }
  return c;
}

const moduleCache = new Map<string, Promise<Record<string, unknown>>>();

/**
 * Why a module could not be imported, in words that never quote the file: a syntax error says only that (V8's message
 * and stack quote the offending source line), a Node error gives its code, anything the module threw on evaluation
 * gives its class and the first line of its message (at most 200 characters).
 */
export function importErrorReason(e: unknown): string {
  if (e instanceof SyntaxError || (e instanceof Error && e.name === 'SyntaxError')) return 'it is not a valid JavaScript module (SyntaxError)';
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const known: Record<string, string> = {
    ERR_MODULE_NOT_FOUND: 'the file (or a module it imports) does not exist',
    ENOENT: 'the file does not exist',
    EACCES: 'the file cannot be read (permission denied)',
    EISDIR: 'it is a directory',
    ERR_UNKNOWN_FILE_EXTENSION: 'Node cannot import files of this extension',
    ERR_UNSUPPORTED_DIR_IMPORT: 'it is a directory',
    ERR_IMPORT_ATTRIBUTE_MISSING: 'it is not a JavaScript module (a JSON file?)',
    ERR_IMPORT_ASSERTION_TYPE_MISSING: 'it is not a JavaScript module (a JSON file?)',
    ERR_REQUIRE_ESM: 'it requires an ES module',
  };
  if (typeof code === 'string') return known[code] ?? code;
  if (e instanceof Error) return `${e.name}: ${(e.message.split('\n')[0] ?? '').slice(0, 200)}`;
  return `it threw ${typeof e}`;
}

/** Whether a manifest's module path names a TypeScript source file (`.ts`, `.mts`, `.cts`, `.tsx`). */
export function isTypeScriptModule(path: string): boolean {
  return ['.ts', '.mts', '.cts', '.tsx'].includes(extname(path).toLowerCase());
}

/**
 * Whether an import of a TypeScript file failed because it is TypeScript: Node 20 refuses the extension
 * (`ERR_UNKNOWN_FILE_EXTENSION`); a Node that strips types fails on syntax it cannot strip (decorators, enums:
 * `SyntaxError`, `ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX`). A missing file keeps its own reason.
 */
function typeScriptRefused(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION' || code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX' || code === 'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING') return true;
  return e instanceof SyntaxError || (e instanceof Error && e.name === 'SyntaxError');
}

/**
 * Load the class a code contribution names (`module` relative to the plugin root, `export`). The module path is
 * checked again right before the import (`resolvePluginPath`: inside the plugin root, symbolic links followed).
 * @throws HptError `E_MANIFEST` when the module path leaves the plugin root; `E_PLUGIN` when the module cannot be
 *   imported (naming the plugin, the module path and the reason, never the file's contents; a TypeScript module Node
 *   cannot import is told to be compiled) or does not export a class of that name.
 */
export async function loadContributionClass(c: Contribution): Promise<new (...args: never[]) => unknown> {
  const decl = c.decl as { module?: string; export?: string };
  const what = `${kindNoun(c.kind)} '${c.id}'`;
  if (!decl.module || !decl.export) throw new HptError('E_PLUGIN', `${c.qualifiedId} is declarative and has no module`);
  const file = resolvePluginPath(c.plugin, decl.module, `${what} module`);
  let mod = moduleCache.get(file);
  if (!mod) {
    mod = import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;
    moduleCache.set(file, mod);
  }
  let loaded: Record<string, unknown>;
  try {
    loaded = await mod;
  } catch (e) {
    moduleCache.delete(file);
    if (isTypeScriptModule(decl.module) && typeScriptRefused(e)) {
      throw new HptError(
        'E_PLUGIN',
        `plugin ${c.plugin.name}: ${what} module ${decl.module} is TypeScript, which Node does not import; compile it (tsc, see docs/plugins.md "TypeScript") and name the .js file in the manifest's "module"`,
      );
    }
    throw new HptError('E_PLUGIN', `plugin ${c.plugin.name} failed to load: cannot import ${decl.module} for ${what}: ${importErrorReason(e)}`);
  }
  const cls = loaded[decl.export];
  if (typeof cls !== 'function') {
    throw new HptError('E_PLUGIN', `plugin ${c.plugin.name}: ${decl.module} has no exported class '${decl.export}' (exports: ${Object.keys(loaded).join(', ') || 'none'})`);
  }
  return cls as new (...args: never[]) => unknown;
}

/**
 * Validate `options` against the contribution's declared options schema (none declared: options must be empty).
 * @throws HptError `E_OPTIONS` naming the plugin, the contribution and the failing field.
 */
export function validateOptions(c: Contribution, options: Record<string, Json>): Record<string, Json> {
  const schema = (c.decl as { options?: object }).options;
  const what = `options of ${kindNoun(c.kind)} '${c.id}' (plugin ${c.plugin.name})`;
  if (!schema) {
    const keys = Object.keys(options);
    if (keys.length) throw new HptError('E_OPTIONS', `${what} are invalid: it declares no options, got ${keys.join(', ')}`);
    return options;
  }
  return assertValidAgainst(schema, options, what);
}

/**
 * Build a code contribution through dependency injection: a child container of `parent` gets the contribution, its
 * options and `extra` registrations, then `constructContribution` resolves the class's declared constructor tokens in
 * it (works the same for a plugin with its own copy of the SDK or tsyringe).
 * @param options injected as `Tokens.Options`: validated against the contribution's declared options schema; with
 *   `undeclared: 'pass'`, options of a contribution that declares no schema are passed as they are (a dataset's scorer
 *   options, which the scorer checks itself) instead of being refused.
 * @throws HptError `E_OPTIONS` for invalid options, `E_PLUGIN` when the class cannot be loaded or built.
 */
export async function instantiate<T>(parent: DependencyContainer, c: Contribution, options: Record<string, Json> = {}, extra?: (child: DependencyContainer) => void, undeclared: 'refuse' | 'pass' = 'refuse'): Promise<T> {
  const cls = await loadContributionClass(c);
  const child = parent.createChildContainer();
  child.register(Tokens.Contribution, { useValue: c });
  const declared = (c.decl as { options?: object }).options !== undefined;
  child.register(Tokens.Options, { useValue: declared || undeclared === 'refuse' ? validateOptions(c, options) : options });
  extra?.(child);
  return constructContribution<T>(child, cls, c);
}
