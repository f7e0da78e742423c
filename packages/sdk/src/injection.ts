/**
 * How a plugin's class declares what its constructor receives (DESIGN.md "Plugins: manifests, discovery, DI").
 *
 * The declaration is kept on the class itself, under a global symbol (`INJECTIONS`), never in a module-level table:
 * a plugin installed with its own `node_modules` — its own copy of this package, or of tsyringe — declares on its class,
 * and the host, with its own copies, reads the same property and builds the class in its container. So injection does
 * not depend on the plugin and the host sharing one copy of anything.
 *
 * Three equivalent ways to declare, one per style of plugin:
 * - TypeScript with `experimentalDecorators`: `constructor(@inject(Tokens.Logger) log: Logger, @inject(Tokens.Options) o: Options)`
 *   (`@injectable()` on the class is optional: a marker for readers);
 * - plain JavaScript, no build step: `static inject = [Tokens.Logger, Tokens.Options];` on the class;
 * - plain JavaScript, functional: `injectable(Tokens.Logger, Tokens.Options)(MyModel)`.
 * A constructor without parameters needs no declaration.
 */
import type { Token } from './tokens.js';

/** The property (a global symbol) under which a class keeps its constructor's tokens, by parameter position. */
export const INJECTIONS: unique symbol = Symbol.for('hpt-bench.injections') as never;

/** Any class a plugin exports. */
export type PluginClass = abstract new (...args: never[]) => unknown;

type Declaring = PluginClass & { [INJECTIONS]?: (symbol | undefined)[]; inject?: unknown };

/**
 * Parameter decorator (TypeScript `experimentalDecorators`): the constructor parameter at this position receives the
 * value of `token`. Only constructor parameters can be injected.
 * @throws TypeError when used on a method parameter.
 */
export function inject(token: Token<unknown>): (target: object, propertyKey: string | symbol | undefined, parameterIndex: number) => void {
  return (target, propertyKey, parameterIndex) => {
    if (propertyKey !== undefined) throw new TypeError(`@inject(${String(token.description)}) is for constructor parameters, not for method ${String(propertyKey)}`);
    const cls = target as Declaring;
    const own = Object.hasOwn(cls, INJECTIONS) ? cls[INJECTIONS]! : [];
    own[parameterIndex] = token;
    Object.defineProperty(cls, INJECTIONS, { value: own, configurable: true, enumerable: false, writable: true });
  };
}

/**
 * Class decorator, or a plain function for JavaScript. Without tokens it only marks the class (the `@inject`
 * parameter decorators already declared its parameters); with tokens it declares the constructor's parameters in
 * order: `injectable(Tokens.Logger, Tokens.Options)(MyModel)`.
 * @returns the class itself.
 */
export function injectable(...tokens: Token<unknown>[]): <C extends PluginClass>(cls: C) => C {
  return (cls) => {
    if (tokens.length > 0) Object.defineProperty(cls, INJECTIONS, { value: [...tokens], configurable: true, enumerable: false, writable: true });
    return cls;
  };
}

/**
 * The tokens a class declared for its constructor, by parameter position (`undefined` where a position has none), or
 * `undefined` when it declared nothing. Reads the `INJECTIONS` property (decorators, `injectable(...)`), else a static
 * `inject` array of symbols. Inherited declarations count (a subclass without its own constructor takes its parent's).
 * @throws TypeError when a static `inject` exists but is not an array of symbols.
 */
export function declaredInjections(cls: PluginClass): (symbol | undefined)[] | undefined {
  const c = cls as Declaring;
  const viaSymbol = c[INJECTIONS];
  if (Array.isArray(viaSymbol)) return viaSymbol;
  if (c.inject === undefined) return undefined;
  if (!Array.isArray(c.inject) || c.inject.some((t) => typeof t !== 'symbol')) {
    throw new TypeError(`static inject of class ${cls.name} must be an array of Tokens (symbols)`);
  }
  return c.inject as symbol[];
}
