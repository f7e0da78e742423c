/**
 * The run summary (the `--json` output of `hpt-bench run`, schemas/run-summary.schema.json): HPI, accuracy and level
 * counts from the store's aggregate (hpt.md §2.1, §2.3), the dataset metric (§3), and calls, tokens and cost per level.
 */
import type { Json, LevelUsage, RunSummary } from '@hpt-bench/sdk';
import type { BatcherStats } from '../exec/batcher.js';
import type { RunStore, StoredAggregate } from '../store/store.js';
import { replicatesOf, type RunConfig } from './config.js';
import type { PreparedRun } from './resolve.js';

/**
 * The summary of a run from its stored aggregate: level counts, HPI and accuracy, the dataset metric over the stored
 * predictions (when the scorer has an aggregator), calls and tokens per level and for the selector, and with prices the
 * USD of the uncached calls (`usageAndCost`); with `extra.batch` (`run --batch`) the batcher's counts and the saving
 * against the online price.
 */
export function summarize(
  prepared: PreparedRun,
  config: RunConfig,
  runId: string,
  agg: StoredAggregate,
  erroredSamples: { sampleId: string; error: string }[],
  extra: { skipped: number; resumed: boolean; preflight: Record<string, Json> | undefined; batch?: BatcherStats },
  store: RunStore,
): RunSummary {
  const levelCounts: Record<string, number> = {};
  for (let l = 1; l <= prepared.ladderIds.length; l++) levelCounts[String(l)] = agg.levelCounts[String(l)] ?? 0;
  levelCounts.unsolved = agg.unsolved;
  let metrics: Record<string, Json> | undefined;
  if (prepared.scorer.createAggregator && agg.n > 0) {
    const metric = prepared.scorer.createAggregator({ compat: config.compat, options: prepared.scorerOptions });
    for (const r of store.iterPredictions(runId)) metric.add({ id: r.sampleId, index: r.index, input: {}, target: r.target, ...(r.meta ? { meta: r.meta } : {}) }, r.prediction, r.solved);
    metrics = metric.result();
  }
  const { levels, cost, selectorUsage, onlineCost } = usageAndCost(agg, config.prices, prepared.selector !== undefined);
  const threshold = prepared.scorerOptions.threshold;
  const summary: RunSummary = {
    runId,
    dataset: prepared.datasetId,
    model: prepared.model.id,
    mode: config.mode ?? 'manual',
    ladder: prepared.ladderIds,
    n: agg.n,
    hpi: agg.n ? agg.hpiSum / agg.n : 0,
    hpiDataset: prepared.hpiDataset,
    accuracy: agg.n ? agg.solved / agg.n : 0,
    levelCounts,
    calls: agg.calls + (selectorUsage?.calls ?? 0),
    cachedCalls: agg.cachedCalls + (selectorUsage?.cachedCalls ?? 0),
    usage: { promptTokens: agg.promptTokens + (selectorUsage?.promptTokens ?? 0), completionTokens: agg.completionTokens + (selectorUsage?.completionTokens ?? 0) },
    levels,
    ...(cost !== undefined ? { cost } : {}),
    compat: config.compat,
    seed: config.seed,
    skipped: extra.skipped,
    complete: agg.errored === 0,
    errored: agg.errored,
    ...(erroredSamples.length ? { erroredSamples } : {}),
    ...(extra.resumed ? { resumed: true } : {}),
    ...(extra.preflight ? { preflight: extra.preflight } : {}),
    ...(replicatesOf(config) > 1 ? { samples: replicatesOf(config) } : {}),
    ...(typeof threshold === 'number' ? { threshold } : {}),
    ...(metrics ? { metrics } : {}),
    ...(prepared.selector ? { selector: prepared.selector.spec, invalidSelections: agg.invalidSelections, selections: agg.selections, selectorUsage } : {}),
    ...(extra.batch ? { batch: { ...extra.batch, ...(onlineCost !== undefined && cost !== undefined ? { onlineCost, saving: Math.max(0, onlineCost - cost) } : {}) } } : {}),
  };
  return summary;
}

/**
 * Prices in USD per 1M tokens by model id (`--prices`, schemas/prices.schema.json): `input` / `output` for online
 * calls, `batchInput` / `batchOutput` for calls sent through a batch interface (`run --batch`; default: half the online
 * price, the usual batch discount).
 */
export type Prices = Record<string, { input: number; output: number; batchInput?: number; batchOutput?: number }>;

/** The share of the online price a batched call costs when a price entry gives no `batchInput` / `batchOutput`: 0.5. */
export const DEFAULT_BATCH_PRICE_FACTOR = 0.5;

/**
 * Calls, tokens and (with `prices`) USD cost per ladder level and, when `withSelector`, of the selector model. A row's
 * price counts for its uncached calls only (a cached call made no request): (prompt tokens × input + completion
 * tokens × output) / 1e6, with `batchInput` / `batchOutput` (default half the online price) for batched calls. `cost`
 * is the run's total, undefined without prices. When some calls were batched, each row with them gets `batchedCalls`
 * and (with prices) `onlineCost`, and `onlineCost` is the run's uncached calls at the online price (else undefined).
 */
export function usageAndCost(
  agg: Pick<StoredAggregate, 'usageByLevel' | 'selectorUsage'>,
  prices: Prices | undefined,
  withSelector: boolean,
): { levels: Record<string, LevelUsage>; cost: number | undefined; selectorUsage: LevelUsage | undefined; onlineCost: number | undefined } {
  const levels: Record<string, LevelUsage> = {};
  let cost: number | undefined = prices ? 0 : undefined;
  let online = 0;
  let anyBatched = false;
  const newUsage = (): LevelUsage => ({ calls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, ...(prices ? { cost: 0 } : {}) });
  // add one (model, cache state, batch state) row of usage to `into`, and its price (uncached calls only) to the run's cost
  const add = (into: LevelUsage, u: { model: string; cached: boolean; batched?: boolean; calls: number; promptTokens: number; completionTokens: number; reasoningTokens?: number; truncatedThinking?: number }) => {
    into.calls += u.calls;
    // reasoning tokens are part of the completion tokens (and so of the cost); shown apart when a provider reports them
    if (u.reasoningTokens) into.reasoningTokens = (into.reasoningTokens ?? 0) + u.reasoningTokens;
    if (u.truncatedThinking) into.truncatedThinking = (into.truncatedThinking ?? 0) + u.truncatedThinking;
    if (u.cached) into.cachedCalls += u.calls;
    if (u.batched) {
      anyBatched = true;
      into.batchedCalls = (into.batchedCalls ?? 0) + u.calls;
    }
    into.promptTokens += u.promptTokens;
    into.completionTokens += u.completionTokens;
    const price = prices?.[u.model];
    if (price && !u.cached) {
      const atOnline = (u.promptTokens * price.input + u.completionTokens * price.output) / 1e6;
      const c = u.batched ? (u.promptTokens * (price.batchInput ?? price.input * DEFAULT_BATCH_PRICE_FACTOR) + u.completionTokens * (price.batchOutput ?? price.output * DEFAULT_BATCH_PRICE_FACTOR)) / 1e6 : atOnline;
      into.cost! += c;
      cost! += c;
      online += atOnline;
      into.onlineCost = (into.onlineCost ?? 0) + atOnline;
    }
  };
  for (const u of agg.usageByLevel) add((levels[String(u.level)] ??= newUsage()), u);
  let selectorUsage: LevelUsage | undefined;
  if (withSelector) {
    selectorUsage = newUsage();
    for (const u of agg.selectorUsage) add(selectorUsage, u);
  }
  // the online comparison is shown only for runs with batched calls
  if (!anyBatched) for (const u of [...Object.values(levels), ...(selectorUsage ? [selectorUsage] : [])]) delete u.onlineCost;
  return { levels, cost, selectorUsage, onlineCost: anyBatched && prices ? online : undefined };
}
