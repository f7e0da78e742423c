import { randomBytes } from 'node:crypto';
import type { DependencyContainer } from 'tsyringe';
import { type CompatMode, type Contribution, type Dataset, type DatasetDecl, type GenerationSettings, HptError, isHptError, isModelCallError, type Json, type LadderDecl, type Logger, type Model, type PromptPack, readJsonText, type Sample, type Scorer, type Selector, type Strategy, type StrategyDecl, Tokens } from '@hpt-bench/sdk';
import { DeclarativeDataset } from '../data/declarative.js';
import { LadderEngine, type LadderLevel, type SampleResult } from '../ladder/engine.js';
import { AdaptiveEngine, taskTemplate } from '../ladder/adaptive.js';
import { SingleCallStrategy } from '../ladder/single-call.js';
import { checkFilters } from '../plugins/filters.js';
import { instantiate } from '../plugins/host.js';
import type { Registry } from '../plugins/registry.js';
import { datasetPack, withGenericInput } from '../prompt/pack.js';
import { CallCache } from '../store/cache.js';
import type { RunStore, StoredAggregate } from '../store/store.js';
import { ModelClient } from './client.js';
import { EndpointLimiters } from './limiter.js';
import { DEFAULT_RETRY } from './retry.js';
import { forEachConcurrent } from './pool.js';
import { OutageBreaker } from './breaker.js';
import { credentialFreeUrl, redact } from './secrets.js';
import { checkResumedSample, currentOwner, dataFingerprint, HEARTBEAT_MS, openRun, sampleHash } from './plan.js';

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
  /** model of generated-knowledge calls; default: the evaluated model (hpt.md §9 #11) */
  knowledgeModel?: string;
  /** options for model plugins (e.g. `baseUrl`, `apiKeyEnv` for openai) */
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
   * completions drawn per sample (default 1): each sample's ladder is climbed this many times (replicates), and
   * pass@k-style metrics use the replicates (issue #3: pass@k with the unbiased estimator when n > 1)
   */
  samples?: number;
  /** options passed to the dataset's scorer on top of the dataset's own (e.g. `threshold` for IWSLT and SamSum) */
  scorerOptions?: Record<string, Json>;
  /**
   * generator filters of a generated dataset by name (`task`, `preset`, `representation`, `icl`, `semantics`); only
   * datasets whose manifest declares the filter accept it (issue #4 item 4)
   */
  filters?: Record<string, string[]>;
  /** HPI_Dataset override (the penalty added to m for an unsolved sample); default: the dataset's declared constant */
  hpiDataset?: number;
  /** use the model-call cache of the store (default true; `--no-cache`) */
  cache?: boolean;
  /** retries of a failed call (429, 5xx, timeout, dropped connection) before its sample is recorded as errored; default 5 */
  maxRetries?: number;
  /** USD per 1M tokens by model id (`--prices FILE`): adds cost per level and in total to the summary */
  prices?: Record<string, { input: number; output: number }>;
  /** `adaptive`: the adaptive HPF with a selector (hpt.md §2.3; issue #6); absent: the manual ladder */
  mode?: 'adaptive';
  /**
   * adaptive mode: the selector, `<selector id>[:<argument>]` (`fixed:2`, `llm:openai:llama3`) or a model id, which
   * means the `llm` selector asking that model (`openai:llama3`)
   */
  selector?: string;
  /** adaptive mode: the selector model's endpoint when it differs from the evaluated model's (`--selector-base-url`) */
  selectorBaseUrl?: string;
  /**
   * content hash of `data` (`dataFingerprint`: `sha256:<hex>`), set by `executeRun`; it identifies the run's data
   * instead of the path (issue #13 item 6)
   */
  dataHash?: string;
  /** run model code even when the scorer's sandbox check finds a protection missing (`--unsafe-sandbox`) */
  unsafeSandbox?: boolean;
}

/** How `executeRun` picks the run it writes to (issue #5 item 2). */
export interface RunPlan {
  /** continue this run id (`--resume`) */
  resume?: string;
  /** always start a new run, even when an unfinished run has the same configuration */
  fresh?: boolean;
  /** redo the errored samples of the newest run with the same configuration (`--retry-errors`) */
  retryErrors?: boolean;
}

/** Usage (and cost, with `--prices`) of one ladder level. */
export interface LevelUsage {
  calls: number;
  /** of which answered from the model-call cache (no request, no cost) */
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** USD paid in this run for this level's uncached calls, when prices were given */
  cost?: number;
}

/**
 * The summary of a manual-HPF run (the `--json` output of `hpt-bench run`; issue #2 item 8).
 * `hpi` = mean over samples of the solving level, or m + hpiDataset when unsolved (hpt.md §2.1); `accuracy` = solved/n.
 */
export interface RunSummary {
  runId: string;
  dataset: string;
  model: string;
  /** `manual` (hpt.md §2.1) or `adaptive` (§2.3: x + i per solved sample) */
  mode: 'manual' | 'adaptive';
  ladder: string[];
  n: number;
  hpi: number;
  hpiDataset: number;
  accuracy: number;
  levelCounts: Record<string, number>;
  calls: number;
  usage: { promptTokens: number; completionTokens: number };
  compat: CompatMode;
  seed: number;
  skipped: number;
  /** replicates per sample when more than 1 (`n` then counts every replicate) */
  samples?: number;
  /** the solve threshold, for datasets solved by a metric threshold (IWSLT BLEU, SamSum ROUGE-1; hpt.md §3) */
  threshold?: number;
  /** the dataset metric over every recorded prediction (corpus BLEU, mean ROUGE F1, ...; hpt.md §3), when the scorer has one */
  metrics?: Record<string, Json>;
  /**
   * false when samples errored: the run is then not `completed` (stored as `failed` with the reason) and its figures
   * cover the scored samples only; re-running the same command redoes the errored ones (issue #13 item 7)
   */
  complete: boolean;
  /** samples whose model calls failed after every retry: recorded with the reason, not in n, HPI or accuracy */
  errored: number;
  /** the first 20 errored samples and why */
  erroredSamples?: { sampleId: string; error: string }[];
  /** of `calls`, the ones answered from the model-call cache (no request made) */
  cachedCalls: number;
  /** calls, tokens (and cost) per ladder level, by level number */
  levels: Record<string, LevelUsage>;
  /** USD paid in this run (uncached calls), when `--prices` was given */
  cost?: number;
  /** true when this invocation continued an earlier, unfinished run (or redid its errored samples) */
  resumed?: boolean;
  /** what the scorer's environment check found before the first model call (`Scorer.preflight`, e.g. the sandbox) */
  preflight?: Record<string, Json>;
  /** adaptive mode: the selector (`llm:<model>`, `fixed:<level>`, ...) */
  selector?: string;
  /** adaptive mode: iterations consumed by a selection outside 1..m (no attempt made; hpt.md §2.3, §9 #4) */
  invalidSelections?: number;
  /** adaptive mode: selections made in all */
  selections?: number;
  /** adaptive mode: the selector model's calls and tokens (and cost), also counted in `calls` and `usage` */
  selectorUsage?: LevelUsage;
}

/** Everything resolved for a run, before any sample is read. */
export interface PreparedRun {
  config: RunConfig;
  datasetId: string;
  dataset: Dataset;
  datasetDecl: DatasetDecl;
  ladderIds: string[];
  engine: LadderEngine;
  model: Model;
  knowledgeModel: Model;
  scorer: Scorer;
  scorerOptions: Record<string, Json>;
  /** the HPI_Dataset in force (the override, else the dataset's constant) */
  hpiDataset: number;
  /** true when the dataset names no prompt pack and the generic pack is used (samples get its input defaults) */
  genericPack: boolean;
  /** adaptive mode: the selector, its canonical spec (`llm:openai:llama3`) and its model when it asks one */
  selector?: { selector: Selector; spec: string; model?: Model };
}

/** Resolve a model id `<plugin model id>[:<name>]` (e.g. `openai:gpt-4o`, `baseline:oracle`) to an instance. */
export async function resolveModel(registry: Registry, container: DependencyContainer, id: string, options: Record<string, Json>): Promise<Model> {
  const colon = id.indexOf(':');
  const kind = colon < 0 ? id : id.slice(0, colon);
  const name = colon < 0 ? '' : id.slice(colon + 1);
  const c = registry.get('models', kind);
  const schema = (c.decl as { options?: { properties?: Record<string, unknown> } }).options;
  // Pass only the options this model declares (flags like --base-url mean nothing to a baseline).
  const own = Object.fromEntries(Object.entries(options).filter(([k]) => schema?.properties && k in schema.properties));
  return instantiate<Model>(container, c, own, (child) => child.register(Tokens.ModelName, { useValue: name }));
}

/** Read a ladder: a contributed id, or a JSON file holding `{ "id", "levels" }`. */
export function resolveLadder(registry: Registry, ladder: string): LadderDecl {
  if (ladder.endsWith('.json')) {
    let raw: unknown;
    try {
      raw = JSON.parse(readJsonText(ladder));
    } catch (e) {
      throw new HptError('E_CONFIG', `cannot read ladder file ${ladder}: ${(e as Error).message}`);
    }
    const l = raw as Partial<LadderDecl>;
    if (!Array.isArray(l.levels) || l.levels.length === 0 || !l.levels.every((x) => typeof x === 'string')) {
      throw new HptError('E_CONFIG', `ladder file ${ladder} must hold {"id": "...", "levels": ["strategy-id", ...]}`);
    }
    return { id: typeof l.id === 'string' ? l.id : ladder, levels: l.levels };
  }
  return registry.get('ladders', ladder).decl;
}

/**
 * Resolve dataset, prompt pack, scorer, ladder strategies and models for `config` (everything that can fail before a
 * model is called fails here, with a clear error).
 */
export async function prepareRun(config: RunConfig, registry: Registry, container: DependencyContainer): Promise<PreparedRun> {
  const dc = registry.get('datasets', config.dataset);
  const decl = dc.decl;
  checkFilters(dc.id, decl, config.filters);
  if (config.hpiDataset !== undefined && !(Number.isFinite(config.hpiDataset) && config.hpiDataset >= 0)) {
    throw new HptError('E_CONFIG', `HPI_Dataset must be a number >= 0, got ${config.hpiDataset}`);
  }
  const hpiDataset = config.hpiDataset ?? decl.hpiDataset;
  const { dataset, pack, genericPack } = await datasetSource(container, dc);
  const scorerRef = typeof decl.scorer === 'string' ? { id: decl.scorer, options: {} } : { id: decl.scorer.id, options: decl.scorer.options ?? {} };
  const scorerOptions: Record<string, Json> = { ...scorerRef.options, ...(config.scorerOptions ?? {}), ...(config.unsafeSandbox ? { unsafeSandbox: true } : {}) };
  const scorer = await instantiate<Scorer>(container, registry.get('scorers', scorerRef.id));
  scorer.prepare?.({ compat: config.compat, options: scorerOptions });

  const ladder = resolveLadder(registry, config.ladder);
  const levels: LadderLevel[] = [];
  for (const [i, sid] of ladder.levels.entries()) {
    const sc = registry.get('strategies', sid);
    const sdecl = sc.decl as StrategyDecl;
    const strategy: Strategy = sdecl.kind === 'single-call' ? new SingleCallStrategy(sc.id, sdecl.template) : await instantiate<Strategy>(container, sc);
    levels.push({ level: i + 1, strategyId: sc.id, strategy });
  }
  const model = await resolveModel(registry, container, config.model, config.modelOptions);
  const knowledgeModel = config.knowledgeModel && config.knowledgeModel !== config.model ? await resolveModel(registry, container, config.knowledgeModel, config.modelOptions) : model;
  const setup = {
    levels,
    model,
    knowledgeModel,
    scorer,
    scorerOptions,
    pack,
    hpiDataset,
    compat: config.compat,
    generation: config.generation,
    seed: config.seed,
  };
  let engine: LadderEngine;
  let selector: PreparedRun['selector'];
  if (config.mode === 'adaptive') {
    if (!config.selector) throw new HptError('E_CONFIG', 'adaptive mode needs a selector: --selector <model-id> (the paper\'s prompt-selector asking that model) or --selector fixed:<level>');
    const { contribution, argument } = resolveSelectorSpec(registry, config.selector);
    const instance = await instantiate<Selector>(container, contribution, {}, (child) => child.register(Tokens.SelectorArgument, { useValue: argument }));
    let selectorModel: Model | undefined;
    if (instance.needsModel) {
      const options = config.selectorBaseUrl ? { ...config.modelOptions, baseUrl: config.selectorBaseUrl } : config.modelOptions;
      selectorModel = argument === config.model && !config.selectorBaseUrl ? model : await resolveModel(registry, container, argument, options);
    }
    selector = { selector: instance, spec: `${contribution.id}${argument ? `:${argument}` : ''}`, ...(selectorModel ? { model: selectorModel } : {}) };
    // the plain task text must exist before any call (fails here with a clear error otherwise)
    taskTemplate({ pack, levels });
    engine = new AdaptiveEngine({ ...setup, selector: instance, ...(selectorModel ? { selectorModel } : {}) });
  } else {
    if (config.selector) throw new HptError('E_CONFIG', '--selector applies to --mode adaptive only');
    engine = new LadderEngine(setup);
  }
  if (config.prices) {
    const missing = [...new Set([model.id, knowledgeModel.id, ...(selector?.model ? [selector.model.id] : [])])].filter((id) => !config.prices![id]);
    if (missing.length) throw new HptError('E_CONFIG', `the prices file has no price for ${missing.join(', ')} (give "input" and "output" USD per 1M tokens for every model of the run)`);
  }
  return { config, datasetId: dc.id, dataset, datasetDecl: decl, ladderIds: levels.map((l) => l.strategyId), engine, model, knowledgeModel, scorer, scorerOptions, hpiDataset, genericPack, ...(selector ? { selector } : {}) };
}

/**
 * A dataset resolved for a command (`run`, `judge`, `calibrate --judge`): its canonical id, declaration, instance, and
 * prompt pack — the generic pack when the dataset names none (`genericPack`; its samples then need `withGenericInput`).
 */
export interface DatasetSource {
  datasetId: string;
  decl: DatasetDecl;
  dataset: Dataset;
  pack: PromptPack;
  genericPack: boolean;
}

/**
 * Instantiate a dataset contribution (code, or declarative) and load its prompt pack, with the entries `packs`
 * contributions of the container's registry add to it (`datasetPack`).
 * @throws HptError `E_PLUGIN` for a dataset module that does not load, `E_PACK` for a bad pack or a clashing entry.
 */
export async function datasetSource(container: DependencyContainer, dc: Contribution<'datasets'>): Promise<DatasetSource> {
  const decl = dc.decl;
  const dataset: Dataset = decl.module ? await instantiate<Dataset>(container, dc) : new DeclarativeDataset(decl, dc.plugin.root);
  // the dataset's pack plus the entries other plugins add to it (`packs` contributions)
  const registry = container.isRegistered(Tokens.Registry, true) ? (container.resolve(Tokens.Registry) as Registry) : undefined;
  const pack = datasetPack(dc, registry);
  return { datasetId: dc.id, decl, dataset, pack, genericPack: !decl.promptPack };
}

/**
 * `datasetSource` of dataset `id` (plain, qualified or alias).
 * @throws HptError `E_UNKNOWN_ID` / `E_AMBIGUOUS_ID` for the id, and what `datasetSource` throws.
 */
export async function resolveDatasetSource(registry: Registry, container: DependencyContainer, id: string): Promise<DatasetSource> {
  return datasetSource(container, registry.get('datasets', id));
}

/**
 * Read a `--selector` value (issue #6 item 2): `<selector id>[:<argument>]` when the part before the first colon names a
 * selector contribution (`fixed:3`, `llm:openai:llama3`, a community selector), else the whole value is a model id for
 * the `llm` selector (`openai:llama3`, `baseline:random`).
 * @throws HptError `E_UNKNOWN_ID` when it names neither a selector nor a model kind (with suggestions).
 */
export function resolveSelectorSpec(registry: Registry, spec: string): { contribution: ReturnType<Registry['get']>; argument: string } {
  const colon = spec.indexOf(':');
  const head = colon < 0 ? spec : spec.slice(0, colon);
  const argument = colon < 0 ? '' : spec.slice(colon + 1);
  if (registry.has('selectors', head)) return { contribution: registry.get('selectors', head), argument };
  if (!registry.has('models', head)) {
    const known = [...new Set(registry.list('selectors').map((c) => c.id))].sort();
    throw new HptError('E_UNKNOWN_ID', `unknown selector '${spec}': give a selector (${known.map((k) => `${k}:...`).join(', ')}) or a model id for the llm selector (e.g. openai:llama3)`);
  }
  return { contribution: registry.get('selectors', 'llm'), argument: spec };
}

/** Progress of a run: samples done so far (and the limit when known), running HPI and accuracy. */
export interface RunProgress {
  done: number;
  total?: number;
  solved: number;
  hpiSum: number;
}

/** Hooks of a running evaluation. */
export interface RunHooks {
  logger: Logger;
  onProgress?(p: RunProgress): void;
  /** Called with each finished sample, after it is stored. */
  onSample?(r: SampleResult): void;
  /** Strings to remove from any error text stored or shown (secrets such as an API key; see `urlSecrets` for a base URL's). */
  redact?: string[];
  /** Called once the run id is known (a new run, or the resumed one), before any sample. */
  onRun?(runId: string): void;
}

/** A fresh run id: UTC timestamp plus random suffix, sortable by creation time. */
export function newRunId(): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return `${t}-${randomBytes(3).toString('hex')}`;
}

/** The reason a run whose samples all errored or that left errored samples did not complete (issue #13 item 7). */
function incompleteReason(runId: string, errored: number, total: number, firstError: string | undefined): string {
  return `${errored} of ${total} samples errored (${firstError ?? 'see erroredSamples'}); run ${runId} is not complete: re-run the same command to retry them`;
}

/**
 * Execute a prepared run (manual HPF, or adaptive HPF with a selector: hpt.md §2.1, §2.3): pick and take the run to
 * write to (`openRun`: resume by configuration and data content, one owner at a time), check the scorer's environment
 * (`Scorer.preflight`), stream samples (up to `limit`) under bounded concurrency through the ladder (or the selector
 * loop), store each finished sample atomically, then compute the summary from the store.
 *
 * Outcomes (issue #13 items 1, 6, 7):
 * - every sample scored: the run is `completed` and its summary returned with `complete: true`;
 * - some samples errored (their calls failed after every retry): the summary is returned with `complete: false` and
 *   the run is marked `failed` with the reason; re-running the same command continues it and redoes only those;
 * - the endpoint looks down (`OutageBreaker`: the first 3 samples, or `max(8, concurrency)` samples in a row after a
 *   success, all errored), no sample could be scored, a store write failed, the data changed under a resumed run, or
 *   any other error: the run is marked `failed` (best effort on a broken store) and the error is thrown — nothing is
 *   reported as a result, and the samples stored are kept for the resume.
 * Model calls go through a ModelClient per model (cache, retries with backoff, AIMD concurrency per endpoint).
 */
export async function executeRun(prepared: PreparedRun, store: RunStore, hooks: RunHooks, runId = newRunId(), plan: RunPlan = {}): Promise<RunSummary> {
  const dataHash = prepared.config.data ? await dataFingerprint(prepared.config.data) : undefined;
  const config: RunConfig = { ...prepared.config, ...(dataHash ? { dataHash } : {}) };
  const storedConfig: Record<string, Json> = { ...(config as unknown as Record<string, Json>), ladderLevels: prepared.ladderIds };
  delete storedConfig.prices;
  // credentials in a base URL are used for the calls but never stored (issue #13 item 11)
  storedConfig.modelOptions = { ...config.modelOptions, ...(typeof config.modelOptions.baseUrl === 'string' ? { baseUrl: credentialFreeUrl(config.modelOptions.baseUrl) } : {}) };
  if (config.selectorBaseUrl) storedConfig.selectorBaseUrl = credentialFreeUrl(config.selectorBaseUrl);
  const owner = currentOwner();
  const opened = openRun(store, config, plan, runId, owner, { dataset: prepared.datasetId, model: prepared.model.id, mode: config.mode ?? 'manual', config: storedConfig });
  runId = opened.runId;
  if (opened.resumed) hooks.logger.info(`resuming run ${runId}: ${opened.skip.size} samples already recorded${opened.recorded.size > opened.skip.size ? `, redoing ${opened.recorded.size - opened.skip.size} errored` : ''}`);
  hooks.onRun?.(runId);
  const heartbeat = setInterval(() => store.heartbeat(runId, owner), HEARTBEAT_MS);
  heartbeat.unref();
  const limiters = new EndpointLimiters(config.concurrency);
  const cache = config.cache === false ? undefined : new CallCache(store.db, store);
  const retry = { ...DEFAULT_RETRY, ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}) };
  const maxResponseBytes = typeof config.modelOptions.maxResponseBytes === 'number' ? config.modelOptions.maxResponseBytes : undefined;
  const wrap = (m: Model): Model => new ModelClient(m, { ...(cache && m.endpoint ? { cache } : {}), limiters, retry, ...(maxResponseBytes !== undefined ? { maxResponseBytes } : {}) });
  const client = wrap(prepared.model);
  prepared.engine.setModels(client, prepared.knowledgeModel === prepared.model ? client : wrap(prepared.knowledgeModel));
  const selectorModel = prepared.selector?.model;
  if (selectorModel && prepared.engine instanceof AdaptiveEngine) prepared.engine.setSelectorModel(selectorModel === prepared.model ? client : wrap(selectorModel));
  let skipped = 0;
  const total = config.limit !== undefined ? Math.max(0, config.limit * (config.samples ?? 1) - opened.skip.size) : undefined;
  const progress: RunProgress = { done: 0, total, solved: 0, hpiSum: 0 };
  const breaker = new OutageBreaker(config.concurrency);
  try {
    const preflight = prepared.scorer.preflight ? await prepared.scorer.preflight({ compat: config.compat, options: prepared.scorerOptions }) : undefined;
    if (preflight) store.setPreflight(runId, preflight);
    const loaded = prepared.dataset.load({
      data: config.data,
      split: config.split,
      onInvalid: config.onInvalid,
      cacheDir: config.cacheDir,
      warn: (m) => {
        skipped++;
        hooks.logger.warn(m);
      },
      seed: config.seed,
      compat: config.compat,
      filters: config.filters ?? {},
    });
    const all = replicate(limitStream(prepared.genericPack ? mapStream(loaded, withGenericInput) : loaded, config.limit), config.samples ?? 1);
    const samples = filterStream(all, (s) => {
      if (!opened.recorded.size) return true;
      checkResumedSample(runId, s, sampleHash(s), opened.recorded.get(s.index));
      return !opened.skip.has(s.index);
    });
    await forEachConcurrent(samples, config.concurrency, async (sample) => {
      const hash = sampleHash(sample);
      let result: SampleResult;
      try {
        result = await prepared.engine.climb(sample);
      } catch (e) {
        if (!isModelCallError(e)) throw e;
        const message = redact(e.message, hooks.redact);
        store.saveErrored(runId, sample, message, hash);
        if (breaker.failure(sample.index)) {
          if (!breaker.anySuccess) throw e;
          throw new HptError('E_ENDPOINT', `the last ${breaker.streak} samples all failed (last error: ${message}); the endpoint looks down, so run ${runId} stopped. Re-run the same command to continue it`, { exitCode: 1, cause: e });
        }
        // before any success the error may be an outage that ends the run: it is reported once, as the run's error
        if (breaker.anySuccess) hooks.logger.warn(`sample ${sample.id} errored: ${message}`);
        return;
      }
      store.saveSample(runId, result, hash);
      breaker.success();
      progress.done++;
      progress.hpiSum += result.hpi;
      if (result.solved) progress.solved++;
      hooks.onSample?.(result);
      hooks.onProgress?.(progress);
    });
    const agg = store.aggregate(runId);
    if (agg.samples === 0 && agg.errored === 0) throw new HptError('E_DATA', `dataset ${prepared.datasetId} yielded no samples${skipped ? ` (${skipped} skipped as invalid)` : ''}`);
    const erroredSamples = agg.errored ? store.erroredSamples(runId).slice(0, 20).map((e) => ({ sampleId: e.sampleId, error: e.error })) : [];
    if (agg.samples === 0) {
      throw new HptError('E_NO_RESULTS', `no sample could be scored: ${incompleteReason(runId, agg.errored, agg.errored, erroredSamples[0]?.error)}`, { exitCode: 1 });
    }
    const summary = summarize(prepared, config, runId, agg, erroredSamples, { skipped, resumed: opened.resumed, preflight }, store);
    if (summary.complete) store.finishRun(runId, summary as unknown as Record<string, Json>);
    else store.failRun(runId, incompleteReason(runId, agg.errored, agg.samples + agg.errored, erroredSamples[0]?.error));
    return summary;
  } catch (e) {
    // samples that errored only because the endpoint was down from the start are not kept as errored
    if (breaker.beforeSuccess.length && !breaker.anySuccess && !store.failure) {
      try {
        store.deleteErrored(runId, breaker.beforeSuccess);
      } catch {
        // a broken store: they are redone by the resume anyway
      }
    }
    const message = redact(isHptError(e) ? e.message : `${(e as Error).name ?? 'Error'}: ${(e as Error).message ?? String(e)}`, hooks.redact);
    store.failRun(runId, message);
    throw e;
  } finally {
    clearInterval(heartbeat);
  }
}

/** The summary of a run from its stored aggregate (usage and cost per level, the dataset metric). */
function summarize(
  prepared: PreparedRun,
  config: RunConfig,
  runId: string,
  agg: StoredAggregate,
  erroredSamples: { sampleId: string; error: string }[],
  extra: { skipped: number; resumed: boolean; preflight: Record<string, Json> | undefined },
  store: RunStore,
): RunSummary {
  const levelCounts: Record<string, number> = {};
  for (let l = 1; l <= prepared.ladderIds.length; l++) levelCounts[String(l)] = agg.levelCounts[String(l)] ?? 0;
  levelCounts.unsolved = agg.unsolved;
  let metrics: Record<string, Json> | undefined;
  if (prepared.scorer.createAggregator && agg.n > 0) {
    const metric = prepared.scorer.createAggregator({ compat: config.compat, options: prepared.scorerOptions });
    for (const r of store.iterPredictions(runId)) metric.add({ id: r.sampleId, index: r.index, input: {}, target: r.target, ...(r.meta ? { meta: r.meta } : {}) }, r.prediction, r.solved);
    metrics = metric.result();
  }
  const levels: Record<string, LevelUsage> = {};
  let cost: number | undefined = config.prices ? 0 : undefined;
  const newUsage = (): LevelUsage => ({ calls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, ...(config.prices ? { cost: 0 } : {}) });
  // add one (model, cache state) row of usage to `into`, and its price (uncached calls only) to the run's cost
  const add = (into: LevelUsage, u: { model: string; cached: boolean; calls: number; promptTokens: number; completionTokens: number }) => {
    into.calls += u.calls;
    if (u.cached) into.cachedCalls += u.calls;
    into.promptTokens += u.promptTokens;
    into.completionTokens += u.completionTokens;
    const price = config.prices?.[u.model];
    if (price && !u.cached) {
      const c = (u.promptTokens * price.input + u.completionTokens * price.output) / 1e6;
      into.cost! += c;
      cost! += c;
    }
  };
  for (const u of agg.usageByLevel) add((levels[String(u.level)] ??= newUsage()), u);
  let selectorUsage: LevelUsage | undefined;
  if (prepared.selector) {
    selectorUsage = newUsage();
    for (const u of agg.selectorUsage) add(selectorUsage, u);
  }
  const threshold = prepared.scorerOptions.threshold;
  const summary: RunSummary = {
    runId,
    dataset: prepared.datasetId,
    model: prepared.model.id,
    mode: config.mode ?? 'manual',
    ladder: prepared.ladderIds,
    n: agg.n,
    hpi: agg.n ? agg.hpiSum / agg.n : 0,
    hpiDataset: prepared.hpiDataset,
    accuracy: agg.n ? agg.solved / agg.n : 0,
    levelCounts,
    calls: agg.calls + (selectorUsage?.calls ?? 0),
    cachedCalls: agg.cachedCalls + (selectorUsage?.cachedCalls ?? 0),
    usage: { promptTokens: agg.promptTokens + (selectorUsage?.promptTokens ?? 0), completionTokens: agg.completionTokens + (selectorUsage?.completionTokens ?? 0) },
    levels,
    ...(cost !== undefined ? { cost } : {}),
    compat: config.compat,
    seed: config.seed,
    skipped: extra.skipped,
    complete: agg.errored === 0,
    errored: agg.errored,
    ...(erroredSamples.length ? { erroredSamples } : {}),
    ...(extra.resumed ? { resumed: true } : {}),
    ...(extra.preflight ? { preflight: extra.preflight } : {}),
    ...((config.samples ?? 1) > 1 ? { samples: config.samples } : {}),
    ...(typeof threshold === 'number' ? { threshold } : {}),
    ...(metrics ? { metrics } : {}),
    ...(prepared.selector ? { selector: prepared.selector.spec, invalidSelections: agg.invalidSelections, selections: agg.selections, selectorUsage } : {}),
  };
  return summary;
}

/** Keep the items of a stream that pass `keep`. */
async function* filterStream<T>(items: AsyncIterable<T>, keep: (x: T) => boolean): AsyncGenerator<T> {
  for await (const x of items) if (keep(x)) yield x;
}

/**
 * Yield each sample `n` times (replicates r = 0..n-1) with `index` = input index * n + r (unique, input order) and
 * `meta.replicate` = r; n = 1 yields the samples unchanged.
 */
async function* replicate(items: AsyncIterable<Sample>, n: number): AsyncGenerator<Sample> {
  if (n <= 1) {
    yield* items;
    return;
  }
  for await (const s of items) {
    for (let r = 0; r < n; r++) yield { ...s, index: s.index * n + r, meta: { ...(s.meta ?? {}), replicate: r } };
  }
}

/** Apply `f` to each item of a stream. */
async function* mapStream<T, U>(items: AsyncIterable<T>, f: (x: T) => U): AsyncGenerator<U> {
  for await (const x of items) yield f(x);
}

/** Yield at most `limit` items of `items` (all when undefined). */
async function* limitStream<T>(items: AsyncIterable<T>, limit: number | undefined): AsyncGenerator<T> {
  if (limit === undefined) {
    yield* items;
    return;
  }
  let n = 0;
  if (n >= limit) return;
  for await (const x of items) {
    yield x;
    if (++n >= limit) return;
  }
}
