/**
 * Building a plugin's class with constructor injection (DESIGN.md "Plugins: manifests, discovery, DI"). The class
 * declares its constructor's tokens on itself (`@hpt-bench/sdk` injection.ts: `@inject`, `injectable(...)`, or a
 * static `inject` list; tsyringe's own `@inject` metadata is read too), and each token is resolved from the
 * contribution's child container. Nothing depends on the plugin sharing the host's copy of the SDK, tsyringe or
 * reflect-metadata: a plugin installed with its own `node_modules` is built exactly like a built-in.
 */
import type { DependencyContainer } from 'tsyringe';
import { declaredInjections, HptError, tokenName, Tokens, type Contribution, type ContributionKind, type PluginClass } from '@hpt-bench/sdk';
import { kindNoun } from './registry.js';

/**
 * Tokens the run container holds for every contribution but only these kinds receive (the others get the "not
 * available to a <kind>" error): the code sandbox is for scorers (issue 26, item 4).
 */
export const KIND_ONLY_TOKENS: ReadonlyMap<symbol, readonly ContributionKind[]> = new Map([[Tokens.CodeSandbox, ['scorers']]]);

/** tsyringe's metadata key for `@inject` parameter tokens (tsyringe 4.x `reflection-helpers.ts`). */
const TSYRINGE_TOKENS = 'injectionTokens';

type ReflectWithMetadata = typeof Reflect & { getOwnMetadata?: (key: string, target: object) => unknown };

/** Parameter tokens recorded by a plugin's own tsyringe `@inject` (when Reflect metadata is available), by position. */
function tsyringeInjections(cls: PluginClass): (symbol | undefined)[] | undefined {
  const get = (Reflect as ReflectWithMetadata).getOwnMetadata;
  if (typeof get !== 'function') return undefined;
  const recorded = get.call(Reflect, TSYRINGE_TOKENS, cls) as Record<string, unknown> | undefined;
  if (!recorded || typeof recorded !== 'object') return undefined;
  const out: (symbol | undefined)[] = [];
  for (const [i, d] of Object.entries(recorded)) {
    // tsyringe 4.10 records `{ token, multiple, isOptional }`; older versions the token itself
    const t = typeof d === 'object' && d !== null ? (d as { token?: unknown }).token : d;
    if (typeof t === 'symbol') out[Number(i)] = t;
  }
  return out.length > 0 ? out : undefined;
}

/** The constructor's parameter names as written in its source (`#1`, `#2`, … when they cannot be read). */
export function constructorParameterNames(cls: PluginClass): string[] {
  const m = /\bconstructor\s*\(([^)]*)\)/.exec(Function.prototype.toString.call(cls));
  if (!m) return [];
  return m[1]!
    .split(',')
    .map((p) => p.replace(/\/\*.*?\*\//g, '').replace(/=.*$/s, '').trim())
    .filter((p) => p !== '');
}

/**
 * Construct `cls` for contribution `c`, resolving each constructor parameter's declared token in `container` (the
 * contribution's child container, holding `Tokens.Contribution`, `Tokens.Options` and the kind's extras; a token of
 * `KIND_ONLY_TOKENS` only for its kinds).
 * @returns the new instance.
 * @throws HptError `E_PLUGIN` naming the plugin, the contribution, the class and the constructor parameter, with what
 *   to do: when a parameter declares no token, when a token is not available to this kind of contribution, and when
 *   the constructor itself throws (its message, first line).
 */
export function constructContribution<T>(container: DependencyContainer, cls: PluginClass, c: Contribution): T {
  const what = `plugin ${c.plugin.name}: cannot construct ${kindNoun(c.kind)} '${c.id}' (class ${cls.name || 'anonymous'})`;
  let declared: (symbol | undefined)[] | undefined;
  try {
    declared = declaredInjections(cls) ?? tsyringeInjections(cls);
  } catch (e) {
    throw new HptError('E_PLUGIN', `${what}: ${(e as Error).message}`);
  }
  const names = constructorParameterNames(cls);
  const count = Math.max(cls.length, declared?.length ?? 0);
  const args: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const param = `constructor parameter ${i + 1}${names[i] ? ` (${names[i]})` : ''}`;
    const token = declared?.[i];
    if (token === undefined) {
      throw new HptError(
        'E_PLUGIN',
        `${what}: ${param} declares no injection token; declare it with @inject(Tokens.X) from @hpt-bench/sdk (TypeScript, experimentalDecorators) or list the tokens in a static inject = [Tokens.Logger, ...] (JavaScript); see docs/plugins.md "Injection"`,
      );
    }
    if (!container.isRegistered(token, true) || !(KIND_ONLY_TOKENS.get(token)?.includes(c.kind) ?? true)) {
      throw new HptError('E_PLUGIN', `${what}: ${param} asks for ${tokenName(token)}, which is not available to a ${kindNoun(c.kind)}; see docs/plugins.md "Injection" for the tokens each kind receives`);
    }
    args.push(container.resolve(token));
  }
  try {
    return new (cls as unknown as new (...a: unknown[]) => T)(...args);
  } catch (e) {
    if (e instanceof HptError) throw e;
    const message = e instanceof Error ? `${e.name}: ${(e.message.split('\n')[0] ?? '').slice(0, 200)}` : String(e);
    throw new HptError('E_PLUGIN', `${what}: the constructor threw ${message}`, { cause: e });
  }
}
