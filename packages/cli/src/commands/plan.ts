import * as Flags from '@oclif/core/flags';
import { HptError, planEvaluation, type PowerPlan, type PowerTarget, type RunPlanEstimate, storeLabel } from '@hpt-bench/core';
import { HptCommand } from '../base.js';
import { evaluationRuns } from '../run-config.js';
import { runFlags } from '../run-flags.js';
import { TerminalTable } from '../terminal.js';

/** One cell of `hpt-bench plan --json`: the cell's labels (as in `run --config`) and its plan (`RunPlanEstimate`). */
export interface PlanCell extends RunPlanEstimate {
  /** the model's label: its `name` in the evaluation file, else its id */
  modelLabel: string;
  /** the dataset's label: its `name` in the evaluation file, else its id */
  datasetLabel: string;
}

/** `hpt-bench plan`: the dry run of `run` (issue 16): the matrix's cells, samples, stored, cached, calls and cost. */
export default class Plan extends HptCommand {
  static override summary = 'Show what `run` would do (samples, stored, cached, calls, cost) without calling any model.';
  static override description = `Takes the flags of \`run\` (or --config FILE) and, for each cell of the matrix (model × dataset, with its ladder and seed), prints the samples, how many are already stored in the run \`run\` would continue (or in a completed run of the same configuration), how many level-1 calls the model-call cache already answers, the upper bound of calls (every level climbed), an estimate (calls per sample of the newest completed run of the same dataset and ladder, any model; else the upper bound), and with --prices (or the file's prices) the estimated cost. Nothing is called and the store is not written. With --detect D (an HPI difference in levels) or --detect-accuracy D (an accuracy difference as a share), also the samples a paired comparison of two runs on this data needs for --power (default 0.8) at two-sided --alpha (default 0.05), from the per-sample spread of the newest comparable completed runs in the store (same data; for HPI the same ladder length and HPI_Dataset), else a stated default, and whether the plan has that many (\`power\` in each cell of --json). --json prints an array of cell objects.`;
  static override examples = [
    '<%= config.bin %> plan --config eval.yaml',
    '<%= config.bin %> plan --config eval.yaml --prices prices.json --json',
    '<%= config.bin %> plan --dataset my-dataset --data samples.jsonl --model openai:gpt-4o-mini --base-url http://127.0.0.1:8000/v1',
    '<%= config.bin %> plan --config eval.yaml --detect 0.1',
    '<%= config.bin %> plan --config eval.yaml --detect-accuracy 0.02 --power 0.9 --json',
  ];
  static override flags = {
    ...runFlags,
    detect: Flags.string({ description: 'also plan the samples a paired comparison needs to detect this HPI difference (in levels, e.g. 0.1), from the per-sample spread of the newest comparable runs in the store (same data), else a stated default', exclusive: ['detect-accuracy'], helpGroup: 'POWER' }),
    'detect-accuracy': Flags.string({ description: 'also plan the samples a paired comparison (McNemar) needs to detect this accuracy difference, a share in (0, 1) (0.02 = 2 points), from the discordance of the newest comparable runs in the store, else a stated default', exclusive: ['detect'], helpGroup: 'POWER' }),
    power: Flags.string({ description: 'with --detect / --detect-accuracy: the power to reach, in (0, 1) (default 0.8)', helpGroup: 'POWER' }),
    alpha: Flags.string({ description: 'with --detect / --detect-accuracy: the two-sided significance level, in (0, 1) (default 0.05)', helpGroup: 'POWER' }),
  };

  async run(): Promise<void> {
    const { registry, container, argv } = this.discoverWithFilters(Plan);
    const { flags } = await this.parse(Plan, argv);
    if (flags.samples !== undefined) flags.replicates = flags.samples;
    const power = powerTargetOf(flags);
    const { runs, labels, store } = evaluationRuns(flags, argv);
    const estimates = await planEvaluation(runs, { store, plugins: { registry, container }, logger: this.logger, ...(power ? { power } : {}) });
    const plans: PlanCell[] = estimates.map((p, i) => ({ ...p, modelLabel: labels[i]!.model, datasetLabel: labels[i]!.dataset }));
    if (flags.json) this.printJson(plans);
    else this.log(renderPlan(plans, storeLabel(store)));
  }
}

/**
 * The `PowerTarget` of `--detect` / `--detect-accuracy` with `--power` and `--alpha` (undefined without either detect
 * flag); the core checks the ranges (`checkPowerTarget`).
 * @throws HptError `E_CONFIG` (exit 2) for a value that is not a number, or `--power` / `--alpha` without a detect flag.
 */
export function powerTargetOf(flags: { detect?: string; 'detect-accuracy'?: string; power?: string; alpha?: string }): PowerTarget | undefined {
  const num = (flag: string, v: string): number => {
    const n = Number(v);
    if (!v.trim() || Number.isNaN(n)) throw new HptError('E_CONFIG', `${flag} must be a number, got '${v}'`);
    return n;
  };
  const settings = { ...(flags.power !== undefined ? { power: num('--power', flags.power) } : {}), ...(flags.alpha !== undefined ? { alpha: num('--alpha', flags.alpha) } : {}) };
  if (flags.detect !== undefined) return { detect: num('--detect', flags.detect), ...settings };
  if (flags['detect-accuracy'] !== undefined) return { detectAccuracy: num('--detect-accuracy', flags['detect-accuracy']), ...settings };
  if (flags.power !== undefined || flags.alpha !== undefined) throw new HptError('E_CONFIG', `${flags.power !== undefined ? '--power' : '--alpha'} plans a sample size: give --detect or --detect-accuracy with it`);
  return undefined;
}

/**
 * One line on a plan's sample size (`PowerPlan`), e.g. "To detect an HPI difference of 0.10 with 80% power at α = 0.05
 * (paired, two-sided): 1,234 samples (sd of the per-sample difference 1.77 from runs X and Y ...); this plan has 500:
 * not enough."
 */
export function renderPower(p: PowerPlan): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const pc = (x: number) => `${+(x * 100).toFixed(2)}%`;
  const what = p.detect !== undefined ? `an HPI difference of ${p.detect < 0.1 ? +p.detect.toPrecision(3) : p.detect.toFixed(2)}` : `an accuracy difference of ${+(p.detectAccuracy! * 100).toFixed(2)} points`;
  const test = p.detect !== undefined ? 'paired, two-sided' : "McNemar's test, two-sided";
  const spread = p.detect !== undefined ? `sd of the per-sample difference ${p.sdDiff!.toFixed(2)}` : `discordant pairs ${pc(p.discordance!)}`;
  return `To detect ${what} with ${pc(p.power)} power at α = ${p.alpha} (${test}): ${n(p.samplesNeeded)} samples (${spread}${p.source.note.startsWith('from ') ? ' ' : '; '}${p.source.note}); this plan has ${n(p.available)}: ${p.enough ? 'enough' : 'not enough'}.`;
}

/** The human-readable plan: one row per cell, a totals row, and notes on how the figures were obtained. */
export function renderPlan(plans: readonly PlanCell[], storePath: string): string {
  const withCost = plans.some((p) => p.cost !== undefined);
  const t = new TerminalTable({ head: ['model', 'dataset', 'ladder', 'seed', 'samples', 'stored', 'cached (level 1)', 'calls (upper bound)', 'calls (estimate)', ...(withCost ? ['est. cost (USD)'] : [])] });
  const sum = (f: (p: PlanCell) => number) => plans.reduce((n, p) => n + f(p), 0);
  for (const p of plans) {
    const stored = p.storedIn ? `${p.stored} (${p.storedIn.continued ? 'continues' : 'completed'} ${p.storedIn.runId})` : '0';
    const estimate = p.estimateFrom ? `${p.callsEstimate} (${p.estimateFrom.callsPerSample.toFixed(2)}/sample, run ${p.estimateFrom.runId})` : `${p.callsEstimate} (upper bound)`;
    t.push([
      p.modelLabel,
      p.datasetLabel,
      `${p.ladder.length} levels${p.mode === 'adaptive' ? ', adaptive' : ''}`,
      String(p.seed),
      String(p.samples),
      stored,
      p.cached === null ? 'n/a' : String(p.cached),
      `${p.callsUpperBound} (${p.maxCallsPerSample}/sample)`,
      estimate,
      ...(withCost ? [p.cost === undefined ? 'n/a' : `$${p.cost.toFixed(4)}`] : []),
    ]);
  }
  if (plans.length > 1) {
    t.push(['total', '', '', '', String(sum((p) => p.samples)), String(sum((p) => p.stored)), String(sum((p) => p.cached ?? 0)), String(sum((p) => p.callsUpperBound)), String(sum((p) => p.callsEstimate)), ...(withCost ? [`$${sum((p) => p.cost ?? 0).toFixed(4)}`] : [])]);
  }
  const notes = [
    `nothing was called; store ${storePath} was only read`,
    'cached: remaining samples whose level-1 call is in the model-call cache (later levels are not checked; n/a: adaptive mode, --no-cache, or a model without endpoint)',
    'estimate: calls per sample of the newest completed run of the same dataset and ladder (of the same model and reasoning effort when there is one), else the upper bound; cost from its tokens per call, else level-1 prompt characters / 4 and --max-tokens per call',
  ];
  const power = plans.filter((p) => p.power).map((p) => `${plans.length > 1 ? `${p.modelLabel} × ${p.datasetLabel}: ` : ''}${renderPower(p.power!)}`);
  return `${t.toString()}\n${notes.join('\n')}${power.length ? `\n\n${power.join('\n')}` : ''}`;
}
