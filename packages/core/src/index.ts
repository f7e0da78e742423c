/**
 * @hpt-bench/core: the engine (DESIGN.md "Layout"). It implements the contracts of `@hpt-bench/sdk`, which it
 * re-exports so that host code (the CLI, tests) has one import; plugins import `@hpt-bench/sdk` only.
 */
// tsyringe (the core's container) needs the Reflect metadata polyfill loaded before it: importing the core is enough
import 'reflect-metadata';
export * from '@hpt-bench/sdk';
export * from './prompt/assemble.js';
export * from './prompt/pack.js';
export * from './plugins/manifest.js';
export * from './plugins/registry.js';
export * from './plugins/host.js';
export * from './plugins/construct.js';
export * from './plugins/filters.js';
export * from './plugins/install.js';
export * from './data/declarative.js';
export * from './data/hub.js';
export * from './ladder/engine.js';
export * from './ladder/adaptive.js';
export * from './ladder/single-call.js';
export * from './store/store.js';
export * from './store/cache.js';
export * from './store/texts.js';
export * from './store/queries.js';
export * from './store/sql.js';
export * from './store/location.js';
export * from './store/backends.js';
export * from './store/migrate.js';
export { PostgresDatabase, PostgresError } from './store/postgres.js';
export * from './exec/cache-key.js';
export * from './exec/pool.js';
export * from './exec/breaker.js';
export * from './exec/retry.js';
export * from './exec/limiter.js';
export * from './exec/client.js';
export * from './exec/endpoint-breaker.js';
export * from './exec/endpoints.js';
export * from './exec/batch-file.js';
export * from './exec/batcher.js';
export * from './store/batches.js';
export * from './run/batch.js';
export * from './run/rng.js';
export * from './run/secrets.js';
export * from './run/config.js';
export * from './run/fingerprint.js';
export * from './run/resolve.js';
export * from './run/session.js';
export * from './run/resume.js';
export * from './run/share.js';
export * from './run/execute.js';
export * from './run/plan.js';
export * from './run/summary.js';
export * from './run/score.js';
export * from './judge/index.js';
export * from './store/calibrations.js';
export * from './report/index.js';
