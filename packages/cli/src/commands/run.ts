import { evaluate, type EvaluationCell, type EvaluationResult, isHptError, type Json, type ReportTable, type RunProgress, type RunSummary, storeLabel } from '@hpt-bench/core';
import { HptCommand, numberFlag, renderTables, TerminalTable } from '../base.js';
import { progressMode, ProgressReporter } from '../progress.js';
import { renderMatrixTable } from '../matrix.js';
import { evaluationRuns } from '../run-config.js';
import { runFlags } from '../run-flags.js';

export type { RunFlags } from '../run-flags.js';

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

  static override flags = runFlags;

  /**
   * Parse the flags into runs (`evaluationRuns`: one, or every cell of `--config`), run them with `evaluate()` (a
   * progress display per run; Ctrl-C / SIGTERM abort it), and print each summary with its report views' tables, or
   * with `--json` the summary (an array of them with `--config`). A run with errored samples exits 1.
   */
  async run(): Promise<void> {
    const { registry, container, argv } = this.discoverWithFilters(Run);
    const { flags } = await this.parse(Run, argv);
    if (flags.samples !== undefined) {
      process.stderr.write('warning: --samples is deprecated and will be removed: use --replicates (replicates per sample)\n');
      flags.replicates = flags.samples;
    }
    const { runs, labels, store } = evaluationRuns(flags, argv);
    const matrix = Boolean(flags.config);
    const mode = progressMode({ json: Boolean(flags.json), progress: flags.progress, tty: Boolean(process.stderr.isTTY) });
    const interval = numberFlag('--progress-interval', flags['progress-interval'], 0.05, 3600);
    // the progress display names the dataset, or the active run of a matrix: `[2/4] <model> × <dataset>`
    const labelOf = (cell: EvaluationCell, datasetId: string) => (matrix ? `[${cell.index + 1}/${runs.length}] ${cell.label}` : datasetId);
    let progress: ProgressReporter | undefined;
    // Ctrl-C or SIGTERM: finished samples are committed; the run is marked failed so no later step trusts it as
    // complete, and the same command continues it (evaluate() settles the store before abort() returns)
    const controller = new AbortController();
    const onSignal = (signal: NodeJS.Signals) => {
      progress?.stop(false);
      controller.abort(signal);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    let results: EvaluationResult[];
    try {
      results = await evaluate(runs, {
        store,
        plugins: { registry, container },
        signal: controller.signal,
        logger: this.logger,
        hptBenchVersion: this.config.version,
        redact: [process.env[flags['api-key-env']] ?? ''],
        tables: !flags.json,
        onRunStart: (cell, prepared) => {
          progress = new ProgressReporter(mode, labelOf(cell, prepared.datasetId), { intervalMs: 1000 * interval });
        },
        ...(mode === 'off' ? {} : { onProgress: (p: RunProgress) => progress?.update(p) }),
        onRunEnd: (_cell, finished) => progress?.stop(finished),
        onResult: (r) => {
          if (matrix && !flags.json) this.log(`${renderSummary(r.summary, storeLabel(store), r.tables)}\n`);
        },
      });
    } catch (e) {
      // an interruption exits at once: calls still in flight are abandoned (their samples are redone on resume)
      if (isHptError(e) && e.code === 'E_INTERRUPTED') {
        if (flags.json) this.printJson({ error: { code: e.code, message: e.message } });
        else process.stderr.write(`Error: ${e.message}\n`);
        process.exit(e.exitCode);
      }
      throw e;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    if (matrix) {
      if (flags.json) this.printJson(results.map((r) => r.summary));
      else this.log(renderMatrixTable(results.map((r) => ({ ...labels[r.index]!, summary: r.summary }))));
      const last = results.at(-1);
      if (last && !last.summary.complete) this.failIncomplete(last.summary, runs.length - results.length);
      return;
    }
    const { summary, tables } = results[0]!;
    if (flags.json) this.printJson(summary);
    else this.log(renderSummary(summary, storeLabel(flags.store), tables));
    if (!summary.complete) this.failIncomplete(summary);
  }

  /** A run that finished with errored samples: its figures cover the scored samples only; say so and exit 1. */
  private failIncomplete(summary: RunSummary, notRun = 0): never {
    const rest = notRun ? `; the ${notRun} later runs of the matrix were not started` : '';
    process.stderr.write(`Error: ${summary.errored} samples errored, so run ${summary.runId} is not complete (first error: ${summary.erroredSamples?.[0]?.error ?? 'see --json'}); re-run the same command to retry them${rest}\n`);
    this.exit(1);
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
