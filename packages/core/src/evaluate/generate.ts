/**
 * `generatedRecords()`: the records of a generated dataset (any plugin's `Dataset.generate`), the job of
 * `hpt-bench generate` without its output. Same seed, compat mode, filters and source give the same records
 * (DESIGN.md "The four plugin kinds": generated datasets).
 */
import { resolve } from 'node:path';
import { type Dataset, type GenerateOptions, type Json, HptError } from '@hpt-bench/sdk';
import { checkFilters } from '../plugins/filters.js';
import { instantiate } from '../plugins/host.js';
import type { EvaluationPlugins } from './evaluate.js';

/**
 * The records of generated dataset `datasetId`, lazily (one at a time, in the generator's order), for `options`: the
 * generator's seed, the compat mode, filter values per declared filter, and a local `data` source (resolved against the
 * working directory; for a dataset built from data rather than drawn at random).
 * @returns the dataset's qualified id and the records.
 * @throws HptError `E_UNKNOWN_ID` for an unknown dataset; `E_CONFIG` for filters the dataset does not declare (or
 *   values it does not allow) and for a dataset that is not generated; what the generator throws (e.g. `--data` for a
 *   generator drawn from the seed).
 */
export async function generatedRecords(plugins: EvaluationPlugins, datasetId: string, options: GenerateOptions): Promise<{ datasetId: string; records: Iterable<Record<string, Json>> }> {
  const dc = plugins.registry.get('datasets', datasetId);
  checkFilters(dc.id, dc.decl, options.filters);
  const dataset = dc.decl.module ? await instantiate<Dataset>(plugins.container, dc) : undefined;
  if (!dataset?.generate) {
    throw new HptError('E_CONFIG', `dataset ${dc.qualifiedId} is not generated; \`generate\` works for generated datasets only (see \`hpt-bench list datasets\`)`);
  }
  const records = dataset.generate({ seed: options.seed, compat: options.compat, filters: options.filters, ...(options.data !== undefined ? { data: resolve(options.data) } : {}) });
  return { datasetId: dc.qualifiedId, records };
}
