/**
 * @hpt-bench/core: the engine (DESIGN.md "Layout"). It implements the contracts of `@hpt-bench/sdk`, which it
 * re-exports so that host code (the CLI, tests) has one import; plugins import `@hpt-bench/sdk` only.
 */
export * from '@hpt-bench/sdk';
export * from './prompt/assemble.js';
export * from './prompt/pack.js';
export * from './plugins/manifest.js';
export * from './plugins/registry.js';
export * from './plugins/host.js';
export * from './plugins/construct.js';
export * from './plugins/filters.js';
export * from './data/declarative.js';
export * from './data/hub.js';
export * from './ladder/engine.js';
export * from './ladder/adaptive.js';
export * from './ladder/single-call.js';
export * from './store/store.js';
export * from './run/pool.js';
export * from './run/rng.js';
export * from './run/run.js';
export * from './run/score.js';
export * from './run/plan.js';
export * from './run/breaker.js';
export * from './run/secrets.js';
export * from './run/retry.js';
export * from './run/limiter.js';
export * from './run/client.js';
export * from './store/cache.js';
export * from './judge/index.js';
export * from './store/calibrations.js';
export * from './report/index.js';
