/**
 * Resolution of what `hpt-bench judge` and `hpt-bench calibrate --judge` rate: the ladder's levels and the samples of
 * datasets resolved with `resolveDatasetSource` (as `prepareRun` resolves them for `hpt-bench run`).
 */
import type { DependencyContainer } from 'tsyringe';
import type { DatasetLoadOptions, Sample, StrategyDecl } from '@hpt-bench/sdk';
import type { Registry } from '../plugins/registry.js';
import { withGenericInput } from '../prompt/pack.js';
import { resolveLadder, strategyOf, type DatasetSource } from '../run/resolve.js';
import type { JudgedLevel, JudgeLevel } from './judge.js';

/**
 * The levels of ladder `ladder` (an id or a JSON file, see `resolveLadder`): 1-based level, strategy id, and the
 * strategy's own template when it is a declarative single-call strategy (used when a pack has no entry for it).
 * @throws HptError `E_UNKNOWN_ID` for an unknown ladder or strategy, `E_CONFIG` for a bad ladder file.
 */
export function judgeLevels(registry: Registry, ladder: string): JudgeLevel[] {
  return resolveLadder(registry, ladder).levels.map((sid, i) => {
    const sc = registry.get('strategies', sid);
    const decl = sc.decl as StrategyDecl;
    return { level: i + 1, strategy: sc.id, ...(decl.kind === 'single-call' && decl.template !== undefined ? { fallbackTemplate: decl.template } : {}), ...(decl.packEntry !== undefined ? { packEntry: decl.packEntry } : {}) };
  });
}

/**
 * The levels of ladder `ladder` with their strategy instances, built as a run builds them (`strategyOf`: a
 * single-call strategy with its fallback template, a code strategy with the ladder's options for it): what `runJudge`
 * rates.
 * @throws HptError `E_UNKNOWN_ID` for an unknown ladder or strategy, `E_CONFIG` for a bad ladder file, `E_PLUGIN` /
 *   `E_OPTIONS` for a strategy that cannot be built.
 */
export async function judgeLadder(registry: Registry, container: DependencyContainer, ladder: string): Promise<JudgedLevel[]> {
  const decl = resolveLadder(registry, ladder);
  const levels = judgeLevels(registry, ladder);
  const out: JudgedLevel[] = [];
  for (const [i, level] of levels.entries()) {
    const sid = decl.levels[i]!;
    out.push({ ...level, instance: await strategyOf(container, registry.get('strategies', sid), decl.options?.[sid] ?? {}) });
  }
  return out;
}

/**
 * Stream the samples of a resolved dataset: at most `limit` (the first ones; all when undefined), mapped with
 * `withGenericInput` when the dataset uses the generic pack.
 * @throws what `Dataset.load` throws (HptError `E_DATA` naming the record, `E_CONFIG` for a bad split...).
 */
export async function* judgeSamples(source: DatasetSource, load: DatasetLoadOptions, limit?: number): AsyncGenerator<Sample> {
  if (limit !== undefined && limit <= 0) return;
  let n = 0;
  for await (const sample of source.dataset.load(load)) {
    yield source.genericPack ? withGenericInput(sample, source.pack) : sample;
    if (limit !== undefined && ++n >= limit) return;
  }
}
