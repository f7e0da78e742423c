import type { InjectionToken } from 'tsyringe';
import type { Json } from './contracts.js';
import type { Contribution } from './plugins/registry.js';

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
 * Typed tsyringe injection tokens (global symbols, so duplicated module copies agree). Code contributions may
 * `@inject()` any of these in their constructor; each contribution is built in its own child container holding its
 * declaration and validated options.
 */
export const Tokens = {
  Logger: Symbol.for('hpt-bench.Logger') as InjectionToken<Logger>,
  Rng: Symbol.for('hpt-bench.Rng') as InjectionToken<RngFactory>,
  Registry: Symbol.for('hpt-bench.Registry') as InjectionToken<unknown>,
  Store: Symbol.for('hpt-bench.Store') as InjectionToken<unknown>,
  /** The contribution being constructed (kind, id, plugin, declaration). */
  Contribution: Symbol.for('hpt-bench.Contribution') as InjectionToken<Contribution>,
  /** The contribution's options, validated against its declared schema. */
  Options: Symbol.for('hpt-bench.Options') as InjectionToken<Record<string, Json>>,
  /** For model contributions: the part of the model id after the colon (`gpt-4o` in `openai:gpt-4o`). */
  ModelName: Symbol.for('hpt-bench.ModelName') as InjectionToken<string>,
  /** For selector contributions: the part of `--selector` after the selector id (`3` in `fixed:3`; '' when none). */
  SelectorArgument: Symbol.for('hpt-bench.SelectorArgument') as InjectionToken<string>,
  /** Every contribution of a kind is registered under its kind token (multi-registration; `resolveAll`). */
  DatasetContribution: Symbol.for('hpt-bench.Contribution.datasets') as InjectionToken<Contribution>,
  StrategyContribution: Symbol.for('hpt-bench.Contribution.strategies') as InjectionToken<Contribution>,
  ModelContribution: Symbol.for('hpt-bench.Contribution.models') as InjectionToken<Contribution>,
  ScorerContribution: Symbol.for('hpt-bench.Contribution.scorers') as InjectionToken<Contribution>,
  LadderContribution: Symbol.for('hpt-bench.Contribution.ladders') as InjectionToken<Contribution>,
  SelectorContribution: Symbol.for('hpt-bench.Contribution.selectors') as InjectionToken<Contribution>,
} as const;
