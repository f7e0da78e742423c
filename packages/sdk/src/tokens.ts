import type { CodeSandbox } from './code-sandbox.js';
import type { Json } from './contracts.js';
import type { Contribution } from './manifest.js';

/** Log sink of the core and of plugins; the CLI routes it to stderr (stdout is reserved for results). */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

/** A seeded generator factory: `create(key)` returns a `() => number` in [0, 1) determined by the run seed and `key`. */
export interface RngFactory {
  readonly seed: number;
  create(key: string): () => number;
}

/**
 * An injection token: a global symbol (`Symbol.for`), so every copy of this package — the host's and a plugin's own —
 * names the same token. `T` is the type of the value the host injects for it (a phantom type for the compiler).
 */
export type Token<T> = symbol & { readonly __injects?: T };

/**
 * The injection tokens (DESIGN.md "Plugins: manifests, discovery, DI"). A code contribution's constructor declares
 * what it receives with `@inject(Tokens.X)` or a static `inject` list (see `injection.ts`); the host builds each
 * contribution in its own child container holding its declaration and validated options.
 *
 * What each kind can receive: every kind gets `Logger`, `Rng`, `Contribution` and `Options`; models also `ModelName`;
 * selectors also `SelectorArgument`; scorers also `CodeSandbox`. `Registry` and `Store` are host objects for host code,
 * not part of the plugin API.
 */
export const Tokens = {
  Logger: Symbol.for('hpt-bench.Logger') as Token<Logger>,
  Rng: Symbol.for('hpt-bench.Rng') as Token<RngFactory>,
  Registry: Symbol.for('hpt-bench.Registry') as Token<unknown>,
  Store: Symbol.for('hpt-bench.Store') as Token<unknown>,
  /** The contribution being constructed (kind, id, plugin, declaration). */
  Contribution: Symbol.for('hpt-bench.Contribution') as Token<Contribution>,
  /** The contribution's options, validated against its declared schema. */
  Options: Symbol.for('hpt-bench.Options') as Token<Record<string, Json>>,
  /** For model contributions: the part of the model id after the colon (`gpt-4o` in `openai:gpt-4o`). */
  ModelName: Symbol.for('hpt-bench.ModelName') as Token<string>,
  /** For selector contributions: the part of `--selector` after the selector id (`3` in `fixed:3`; '' when none). */
  SelectorArgument: Symbol.for('hpt-bench.SelectorArgument') as Token<string>,
  /** For scorer contributions: the code sandbox (`code-sandbox.ts`; the host bounds how many programs run at once). */
  CodeSandbox: Symbol.for('hpt-bench.CodeSandbox') as Token<CodeSandbox>,
  /** Every contribution of a kind is registered under its kind token (multi-registration; host use). */
  DatasetContribution: Symbol.for('hpt-bench.Contribution.datasets') as Token<Contribution>,
  StrategyContribution: Symbol.for('hpt-bench.Contribution.strategies') as Token<Contribution>,
  ModelContribution: Symbol.for('hpt-bench.Contribution.models') as Token<Contribution>,
  ScorerContribution: Symbol.for('hpt-bench.Contribution.scorers') as Token<Contribution>,
  LadderContribution: Symbol.for('hpt-bench.Contribution.ladders') as Token<Contribution>,
  SelectorContribution: Symbol.for('hpt-bench.Contribution.selectors') as Token<Contribution>,
  MetricContribution: Symbol.for('hpt-bench.Contribution.metrics') as Token<Contribution>,
  PackContribution: Symbol.for('hpt-bench.Contribution.packs') as Token<Contribution>,
  ReportContribution: Symbol.for('hpt-bench.Contribution.reports') as Token<Contribution>,
} as const;

/** The name of a token as a plugin author writes it (`Tokens.Logger`), or its symbol description when it is not ours. */
export function tokenName(token: symbol): string {
  for (const [name, t] of Object.entries(Tokens)) if (t === token) return `Tokens.${name}`;
  return token.toString();
}
