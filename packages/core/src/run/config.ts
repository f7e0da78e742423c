/**
 * A run's configuration: its shape (`RunConfig`, what `hpt-bench run` flags become), the check of the fields a flag
 * parser cannot check, the form it is stored in (`runs.config`), and its identity (`configHash`: runs with the same
 * hash may continue each other).
 */
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type CompatMode, type GenerationSettings, HptError, type Json } from '@hpt-bench/sdk';
import { credentialFreeUrl } from './secrets.js';

/**
 * A run's configuration (what `hpt-bench run` flags become). Secrets are never part of it: the API key is read from
 * the environment variable named by `modelOptions.apiKeyEnv` by the model plugin.
 */
export interface RunConfig {
  dataset: string;
  data?: string;
  split?: string;
  /** evaluate at most this many samples (the first ones of the stream) */
  limit?: number;
  model: string;
  /**
   * the model's label (an evaluation file's model entry `name`, `run --config`): reports label the run by it instead
   * of the model id. Display only: not part of the run's identity (`configHash`)
   */
  name?: string;
  /** model of the calls a strategy makes with purpose `knowledge`; default: the evaluated model (hpt.md §9 #11) */
  knowledgeModel?: string;
  /**
   * `--extractor` (opt-in; issue #23): the model asked for the final answer when the scorer's strict rules read none
   * (ladder/extractor.ts); part of the run's identity, since it can change verdicts. Strict mode only.
   */
  extractor?: string;
  /**
   * options for model plugins (e.g. `baseUrl`, `apiKeyEnv` for openai); `baseUrl` may be a list of endpoints serving
   * the same model (`--base-url` given several times: the calls are spread over them, `resolveModel`)
   */
  modelOptions: Record<string, Json>;
  /** ladder id, or a path to a JSON file `{ "id", "levels": [...] }`; default `hpf` */
  ladder: string;
  compat: CompatMode;
  seed: number;
  concurrency: number;
  generation: GenerationSettings;
  onInvalid: 'fail' | 'skip';
  cacheDir: string;
  /**
   * replicates per sample (`--replicates`, default 1): each sample's ladder is climbed this many times, and pass@k
   * metrics use the replicates (hpt.md §3: pass@k with the unbiased estimator when n > 1). Stored (and hashed) under
   * its former name `samples`, so stores written before the rename still resume (`toStoredConfig`, `fromStoredConfig`).
   */
  replicates?: number;
  /** options passed to the dataset's scorer on top of the dataset's own (e.g. `threshold` for IWSLT and SamSum) */
  scorerOptions?: Record<string, Json>;
  /**
   * generator filters of a generated dataset by name (`task`, `preset`, `representation`, `icl`, `semantics`); only
   * datasets whose manifest declares the filter accept it
   */
  filters?: Record<string, string[]>;
  /** HPI_Dataset override (the penalty added to m for an unsolved sample); default: the dataset's declared constant */
  hpiDataset?: number;
  /** use the model-call cache of the store (default true; `--no-cache`) */
  cache?: boolean;
  /**
   * `--cache-key-endpoint`: the endpoint URL(s) are part of the cache key and of the run's identity (`configHash`), for
   * endpoints that serve different weights under one model name; default: neither names the URL, so the endpoints of
   * one model share cached answers and a run resumed with another endpoint list is the same run
   */
  cacheKeyEndpoint?: boolean;
  /** retries of a failed call (429, 5xx, timeout, dropped connection) before its sample is recorded as errored; default 5 */
  maxRetries?: number;
  /**
   * USD per 1M tokens by model id (`--prices FILE`): adds cost per level and in total to the summary; `batchInput` /
   * `batchOutput` price batched calls (default half the online price)
   */
  prices?: Record<string, { input: number; output: number; batchInput?: number; batchOutput?: number }>;
  /**
   * `--batch`: send the calls through the model's batch interface (`Model.batch`), level by level over all
   * samples in flight (`Batcher`); results are those of an online run with the same replies. Not part of the run's
   * identity: a run continues with or without it.
   */
  batch?: boolean;
  /** `--batch-poll`: first wait between two polls of a batch, ms (default 5000; grows ×1.5 per poll up to 60 s) */
  batchPollMs?: number;
  /** `adaptive`: the adaptive HPF with a selector (hpt.md §2.3); absent: the manual ladder */
  mode?: 'adaptive';
  /**
   * `--full-ladder` (issue 28): the manual ladder runs every level 1..m on every sample instead of stopping at the
   * first solved one. The sample's result is the early-exit ladder's (level, HPI, solved and prediction of the first
   * solved level, else m + HPI_Dataset; hpt.md §2.1–2.2); its attempts hold all m levels. Part of the run's identity
   * (`configHash`: a full-ladder run never continues an early-exit run, or the reverse), hashed only when true, so
   * early-exit hashes are those of stores written before the option existed. Manual mode only (`checkRunConfig`).
   */
  fullLadder?: boolean;
  /**
   * adaptive mode: the selector, `<selector id>[:<argument>]` (`fixed:2`, `llm:openai:llama3`) or a model id, which
   * means the `llm` selector asking that model (`openai:llama3`)
   */
  selector?: string;
  /** adaptive mode: the selector model's endpoint when it differs from the evaluated model's (`--selector-base-url`) */
  selectorBaseUrl?: string;
  /**
   * content hash of `data` (`dataFingerprint`: `sha256:<hex>`), set by `executeRun`; it identifies the run's data
   * instead of the path
   */
  dataHash?: string;
  /** run model code even when the scorer's sandbox check finds a protection missing (`--unsafe-sandbox`) */
  unsafeSandbox?: boolean;
}

/** How `executeRun` picks the run it writes to (`openRun`). */
export interface RunPlan {
  /** continue this run id (`--resume`) */
  resume?: string;
  /** always start a new run, even when an unfinished run has the same configuration */
  fresh?: boolean;
  /** redo the errored samples of the newest run with the same configuration (`--retry-errors`) */
  retryErrors?: boolean;
}

/** Replicates per sample of `config` (1 unless `replicates` > 1). */
export function replicatesOf(config: Pick<RunConfig, 'replicates'>): number {
  return config.replicates ?? 1;
}

/**
 * Check the fields of a configuration that no flag parser checks (also those of a stored configuration read back).
 * @throws HptError `E_CONFIG` naming the field: HPI_Dataset not a number >= 0, replicates not an integer >= 1, a seed
 *   (`seed`, `generation.seed`) not an integer within ±(2^53 − 1), `fullLadder` with `mode: 'adaptive'` (the selector
 *   picks the levels; there is no ladder to climb in full).
 */
export function checkRunConfig(config: RunConfig): void {
  if (config.hpiDataset !== undefined && !(Number.isFinite(config.hpiDataset) && config.hpiDataset >= 0)) {
    throw new HptError('E_CONFIG', `HPI_Dataset must be a number >= 0, got ${config.hpiDataset}`);
  }
  if (config.replicates !== undefined && !(Number.isInteger(config.replicates) && config.replicates >= 1)) {
    throw new HptError('E_CONFIG', `replicates must be an integer >= 1, got ${config.replicates}`);
  }
  if (config.fullLadder && config.mode === 'adaptive') {
    throw new HptError('E_CONFIG', '--full-ladder applies to the manual ladder only: in adaptive mode the selector picks the levels (drop --full-ladder or --mode adaptive)');
  }
  // a seed is stored as a JSON number: beyond 2^53 - 1 it is no longer the integer given (1e20 for 99999999999999999999)
  for (const [what, seed] of [['seed', config.seed], ['generation seed', config.generation?.seed]] as const) {
    if (seed !== undefined && !Number.isSafeInteger(seed)) throw new HptError('E_CONFIG', `the ${what} must be an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} (2^53 - 1, the largest integer stored exactly), got ${seed}`);
  }
}

/**
 * The configuration as stored with its run (`runs.config`): without prices, with credential-free base URLs, with the
 * ladder's strategy ids as `ladderLevels`, and `replicates` under its stored name `samples`. (`executeRun` adds
 * `samplesTotal`, the samples × replicates the run will have, counted before it starts.)
 */
export function toStoredConfig(config: RunConfig, ladderLevels: string[]): Record<string, Json> {
  const { replicates, ...rest } = config;
  const stored: Record<string, Json> = { ...(rest as unknown as Record<string, Json>), ...(replicates !== undefined ? { samples: replicates } : {}), ladderLevels };
  delete stored.prices;
  // credentials in a base URL are used for the calls but never stored
  const baseUrl = storedBaseUrl(config.modelOptions.baseUrl);
  stored.modelOptions = { ...config.modelOptions, ...(baseUrl !== null ? { baseUrl } : {}) };
  if (config.selectorBaseUrl) stored.selectorBaseUrl = credentialFreeUrl(config.selectorBaseUrl);
  return stored;
}

/** A base URL option without credentials: one URL, or each URL of a list (endpoints spread over); null when absent. */
function storedBaseUrl(baseUrl: Json | undefined): string | string[] | null {
  if (typeof baseUrl === 'string') return credentialFreeUrl(baseUrl);
  if (Array.isArray(baseUrl)) return baseUrl.filter((u): u is string => typeof u === 'string').map(credentialFreeUrl);
  return null;
}

/** The run configuration of a stored `runs.config` (the inverse of `toStoredConfig`, for `--resume`). */
export function fromStoredConfig(stored: Record<string, Json>): RunConfig {
  // samplesTotal is a count `executeRun` stores beside the configuration, not a setting
  const { ladderLevels: _levels, samples, samplesTotal: _total, ...rest } = stored;
  return { ...(rest as unknown as RunConfig), ...(typeof samples === 'number' ? { replicates: samples } : {}) };
}

/** Configuration fields that do not change results, left out of the resume hash. */
const NOT_IN_HASH = new Set(['name', 'samplesTotal', 'concurrency', 'cacheDir', 'cache', 'cacheKeyEndpoint', 'maxRetries', 'prices', 'unsafeSandbox', 'batch', 'batchPollMs']);

/**
 * The identity of a run's configuration (sha256 hex over the result-relevant fields: dataset, data, split, limit,
 * models, ladder, compat, seed, generation settings, filters, replicates, scorer options, HPI_Dataset, full ladder);
 * runs with the same hash may continue each other. Concurrency, cache, retries, timeouts, prices, the model's label
 * (`name`) and `--unsafe-sandbox` do not count. The model's endpoint(s) (`--base-url`) count only with `cacheKeyEndpoint`
 * (`--cache-key-endpoint`: endpoints serving different weights under one name; one URL is then hashed exactly as before
 * the option existed, a list sorted): by default the model name identifies the model, as in the cache key, so a run
 * resumed with another set of replicas continues the same run. When `config.dataHash` is set (the content of `--data`, see `dataFingerprint`), it
 * stands for the data instead of the file's path: the same content under another path is the same run, and a file
 * changed in place is another run. `replicates` is hashed under its former name `samples` (hashes of earlier stores
 * are unchanged). `fullLadder` counts only when true (an early-exit run hashes as before the option existed).
 */
export function configHash(config: RunConfig): string {
  const c: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if (!NOT_IN_HASH.has(k) && v !== undefined && !(k === 'fullLadder' && v !== true)) c[k === 'replicates' ? 'samples' : k] = v;
  if (config.dataHash) delete c.data;
  const baseUrl = config.cacheKeyEndpoint ? storedBaseUrl(config.modelOptions.baseUrl) : null;
  c.modelOptions = { baseUrl: Array.isArray(baseUrl) ? (baseUrl.length === 1 ? baseUrl[0]! : [...baseUrl].sort()) : baseUrl };
  if (config.selectorBaseUrl) c.selectorBaseUrl = credentialFreeUrl(config.selectorBaseUrl);
  return createHash('sha256').update(canonicalJson(c)).digest('hex');
}

/**
 * The hashes a run of `config` may have been stored under, newest rule first: `configHash(config)`, then — for one base
 * URL without `cacheKeyEndpoint` — the hash versions before several endpoints gave it (the URL hashed, which is
 * `configHash` with `cacheKeyEndpoint`), so an unfinished run stored by them is still continued.
 */
export function configHashes(config: RunConfig): string[] {
  const hash = configHash(config);
  if (config.cacheKeyEndpoint || typeof config.modelOptions.baseUrl !== 'string') return [hash];
  return [hash, configHash({ ...config, cacheKeyEndpoint: true })];
}

/** JSON with object keys sorted, so equal values hash equally. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}

/**
 * The content hash of a data source (`--data`): `sha256:<hex>` over the file's bytes, or for a directory over each
 * regular file below it (sorted relative paths, each path and its bytes). Streams, so a large file costs read time
 * only (about 1 s per GB). Undefined when `path` does not exist (the dataset then reports the missing file).
 */
export async function dataFingerprint(path: string): Promise<string | undefined> {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    return undefined;
  }
  const hash = createHash('sha256');
  const files = isDir ? listFiles(path).map((rel) => ({ rel, full: join(path, rel) })) : [{ rel: '', full: path }];
  for (const f of files) {
    if (isDir) hash.update(`${f.rel}\0`);
    for await (const chunk of createReadStream(f.full)) hash.update(chunk as Buffer);
    if (isDir) hash.update('\0');
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Regular files below `dir`, as sorted relative paths (symbolic links are not followed). */
function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else if (e.isFile()) out.push(rel);
  }
  return out.sort();
}
