import type { DependencyContainer } from 'tsyringe';
import { type CompatMode, type Contribution, type EnvironmentCheck, HptError, type Json, type Sample, type Scorer, type StandaloneMetric, type Verdict } from '@hpt-bench/sdk';
import { instantiate } from '../plugins/host.js';
import { didYouMean, type Registry } from '../plugins/registry.js';

/** What `hpt-bench score <id>` names: a standalone metric (kind `metrics`) or a scorer (kind `scorers`). */
export type ScoreSubject = { kind: 'metrics'; contribution: Contribution<'metrics'> } | { kind: 'scorers'; contribution: Contribution<'scorers'> };

/**
 * Resolve the id of `hpt-bench score`: a standalone metric when some plugin contributes a metric of that id (plain or
 * qualified), else a scorer; `as` forces one kind (an id such as `rouge` names both a metric and a scorer).
 * @throws HptError `E_UNKNOWN_ID` naming the closest ids and every known metric and scorer; `E_AMBIGUOUS_ID` from the
 *   registry when two plugins contribute the id.
 */
export function resolveScoreSubject(registry: Registry, id: string, as?: 'metric' | 'scorer'): ScoreSubject {
  if (as === 'metric' || (as === undefined && registry.has('metrics', id))) return { kind: 'metrics', contribution: registry.get('metrics', id) };
  if (as === 'scorer' || registry.has('scorers', id)) return { kind: 'scorers', contribution: registry.get('scorers', id) };
  const metrics = [...new Set(registry.list('metrics').map((c) => c.id))].sort();
  const scorers = [...new Set(registry.list('scorers').map((c) => c.id))].sort();
  const sugg = didYouMean(id, [...metrics, ...scorers]);
  const hint = sugg.length ? ` Did you mean ${sugg.map((s) => `'${s}'`).join(' or ')}?` : '';
  throw new HptError('E_UNKNOWN_ID', `unknown scorer or metric '${id}'.${hint} Metrics: ${metrics.join(', ') || 'none'}. Scorers: ${scorers.join(', ') || 'none'}.`);
}

/** The result of `hpt-bench score`: the aggregate (named values), per-sample values when asked, a text form when the plugin gives one. */
export interface ScoreOutcome {
  aggregate: Record<string, Json>;
  perSample?: Json[];
  text?: string;
}

/** Check that every reference stream has one entry per prediction. @throws HptError `E_CONFIG` / `E_DATA`. */
function checkStreams(predictions: readonly unknown[], references: readonly (readonly unknown[])[]): void {
  if (references.length === 0) throw new HptError('E_CONFIG', 'at least one --references file is needed');
  references.forEach((s, k) => {
    if (s.length !== predictions.length) throw new HptError('E_DATA', `references file ${k + 1} has ${s.length} segments, predictions have ${predictions.length}`);
  });
}

/**
 * Score prediction segments with a standalone metric contribution (SDK `StandaloneMetric`): built through the
 * registry's container like any contribution, then `score(predictions, references, options, perSample)`.
 * @throws HptError `E_DATA` when a reference stream's length differs, what the metric throws (`E_CONFIG` for options).
 */
export async function scoreWithMetric(container: DependencyContainer, c: Contribution<'metrics'>, predictions: string[], references: string[][], options: Record<string, string>, perSample: boolean): Promise<ScoreOutcome> {
  checkStreams(predictions, references);
  const metric = await instantiate<StandaloneMetric>(container, c);
  const r = await metric.score(predictions, references, options, perSample);
  return { aggregate: r.aggregate, ...(perSample && r.perSample ? { perSample: r.perSample } : {}), ...(r.text ? { text: r.text } : {}) };
}

/**
 * Score predictions with a scorer contribution, outside a run: sample i has id `String(i + 1)`, no input fields,
 * `targets[i]` as its target; the graded output is the prediction as the completion (empty prompt text and cue).
 * `scorer.prepare` and `scorer.preflight` run first, as in a run (hpt.md §3 scoring; DESIGN.md "Scorer").
 * @param options the scorer options (`ScoreContext.options`), e.g. `{ threshold: 0.2 }` or `{ matcher: 'list' }`.
 * @returns aggregate `{ scorer, n, solved, accuracy (solved / n), meanScore, ...metrics }` where `metrics` come from the
 *   scorer's aggregator when it has one (e.g. corpus BLEU); per sample the verdicts `{ solved, score, extracted }`.
 * @throws HptError `E_CONFIG` for more than one reference stream, what the scorer throws (`E_DATA` for a target it
 *   cannot read, `E_CONFIG` for options).
 */
export async function scoreWithScorer(container: DependencyContainer, c: Contribution<'scorers'>, predictions: string[], targets: Json[][], options: Record<string, Json>, compat: CompatMode, perSample: boolean): Promise<ScoreOutcome> {
  checkStreams(predictions, targets);
  if (targets.length > 1) throw new HptError('E_CONFIG', `scorer ${c.id} takes one --references file (one target per prediction), got ${targets.length}`);
  const scorer = await instantiate<Scorer>(container, c);
  const ctx = { compat, options };
  scorer.prepare?.(ctx);
  await scorer.preflight?.(ctx);
  const aggregator = scorer.createAggregator?.(ctx);
  const verdicts: Verdict[] = [];
  for (const [i, completion] of predictions.entries()) {
    const sample: Sample = { id: String(i + 1), index: i, input: {}, target: targets[0]![i]! };
    const v = await scorer.score(sample, { promptText: '', completion, cue: '' }, ctx);
    verdicts.push(v);
    aggregator?.add({ ...sample }, v.extracted, v.solved);
  }
  const n = verdicts.length;
  const solved = verdicts.filter((v) => v.solved).length;
  const aggregate: Record<string, Json> = {
    scorer: c.id,
    n,
    solved,
    accuracy: n ? solved / n : 0,
    meanScore: n ? verdicts.reduce((a, v) => a + v.score, 0) / n : 0,
    ...(aggregator ? { metrics: aggregator.result() } : {}),
  };
  const text = `${c.id}: ${solved} of ${n} solved (accuracy ${(100 * (aggregate.accuracy as number)).toFixed(2)}%, mean score ${(aggregate.meanScore as number).toFixed(4)})`;
  return { aggregate, ...(perSample ? { perSample: verdicts as unknown as Json[] } : {}), text };
}

/** One scorer's environment check (`runEnvironmentChecks`). */
export interface EnvironmentCheckResult {
  scorer: string;
  check: EnvironmentCheck;
}

/**
 * Run `Scorer.checkEnvironment` of the scorers whose manifest declares `environmentCheck: <name>` (e.g. `sandbox` for
 * `hpt-bench sandbox check`), or of `only` (which must declare it), with `options` as scorer options, in discovery order.
 * @throws HptError `E_CONFIG` when no installed scorer declares the check, or `only` does not declare it; `E_PLUGIN`
 *   when a declaring scorer has no `checkEnvironment`.
 */
export async function runEnvironmentChecks(registry: Registry, container: DependencyContainer, name: string, options: Record<string, Json>, only?: string): Promise<EnvironmentCheckResult[]> {
  const declaring = registry.list('scorers').filter((c) => c.decl.environmentCheck === name);
  let chosen = declaring;
  if (only !== undefined) {
    const c = registry.get('scorers', only);
    if (c.decl.environmentCheck !== name) throw new HptError('E_CONFIG', `scorer ${c.qualifiedId} declares no ${name} check (scorers that do: ${declaring.map((d) => d.qualifiedId).join(', ') || 'none'})`);
    chosen = [c];
  }
  if (chosen.length === 0) throw new HptError('E_CONFIG', `no installed scorer declares a ${name} check ("environmentCheck": "${name}" in its plugin manifest)`);
  const out: EnvironmentCheckResult[] = [];
  for (const c of chosen) {
    const scorer = await instantiate<Scorer>(container, c);
    if (!scorer.checkEnvironment) throw new HptError('E_PLUGIN', `plugin ${c.plugin.name}: scorer '${c.id}' declares environmentCheck '${name}' but has no checkEnvironment method`);
    out.push({ scorer: c.qualifiedId, check: await scorer.checkEnvironment({ compat: 'strict', options }) });
  }
  return out;
}
