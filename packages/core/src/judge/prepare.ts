/**
 * Resolution of what `hpt-bench judge` and `hpt-bench calibrate --judge` rate: datasets with their prompt packs and the
 * ladder's levels, the same way `prepareRun` resolves them for `hpt-bench run` (issue #6 items 3-4).
 */
import { join } from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import type { Dataset, DatasetLoadOptions, PromptPack, Sample } from '../contracts.js';
import { DeclarativeDataset } from '../data/declarative.js';
import { instantiate } from '../plugins/host.js';
import type { DatasetDecl, StrategyDecl } from '../plugins/manifest.js';
import type { Registry } from '../plugins/registry.js';
import { GENERIC_PACK_PATH, loadPromptPack, withGenericInput } from '../prompt/pack.js';
import { resolveLadder } from '../run/run.js';
import type { JudgeLevel } from './judge.js';

/**
 * A dataset resolved for the judge: its canonical id, declaration, instance, prompt pack (the generic pack when the
 * dataset names none) and whether that is the generic pack (then samples get `withGenericInput`).
 */
export interface JudgeDatasetSource {
  datasetId: string;
  decl: DatasetDecl;
  dataset: Dataset;
  pack: PromptPack;
  genericPack: boolean;
}

/**
 * Resolve dataset `id` (plain, qualified or alias) and its prompt pack, as `prepareRun` does.
 * @throws HptError `E_UNKNOWN_ID` / `E_AMBIGUOUS_ID` for the id, `E_PACK` for a bad pack, `E_PLUGIN` for a dataset module
 *   that does not load.
 */
export async function resolveJudgeDataset(registry: Registry, container: DependencyContainer, id: string): Promise<JudgeDatasetSource> {
  const dc = registry.get('datasets', id);
  const decl = dc.decl;
  const dataset: Dataset = decl.module ? await instantiate<Dataset>(container, dc) : new DeclarativeDataset(decl, dc.plugin.root);
  const pack = loadPromptPack(decl.promptPack ? join(dc.plugin.root, decl.promptPack) : GENERIC_PACK_PATH);
  return { datasetId: dc.id, decl, dataset, pack, genericPack: !decl.promptPack };
}

/**
 * The levels of ladder `ladder` (an id or a JSON file, see `resolveLadder`): 1-based level, strategy id, and the
 * strategy's own template when it is a declarative single-call strategy (used when a pack has no entry for it).
 * @throws HptError `E_UNKNOWN_ID` for an unknown ladder or strategy, `E_CONFIG` for a bad ladder file.
 */
export function judgeLevels(registry: Registry, ladder: string): JudgeLevel[] {
  return resolveLadder(registry, ladder).levels.map((sid, i) => {
    const sc = registry.get('strategies', sid);
    const decl = sc.decl as StrategyDecl;
    return { level: i + 1, strategy: sc.id, ...(decl.kind === 'single-call' && decl.template !== undefined ? { fallbackTemplate: decl.template } : {}) };
  });
}

/**
 * Stream the samples of a resolved dataset: at most `limit` (the first ones; all when undefined), mapped with
 * `withGenericInput` when the dataset uses the generic pack.
 * @throws what `Dataset.load` throws (HptError `E_DATA` naming the record, `E_CONFIG` for a bad split...).
 */
export async function* judgeSamples(source: JudgeDatasetSource, load: DatasetLoadOptions, limit?: number): AsyncGenerator<Sample> {
  if (limit !== undefined && limit <= 0) return;
  let n = 0;
  for await (const sample of source.dataset.load(load)) {
    yield source.genericPack ? withGenericInput(sample) : sample;
    if (limit !== undefined && ++n >= limit) return;
  }
}
