import { closeSync, createWriteStream, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, resolve } from 'node:path';
import * as Flags from '@oclif/core/flags';
import type * as Interfaces from '@oclif/core/interfaces';
import { assertValid, EXIT_CODES, gatherReport, loadReportViews, parseFilterOptions, runSummaryTables, type Registry, type ReportTable, ReportViews, readJsonText, DEFAULT_MAX_RESPONSE_BYTES, isHptError, executeRun, currentOwner, leaveRun, urlSecrets, HptError, newRunId, prepareRun, RunSession, RunStore, storedRunConfig, type Json, type PreparedRun, type ReasoningEffort, type RunConfig, type RunPlan, type RunProgress, type RunSummary, type SampleRecord, storeLabel } from '@hpt-bench/core';
import { checkEndpointUrl, endpointFlags, filterFlags, HptCommand, modelOptionsFrom, numberFlag, renderTables, TerminalTable } from '../base.js';
import type { DependencyContainer } from 'tsyringe';
import { progressMode, ProgressReporter } from '../progress.js';
import { cellFlags, type EvalCell, explicitFlags, loadEvalFile, outPath } from '../eval-config.js';
import { checkDistinctOut, renderMatrixTable, runMatrix } from '../matrix.js';
import { storeFlag } from '../store-flag.js';
import { seedFlag } from '../seed-flag.js';

/** The parsed flags of `run` (and of `plan`, which takes the same flags). */
export type RunFlags = Interfaces.InferredFlags<typeof Run.flags & typeof Run.baseFlags>;

/** `hpt-bench run`: the manual HPF ladder over a dataset, with HPI, accuracy and per-level counts (hpt.md §2.1). */
export default class Run extends HptCommand {
  static override summary = 'Climb the HPF ladder on every sample of a dataset and report the HPI.';
  static override description = `For each sample, try the ladder's levels in order (default: the five HPT levels role, zero-shot-cot, three-shot-cot, least-to-most, generated-knowledge), stop at the first level the scorer accepts, and record that level; a sample no level solves scores m + HPI_Dataset. Results are stored in SQLite (--store) as they finish. The dataset ids, their shipped splits and (generated datasets) their filters: \`hpt-bench list datasets --json\`.`;
  static override examples = [
    '<%= config.bin %> run --config eval.yaml',
    '<%= config.bin %> run --config eval.yaml --limit 3 --json',
    '<%= config.bin %> run --dataset <id> --split mini --model baseline:random',
    'OPENAI_API_KEY=... <%= config.bin %> run --dataset my-dataset --data samples.jsonl --model openai:gpt-4o-mini --limit 50',
    '<%= config.bin %> run --dataset my-dataset --data samples.json --model openai:llama3 --base-url http://127.0.0.1:8000/v1 --json',
    '<%= config.bin %> run --dataset <generated dataset> --task <task> --limit 20 --model baseline:oracle',
    '<%= config.bin %> run --mode adaptive --selector openai:llama3 --dataset my-dataset --data samples.json --model openai:gpt-4o-mini --limit 50',
    '<%= config.bin %> run --mode adaptive --selector fixed:2 --dataset <id> --split mini --model baseline:random',
  ];

  static override flags = {
    config: Flags.string({ description: 'run the evaluation file FILE (YAML or JSON, schemas/eval-config.schema.json; `hpt-bench init` writes an example): every model × dataset in it is one run, run in turn; flags given here override the file; --json prints an array of run summaries' }),
    dataset: Flags.string({ char: 'd', description: 'dataset id (see `hpt-bench list datasets`); required unless --resume or --config (with --config: run only this dataset of the file)' }),
    data: Flags.string({ description: 'read samples from this .json/.jsonl file (Hugging Face field layout or the HPT representative-set layout)' }),
    split: Flags.string({ description: "split: a shipped one such as 'mini', or a Hugging Face split (default: the paper's)" }),
    limit: Flags.integer({ char: 'n', description: 'evaluate only the first N samples', min: 1 }),
    model: Flags.string({ char: 'm', description: 'model id: openai:<model>, baseline:oracle, baseline:random, or a plugin model; required unless --resume or --config (with --config: run only this model of the file)' }),
    'knowledge-model': Flags.string({ description: 'model that generates knowledge at the generated-knowledge level (default: --model)' }),
    extractor: Flags.string({ description: 'opt-in: a model asked for the final answer of a reply from which the strict extraction rules read none (its calls are cached and counted; the attempt records that a model extracted it). Strict mode only' }),
    ladder: Flags.string({ description: 'ladder id or a JSON file {"id","levels":[...]}', default: 'hpf' }),
    mode: Flags.string({ description: 'manual: climb the ladder level by level (hpt.md §2.1); adaptive: a selector picks the level at each of m iterations and a sample solved by level x at iteration i scores x + i (§2.3)', options: ['manual', 'adaptive'], default: 'manual', helpGroup: 'ADAPTIVE' }),
    selector: Flags.string({ description: "adaptive mode: a model id for the paper's prompt-selector (e.g. openai:llama3, same as llm:openai:llama3), fixed:<level>, or a plugin selector <id>[:<argument>]", helpGroup: 'ADAPTIVE' }),
    'selector-base-url': Flags.string({ description: "adaptive mode: the selector model's OpenAI-compatible endpoint when it is not --base-url (it gets its own adaptive concurrency limit)", helpGroup: 'ADAPTIVE' }),
    temperature: Flags.string({ description: 'sampling temperature', default: '0.6' }),
    'top-p': Flags.string({ description: 'nucleus sampling top-p', default: '0.9' }),
    'max-tokens': Flags.integer({ description: 'maximum completion tokens per call', default: 1024, min: 1 }),
    'reasoning-effort': Flags.string({ description: 'reasoning models: how much the model may think, sent as reasoning_effort (o-series, GPT-5, gpt-oss, and servers that accept it); part of the run\'s identity and cache key', options: ['minimal', 'low', 'medium', 'high'] }),
    'max-completion-tokens': Flags.integer({ description: 'reasoning models: send max_completion_tokens (thinking and answer together) instead of max_tokens, as o-series endpoints require', min: 1 }),
    seed: seedFlag('run seed, an integer up to 2^53 - 1 (recorded; sent to the endpoint as `seed` when given; seeds the baselines)'),
    concurrency: Flags.integer({ char: 'c', description: 'samples evaluated at once, and the ceiling of the adaptive (AIMD) limit of calls in flight per endpoint', default: 4, min: 1, max: 1024 }),
    compat: Flags.string({ description: 'strict (what the method intends) or reference (reproduce the authors’ code)', options: ['strict', 'reference'], default: 'strict' }),
    store: storeFlag(),
    out: Flags.string({ description: 'write one JSON line per sample (with every attempt and call) to this file' }),
    replicates: Flags.integer({ description: 'replicates per sample: climb each ladder N times (pass@k uses them)', default: 1, min: 1, max: 1000 }),
    samples: Flags.integer({ description: 'deprecated alias of --replicates', min: 1, max: 1000, hidden: true }),
    threshold: Flags.string({ description: 'solve threshold for metric-solved datasets, required by the scorers that grade by a metric score (e.g. sentence BLEU, ROUGE-1 F1); the paper uses 0.15 and 0.20' }),
    'on-invalid': Flags.string({ description: 'a record missing a required field: fail the run, or skip it with a warning', options: ['fail', 'skip'], default: 'fail' }),
    'hpi-dataset': Flags.string({ description: "HPI_Dataset: the penalty added to m for an unsolved sample (default: a value saved with `calibrate --save` in --store, else the dataset's constant; generated datasets declare a documented default)" }),
    resume: Flags.string({ description: 'continue this run id (see `hpt-bench runs`) with its stored configuration; recorded samples are kept', helpGroup: 'EXECUTION' }),
    new: Flags.boolean({ description: 'start a new run even when an unfinished run with the same configuration exists (default: continue it)', default: false, helpGroup: 'EXECUTION' }),
    'retry-errors': Flags.boolean({ description: 'redo only the errored samples of the newest run with this configuration', default: false, helpGroup: 'EXECUTION' }),
    'served-model': Flags.string({ description: "the name the endpoint gives the model in its answers' `model` field when it is neither the name asked for nor a dated snapshot of it (an Azure deployment, llama-server without --alias); answers naming any other model are refused", helpGroup: 'MODEL' }),
    'max-response-bytes': Flags.integer({ description: 'largest model response in bytes (HTTP body and completion text): a larger reply fails its call (not retried) and its sample is recorded as errored', default: DEFAULT_MAX_RESPONSE_BYTES, min: 1024, max: 268_435_456, helpGroup: 'EXECUTION' }),
    'unsafe-sandbox': Flags.boolean({ description: 'let scorers that run model code execute it even when `hpt-bench sandbox check` finds a protection missing on this machine; the summary and the stored run say so', default: false, helpGroup: 'EXECUTION' }),
    progress: Flags.boolean({ description: 'show progress on stderr even with --json (a bar on a terminal, else a line every --progress-interval seconds)', default: false, helpGroup: 'OUTPUT' }),
    'progress-interval': Flags.string({ description: 'seconds between two progress lines when stderr is not a terminal (CI logs, files)', default: '5', helpGroup: 'OUTPUT' }),
    prices: Flags.string({ description: 'JSON file of USD per 1M tokens per model id ({"openai:gpt-4o-mini": {"input": 0.15, "output": 0.6}}; "batchInput"/"batchOutput" price --batch calls, default half): adds cost per level and in total', helpGroup: 'EXECUTION' }),
    batch: Flags.boolean({ description: "send the calls through the model's batch interface (the OpenAI Batch API: half price, results within its 24 h window), level by level over all samples; same results as an online run; an interrupted run picks its batches up again", default: false, helpGroup: 'EXECUTION' }),
    'batch-poll': Flags.string({ description: 'with --batch: seconds before the first poll of a batch (then x1.5 per poll, at most 60 s)', default: '5', helpGroup: 'EXECUTION' }),
    ...filterFlags,
    ...endpointFlags,
  };

  async run(): Promise<void> {
    const { registry, container, argv } = this.discoverWithFilters(Run);
    const { flags } = await this.parse(Run, argv);
    if (flags.samples !== undefined) {
      process.stderr.write('warning: --samples is deprecated and will be removed: use --replicates (replicates per sample)\n');
      flags.replicates = flags.samples;
    }
    if (flags.config) {
      const explicit = explicitRunFlags(argv);
      await this.runConfigFile(flags.config, flags, explicit, registry, container);
      return;
    }
    const { summary, tables } = await this.runOne(flags, registry, container);
    if (flags.json) this.printJson(summary);
    else this.log(renderSummary(summary, storeLabel(flags.store), tables));
    if (!summary.complete) this.failIncomplete(summary);
  }

  /**
   * `--config FILE`: every model × dataset of the evaluation file, one run each (`runMatrix`), with the file's values
   * under the command-line flags (`cellFlags`). Prints each run's summary as it finishes and one combined table, or
   * with `--json` one array of the run summaries (also for a single cell).
   * @throws HptError `E_CONFIG` for an invalid file, `--resume` with `--config`, `--model`/`--dataset` matching no
   *   entry, or two cells writing the same `--out`; a cell's own error, prefixed with its labels.
   */
  private async runConfigFile(file: string, flags: RunFlags, explicit: Set<string>, registry: Registry, container: DependencyContainer): Promise<void> {
    const { cells, flagsOf, store } = matrixCells(file, flags, explicit);
    await checkCells(cells, flagsOf, registry, container);
    // the progress display names the active run of the matrix: `[2/4] <model> × <dataset>`
    const label = (cell: (typeof cells)[number]) => `[${cells.indexOf(cell) + 1}/${cells.length}] ${cell.model} × ${cell.dataset}`;
    const results = await runMatrix(cells, async (cell) => this.runOne(flagsOf.get(cell)!, registry, container, label(cell)), (r) => {
      if (!flags.json) this.log(`${renderSummary(r.summary, store, r.tables ?? [])}\n`);
    });
    if (flags.json) this.printJson(results.map((r) => r.summary));
    else this.log(renderMatrixTable(results));
    const last = results.at(-1);
    if (last && !last.summary.complete) this.failIncomplete(last.summary, cells.length - results.length);
  }

  /** A run that finished with errored samples: its figures cover the scored samples only; say so and exit 1. */
  private failIncomplete(summary: RunSummary, notRun = 0): never {
    const rest = notRun ? `; the ${notRun} later runs of the matrix were not started` : '';
    process.stderr.write(`Error: ${summary.errored} samples errored, so run ${summary.runId} is not complete (first error: ${summary.erroredSamples?.[0]?.error ?? 'see --json'}); re-run the same command to retry them${rest}\n`);
    this.exit(1);
  }

  /**
   * One run, the job of `hpt-bench run` without `--config` and of each cell of a matrix: the flags' configuration (or
   * with `--resume` the stored one), prepared, executed (progress, signals), and `--out` written.
   * @returns the run summary and, for a complete run without `--json`, the report views' tables of it.
   * @throws HptError from configuration, preparation and execution (nothing is printed).
   */
  private async runOne(flags: RunFlags, registry: Registry, container: DependencyContainer, label?: string): Promise<{ summary: RunSummary; tables: ReportTable[] }> {
    if (flags.out) checkWritable(flags.out);
    let config = runConfigOf(flags);
    const session = RunSession.forRun(flags.store, config, container, this.logger, this.config.version);
    try {
      // a value saved by `hpt-bench calibrate --save` replaces the dataset's declared constant (--hpi-dataset wins)
      if (!flags.resume) config = session.withSavedHpiDataset(config, registry.get('datasets', config.dataset).id);
      const prepared = await prepareRun(config, registry, container);
      return await this.execute(prepared, session, flags, { resume: flags.resume, fresh: flags.new, retryErrors: flags['retry-errors'] }, () => this.summaryViews(registry, container), label);
    } catch (e) {
      // the error is what the user sees; a store that cannot close cleanly (it already failed) must not replace it
      try {
        session.close();
      } catch {
        // already reported through `e`
      }
      throw e;
    }
  }

  /** The report views, for the tables under a finished run's summary (a view whose code fails to load is left out). */
  private async summaryViews(registry: Registry, container: DependencyContainer): Promise<ReportViews> {
    return loadReportViews(registry, container, { onCodeError: (c, e) => this.logger.debug(`report view ${c.qualifiedId}: ${(e as Error).message}`) });
  }

  /**
   * Run the prepared evaluation with a progress bar and SIGINT/SIGTERM handling, then write `--out`.
   * @returns the summary, and the report views' tables of a complete run without `--json`.
   */
  private async execute(prepared: PreparedRun, session: RunSession, flags: RunFlags, plan: RunPlan, views: () => Promise<ReportViews>, label = prepared.datasetId): Promise<{ summary: RunSummary; tables: ReportTable[] }> {
    const { config } = prepared;

    const mode = progressMode({ json: Boolean(flags.json), progress: flags.progress, tty: Boolean(process.stderr.isTTY) });
    const interval = numberFlag('--progress-interval', flags['progress-interval'], 0.05, 3600);
    const progress = new ProgressReporter(mode, label, { intervalMs: 1000 * interval });
    let runId = newRunId();
    // Ctrl-C or SIGTERM: finished samples are committed; the run is marked failed so no later step trusts it as
    // complete, and the same command continues it
    /** whether the run row exists (`onRun`): before, the data and endpoints are being checked and nothing is recorded */
    let opened = false;
    const onSignal = (signal: NodeJS.Signals) => {
      progress.stop(false);
      let left = false;
      try {
        // a worker of a run other processes execute too leaves it to them; a lone one marks it failed
        if (opened) left = leaveRun(session.store, runId, currentOwner(), `interrupted (${signal})`) === 'left';
        session.close();
      } finally {
        const message = !opened
          ? `interrupted by ${signal} before the run started; nothing was recorded in ${storeLabel(flags.store)}`
          : left
            ? `interrupted by ${signal}; this worker left run ${runId} in ${storeLabel(flags.store)} to its other workers, which carry on`
            : `interrupted by ${signal}; run ${runId} is marked failed in ${storeLabel(flags.store)} (the same command continues it)`;
        if (flags.json) this.printJson({ error: { code: 'E_INTERRUPTED', message } });
        else process.stderr.write(`Error: ${message}\n`);
        process.exit(signal === 'SIGTERM' ? EXIT_CODES.terminated : EXIT_CODES.interrupted);
      }
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    let summary: RunSummary;
    let finished = false;
    try {
      summary = await executeRun(prepared, session, {
        logger: this.logger,
        onRun: (id) => {
          runId = id;
          opened = true;
        },
        redact: [process.env[flags['api-key-env']] ?? '', ...[config.modelOptions.baseUrl ?? []].flat().flatMap((u) => urlSecrets(u as string)), ...urlSecrets(config.selectorBaseUrl)],
        ...(mode === 'off' ? {} : { onProgress: (p: RunProgress) => progress.update(p) }),
      }, runId, plan);
      finished = true;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      progress.stop(finished);
    }
    let tables: ReportTable[] = [];
    try {
      if (flags.out) await writeOut(session.store, runId, flags.out, config.replicates ?? 1);
      // the plugin's own layout of this run's results (e.g. a HiBench scenario's task table and dimensions)
      if (!flags.json && summary.complete) tables = runSummaryTables(gatherReport(session.store, storeLabel(flags.store), { runIds: [runId], resamples: 200 }), await views());
    } finally {
      session.close();
    }
    return { summary, tables };
  }
}

/** The flags given on the command line `argv` (`explicitFlags`; `--samples` stands for `--replicates`), for `--config`. */
export function explicitRunFlags(argv: readonly string[]): Set<string> {
  const explicit = explicitFlags(argv, { ...Run.flags, ...Run.baseFlags });
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

/**
 * Check every cell of an evaluation file before the first one runs (issue #25: a price missing for the third model used
 * to fail after two pairs ran): each cell's configuration is built (`runConfigOf`) and resolved (`prepareRun`: dataset,
 * ladder, scorer and its options, models, selector, and a price for every model that calls an endpoint when the file
 * gives prices). Nothing is read from the data and no model is called.
 * @throws HptError the first failing cell's error, its labels before the message (`<model> × <dataset>: ...`) when the
 *   file has several cells.
 */
export async function checkCells(cells: readonly EvalCell[], flagsOf: ReadonlyMap<EvalCell, RunFlags>, registry: Registry, container: DependencyContainer): Promise<void> {
  for (const cell of cells) {
    try {
      await prepareRun(runConfigOf(flagsOf.get(cell)!), registry, container);
    } catch (e) {
      if (cells.length === 1 || !isHptError(e)) throw e;
      throw new HptError(e.code, `${cell.model} × ${cell.dataset}: ${e.message}`, { cause: e, exitCode: e.exitCode, ...(e.hint ? { hint: e.hint } : {}) });
    }
  }
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


/**
 * Check before any model call that `--out` can be written: not a directory, and its directory exists (or can be
 * created) and accepts a new file (a probe file is created and removed).
 * @throws HptError `E_CONFIG` naming the path and the reason.
 */
function checkWritable(path: string): void {
  const full = resolve(path);
  try {
    if (existsSync(full) && statSync(full).isDirectory()) throw new Error('it is a directory; give a file name');
    mkdirSync(dirname(full), { recursive: true });
    const probe = `${full}.probe-${process.pid}`;
    closeSync(openSync(probe, 'w'));
    rmSync(probe, { force: true });
  } catch (e) {
    throw new HptError('E_CONFIG', `cannot write --out ${path}: ${(e as Error).message}`);
  }
}

/** Write the `--out` JSONL from the store (input order; replicates adjacent) to a temp file, then rename it into place. */
async function writeOut(store: RunStore, runId: string, path: string, replicates: number): Promise<void> {
  mkdirSync(dirname(resolve(path)), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const stream = createWriteStream(tmp, 'utf8');
  try {
    for (const r of store.iterSamples(runId)) {
      const line: SampleRecord = {
        sampleId: r.sampleId,
        level: r.level,
        hpi: r.hpi,
        solved: r.solved,
        prediction: r.prediction,
        target: r.target,
        ...(replicates > 1 ? { replicate: r.index % replicates } : {}),
        ...(r.meta ? { meta: r.meta } : {}),
        attempts: r.attempts,
        ...(r.iteration !== undefined ? { iteration: r.iteration } : {}),
        ...(r.selections ? { selections: r.selections } : {}),
        ...(r.records ? { records: r.records } : {}),
      };
      if (!stream.write(`${JSON.stringify(line)}\n`)) await once(stream, 'drain');
    }
    stream.end();
    await once(stream, 'finish');
    renameSync(tmp, path);
  } catch (e) {
    stream.destroy();
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Objects with more entries than this are summarised in the table (the full values are in `--json`). */
const MAX_TABLE_ENTRIES = 8;

/**
 * Table rows of the dataset metrics: numbers to 4 decimals, nested objects flattened to dotted names (e.g.
 * `hibench.scenarios.binary-tree`), and objects with many entries (per-configuration accuracies) summarised.
 */
export function metricRows(metrics: Record<string, Json>, prefix = ''): [string, string][] {
  const rows: [string, string][] = [];
  for (const [k, v] of Object.entries(metrics)) {
    const name = prefix + k;
    if (typeof v === 'number') rows.push([name, Number.isInteger(v) ? String(v) : v.toFixed(4)]);
    else if (v && typeof v === 'object' && !Array.isArray(v)) {
      const n = Object.keys(v).length;
      if (n > MAX_TABLE_ENTRIES) rows.push([name, `${n} values (see --json)`]);
      else rows.push(...metricRows(v, `${name}.`));
    } else rows.push([name, typeof v === 'string' ? v : JSON.stringify(v)]);
  }
  return rows;
}

/**
 * The human-readable result: one table row per quantity, rounded for display only (hpt.md §9 #20), then `views`, the
 * report views' tables of the run (`runSummaryTables`). When there are view tables, the structured metrics (objects)
 * are left to them and to `--json`, and named in one row instead of as dotted keys.
 */
export function renderSummary(s: RunSummary, storePath: string, views: readonly ReportTable[] = []): string {
  const t = new TerminalTable({ head: ['', s.dataset] });
  t.push(['model', s.model]);
  if (s.mode === 'adaptive') t.push(['mode', `adaptive (selector ${s.selector}; a sample solved by level x at iteration i scores x + i)`]);
  t.push(['samples (n)', s.samples ? `${s.n} (${s.n / s.samples} x ${s.samples} replicates)` : String(s.n)], ['HPI (lower is better)', s.hpi.toFixed(3)], ['accuracy', `${(100 * s.accuracy).toFixed(2)}%`]);
  for (const [i, id] of s.ladder.entries()) t.push([`solved at level ${i + 1} (${id})`, String(s.levelCounts[String(i + 1)] ?? 0)]);
  t.push([`unsolved (scored ${s.ladder.length} + ${s.hpiDataset})`, String(s.levelCounts.unsolved ?? 0)]);
  if (s.threshold !== undefined) t.push(['solve threshold', String(s.threshold)]);
  const metrics = s.metrics ?? {};
  const structured = views.length ? Object.keys(metrics).filter((k) => typeof metrics[k] === 'object' && metrics[k] !== null) : [];
  for (const [k, v] of metricRows(Object.fromEntries(Object.entries(metrics).filter(([k]) => !structured.includes(k))))) t.push([k, v]);
  if (structured.length) t.push(['more metrics (tables below, all in --json)', structured.join(', ')]);
  if (s.mode === 'adaptive') t.push(['selections (outside 1..m, iteration consumed)', `${s.selections ?? 0} (${s.invalidSelections ?? 0})`]);
  if (s.errored) t.push(['errored samples (not scored; --retry-errors redoes them)', String(s.errored)]);
  t.push(['model calls (from cache)', `${s.calls} (${s.cachedCalls})`], ['tokens (prompt / completion)', `${s.usage.promptTokens} / ${s.usage.completionTokens}`]);
  for (const [level, u] of Object.entries(s.levels)) {
    const cost = u.cost !== undefined ? `, $${u.cost.toFixed(4)}${u.onlineCost !== undefined ? ` (online $${u.onlineCost.toFixed(4)})` : ''}` : '';
    const batched = u.batchedCalls ? `, ${u.batchedCalls} batched` : '';
    const reasoning = u.reasoningTokens ? ` (${u.reasoningTokens} reasoning)` : '';
    const truncated = u.truncatedThinking ? `, ${u.truncatedThinking} truncated while thinking` : '';
    t.push([`level ${level}: calls, tokens${u.cost !== undefined ? ', cost' : ''}`, `${u.calls} (${u.cachedCalls} cached${batched}), ${u.promptTokens} / ${u.completionTokens}${reasoning}${cost}${truncated}`]);
  }
  if (s.selectorUsage && s.selectorUsage.calls) {
    const u = s.selectorUsage;
    t.push([`selector: calls, tokens${u.cost !== undefined ? ', cost' : ''}`, `${u.calls} (${u.cachedCalls} cached), ${u.promptTokens} / ${u.completionTokens}${u.cost !== undefined ? `, $${u.cost.toFixed(4)}` : ''}`]);
  }
  for (const e of s.endpoints ?? []) {
    const state = e.reason !== undefined ? ` [drained: ${e.reason}; its answers were neither scored nor cached]` : e.state === 'closed' ? '' : ` [${e.state === 'open' ? 'drained' : 'probing'}]`;
    t.push([`endpoint ${e.endpoint}: requests (errors), mean latency`, `${e.calls} (${e.errors}), ${e.meanLatencyMs.toFixed(0)} ms${state}`]);
  }
  if (s.cost !== undefined) t.push(['cost (USD, uncached calls)', `$${s.cost.toFixed(4)}`]);
  if (s.batch) {
    const b = s.batch;
    t.push(['batches (rounds; picked up after an interruption)', `${b.batches} with ${b.requests} requests (${b.rounds} rounds; ${b.resumedBatches} picked up)`]);
    if (b.retriedLines || b.failedLines) t.push(['batch lines retried / failed', `${b.retriedLines} / ${b.failedLines}`]);
    if (b.saving !== undefined && b.onlineCost !== undefined) t.push(['saved against the online price', `$${b.saving.toFixed(4)} (online $${b.onlineCost.toFixed(4)})`]);
  }
  if (s.skipped) t.push(['skipped invalid records', String(s.skipped)]);
  if (s.preflight) t.push(['environment check', typeof s.preflight.summary === 'string' ? s.preflight.summary : JSON.stringify(s.preflight)]);
  const footer = `run ${s.runId}${s.resumed ? ' (resumed)' : ''} (${s.compat}, seed ${s.seed}) stored in ${storePath}`;
  return views.length ? `${t.toString()}\n\n${renderTables(views)}\n\n${footer}` : `${t.toString()}\n${footer}`;
}
