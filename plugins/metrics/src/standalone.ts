import { HptError, type Json, type StandaloneMetric as StandaloneMetricContract, type StandaloneScore } from '@hpt-bench/sdk';
import { bleuHf, bleuHfSentence, sacreBleuCorpus, sacreBleuSentence, type SacreBleuOptions } from './bleu.js';
import { rougeScore, ROUGE_TYPES, type RougeValue } from './rouge.js';

/** Ids of the standalone metrics of this plugin (manifest kind `metrics`, `hpt-bench score <id>`). */
export const STANDALONE_METRICS = ['sacrebleu', 'bleu-hf', 'rouge'] as const;
export type StandaloneMetric = (typeof STANDALONE_METRICS)[number];

const OPTIONS: Record<StandaloneMetric, readonly string[]> = {
  sacrebleu: ['tokenize', 'smooth', 'smooth-value', 'lowercase', 'level'],
  'bleu-hf': ['level', 'smooth'],
  rouge: ['stemmer'],
};

function bool(metric: string, key: string, v: string): boolean {
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new HptError('E_CONFIG', `${metric} option ${key} must be true or false, got '${v}'`);
}

function level(metric: string, v: string | undefined): 'corpus' | 'sentence' {
  if (v === undefined || v === 'corpus' || v === 'sentence') return v ?? 'corpus';
  throw new HptError('E_CONFIG', `${metric} option level must be corpus or sentence, got '${v}'`);
}

/**
 * Score `predictions` against one or more reference streams with a metric alone (`hpt-bench score`).
 *
 * @param metric `sacrebleu` (sacreBLEU 2.x-compatible, 0-100), `bleu-hf` (HF evaluate / TF-NMT BLEU, 0-1, the HPT
 *   reference's), or `rouge` (rouge_score-compatible; with several references the best F per type, as `score_multi`).
 * @param predictions one segment per entry.
 * @param referenceStreams `referenceStreams[k][i]` = k-th reference of segment i; every stream as long as `predictions`.
 * @param options `k=v` strings: sacrebleu `tokenize=13a|none`, `smooth=exp|floor|add-k|none`, `smooth-value=X`,
 *   `lowercase=true`, `level=corpus|sentence`; bleu-hf `level`, `smooth=true`; rouge `stemmer=true`.
 * @param perSample one score per segment (sentence level) instead of one for the corpus.
 * @returns BLEU: `{score, ...statistics}` (corpus), `{score}` = mean of sentence scores (`level=sentence`), or
 *   `{scores: [...]}` (per sample); ROUGE: `{rouge1: {precision, recall, fmeasure}, rouge2, rougeL, rougeLsum}` (means
 *   over segments) or `{scores: [{rouge1: ...}, ...]}` (per sample).
 * @throws HptError `E_CONFIG` for an unknown metric or option, `E_DATA` when the streams' lengths differ.
 */
export function scoreStandalone(metric: string, predictions: string[], referenceStreams: string[][], options: Record<string, string>, perSample: boolean): Record<string, Json> {
  if (!(STANDALONE_METRICS as readonly string[]).includes(metric)) {
    throw new HptError('E_CONFIG', `unknown metric '${metric}': use one of ${STANDALONE_METRICS.join(', ')}`);
  }
  const m = metric as StandaloneMetric;
  for (const k of Object.keys(options)) {
    if (!OPTIONS[m].includes(k)) throw new HptError('E_CONFIG', `unknown option '${k}' for ${m}: valid options are ${OPTIONS[m].join(', ')}`);
  }
  if (referenceStreams.length === 0) throw new HptError('E_CONFIG', 'at least one --references file is needed');
  referenceStreams.forEach((s, k) => {
    if (s.length !== predictions.length) throw new HptError('E_DATA', `references file ${k + 1} has ${s.length} segments, predictions have ${predictions.length}`);
  });
  const refsOf = (i: number) => referenceStreams.map((s) => s[i]!);

  if (m === 'sacrebleu') {
    const smoothValue = options['smooth-value'];
    const o: SacreBleuOptions = {
      ...(options.tokenize ? { tokenize: options.tokenize as SacreBleuOptions['tokenize'] } : {}),
      ...(options.smooth ? { smooth: options.smooth as SacreBleuOptions['smooth'] } : {}),
      ...(smoothValue !== undefined ? { smoothValue: Number(smoothValue) } : {}),
      ...(options.lowercase ? { lowercase: bool(m, 'lowercase', options.lowercase) } : {}),
    };
    if (smoothValue !== undefined && !Number.isFinite(Number(smoothValue))) throw new HptError('E_CONFIG', `sacrebleu option smooth-value must be a number, got '${smoothValue}'`);
    const lv = level(m, options.level);
    if (perSample || lv === 'sentence') {
      const scores = predictions.map((p, i) => sacreBleuSentence(p, refsOf(i), o).score);
      return perSample ? { scores } : { score: mean(scores), level: 'sentence', n: scores.length };
    }
    const r = sacreBleuCorpus(predictions, referenceStreams, o);
    return { ...r, level: 'corpus', nrefs: referenceStreams.length } as unknown as Record<string, Json>;
  }
  if (m === 'bleu-hf') {
    const o = { smooth: options.smooth ? bool(m, 'smooth', options.smooth) : false };
    const lv = level(m, options.level);
    if (perSample || lv === 'sentence') {
      const scores = predictions.map((p, i) => bleuHfSentence(p, refsOf(i), o).bleu);
      return perSample ? { scores } : { score: mean(scores), level: 'sentence', n: scores.length };
    }
    const r = bleuHf(predictions, predictions.map((_, i) => refsOf(i)), o);
    return { score: r.bleu, ...r, level: 'corpus' } as unknown as Record<string, Json>;
  }
  const stemmer = options.stemmer ? bool(m, 'stemmer', options.stemmer) : false;
  const per = predictions.map((p, i) => bestRouge(refsOf(i), p, stemmer));
  if (perSample) return { scores: per as unknown as Json[] };
  const out: Record<string, Json> = {};
  for (const t of ROUGE_TYPES) {
    out[t] = {
      precision: mean(per.map((s) => s[t]!.precision)),
      recall: mean(per.map((s) => s[t]!.recall)),
      fmeasure: mean(per.map((s) => s[t]!.fmeasure)),
    };
  }
  return out;
}

/** rouge_score `score_multi`: per type, the reference giving the highest F-measure. */
function bestRouge(refs: string[], prediction: string, stemmer: boolean): Record<string, RougeValue> {
  let best: Record<string, RougeValue> | undefined;
  for (const ref of refs) {
    const s = rougeScore(ref, prediction, ROUGE_TYPES, { stemmer });
    if (!best) best = s;
    else for (const t of ROUGE_TYPES) if (s[t]!.fmeasure > best[t]!.fmeasure) best[t] = s[t]!;
  }
  return best!;
}

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** One line for a BLEU aggregate: `sacrebleu 48.53 (82.4/50.0/45.5/37.5, BP 0.943)` (sacrebleu on 0-100, bleu-hf 0-1). */
function bleuText(metric: StandaloneMetric, r: Record<string, Json>): string {
  const score = r.score as number;
  const precisions = r.precisions as number[] | undefined;
  const bp = (r.bp ?? r.brevityPenalty ?? 0) as number;
  const extra = precisions ? ` (${precisions.map((p) => p.toFixed(1)).join('/')}, BP ${bp.toFixed(3)})` : '';
  return `${metric} ${metric === 'sacrebleu' ? score.toFixed(2) : score.toFixed(4)}${extra}`;
}

/** Lines for a ROUGE aggregate: one per type, `rouge1    P 1.0000  R 0.6667  F 0.7500`. */
function rougeText(r: Record<string, Json>): string {
  return Object.entries(r)
    .map(([t, v]) => {
      const x = v as { precision: number; recall: number; fmeasure: number };
      return `${t.padEnd(9)} P ${x.precision.toFixed(4)}  R ${x.recall.toFixed(4)}  F ${x.fmeasure.toFixed(4)}`;
    })
    .join('\n');
}

/**
 * A metric of this plugin as the SDK's `StandaloneMetric` (manifest kind `metrics`): the aggregate of
 * `scoreStandalone(id, ..., perSample = false)` and, when asked, the per-segment values of `perSample = true`.
 */
abstract class BuiltinMetric implements StandaloneMetricContract {
  abstract readonly id: StandaloneMetric;
  score(predictions: string[], references: string[][], options: Record<string, string>, perSample: boolean): StandaloneScore {
    const aggregate = scoreStandalone(this.id, predictions, references, options, false);
    const text = this.id === 'rouge' ? rougeText(aggregate) : bleuText(this.id, aggregate);
    if (!perSample) return { aggregate, text };
    const per = scoreStandalone(this.id, predictions, references, options, true);
    return { aggregate, perSample: per.scores as Json[], text };
  }
}

/** `sacrebleu`: sacreBLEU 2.x-compatible BLEU, 0-100 (hpt.md §3; options in `scoreStandalone`). */
export class SacreBleuMetric extends BuiltinMetric {
  readonly id = 'sacrebleu' as const;
}

/** `bleu-hf`: the HF evaluate / TF-NMT BLEU the HPT reference reports, 0-1 (hpt.md §3). */
export class BleuHfMetric extends BuiltinMetric {
  readonly id = 'bleu-hf' as const;
}

/** `rouge`: rouge_score-compatible ROUGE-1/2/L/Lsum (hpt.md §3); several references: the best F per type. */
export class RougeMetric extends BuiltinMetric {
  readonly id = 'rouge' as const;
}
