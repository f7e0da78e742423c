/**
 * @hpt-bench/core: the engine and the plugin SDK (DESIGN.md). Everything public is exported here; plugins import
 * contracts, tokens and helpers from this module only.
 */
export * from './contracts.js';
export * from './errors.js';
export * from './tokens.js';
export * from './schema.js';
export * from './prompt/template.js';
export * from './prompt/assemble.js';
export * from './prompt/pack.js';
export * from './plugins/manifest.js';
export * from './plugins/registry.js';
export * from './plugins/host.js';
export * from './data/files.js';
export * from './data/declarative.js';
export * from './data/hub.js';
export * from './ladder/engine.js';
export * from './ladder/adaptive.js';
export * from './ladder/single-call.js';
export * from './store/store.js';
export * from './run/pool.js';
export * from './run/rng.js';
export * from './run/run.js';
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
