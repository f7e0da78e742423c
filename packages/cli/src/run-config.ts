/**
 * The one module that turns what a user typed into run configurations: `run`/`plan` flags (`runConfigOf`), and an
 * evaluation file's matrix (`matrixCells`, the file's values under the command-line flags), both as the core's
 * `EvaluationRun`s (`evaluationRuns`) for `evaluate()`.
 */
import { resolve } from 'node:path';
import { assertValid, type EvaluationRun, HptError, type Json, parseFilterOptions, readJsonText, type ReasoningEffort, type RunConfig, storedRunConfig } from '@hpt-bench/core';
import { checkEndpointUrl, HptCommand, modelOptionsFrom, numberFlag } from './base.js';
import { cellFlags, type EvalCell, explicitFlags, loadEvalFile, outPath } from './eval-config.js';
import { checkDistinctOut } from './matrix.js';
import { type RunFlags, runFlags } from './run-flags.js';

/** The labels of a run of a matrix: the model's and the dataset's (their `name` in the evaluation file, else their ids). */
export interface RunLabels {
  model: string;
  dataset: string;
}

/**
 * The runs a `run` (or `plan`) command line asks for: with `--config`, one per cell of the evaluation file (labelled
 * `<model> × <dataset>` by the file's names, `--out` templates filled in, a model entry's `name` recorded as the run
 * configuration's `name`, which reports label the run by); else the one run of the flags (or of
 * `--resume`). `argv` is the raw command line (which flags were given explicitly matters for `--config`).
 * @returns the runs, each run's labels, and the store.
 * @throws HptError `E_CONFIG` as `runConfigOf` and `matrixCells` do.
 */
export function evaluationRuns(flags: RunFlags, argv: readonly string[]): { runs: EvaluationRun[]; labels: RunLabels[]; store: string } {
  if (!flags.config) {
    const run = evaluationRunOf(flags);
    return { runs: [run], labels: [{ model: run.config.model, dataset: run.config.dataset }], store: flags.store };
  }
  const { cells, flagsOf, store } = matrixCells(flags.config, flags, explicitRunFlags(argv));
  const runs = cells.map((c) => {
    const run = evaluationRunOf(flagsOf.get(c)!);
    // the model entry's `name` is the run's label in reports (recorded in its configuration, not part of its identity)
    return { ...run, ...(c.name !== undefined ? { config: { ...run.config, name: c.name } } : {}), label: `${c.model} × ${c.dataset}` };
  });
  return { runs, labels: cells.map((c) => ({ model: c.model, dataset: c.dataset })), store };
}

/** The `EvaluationRun` of one run's flags: its configuration (`runConfigOf`), `--out`, `--resume`, `--new`, `--retry-errors`. */
export function evaluationRunOf(flags: RunFlags): EvaluationRun {
  return {
    config: runConfigOf(flags),
    ...(flags.out ? { out: flags.out } : {}),
    ...(flags.resume ? { resume: flags.resume } : {}),
    ...(flags.new ? { fresh: true } : {}),
    ...(flags['retry-errors'] ? { retryErrors: true } : {}),
  };
}

/** The flags given on the command line `argv` (`explicitFlags`; `--samples` stands for `--replicates`), for `--config`. */
export function explicitRunFlags(argv: readonly string[]): Set<string> {
  const explicit = explicitFlags(argv, { ...runFlags, ...HptCommand.baseFlags });
  if (explicit.has('samples')) explicit.add('replicates');
  return explicit;
}

/**
 * The run configuration of `flags` (shared by `run` and `plan`): with `--resume` the stored run's configuration (the
 * endpoint, key variable, timeout, response limit and execution settings of these flags over it), else the flags'
 * configuration. Prices (`--prices`) are read here.
 * @throws HptError `E_CONFIG` for missing `--dataset`/`--model`, invalid values, an unreadable prices file, or a
 *   `--resume` run that does not exist.
 */
export function runConfigOf(flags: RunFlags): RunConfig {
  const execution = {
    concurrency: flags.concurrency,
    cache: flags.cache,
    ...(flags['cache-key-endpoint'] ? { cacheKeyEndpoint: true } : {}),
    maxRetries: flags['max-retries'],
    ...(flags.prices ? { prices: readPrices(flags.prices) } : {}),
    ...(flags['unsafe-sandbox'] ? { unsafeSandbox: true } : {}),
    ...(flags.batch ? { batch: true, batchPollMs: Math.round(1000 * numberFlag('--batch-poll', flags['batch-poll'], 0.001, 3600)) } : {}),
  };
  const { timeoutMs, baseUrl } = modelOptionsFrom(flags);
  if (flags.resume) {
    const config = storedRunConfig(flags.store, flags.resume);
    // the stored base URL has no credentials: a --base-url given again (with them, or other replicas) is used for the calls
    const endpoint: Record<string, Json> = baseUrl !== undefined ? { baseUrl } : {};
    return { ...config, ...execution, modelOptions: { ...config.modelOptions, ...endpoint, apiKeyEnv: flags['api-key-env'], timeoutMs, maxResponseBytes: flags['max-response-bytes'], ...(flags['served-model'] ? { servedModel: flags['served-model'] } : {}) } };
  }
  if (!flags.dataset || !flags.model) throw new HptError('E_CONFIG', 'run needs --dataset and --model (or --resume RUN_ID to continue a stored run, or --config FILE)');
  return configFromFlags(flags, flags.dataset, flags.model, timeoutMs, execution);
}

/**
 * The cells of evaluation file `file` (shared by `run --config` and `plan --config`) and each cell's flags: the file's
 * values under the command-line flags (`cellFlags`), `--out` templates filled in; `--model`/`--dataset` given on the
 * command line select entries (and are removed from `explicit`).
 * @returns the cells in matrix order, their flags, and the store (a top-level setting: the same for every cell).
 * @throws HptError `E_CONFIG` for an invalid file, `--resume` with `--config`, `--model`/`--dataset` matching no
 *   entry, or two cells writing the same `--out`.
 */
export function matrixCells(file: string, flags: RunFlags, explicit: Set<string>): { cells: EvalCell[]; flagsOf: Map<EvalCell, RunFlags>; store: string } {
  if (flags.resume) throw new HptError('E_CONFIG', '--resume continues one stored run and cannot be combined with --config (running the same --config again continues its unfinished runs)');
  let cells = loadEvalFile(file);
  // --model / --dataset select the file's entries (by id or label) instead of replacing them all
  for (const key of ['model', 'dataset'] as const) {
    const wanted = flags[key];
    if (!explicit.has(key) || wanted === undefined) continue;
    cells = cells.filter((c) => c.values[key] === wanted || c[key] === wanted);
    if (!cells.length) throw new HptError('E_CONFIG', `--${key} ${wanted} is not a ${key} of ${file}`);
    explicit.delete(key);
  }
  const flagsOf = new Map(
    cells.map((cell) => {
      const f = cellFlags(flags, explicit, cell);
      return [cell, f.out ? { ...f, out: outPath(f.out, cell) } : f];
    }),
  );
  checkDistinctOut([...flagsOf.values()].map((f) => (f.out ? resolve(f.out) : undefined)));
  return { cells, flagsOf, store: flagsOf.get(cells[0]!)!.store };
}

/** The run configuration the flags describe. */
function configFromFlags(flags: RunFlags, dataset: string, model: string, timeoutMs: number, execution: Partial<RunConfig>): RunConfig {
  const config: RunConfig = {
    dataset,
    ...(flags.data ? { data: resolve(flags.data) } : {}),
    ...(flags.split ? { split: flags.split } : {}),
    ...(flags.limit ? { limit: flags.limit } : {}),
    model,
    ...(flags['knowledge-model'] ? { knowledgeModel: flags['knowledge-model'] } : {}),
    ...(flags.extractor ? { extractor: flags.extractor } : {}),
    modelOptions: { ...modelOptionsFrom(flags), timeoutMs, maxResponseBytes: flags['max-response-bytes'], ...(flags['served-model'] ? { servedModel: flags['served-model'] } : {}) },
    ladder: flags.ladder,
    compat: flags.compat as RunConfig['compat'],
    seed: flags.seed ?? 0,
    concurrency: flags.concurrency,
    generation: {
      temperature: numberFlag('--temperature', flags.temperature, 0, 2),
      topP: numberFlag('--top-p', flags['top-p'], 0, 1),
      maxTokens: flags['max-tokens'],
      ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
      ...(flags['reasoning-effort'] ? { reasoningEffort: flags['reasoning-effort'] as ReasoningEffort } : {}),
      ...(flags['max-completion-tokens'] ? { maxCompletionTokens: flags['max-completion-tokens'] } : {}),
    },
    onInvalid: flags['on-invalid'] as RunConfig['onInvalid'],
    cacheDir: flags['cache-dir'],
    ...(flags.replicates > 1 ? { replicates: flags.replicates } : {}),
    ...(flags.threshold !== undefined ? { scorerOptions: { threshold: numberFlag('--threshold', flags.threshold, 0, 1) } } : {}),
    ...(flags['hpi-dataset'] !== undefined ? { hpiDataset: numberFlag('--hpi-dataset', flags['hpi-dataset'], 0, 1000) } : {}),
    ...(flags['full-ladder'] ? { fullLadder: true } : {}),
    ...(flags.mode === 'adaptive' ? { mode: 'adaptive' as const } : {}),
    ...(flags.selector ? { selector: flags.selector } : {}),
    ...(flags['selector-base-url'] ? { selectorBaseUrl: flags['selector-base-url'] } : {}),
    ...execution,
  };
  if (flags.mode === 'adaptive' && !flags.selector) throw new HptError('E_CONFIG', "--mode adaptive needs --selector: a model id for the paper's prompt-selector (e.g. openai:llama3) or fixed:<level>");
  if (flags['selector-base-url']) checkEndpointUrl('--selector-base-url', flags['selector-base-url']);
  if (flags.mode !== 'adaptive' && (flags.selector || flags['selector-base-url'])) throw new HptError('E_CONFIG', '--selector and --selector-base-url apply to --mode adaptive only');
  const filters = parseFilterOptions(flags.filter ?? []);
  if (Object.keys(filters).length) config.filters = filters;
  return config;
}

/**
 * Read and validate a prices file (schemas/prices.schema.json).
 * @throws HptError `E_CONFIG` naming the file and the failing field.
 */
function readPrices(path: string): Record<string, { input: number; output: number; batchInput?: number; batchOutput?: number }> {
  let raw: unknown;
  try {
    raw = JSON.parse(readJsonText(path));
  } catch (e) {
    throw new HptError('E_CONFIG', `cannot read prices file ${path}: ${(e as Error).message}`);
  }
  return assertValid<Record<string, { input: number; output: number; batchInput?: number; batchOutput?: number }>>('prices', raw, `prices file ${path}`, 'E_CONFIG');
}
