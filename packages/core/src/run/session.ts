/**
 * The run session: the one place that wires what a command needs around its plugins — the run's RNG and the store in
 * the container (registered before any plugin is built), the store itself (opened on first use), the model-call
 * cache, the endpoint limiters and retry policy shared by every model client, and the HPI_Dataset saved by
 * `hpt-bench calibrate --save` (hpt.md §2.4). Used by `hpt-bench run`, `judge` and `calibrate`.
 */
import type { DependencyContainer } from 'tsyringe';
import { type Logger, type Model, Tokens } from '@hpt-bench/sdk';
import { Batcher } from '../exec/batcher.js';
import { ModelClient } from '../exec/client.js';
import { EndpointLimiters } from '../exec/limiter.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../exec/retry.js';
import { CallCache } from '../store/cache.js';
import type { SavedCalibration } from '../store/calibrations.js';
import { RunStore } from '../store/store.js';
import { storeExists } from '../store/location.js';
import type { RunConfig } from './config.js';
import { createRngFactory } from './rng.js';

/**
 * What a session is built from:
 * - `storePath`: the store: an SQLite file or a PostgreSQL URL (store/backends.ts; opened, and created, only when first used);
 * - `container`: the command's run container; the session registers `Tokens.Rng` (seeded with `seed`) and
 *   `Tokens.Store` (resolving opens the store) in it;
 * - `seed`: the run seed (default 0);
 * - `concurrency`: the ceiling of each endpoint's adaptive limit of calls in flight (≥ 1);
 * - `cache`: answer repeated calls from the store's model-call cache (default true; `--no-cache`);
 * - `cacheKeyEndpoint`: put the endpoint URL(s) into the cache keys (`--cache-key-endpoint`; default false);
 * - `maxRetries`: retries of a failed call (default `DEFAULT_RETRY.maxRetries`);
 * - `maxResponseBytes`: largest completion a client accepts (default: no limit of the client's own);
 * - `logger`: where the session says which saved HPI_Dataset it uses;
 * - `hptBenchVersion`: the host's version of hpt-bench, recorded in the fingerprint of the runs it creates;
 * - `batch`: `run --batch` — models with a batch interface are called through one `Batcher` (first poll interval
 *   `batchPollMs`, ms).
 */
export interface RunSessionOptions {
  storePath: string;
  container?: DependencyContainer;
  seed?: number;
  concurrency: number;
  cache?: boolean;
  cacheKeyEndpoint?: boolean;
  maxRetries?: number;
  maxResponseBytes?: number;
  logger?: Logger;
  hptBenchVersion?: string;
  batch?: boolean;
  batchPollMs?: number;
}

/** The wiring of one command invocation (see the module comment); `close()` when done. */
export class RunSession {
  private opened: RunStore | undefined;
  private callCache: CallCache | undefined;
  private readonly clients = new Map<Model, Model>();
  private batchQueue: Batcher | undefined;
  /** per-endpoint adaptive concurrency, shared by every client of the session */
  readonly limiters: EndpointLimiters;
  /** the retry policy of every client of the session */
  readonly retry: RetryPolicy;

  constructor(private readonly options: RunSessionOptions) {
    this.limiters = new EndpointLimiters(options.concurrency);
    this.retry = { ...DEFAULT_RETRY, ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}) };
    if (options.container) this.register(options.container);
  }

  /**
   * Register the session's services in a run container, before any plugin is built from it: `Tokens.Rng` (seeded with
   * the session's seed) and `Tokens.Store` (resolving it opens the store).
   */
  register(container: DependencyContainer): void {
    container.register(Tokens.Rng, { useValue: createRngFactory(this.options.seed ?? 0) });
    container.register(Tokens.Store, { useFactory: () => this.store });
  }

  /**
   * The session of `hpt-bench run` for `config` (its seed, concurrency, cache, retries and response limit);
   * `hptBenchVersion` goes into the fingerprints of the runs it creates.
   */
  static forRun(storePath: string, config: RunConfig, container?: DependencyContainer, logger?: Logger, hptBenchVersion?: string): RunSession {
    const maxResponseBytes = config.modelOptions.maxResponseBytes;
    return new RunSession({
      storePath,
      ...(container ? { container } : {}),
      seed: config.seed,
      concurrency: config.concurrency,
      cache: config.cache !== false,
      ...(config.cacheKeyEndpoint ? { cacheKeyEndpoint: true } : {}),
      ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
      ...(typeof maxResponseBytes === 'number' ? { maxResponseBytes } : {}),
      ...(logger ? { logger } : {}),
      ...(hptBenchVersion ? { hptBenchVersion } : {}),
      ...(config.batch ? { batch: true } : {}),
      ...(config.batchPollMs !== undefined ? { batchPollMs: config.batchPollMs } : {}),
    });
  }

  /**
   * `run --batch`: the session's batcher (made on first use; batches recorded in the store, results in the cache,
   * failed lines retried up to the retry policy's `maxRetries` rounds), or undefined without `batch`.
   */
  get batcher(): Batcher | undefined {
    if (!this.options.batch) return undefined;
    const cache = this.cache;
    this.batchQueue ??= new Batcher({
      ledger: () => this.store,
      ...(cache ? { cache } : {}),
      maxRetries: this.retry.maxRetries,
      ...(this.options.batchPollMs !== undefined ? { pollMs: this.options.batchPollMs } : {}),
      ...(this.options.logger ? { logger: this.options.logger } : {}),
    });
    return this.batchQueue;
  }

  /** The version of hpt-bench the host gave (`RunSessionOptions.hptBenchVersion`), if any. */
  get hptBenchVersion(): string | undefined {
    return this.options.hptBenchVersion;
  }

  /** The store file's path. */
  get storePath(): string {
    return this.options.storePath;
  }

  /**
   * The store, opened (and created with its directory) on first use.
   * @throws HptError `E_STORE` when it cannot be opened.
   */
  get store(): RunStore {
    this.opened ??= new RunStore(this.options.storePath);
    return this.opened;
  }

  /** Whether the store has been opened by this session. */
  get storeOpen(): boolean {
    return this.opened !== undefined;
  }

  /** The model-call cache over the store (opening it), or undefined with `cache: false`. */
  get cache(): CallCache | undefined {
    if (this.options.cache === false) return undefined;
    this.callCache ??= new CallCache(this.store.db, this.store);
    return this.callCache;
  }

  /**
   * `model` wrapped in a `ModelClient` of this session: the cache (for models with an endpoint, unless `cache: false`;
   * keys with the endpoint under `cacheKeyEndpoint`), the shared endpoint limiters (an `EndpointSpread` takes the slots
   * of its endpoints' limiters itself), the retry policy and the response limit, and with `batch` the batcher when the
   * model has a batch interface. The same model object always gets the same client.
   */
  client(model: Model): Model {
    let c = this.clients.get(model);
    if (!c) {
      const cache = model.endpoint ? this.cache : undefined;
      const maxResponseBytes = this.options.maxResponseBytes;
      const batcher = model.batch ? this.batcher : undefined;
      c = new ModelClient(model, { ...(cache ? { cache } : {}), ...(this.options.cacheKeyEndpoint ? { cacheKeyEndpoint: true } : {}), ...(batcher ? { batcher } : {}), limiters: this.limiters, retry: this.retry, ...(maxResponseBytes !== undefined ? { maxResponseBytes } : {}) });
      this.clients.set(model, c);
    }
    return c;
  }

  /**
   * The HPI_Dataset saved for `datasetId` by `hpt-bench calibrate --save` (hpt.md §2.4), or undefined. A store that
   * does not exist yet is not created.
   */
  savedHpiDataset(datasetId: string): SavedCalibration | undefined {
    if (!this.opened && !storeExists(this.options.storePath)) return undefined;
    return this.store.savedHpiDataset(datasetId);
  }

  /**
   * `config` with the HPI_Dataset in force: `config.hpiDataset` when given (`--hpi-dataset`), else the value saved for
   * the dataset `datasetId` (said on the logger), else unchanged (the dataset's declared constant applies).
   */
  withSavedHpiDataset(config: RunConfig, datasetId: string): RunConfig {
    if (config.hpiDataset !== undefined) return config;
    const saved = this.savedHpiDataset(datasetId);
    if (!saved) return config;
    this.options.logger?.info(`using the calibrated HPI_Dataset ${saved.hpiDataset} of ${datasetId} (${saved.source}, n = ${saved.n}, saved ${saved.createdAt}); --hpi-dataset overrides it`);
    return { ...config, hpiDataset: saved.hpiDataset };
  }

  /** Commit and close the store, if it was opened. */
  close(): void {
    const store = this.opened;
    this.opened = undefined;
    this.callCache = undefined;
    store?.close();
  }
}
