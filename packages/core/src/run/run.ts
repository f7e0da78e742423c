import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import type { CompatMode, Dataset, GenerationSettings, Json, Model, Sample, Scorer, Strategy } from '../contracts.js';
import { DeclarativeDataset } from '../data/declarative.js';
import { HptError, isHptError } from '../errors.js';
import { LadderEngine, type LadderLevel, type SampleResult } from '../ladder/engine.js';
import { SingleCallStrategy } from '../ladder/single-call.js';
import { instantiate } from '../plugins/host.js';
import type { DatasetDecl, LadderDecl, StrategyDecl } from '../plugins/manifest.js';
import type { Registry } from '../plugins/registry.js';
import { GENERIC_PACK_PATH, loadPromptPack, withGenericInput } from '../prompt/pack.js';
import type { RunStore } from '../store/store.js';
import { Tokens, type Logger } from '../tokens.js';
import { forEachConcurrent } from './pool.js';

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
}

/**
 * The summary of a manual-HPF run (the `--json` output of `hpt-bench run`; issue #2 item 8).
 * `hpi` = mean over samples of the solving level, or m + hpiDataset when unsolved (hpt.md §2.1); `accuracy` = solved/n.
 */
export interface RunSummary {
  runId: string;
  dataset: string;
  model: string;
  mode: 'manual';
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
  scorer: Scorer;
  scorerOptions: Record<string, Json>;
  /** the HPI_Dataset in force (the override, else the dataset's constant) */
  hpiDataset: number;
  /** true when the dataset names no prompt pack and the generic pack is used (samples get its input defaults) */
  genericPack: boolean;
}

/**
 * Check the run's generator filters against the filters the dataset declares.
 * @throws HptError `E_CONFIG` naming the dataset, the filter and the ones it accepts.
 */
export function checkFilters(datasetId: string, decl: DatasetDecl, filters: Record<string, string[]> | undefined): void {
  const allowed = decl.filters ?? [];
  for (const [name, values] of Object.entries(filters ?? {})) {
    if (values.length === 0 || allowed.includes(name)) continue;
    throw new HptError(
      'E_CONFIG',
      allowed.length
        ? `dataset ${datasetId} has no filter --${name} (it accepts: ${allowed.map((f) => `--${f}`).join(', ')})`
        : `dataset ${datasetId} is not generated and takes no generator filter (--${name}); filters apply to generated datasets such as hibench/binary-tree`,
    );
  }
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
      raw = JSON.parse(readFileSync(ladder, 'utf8'));
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
  const dataset: Dataset = decl.module ? await instantiate<Dataset>(container, dc) : new DeclarativeDataset(decl, dc.plugin.root);
  const pack = loadPromptPack(decl.promptPack ? join(dc.plugin.root, decl.promptPack) : GENERIC_PACK_PATH);
  const scorerRef = typeof decl.scorer === 'string' ? { id: decl.scorer, options: {} } : { id: decl.scorer.id, options: decl.scorer.options ?? {} };
  const scorerOptions: Record<string, Json> = { ...scorerRef.options, ...(config.scorerOptions ?? {}) };
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
  const engine = new LadderEngine({
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
  });
  return { config, datasetId: dc.id, dataset, datasetDecl: decl, ladderIds: levels.map((l) => l.strategyId), engine, model, scorer, scorerOptions, hpiDataset, genericPack: !decl.promptPack };
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
  /** Strings to remove from any error text stored or shown (secrets such as an API key). */
  redact?: string[];
}

/** A fresh run id: UTC timestamp plus random suffix, sortable by creation time. */
export function newRunId(): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return `${t}-${randomBytes(3).toString('hex')}`;
}

/**
 * Execute a prepared manual-HPF run: stream samples (up to `limit`) under bounded concurrency through the ladder,
 * store each finished sample atomically, then compute the summary from the store and mark the run completed.
 * On any error the run is marked failed (with the secret-free reason) and the error is rethrown; a failed run's
 * partial samples are never reported as a result.
 */
export async function executeRun(prepared: PreparedRun, store: RunStore, hooks: RunHooks, runId = newRunId()): Promise<RunSummary> {
  const { config } = prepared;
  const storedConfig: Record<string, Json> = { ...(config as unknown as Record<string, Json>), ladderLevels: prepared.ladderIds };
  store.createRun({ id: runId, dataset: prepared.datasetId, model: prepared.model.id, mode: 'manual', config: storedConfig });
  let skipped = 0;
  const progress: RunProgress = { done: 0, total: config.limit, solved: 0, hpiSum: 0 };
  try {
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
    const samples = replicate(limitStream(prepared.genericPack ? mapStream(loaded, withGenericInput) : loaded, config.limit), config.samples ?? 1);
    await forEachConcurrent(samples, config.concurrency, async (sample) => {
      const result = await prepared.engine.climb(sample);
      store.saveSample(runId, result);
      progress.done++;
      progress.hpiSum += result.hpi;
      if (result.solved) progress.solved++;
      hooks.onSample?.(result);
      hooks.onProgress?.(progress);
    });
    const agg = store.aggregate(runId);
    if (agg.n === 0) throw new HptError('E_DATA', `dataset ${prepared.datasetId} yielded no samples${skipped ? ` (${skipped} skipped as invalid)` : ''}`);
    const levelCounts: Record<string, number> = {};
    for (let l = 1; l <= prepared.ladderIds.length; l++) levelCounts[String(l)] = agg.levelCounts[String(l)] ?? 0;
    levelCounts.unsolved = agg.unsolved;
    let metrics: Record<string, Json> | undefined;
    if (prepared.scorer.createAggregator) {
      const agg = prepared.scorer.createAggregator({ compat: config.compat, options: prepared.scorerOptions });
      for (const r of store.iterPredictions(runId)) agg.add({ id: r.sampleId, index: r.index, input: {}, target: r.target, ...(r.meta ? { meta: r.meta } : {}) }, r.prediction, r.solved);
      metrics = agg.result();
    }
    const threshold = prepared.scorerOptions.threshold;
    const summary: RunSummary = {
      runId,
      dataset: prepared.datasetId,
      model: prepared.model.id,
      mode: 'manual',
      ladder: prepared.ladderIds,
      n: agg.n,
      hpi: agg.hpiSum / agg.n,
      hpiDataset: prepared.hpiDataset,
      accuracy: agg.solved / agg.n,
      levelCounts,
      calls: agg.calls,
      usage: { promptTokens: agg.promptTokens, completionTokens: agg.completionTokens },
      compat: config.compat,
      seed: config.seed,
      skipped,
      ...((config.samples ?? 1) > 1 ? { samples: config.samples } : {}),
      ...(typeof threshold === 'number' ? { threshold } : {}),
      ...(metrics ? { metrics } : {}),
    };
    store.finishRun(runId, summary as unknown as Record<string, Json>);
    return summary;
  } catch (e) {
    let message = isHptError(e) ? e.message : `${(e as Error).name ?? 'Error'}: ${(e as Error).message ?? String(e)}`;
    for (const secret of hooks.redact ?? []) if (secret) message = message.split(secret).join('[redacted]');
    store.failRun(runId, message);
    throw e;
  }
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
