import { planEvaluation, type RunPlanEstimate, storeLabel } from '@hpt-bench/core';
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
  static override description = `Takes the flags of \`run\` (or --config FILE) and, for each cell of the matrix (model × dataset, with its ladder and seed), prints the samples, how many are already stored in the run \`run\` would continue (or in a completed run of the same configuration), how many level-1 calls the model-call cache already answers, the upper bound of calls (every level climbed), an estimate (calls per sample of the newest completed run of the same dataset and ladder, any model; else the upper bound), and with --prices (or the file's prices) the estimated cost. Nothing is called and the store is not written. --json prints an array of cell objects.`;
  static override examples = [
    '<%= config.bin %> plan --config eval.yaml',
    '<%= config.bin %> plan --config eval.yaml --prices prices.json --json',
    '<%= config.bin %> plan --dataset my-dataset --data samples.jsonl --model openai:gpt-4o-mini --base-url http://127.0.0.1:8000/v1',
  ];
  static override flags = runFlags;

  async run(): Promise<void> {
    const { registry, container, argv } = this.discoverWithFilters(Plan);
    const { flags } = await this.parse(Plan, argv);
    if (flags.samples !== undefined) flags.replicates = flags.samples;
    const { runs, labels, store } = evaluationRuns(flags, argv);
    const estimates = await planEvaluation(runs, { store, plugins: { registry, container }, logger: this.logger });
    const plans: PlanCell[] = estimates.map((p, i) => ({ ...p, modelLabel: labels[i]!.model, datasetLabel: labels[i]!.dataset }));
    if (flags.json) this.printJson(plans);
    else this.log(renderPlan(plans, storeLabel(store)));
  }
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
  return `${t.toString()}\n${notes.join('\n')}`;
}
