/**
 * The siblings of `evaluate()` for the LLM-as-a-judge (hpt.md §5.4) and the HPI_Dataset calibration (§2.4, §9 #21):
 * `judgeLadderPrompts` rates every ladder level's prompts on the four HPT rules, `calibrateWithJudge` estimates a
 * dataset's HPI_Dataset from a judge's rule scores of a seeded sample, and `saveHpiDataset` stores a value for later
 * runs. Each owns its session (store, model-call cache, limiters, retries), the models and the `--out` file, as
 * `evaluate()` does for a run; the CLI's `judge` and `calibrate` commands only turn flags into these specs and print.
 */
import { resolve } from 'node:path';
import { HptError, type Json, type Logger, type Sample } from '@hpt-bench/sdk';
import { AtomicFile } from '../io/atomic-file.js';
import { JudgeClient, JUDGE_GENERATION, JUDGE_HELPER_GENERATION, runJudge, type JudgeDatasetInput, type JudgeLevelResult, type JudgeRecord } from '../judge/judge.js';
import { runJudgeCalibration, selectCalibrationSamples, judgeTaskTemplate, type CalibrationResult } from '../judge/calibrate.js';
import { judgeLadder, judgeLevels, judgeSamples } from '../judge/prepare.js';
import { QUIET_LOGGER, resolveDatasetSource, resolveModel } from '../run/resolve.js';
import { RunSession } from '../run/session.js';
import { storeLabel } from '../store/location.js';
import type { EvaluationPlugins } from './evaluate.js';


/**
 * The model-call settings of a judge job: the endpoint options of its models (`baseUrl`, `apiKeyEnv`, `timeoutMs`),
 * samples (judge) or ratings (calibrate) in flight at once and the ceiling of each endpoint's adaptive limit, the
 * model-call cache (default on), the endpoint in the cache key, and retries of a failed call (default 5).
 */
export interface JudgeCallSettings {
  modelOptions: Record<string, Json>;
  concurrency: number;
  cache?: boolean;
  cacheKeyEndpoint?: boolean;
  maxRetries?: number;
}

/** Where samples come from: `data` files (one per dataset, in order, absolute or relative to the working directory), a split, the HF cache directory. */
export interface JudgeDataSettings {
  split?: string;
  onInvalid?: 'fail' | 'skip';
  cacheDir: string;
}

/**
 * What `judgeLadderPrompts` rates: each `datasets` entry (`id`, optional `data` file) up to `limit` items each, every
 * level of `ladder`, by the judge `model` at `temperature` with replies of at most `maxTokens`, the helper calls of
 * multi-call strategies by `helperModel` (default: the judge) at `helperTemperature`.
 */
export interface JudgeSpec extends JudgeCallSettings, JudgeDataSettings {
  datasets: { id: string; data?: string }[];
  ladder: string;
  model: string;
  helperModel?: string;
  limit?: number;
  temperature: number;
  helperTemperature: number;
  maxTokens: number;
}

/** The outcome of `judgeLadderPrompts`: per-level means, the models, items rated and ratings that failed. */
export interface JudgeOutcome {
  levels: JudgeLevelResult[];
  /** the resolved dataset ids, in order */
  datasets: string[];
  model: string;
  helperModel: string;
  items: number;
  errored: number;
  /** whether the judge endpoint took structured output (null: not known, e.g. no call made) */
  structuredOutput: boolean | null;
}

/**
 * How to run a judge job: the store (SQLite file or PostgreSQL URL; it holds the model-call cache), the plugins, a
 * logger (warnings: a structured-output fallback, a failed rating), `out` (judge: one JSONL line per level and item,
 * written atomically), and `onItem(done)` after each item.
 */
export interface JudgeJobOptions {
  store: string;
  plugins: EvaluationPlugins;
  logger?: Logger;
  out?: string;
  onItem?(done: number): void;
}

/** The session of a judge job (seeded `seed`; its cache, limiters and retries per `settings`). */
function judgeSession(store: string, settings: JudgeCallSettings, plugins: EvaluationPlugins, seed: number): RunSession {
  return new RunSession({
    storePath: store,
    container: plugins.container,
    seed,
    concurrency: settings.concurrency,
    ...(settings.cache !== undefined ? { cache: settings.cache } : {}),
    ...(settings.cacheKeyEndpoint ? { cacheKeyEndpoint: true } : {}),
    ...(settings.maxRetries !== undefined ? { maxRetries: settings.maxRetries } : {}),
  });
}

/**
 * Rate the prompt of every ladder level on the four HPT rules (hpt.md §5.4): see `runJudge`. Model calls are cached in
 * the store, so repeating the job makes no requests.
 * @throws HptError `E_DATA` when the datasets yield no sample; what resolving the ladder, datasets and models throws;
 *   what `runJudge` throws. `out` is then left as it was.
 */
export async function judgeLadderPrompts(spec: JudgeSpec, options: JudgeJobOptions): Promise<JudgeOutcome> {
  const logger = options.logger ?? QUIET_LOGGER;
  const { registry, container } = options.plugins;
  const session = judgeSession(options.store, spec, options.plugins, 0);
  try {
    const levels = await judgeLadder(registry, container, spec.ladder);
    const sources = [];
    for (const d of spec.datasets) sources.push(await resolveDatasetSource(registry, container, d.id));
    const judgeModel = await resolveModel(registry, container, spec.model, spec.modelOptions);
    const helperId = spec.helperModel ?? spec.model;
    const helperModel = helperId === spec.model ? judgeModel : await resolveModel(registry, container, helperId, spec.modelOptions);
    // the store holds the model-call cache (opened here unless cache is off)
    const cache = session.cache;
    const judge = new JudgeClient(session.client(judgeModel), {
      generation: { ...JUDGE_GENERATION, temperature: spec.temperature, maxTokens: spec.maxTokens },
      ...(cache && judgeModel.endpoint ? { cache } : {}),
      onFallback: (m) => logger.warn(m),
    });
    const datasets: JudgeDatasetInput[] = sources.map((source, i) => {
      const data = spec.datasets[i]!.data;
      return {
        id: source.datasetId,
        pack: source.pack,
        samples: judgeSamples(
          source,
          { ...(data ? { data: resolve(data) } : {}), ...(spec.split ? { split: spec.split } : {}), onInvalid: spec.onInvalid ?? 'fail', cacheDir: spec.cacheDir, warn: (m) => logger.warn(m), seed: 0, compat: 'strict', filters: {} },
          spec.limit,
        ),
      };
    });
    const out = options.out ? AtomicFile.open(options.out) : undefined;
    let result;
    try {
      result = await runJudge({
        datasets,
        levels,
        judge,
        helper: session.client(helperModel),
        helperGeneration: { ...JUDGE_HELPER_GENERATION, temperature: spec.helperTemperature },
        concurrency: spec.concurrency,
        ...(out ? { onRecord: (r: JudgeRecord) => out.write(`${JSON.stringify(r)}\n`) } : {}),
        ...(options.onItem ? { onItem: options.onItem } : {}),
        onError: (m) => logger.warn(`rating failed, left out: ${m}`),
      });
      if (result.items === 0) throw new HptError('E_DATA', `dataset ${spec.datasets.map((d) => d.id).join(', ')} yielded no samples`);
      await out?.commit();
    } catch (e) {
      out?.abort();
      throw e;
    }
    return { levels: result.levels, datasets: sources.map((s) => s.datasetId), model: judgeModel.id, helperModel: helperModel.id, items: result.items, errored: result.errored, structuredOutput: judge.structuredOutput ?? null };
  } finally {
    session.close();
  }
}

/**
 * What `calibrateWithJudge` rates: a seeded sample (`fraction` of the dataset, at most `limit`) of `dataset` (from
 * `data` when given), each task text (the pack's `task`, else the first level of `ladder`) rated by the judge `model`.
 */
export interface CalibrateSpec extends JudgeCallSettings, JudgeDataSettings {
  dataset: string;
  data?: string;
  ladder: string;
  model: string;
  fraction: number;
  limit?: number;
  seed: number;
  temperature: number;
  maxTokens: number;
}

/** The outcome of `calibrateWithJudge`: the calibration and how it was drawn. */
export interface CalibrateOutcome {
  datasetId: string;
  result: CalibrationResult & { source: 'judge' };
  model: string;
  /** samples rated, the dataset's size, unreadable and failed ratings */
  sampled: number;
  datasetSize: number;
  invalid: number;
  errored: number;
}

/**
 * Estimate a dataset's HPI_Dataset with an LLM judge on a seeded representative sample (hpt.md §2.4; the automation
 * the paper leaves to future work): see `selectCalibrationSamples` and `runJudgeCalibration`.
 * @throws HptError `E_DATA` when the dataset yields no sample; what resolving the dataset and model throws; what
 *   `runJudgeCalibration` throws.
 */
export async function calibrateWithJudge(spec: CalibrateSpec, options: JudgeJobOptions): Promise<CalibrateOutcome> {
  const logger = options.logger ?? QUIET_LOGGER;
  const { registry, container } = options.plugins;
  const session = judgeSession(options.store, spec, options.plugins, spec.seed);
  try {
    const source = await resolveDatasetSource(registry, container, spec.dataset);
    const taskTemplate = judgeTaskTemplate(source.pack, source.pack.task === undefined ? judgeLevels(registry, spec.ladder)[0] : undefined, source.datasetId);
    const model = await resolveModel(registry, container, spec.model, spec.modelOptions);
    const load = (): AsyncIterable<Sample> =>
      judgeSamples(source, { ...(spec.data ? { data: resolve(spec.data) } : {}), ...(spec.split ? { split: spec.split } : {}), onInvalid: 'fail', cacheDir: spec.cacheDir, warn: (m) => logger.warn(m), seed: spec.seed, compat: 'strict', filters: {} });
    const { samples, total } = await selectCalibrationSamples(load, { fraction: spec.fraction, ...(spec.limit ? { limit: spec.limit } : {}), seed: spec.seed });
    if (total === 0) throw new HptError('E_DATA', `dataset ${source.datasetId} yielded no samples`);
    const cache = session.cache;
    const judge = new JudgeClient(session.client(model), {
      generation: { ...JUDGE_GENERATION, temperature: spec.temperature, maxTokens: spec.maxTokens },
      ...(cache && model.endpoint ? { cache } : {}),
      onFallback: (m) => logger.warn(m),
    });
    const r = await runJudgeCalibration({ datasetId: source.datasetId, taskTemplate, samples, judge, concurrency: spec.concurrency, seed: spec.seed, onError: (m) => logger.warn(`rating failed, left out: ${m}`) });
    return { datasetId: source.datasetId, result: { hpiDataset: r.hpiDataset, n: r.n, ruleMeans: r.ruleMeans, source: 'judge' }, model: model.id, sampled: r.items, datasetSize: total, invalid: r.invalid, errored: r.errored };
  } finally {
    session.close();
  }
}

/**
 * Save `hpiDataset` as the HPI_Dataset of `datasetId` in the store, for later runs of that dataset (`evaluate()` uses
 * it unless a run sets its own; hpt.md §2.4).
 * @returns the store's label (credentials removed).
 * @throws HptError `E_STORE` when the store cannot be opened or written.
 */
export function saveHpiDataset(store: string, calibration: { dataset: string; hpiDataset: number; n: number; source: string }): string {
  const session = new RunSession({ storePath: store, concurrency: 1 });
  try {
    session.store.saveCalibration(calibration);
  } finally {
    session.close();
  }
  return storeLabel(store);
}
