/**
 * `evaluate()`: an evaluation from code — the job of `hpt-bench run` (one run, or the matrix of an evaluation file) as a
 * library call. It owns everything around a run that is not the method itself: the run session (store, cache,
 * limiters), the HPI_Dataset saved by `calibrate --save` (hpt.md §2.4), checking every run of a matrix before the
 * first starts, cancellation through an `AbortSignal` (finished samples stay stored; the run is marked failed, or left
 * to the other workers of a shared run, and continues when run again), the `--out` JSONL writer, and the report views'
 * tables of a finished run. The CLI's `run` command is a thin shell over it (flags in, tables out).
 */
import type { DependencyContainer } from 'tsyringe';
import { EXIT_CODES, HptError, isHptError, type Logger, type SampleResult } from '@hpt-bench/sdk';
import type { Registry } from '../plugins/registry.js';
import type { ReportTable } from '@hpt-bench/sdk';
import { gatherReport } from '../report/gather.js';
import { runSummaryTables } from '../report/tables.js';
import { loadReportViews } from '../report/views.js';
import type { RunConfig } from '../run/config.js';
import { executeRun, newRunId, type RunProgress } from '../run/execute.js';
import { type PreparedRun, prepareRun, QUIET_LOGGER } from '../run/resolve.js';
import type { RunPlan } from '../run/config.js';
import { currentOwner } from '../run/resume.js';
import { urlSecrets } from '../run/secrets.js';
import { RunSession } from '../run/session.js';
import { leaveRun } from '../run/share.js';
import type { RunSummary } from '@hpt-bench/sdk';
import { storeLabel } from '../store/location.js';
import { checkWritable } from '../io/atomic-file.js';
import { writeSampleRecords } from './samples.js';

/** The plugins an evaluation uses: the registry of their contributions and the run container (`loadPlugins`). */
export interface EvaluationPlugins {
  registry: Registry;
  container: DependencyContainer;
}

/**
 * One run of an evaluation (one cell of a matrix):
 * - `config`: the run's configuration (`runConfig()` fills the defaults of `hpt-bench run`);
 * - `label`: how progress and errors name the run (default `<model> × <dataset>`);
 * - `out`: write the run's per-sample records to this JSONL file when it ends (schemas/sample-record.schema.json);
 * - `resume`: continue this stored run id (`config` should then be its stored configuration: `storedRunConfig`);
 * - `fresh`: start a new run even when an unfinished one of the same configuration exists (`run --new`);
 * - `retryErrors`: redo only the errored samples of the newest run of this configuration (`run --retry-errors`).
 */
export interface EvaluationRun {
  config: RunConfig;
  label?: string;
  out?: string;
  resume?: string;
  fresh?: boolean;
  retryErrors?: boolean;
}

/** A run of the evaluation as the hooks see it: its position in the matrix (0-based), its label and configuration. */
export interface EvaluationCell {
  index: number;
  label: string;
  config: RunConfig;
}

/**
 * How to evaluate:
 * - `store`: where runs are stored, an SQLite file or a PostgreSQL URL (README "Stores");
 * - `plugins`: the registry and container (`loadPlugins`, or a CLI command's discovery);
 * - `signal`: aborting it interrupts the evaluation (its `reason`, e.g. `'SIGINT'`, is named in the error);
 * - `onRunStart(cell, prepared)`: a run is prepared (its resolved dataset id, ladder, models…) and about to execute; `onProgress(p, cell)`: a sample finished or errored;
 *   `onSample(r, cell)`: a scored sample, after it is stored; `onRunEnd(cell, finished)`: the run's execution ended
 *   (`finished` false when it threw or was interrupted); `onResult(r)`: a run's result, as soon as it is known;
 * - `logger`: warnings and notes (default: silent);
 * - `hptBenchVersion`: recorded in the fingerprints of new runs;
 * - `redact`: strings removed from stored and shown error texts (an API key; base-URL credentials are added here);
 * - `tables`: also gather the report views' tables of each complete run (`EvaluationResult.tables`).
 */
export interface EvaluateOptions {
  store: string;
  plugins: EvaluationPlugins;
  signal?: AbortSignal;
  onRunStart?(cell: EvaluationCell, prepared: PreparedRun): void;
  onProgress?(p: RunProgress, cell: EvaluationCell): void;
  onSample?(r: SampleResult, cell: EvaluationCell): void;
  onRunEnd?(cell: EvaluationCell, finished: boolean): void;
  onResult?(r: EvaluationResult): void;
  logger?: Logger;
  hptBenchVersion?: string;
  redact?: string[];
  tables?: boolean;
}

/** One finished run: its cell, its summary (`complete` false when samples errored) and, with `tables`, its views' tables. */
export interface EvaluationResult extends EvaluationCell {
  runId: string;
  summary: RunSummary;
  tables: ReportTable[];
}


/** The label of a run: its own, else `<model> × <dataset>`. */
function labelOf(run: EvaluationRun): string {
  return run.label ?? `${run.config.model} × ${run.config.dataset}`;
}

/** An error of one run of a matrix, its label before the message (code, hint and exit code kept). */
function inCell(e: unknown, label: string, cells: number): unknown {
  if (cells === 1 || !isHptError(e)) return e;
  return new HptError(e.code, `${label}: ${e.message}`, { cause: e, exitCode: e.exitCode, ...(e.hint ? { hint: e.hint } : {}) });
}

/**
 * Check every run before the first starts (issue #25: a price missing for the third model used to fail after two runs):
 * `out` can be written, and the configuration resolves (`prepareRun`: dataset, ladder, scorer and its options, models,
 * selector, prices). Nothing is read from the data and no model is called.
 * @throws HptError the first failing run's error, its label before the message when there are several runs.
 */
export async function checkRuns(runs: readonly EvaluationRun[], plugins: EvaluationPlugins): Promise<void> {
  for (const run of runs) {
    try {
      if (run.out) checkWritable(run.out);
      await prepareRun(run.config, plugins.registry, plugins.container);
    } catch (e) {
      throw inCell(e, labelOf(run), runs.length);
    }
  }
}

/**
 * Run an evaluation: `runs` one after the other (a matrix of models × datasets is several runs), each an ordinary run
 * of the store (resumable like any run), every run checked first when there are several (`checkRuns`). Stops at the
 * first run that throws, and after the first run that is incomplete (errored samples; it is returned last,
 * `summary.complete` false).
 *
 * Manual HPF or adaptive HPF per `config.mode` (hpt.md §2.1, §2.3); HPI as in hpt.md §2.2. For a run that does not
 * resume, an HPI_Dataset saved in the store by `calibrate --save` replaces the dataset's constant unless
 * `config.hpiDataset` is set.
 *
 * @returns the results of the runs that ran, in order.
 * @throws HptError from configuration, preparation and execution (a run's error names its label when there are several
 *   runs); `E_INTERRUPTED` (exit code 130, or 143 when the signal's reason is `'SIGTERM'`) when `signal` is aborted —
 *   thrown at once, the samples finished so far kept in the store.
 */
export async function evaluate(runs: EvaluationRun | readonly EvaluationRun[], options: EvaluateOptions): Promise<EvaluationResult[]> {
  const list: readonly EvaluationRun[] = Array.isArray(runs) ? runs : [runs as EvaluationRun];
  if (!list.length) throw new HptError('E_CONFIG', 'evaluate() needs at least one run');
  const interrupt = new Interrupt(options.signal, options.store);
  try {
    // one run is checked as it is prepared; several are all checked before the first starts
    if (list.length > 1) await interrupt.race(checkRuns(list, options.plugins));
    const results: EvaluationResult[] = [];
    for (const [index, run] of list.entries()) {
      const cell: EvaluationCell = { index, label: labelOf(run), config: run.config };
      let result: EvaluationResult;
      try {
        result = await runOne(run, cell, options, interrupt);
      } catch (e) {
        throw inCell(e, cell.label, list.length);
      }
      results.push(result);
      options.onResult?.(result);
      if (!result.summary.complete) break;
    }
    return results;
  } finally {
    interrupt.dispose();
  }
}

/** One run: its session, the saved HPI_Dataset, preparation, execution, `out`, and the tables. */
async function runOne(run: EvaluationRun, cell: EvaluationCell, options: EvaluateOptions, interrupt: Interrupt): Promise<EvaluationResult> {
  const logger = options.logger ?? QUIET_LOGGER;
  const { registry } = options.plugins;
  // each run has a container of its own (its RNG and store registered there), under the plugins' container
  const container = options.plugins.container.createChildContainer();
  if (run.out) checkWritable(run.out);
  const session = RunSession.forRun(options.store, run.config, container, logger, options.hptBenchVersion);
  interrupt.begin(session);
  let finished = false;
  let started = false;
  try {
    // a value saved by `hpt-bench calibrate --save` replaces the dataset's declared constant (config.hpiDataset wins)
    const config = run.resume ? run.config : session.withSavedHpiDataset(run.config, registry.get('datasets', run.config.dataset).id);
    const prepared = await interrupt.race(prepareRun(config, registry, container));
    const redact = [...(options.redact ?? []), ...[config.modelOptions.baseUrl ?? []].flat().flatMap((u) => urlSecrets(u as string)), ...urlSecrets(config.selectorBaseUrl)];
    const plan: RunPlan = { ...(run.resume ? { resume: run.resume } : {}), ...(run.fresh ? { fresh: true } : {}), ...(run.retryErrors ? { retryErrors: true } : {}) };
    options.onRunStart?.(cell, prepared);
    started = true;
    const summary = await interrupt.race(
      executeRun(
        prepared,
        session,
        {
          logger,
          onRun: (id) => interrupt.opened(id),
          redact,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onProgress ? { onProgress: (p: RunProgress) => options.onProgress!(p, cell) } : {}),
          ...(options.onSample ? { onSample: (r: SampleResult) => options.onSample!(r, cell) } : {}),
        },
        interrupt.runId,
        plan,
      ),
    );
    finished = true;
    const runId = interrupt.runId;
    // from here an abort leaves the finished run as it is (only --out and the tables are not written)
    interrupt.executed();
    options.onRunEnd?.(cell, true);
    interrupt.throwIfAborted();
    if (run.out) await interrupt.race(writeSampleRecords(session.store, runId, run.out, config.replicates ?? 1));
    let tables: ReportTable[] = [];
    if (options.tables && summary.complete) {
      const views = await interrupt.race(loadReportViews(registry, container, { onCodeError: (c, e) => logger.debug(`report view ${c.qualifiedId}: ${(e as Error).message}`) }));
      interrupt.throwIfAborted();
      tables = runSummaryTables(gatherReport(session.store, storeLabel(options.store), { runIds: [runId], resamples: 200 }), views);
    }
    interrupt.throwIfAborted();
    return { ...cell, runId, summary, tables };
  } finally {
    if (started && !finished) options.onRunEnd?.(cell, false);
    interrupt.end();
    // the error, if any, is what the user sees; a store that cannot close cleanly (it already failed) must not replace it
    try {
      session.close();
    } catch (e) {
      if (finished) throw e;
    }
  }
}

/**
 * Cancellation of an evaluation: an abort of the signal ends the current step at once with `E_INTERRUPTED`. What the
 * store then holds: nothing, before the run row exists; else the finished samples, and the run marked failed (the same
 * evaluation continues it) — or, when other live processes execute the same run, left to them (`leaveRun`).
 */
class Interrupt {
  private session: RunSession | undefined;
  /** the id of the current run: fresh per run, the stored one once `executeRun` has picked it (`opened`) */
  runId = newRunId();
  private isOpen = false;
  private done = false;
  private readonly rejecters = new Set<(e: unknown) => void>();
  private error: HptError | undefined;
  private readonly listener = () => this.abort();

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly storePath: string,
  ) {
    signal?.addEventListener('abort', this.listener, { once: true });
  }

  /** A run's session is in use from now on; the run gets a fresh id. */
  begin(session: RunSession): void {
    this.session = session;
    this.runId = newRunId();
    this.isOpen = false;
    this.done = false;
    if (this.signal?.aborted) this.abort();
  }

  /** The run row exists (a new run, or the resumed one). */
  opened(runId: string): void {
    this.runId = runId;
    this.isOpen = true;
  }

  /** The run's execution finished: an abort from now on closes the store but does not touch the run. */
  executed(): void {
    this.done = true;
  }

  /** Throw the interruption's error if the signal was aborted (between steps that are not raced). */
  throwIfAborted(): void {
    if (this.signal?.aborted) this.abort();
    if (this.error) throw this.error;
  }

  /** The run is over (returned or thrown): an abort from now on touches no run. */
  end(): void {
    this.session = undefined;
    this.isOpen = false;
    this.done = false;
  }

  /** `work`, unless the signal is aborted first (then the interruption's error; `work`'s later outcome is dropped). */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.error) {
      work.catch(() => undefined);
      return Promise.reject(this.error);
    }
    if (this.signal?.aborted) this.abort();
    return new Promise<T>((resolve, reject) => {
      const fail = (e: unknown) => {
        this.rejecters.delete(fail);
        reject(e);
      };
      this.rejecters.add(fail);
      work.then(
        (v) => {
          this.rejecters.delete(fail);
          resolve(v);
        },
        (e: unknown) => fail(this.error ?? e),
      );
    });
  }

  /** The abort: the store is settled synchronously (so a host may exit right after `abort()`), then pending work rejects. */
  private abort(): void {
    if (this.error) return;
    const reason = this.signal?.reason;
    const name = typeof reason === 'string' ? reason : 'an abort';
    const store = storeLabel(this.storePath);
    let left = false;
    const session = this.session;
    try {
      // a worker of a run other processes execute too leaves it to them; a lone one marks it failed
      if (session && this.isOpen && !this.done) left = leaveRun(session.store, this.runId, currentOwner(), `interrupted (${name})`) === 'left';
    } catch {
      // a broken store: the samples already committed stay; the run is resumed like any failed one
    }
    try {
      session?.close();
    } catch {
      // as above
    }
    const message = !session || !this.isOpen
      ? `interrupted by ${name} before the run started; nothing was recorded in ${store}`
      : this.done
        ? `interrupted by ${name} after run ${this.runId} finished: it is stored in ${store}; its --out file was not written`
        : left
          ? `interrupted by ${name}; this worker left run ${this.runId} in ${store} to its other workers, which carry on`
          : `interrupted by ${name}; run ${this.runId} is marked failed in ${store} (the same command continues it)`;
    this.error = new HptError('E_INTERRUPTED', message, { exitCode: reason === 'SIGTERM' ? EXIT_CODES.terminated : EXIT_CODES.interrupted });
    for (const reject of [...this.rejecters]) reject(this.error);
  }

  /** Stop listening to the signal. */
  dispose(): void {
    this.signal?.removeEventListener('abort', this.listener);
  }
}
