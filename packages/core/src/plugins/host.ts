import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';
import type { Json } from '../contracts.js';
import { HptError, isHptError } from '../errors.js';
import { assertValidAgainst } from '../schema.js';
import { Tokens } from '../tokens.js';
import { readPluginManifest, type PluginSource } from './manifest.js';
import { Registry, type Contribution, type ContributionKind } from './registry.js';

/** A package directory to inspect for a manifest, and where it came from. */
export interface PluginEntry {
  root: string;
  origin: PluginSource['origin'];
}

/**
 * Discovery: read the manifest of every entry (oclif's plugin list, built-ins included, then `--plugin DIR`s) and
 * collect the contributions. Packages without an `hpt-bench` field are skipped.
 * @throws HptError `E_MANIFEST` / `E_PLUGIN` naming the plugin when a manifest is invalid.
 */
export function discoverPlugins(entries: PluginEntry[]): Registry {
  const registry = new Registry();
  for (const e of entries) {
    const source = readPluginManifest(e.root, e.origin);
    if (source) registry.add(source);
  }
  return registry;
}

const KIND_TOKEN: Record<ContributionKind, InjectionToken<Contribution>> = {
  datasets: Tokens.DatasetContribution,
  strategies: Tokens.StrategyContribution,
  models: Tokens.ModelContribution,
  scorers: Tokens.ScorerContribution,
  ladders: Tokens.LadderContribution,
  selectors: Tokens.SelectorContribution,
};

/**
 * A child container of tsyringe's root container for one run (or one command), holding the registry and every
 * contribution under its kind token. Core services (logger, RNG, store) are registered by the caller.
 */
export function createRunContainer(registry: Registry, parent: DependencyContainer = rootContainer): DependencyContainer {
  const c = parent.createChildContainer();
  c.register(Tokens.Registry, { useValue: registry });
  for (const kind of Object.keys(KIND_TOKEN) as ContributionKind[]) {
    for (const contribution of registry.list(kind)) c.register(KIND_TOKEN[kind], { useValue: contribution });
  }
  return c;
}

const moduleCache = new Map<string, Promise<Record<string, unknown>>>();

/**
 * Load the class a code contribution names (`module` relative to the plugin root, `export`).
 * @throws HptError `E_PLUGIN` when the module cannot be imported or does not export a class of that name.
 */
export async function loadContributionClass(c: Contribution): Promise<new (...args: never[]) => unknown> {
  const decl = c.decl as { module?: string; export?: string };
  if (!decl.module || !decl.export) throw new HptError('E_PLUGIN', `${c.qualifiedId} is declarative and has no module`);
  const file = join(c.plugin.root, decl.module);
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
    throw new HptError('E_PLUGIN', `plugin ${c.plugin.name}: cannot load ${decl.module} for ${c.kind.slice(0, -1)} '${c.id}': ${(e as Error).message}`);
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
  const what = `options of ${c.kind.slice(0, -1)} '${c.id}' (plugin ${c.plugin.name})`;
  if (!schema) {
    const keys = Object.keys(options);
    if (keys.length) throw new HptError('E_OPTIONS', `${what} are invalid: it declares no options, got ${keys.join(', ')}`);
    return options;
  }
  return assertValidAgainst(schema, options, what);
}

/**
 * Build a code contribution through dependency injection: a child container of `parent` gets the contribution, its
 * validated options and `extra` registrations, then resolves the class (constructor parameters by `@inject(Tokens.X)`).
 */
export async function instantiate<T>(parent: DependencyContainer, c: Contribution, options: Record<string, Json> = {}, extra?: (child: DependencyContainer) => void): Promise<T> {
  const cls = await loadContributionClass(c);
  const child = parent.createChildContainer();
  child.register(Tokens.Contribution, { useValue: c });
  child.register(Tokens.Options, { useValue: validateOptions(c, options) });
  extra?.(child);
  try {
    return child.resolve(cls as never) as T;
  } catch (e) {
    if (isHptError(e)) throw e;
    throw new HptError('E_PLUGIN', `plugin ${c.plugin.name}: cannot construct ${c.kind.slice(0, -1)} '${c.id}': ${(e as Error).message}`);
  }
}
