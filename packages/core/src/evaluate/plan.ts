/**
 * `planEvaluation()`: the dry run of `evaluate()` (`hpt-bench plan`): for each run, its configuration as `evaluate()`
 * would run it (the HPI_Dataset saved by `calibrate --save` included), resolved, and planned (`planRun`): samples,
 * stored, cached, calls and cost. No model is called and the store is only read.
 */
import type { Logger } from '@hpt-bench/sdk';
import { planRun, type RunPlanEstimate } from '../run/plan.js';
import { checkPowerTarget, type PowerTarget } from '../run/power.js';
import { prepareRun } from '../run/resolve.js';
import { RunSession } from '../run/session.js';
import type { EvaluationPlugins, EvaluationRun } from './evaluate.js';

/** Where to plan: the store `evaluate()` would use, the plugins, and a logger for notes (the saved HPI_Dataset used). */
export interface PlanEvaluationOptions {
  store: string;
  plugins: EvaluationPlugins;
  logger?: Logger;
  /** plan the sample size of a paired comparison for every run (`RunPlanEstimate.power`, `planPower`) */
  power?: PowerTarget;
}

/**
 * Plan every run of an evaluation, in order.
 * @returns one `RunPlanEstimate` per run.
 * @throws HptError `E_CONFIG` for an invalid `options.power` (before anything is prepared); HptError from configuration
 *   and preparation (the first failing run's), and what `planRun` throws.
 */
export async function planEvaluation(runs: readonly EvaluationRun[], options: PlanEvaluationOptions): Promise<RunPlanEstimate[]> {
  if (options.power) checkPowerTarget(options.power);
  const { registry, container } = options.plugins;
  const plans: RunPlanEstimate[] = [];
  for (const run of runs) {
    let config = run.config;
    if (!run.resume) {
      const session = RunSession.forRun(options.store, config, container, options.logger);
      try {
        config = session.withSavedHpiDataset(config, registry.get('datasets', config.dataset).id);
      } finally {
        session.close();
      }
    }
    const prepared = await prepareRun(config, registry, container);
    plans.push(await planRun(prepared, { storePath: options.store, ...(options.power ? { power: options.power } : {}) }));
  }
  return plans;
}
