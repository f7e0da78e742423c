/**
 * `run --batch`: the check, before any call and before a run row exists, that every model of the run that makes
 * requests can be called through a batch interface (`Model.batch`).
 */
import { HptError } from '@hpt-bench/sdk';
import type { PreparedRun } from './resolve.js';

/**
 * Check that the evaluated model, the knowledge model and the adaptive selector's model (when there is one) all have a
 * batch interface (`Model.batch`, given by the model's plugin).
 * @throws HptError `E_CONFIG` (usage error, exit 2) naming the models without one.
 */
export function checkBatchable(prepared: Pick<PreparedRun, 'model' | 'knowledgeModel' | 'selector' | 'extractorModel'>): void {
  const models = [prepared.model, prepared.knowledgeModel, ...(prepared.selector?.model ? [prepared.selector.model] : []), ...(prepared.extractorModel ? [prepared.extractorModel] : [])];
  const without = [...new Set(models.filter((m) => !m.batch).map((m) => m.id))];
  if (without.length) {
    throw new HptError('E_CONFIG', `--batch needs models with a batch interface (Model.batch, given by the model's plugin); ${without.join(', ')} has none`, {
      exitCode: 2,
      hint: 'run without --batch, or choose a model whose plugin supports batches (`hpt-bench list models`)',
    });
  }
}
